/**
 * VLM-PC's world and prompt: how fast the obstacle course simulates, what a head-camera frame costs, and what the
 * planner's prompt carries at step 30 with the whole history (the paper's) against a window of recent steps.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CourseWorld, COURSES } from "../../robots/sim/course";
import { COURSE_GOAL } from "../datasets";
import { runMethodEpisode } from "../episode";
import { planningPromptSize } from "../../graphs/vlmpc/nodes/planner";
import type { VlmpcStateType } from "../../graphs/vlmpc/state";
import { startSimProcess } from "../../robots/sim/process";
import type { Figure } from "./agent";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Simulated seconds per wall second over every course's scripted solution, and the camera's cost per frame. */
async function worldFigures(frames: number): Promise<Figure[]> {
  let simulated = 0;
  let wall = 0;
  const cam: number[] = [];
  for (const [name, course] of COURSES) {
    const world = await CourseWorld.create({ scenario: name, speed: Infinity });
    try {
      const ctx = { goalId: "bench", signal: new AbortController().signal, feedback: () => {} };
      const startedAt = performance.now();
      for (const [skill, magnitude] of course.solution) await world.runSkill("dog", skill, { magnitude }, ctx);
      wall += (performance.now() - startedAt) / 1000;
      simulated += world.clock.time;
      for (let i = 0; i < frames / COURSES.size + 2; i++) {
        const t0 = performance.now();
        await world.renderCamera();
        if (i >= 2) cam.push(performance.now() - t0);
      }
    } finally {
      await world.close();
    }
  }
  const speed = simulated / wall;
  const ms = median(cam);
  return [
    {
      name: "course simulation (skills + collision checks), x real time",
      value: speed,
      unit: "x",
      target: ">= 10x",
      ok: speed >= 10,
    },
    {
      name: "course head camera RGB+depth+detections: median",
      value: ms,
      unit: "ms",
      target: "<= 30 ms",
      ok: ms <= 30,
    },
  ];
}

/**
 * The prompt at step 30: a real history of 30 steps (frames, the planner's answers, what the body did) from an
 * episode that ran at least that long, then what the planning call would carry with the whole history and with a
 * window. Text tokens counted with o200k (models/tokens.ts, as the latency bench counts them); images are counted.
 */
async function promptFigures(step = 30, window = 5): Promise<Figure[]> {
  // No History runs its whole budget on indoor_1 (it gets stuck), so it yields a long real history to measure on.
  const sim = await startSimProcess("course", ["--scenario", "indoor_1", "--speed", "max"]);
  try {
    const run = await runMethodEpisode({
      mode: "vlmpc",
      url: sim.url,
      goal: COURSE_GOAL,
      thread: "bench-prompt",
      dataDir: mkdtempSync(join(tmpdir(), "robograph-bench-")),
      variant: "no-history",
      maxSteps: 200,
    });
    const steps = run.state.steps.filter((r) => r.result);
    const at = Math.min(step, steps.length - 1);
    const base = {
      ...run.state,
      steps: steps.slice(0, at),
      sight: steps[at],
      plan: steps[at - 1]?.answer.plan.slice(1) ?? [],
    } as unknown as VlmpcStateType;
    const full = planningPromptSize(base, 0);
    const windowed = planningPromptSize(base, window);
    return [
      { name: `VLM-PC prompt at step ${at}, whole history: text tokens (o200k)`, value: full.tokens, unit: "tokens" },
      { name: `VLM-PC prompt at step ${at}, whole history: images`, value: full.images, unit: "images" },
      {
        name: `VLM-PC prompt at step ${at}, window ${window}: text tokens (o200k)`,
        value: windowed.tokens,
        unit: "tokens",
      },
      { name: `VLM-PC prompt at step ${at}, window ${window}: images`, value: windowed.images, unit: "images" },
      {
        name: `VLM-PC window ${window} / whole history, text tokens at step ${at}`,
        value: windowed.tokens / full.tokens,
        unit: "x",
      },
    ];
  } finally {
    await sim.stop();
  }
}

export async function courseBenchmarks(quick = false): Promise<Figure[]> {
  return [...(await worldFigures(quick ? 12 : 60)), ...(await promptFigures())];
}
