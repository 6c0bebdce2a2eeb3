/**
 * Labelled example frames for VLM-PC+IC: views of each course at its decision points, each labelled with the best
 * command there — what a person does for the paper's +IC variant by photographing the course and writing the command
 * under each photo. Here the person's knowledge is the course's scripted solution, replayed on the real simulator over
 * the bridge; a frame is taken before each change of skill, except a move the script later backs out of (that was a
 * detour, not the best command). The agent sees only the frames, their detections, the labels and a short note.
 * They are taken at a seed (the body's ±10% in every move) of 1000 or above, which no scored trial uses: the first such
 * seed at which the scripted solution runs through.
 *
 *   npm run make:course-examples            (writes evals/datasets/course_examples/<course>.json)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { BridgeClient } from "../../robots/bridge/client";
import type { RangedDetectionsMessage } from "../../robots/msgs/detections";
import { COURSES, listCourses, type Step } from "../../robots/sim/course/scenarios";
import { startSimProcess } from "../../robots/sim/process";
import { callSkill, discoverRobots } from "../../tools/skills";
import { courseExamplesPath, EXAMPLE_SEEDS_FROM } from "./index";

/** At most this many examples a course (the paper's were "several images"). */
const PER_COURSE = 4;

/** The solution's decision points: where the skill changes, skipping a forward move the script then backs out of. */
export function decisionPoints(solution: Step[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < solution.length; i++) {
    if (i > 0 && solution[i][0] === solution[i - 1][0]) continue;
    const forward = ["walk", "crawl", "climb"].includes(solution[i][0]);
    const backedOut = solution.slice(i + 1, i + 4).some(([s]) => s === "backward");
    if (forward && backedOut) continue;
    out.push(i);
  }
  return out.slice(0, PER_COURSE);
}

const describe = (detections: RangedDetectionsMessage["detections"]) =>
  detections.length ? detections.map((x) => `${x.label} ${x.distance.toFixed(1)} m`).join(", ") : "nothing detected";

/**
 * The examples of a course at the first seed from `EXAMPLE_SEEDS_FROM` at which its solution runs through: the
 * scripted one of a hand-made course, or (a generated course) the solver's.
 */
export async function makeCourseExamples(course: string, tries = 10, solution?: Step[]) {
  const errors: string[] = [];
  const steps = solution ?? COURSES.get(course)?.solution;
  if (!steps) throw new Error(`no course ${course}; one of ${listCourses().join(", ")}`);
  for (let seed = EXAMPLE_SEEDS_FROM; seed < EXAMPLE_SEEDS_FROM + tries; seed++) {
    try {
      // The solver's way is planned on nominal motions: under the ±10% of a seed it may fall short near the end, after
      // the labelled views are taken (they label what the solver would do from there), so it need not reach the toy.
      return await examplesAt(course, seed, steps, !solution);
    } catch (err) {
      errors.push(`seed ${seed}: ${(err as Error).message}`);
    }
  }
  throw new Error(`${course}: the scripted solution did not run through at any of ${tries} seeds from ${EXAMPLE_SEEDS_FROM}:\n${errors.join("\n")}`);
}

async function examplesAt(course: string, seed: number, solution: Step[], mustReach: boolean) {
  const sim = await startSimProcess("course", ["--scenario", course, "--speed", "max", "--seed", String(seed)]);
  const client = await BridgeClient.connect(sim.url);
  try {
    const { robots } = await discoverRobots(client);
    const robot = robots[0];
    const cam = robot.cameras[0];
    let image: { data: string } | undefined;
    let detections: RangedDetectionsMessage | undefined;
    client.subscribe<{ data: string }>(cam.image, "sensor_msgs/msg/CompressedImage", (m) => (image = m));
    client.subscribe<RangedDetectionsMessage>(cam.detections!, undefined, (m) => (detections = m));
    const points = new Set(decisionPoints(solution));
    const examples = [];
    for (let i = 0; i < solution.length; i++) {
      const [skill, magnitude] = solution[i];
      if (points.has(i)) {
        for (let t = 0; (!image || !detections) && t < 100; t++) await new Promise((r) => setTimeout(r, 50));
        if (!image || !detections) throw new Error(`no camera frame from ${course}`);
        examples.push({ image: image.data, detections: detections.detections, best: { skill, magnitude }, note: `seeing ${describe(detections.detections)}: ${skill} ${magnitude}` });
      }
      image = detections = undefined;
      const result = await callSkill(client, robots, robot.id, skill, { magnitude });
      if (!result.ok) throw new Error(`${course}: scripted ${skill} ${magnitude} failed: ${result.error}`);
    }
    const check = await client.callService<{ success: boolean }>("/evaluator/check");
    if (mustReach && !check.success) throw new Error(`${course}: the solution did not reach the toy`);
    return { course, seed, examples };
  } finally {
    await client.close();
    await sim.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const course of process.argv.slice(2).length ? process.argv.slice(2) : listCourses()) {
    const file = courseExamplesPath(course);
    mkdirSync(dirname(file), { recursive: true });
    const out = await makeCourseExamples(course);
    writeFileSync(file, JSON.stringify(out) + "\n");
    process.stdout.write(`${course}: ${out.examples.length} examples at seed ${out.seed} → ${file}\n`);
  }
}
