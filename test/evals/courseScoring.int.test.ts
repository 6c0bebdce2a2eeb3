/**
 * VLM-PC's trials are scored by the simulator for every variant: a trial ends when the robot reaches the toy, whatever
 * the planner makes of it. Random, which never declares anything, used to be 0 by construction (its runs always end on
 * the time budget); now its trials count when the body got there, and the planner's own verdict is kept beside.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { courseExamplesPath, EXAMPLE_SEEDS_FROM } from "../../evals/datasets";
import { planEpisodes, runExperiment, type ExperimentOptions } from "../../evals/runner";
import { counted, EVALUATORS } from "../../evals/metrics";
import { buildReport } from "../../evals/experimentReport";
import { vlmpcTables } from "../../graphs/vlmpc/report";
import { scratchDir } from "../helpers/episode";

describe("VLM-PC's success is the simulator's check", () => {
  it("counts a reached trial whose run went on to the time budget; other methods still do not count a run out of budget", () => {
    expect(counted({ success: true, status: "budget_exhausted", paperTable: "I" })).toBe(true);
    expect(counted({ success: false, status: "succeeded", paperTable: "I" })).toBe(false);
    expect(counted({ success: true, status: "budget_exhausted" })).toBe(false);
    expect(EVALUATORS.success({ outputs: { success: true, status: "budget_exhausted", paperTable: "II" } }).score).toBe(
      1,
    );
  });

  it("a Random trial that reaches the toy is a success, at the time the simulator saw it, and the planner said nothing", async () => {
    // Seed 5 of outdoor_3 is a random walk that ends within reach of the toy at 89.8 s of skill time (found by running
    // seeds 0–19 of outdoor_2 and outdoor_3: the only one of 40 that got there).
    const results = await runExperiment({
      name: "random",
      dataset: "course",
      variants: ["random"],
      seeds: 6,
      noise: 0,
      concurrency: 2,
      only: ["outdoor_3__paper"],
      root: scratchDir(),
      maxSteps: 200,
      maxWallSeconds: 300,
    });
    const reached = results.find((r) => r.seed === 5)!;
    expect(reached).toMatchObject({
      success: true,
      goalHeld: true,
      agentReached: false,
      status: "budget_exhausted",
      courseSeconds: 89.8,
    });
    expect(results.filter((r) => r.seed !== 5).every((r) => !r.success && r.courseSeconds === 100)).toBe(true);
    const report = buildReport(
      { name: "random", dataset: "course", noise: 0, seeds: 6, variants: ["random"], durationSeconds: 0 },
      results.map((r) => ({ ...r, scores: { success: EVALUATORS.success({ outputs: r }).score } })),
    );
    expect(report.table.random.all.successes).toBe(1);
    expect(vlmpcTables(report)).toMatch(/\| Random \| [\d.]+ \| 100\.0 \| 17 \| 0 \| 0 \|/);
  });
});

describe("VLM-PC + IC's labelled examples come from seeds no trial is scored on", () => {
  it("every example file records a seed from 1000 up, and an experiment whose trials would reach it is refused", () => {
    for (const course of ["indoor_1", "indoor_2", "outdoor_1", "outdoor_2", "outdoor_3", "dead_end_stairs"]) {
      const file = JSON.parse(readFileSync(courseExamplesPath(course), "utf8")) as { seed?: number };
      expect(file.seed, course).toBeGreaterThanOrEqual(EXAMPLE_SEEDS_FROM);
    }
    const plan = (seeds: number, variants: ExperimentOptions["variants"]) =>
      planEpisodes({
        name: "x",
        dataset: "course",
        variants,
        seeds,
        noise: 0,
        concurrency: 1,
        root: scratchDir(),
        maxSteps: 200,
        maxWallSeconds: 300,
      });
    expect(plan(5, ["full", "full+ic"])).toHaveLength(60);
    expect(() => plan(EXAMPLE_SEEDS_FROM + 1, ["full+ic"])).toThrow(
      /labelled examples of indoor_1 .* were taken at seed 1000, which this experiment's trials \(seeds 0–1000\) may use/,
    );
    // Without full+ic the examples do not matter.
    expect(plan(EXAMPLE_SEEDS_FROM + 1, ["full"])).toHaveLength(6 * (EXAMPLE_SEEDS_FROM + 1));
  });
});
