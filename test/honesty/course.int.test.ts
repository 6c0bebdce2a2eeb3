/**
 * The firewall on the obstacle courses (VLM-PC's legged robot): hidden-state twins, driven by the same scripted skill
 * calls (test/helpers/twins.ts), give the agent identical inputs — the manifest and world description, every skill's
 * feedback and result, the head camera's frames (decoded) and detections — until something the dog can sense differs:
 * the thing comes into the camera's view, or the body touches it. Then they differ, at that step and not before.
 *
 * The twins are courses built here (a process takes only a course's name), served in this process on a loopback port
 * and reached over the bridge exactly as the agent reaches them. Each pair differs in one thing the dog cannot see
 * from where the script has taken it so far:
 * - a stool in the room behind indoor_1's wall, or no stool: seen when the dog, over the cushion, turns right;
 * - the toy at its place behind that wall, or further round the corner: seen through the opening as the dog turns
 *   back towards it after going round the couch's end;
 * - a stool behind the dog's start (outside the 60° camera), or none: felt when the dog backs into it.
 * The detector's noise is on (seeded misses and mislabels), so a draw that a hidden thing shifted would show.
 * A control pair whose difference is in view from the start shows the comparison can tell at all.
 */
import { describe, expect, it } from "vitest";
import { describeDifference, runTwins, type TwinsOutcome, type TwinStep } from "../helpers/twins";
import { findCourse, serveCourse, type Course, type Step } from "../../robots/sim/course";
import { stool } from "../../robots/sim/course/scene";

/** The scripted solutions are checked under this seed (the skills' ±10% disturbance comes from it). */
const SEED = 1;
/** Misses and mislabels on: the detector draws for each object in view, so a hidden one must not shift the draws. */
const NOISE = { missRate: 0.2, mislabelRate: 0.1 };

const indoor1 = findCourse("indoor_1");
const withStool = (c: Course, at: { x: number; y: number }): Course => ({ ...c, things: [...c.things, stool(at)] });
const withToyAt = (c: Course, at: { x: number; y: number }): Course => ({ ...c, toy: at });
const calls = (steps: readonly Step[]): TwinStep[] =>
  steps.map(([skill, magnitude]) => ({ robot: "dog", skill, args: { magnitude } }));

/** Serves each course of the pair in this process, as `serve-sim course` would serve a named one. */
function twins(courseA: Course, courseB: Course, steps: readonly Step[]): Promise<TwinsOutcome> {
  const courses = [courseA, courseB];
  return runTwins({
    world: "course",
    twins: [[], []],
    steps: calls(steps),
    start: async (_own, i) => {
      const served = await serveCourse({
        scenario: indoor1.name,
        course: courses[i],
        seed: SEED,
        noise: NOISE,
        speed: Infinity,
        port: 0,
        width: 160,
        height: 120,
      });
      return { url: served.server.url, stop: () => served.close() };
    },
  });
}

type Odometry = { moved: number; turned: number; stalled: boolean; message: string };
const result = (t: TwinsOutcome["a"], step: number) => t.steps[step].result as { ok: boolean; values: Odometry };
const pixels = (t: TwinsOutcome["a"], step: number) => t.steps[step].views.dog.image?.pixels;
const labels = (transcript: TwinsOutcome["a"], step: number) =>
  (transcript.steps[step].views.dog.detections as { detections: { label: string }[] }).detections.map((d) => d.label);

/** Every scripted skill ran (an identical transcript of refusals would prove nothing). */
function ranThrough(outcome: TwinsOutcome, steps: number): void {
  for (const side of [outcome.a, outcome.b]) {
    expect(side.steps).toHaveLength(steps + 1);
    for (let i = 1; i <= steps; i++) expect(result(side, i).ok, JSON.stringify(side.steps[i].result)).toBe(true);
  }
}

describe("course twins: identical to the agent until the dog can sense the difference", () => {
  it("a stool behind indoor_1's wall, or none: identical until the dog, over the cushion, turns right and sees it", async () => {
    // The solution: under the couch into the dead end, back out, round the couch's end, over the cushion, then the
    // 13th skill turns right, facing the room behind the wall for the first time.
    const outcome = await twins(indoor1, withStool(indoor1, { x: 3.5, y: -1.2 }), indoor1.solution);
    ranThrough(outcome, indoor1.solution.length);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(13);
    // What differs then is what the camera shows (the turn itself went the same); the stool is in the picture.
    expect(result(outcome.b, 13)).toEqual(result(outcome.a, 13));
    expect(pixels(outcome.b, 13)).not.toBe(pixels(outcome.a, 13));
    expect(outcome.difference!.path).toMatch(/^views\.dog\./);
  });

  it("the toy behind the wall, or further round the corner: identical until the dog turns back towards the opening", async () => {
    // Both places are out of sight from the start and all the way round the couch; the 8th skill (turn right after
    // walking past the couch's end) points the camera through the opening in the wall.
    const outcome = await twins(indoor1, withToyAt(indoor1, { x: 3.7, y: -1.3 }), indoor1.solution);
    ranThrough(outcome, indoor1.solution.length);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(8);
    expect(result(outcome.b, 8)).toEqual(result(outcome.a, 8));
    expect(pixels(outcome.b, 8)).not.toBe(pixels(outcome.a, 8));
    expect(outcome.difference!.path).toMatch(/^views\.dog\./);
  });

  it("a stool behind the dog's start, or none: identical until the dog backs into it, which it feels", async () => {
    // Out of the camera's 60° throughout (the dog only ever faces away from it); the first backward step stops short
    // of it, the second reaches it.
    const script: Step[] = [
      ["walk", "small"],
      ["turn_left", "small"],
      ["backward", "small"],
      ["backward", "medium"],
      ["walk", "small"],
    ];
    const outcome = await twins(indoor1, withStool(indoor1, { x: -0.75, y: 0 }), script);
    ranThrough(outcome, script.length);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(4);
    // The difference is the body's own: the backward step stalled against something after less than it was asked.
    expect(outcome.difference!.path).toMatch(/^result\./);
    expect(result(outcome.a, 4).values.stalled).toBe(false);
    expect(result(outcome.b, 4).values.stalled).toBe(true);
    expect(Math.abs(result(outcome.b, 4).values.moved)).toBeLessThan(Math.abs(result(outcome.a, 4).values.moved));
    expect(labels(outcome.b, 4)).not.toContain("stool");
  });

  it("control: a stool in view from the start differs at once (the comparison can tell)", async () => {
    const outcome = await twins(indoor1, withStool(indoor1, { x: 0.9, y: 0.3 }), [["walk", "small"]]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(0);
    expect(pixels(outcome.b, 0)).not.toBe(pixels(outcome.a, 0));
  });
});
