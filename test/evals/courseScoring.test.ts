/**
 * VLM-PC's trials are scored by the simulator for every variant: a trial ends when the robot reaches the toy, whatever
 * the planner makes of it. Random, which never declares anything, used to be 0 by construction (its runs always end on
 * the time budget); now its trials count when the body got there, and the planner's own verdict is kept beside.
 */
import { describe, expect, it } from "vitest";
import { runExperiment } from "../../evals/runner";
import { counted, EVALUATORS } from "../../evals/metrics";
import { buildReport, vlmpcTables } from "../../evals/report";
import { scratchDir } from "../helpers/episode";

describe("VLM-PC's success is the simulator's check", () => {
  it("counts a reached trial whose run went on to the time budget; other methods still do not count a run out of budget", () => {
    expect(counted({ success: true, status: "budget_exhausted", paperTable: "I" })).toBe(true);
    expect(counted({ success: false, status: "succeeded", paperTable: "I" })).toBe(false);
    expect(counted({ success: true, status: "budget_exhausted" })).toBe(false);
    expect(EVALUATORS.success({ outputs: { success: true, status: "budget_exhausted", paperTable: "II" } }).score).toBe(1);
  });

  it("a Random trial that reaches the toy is a success, at the time the simulator saw it, and the planner said nothing", async () => {
    // Seed 5 of outdoor_3 is a random walk that ends within reach of the toy at 89.8 s of skill time (found by running
    // seeds 0–19 of outdoor_2 and outdoor_3: the only one of 40 that got there).
    const results = await runExperiment({
      name: "random", dataset: "course", variants: ["random"], seeds: 6, noise: 0, concurrency: 2, only: ["outdoor_3__paper"],
      root: scratchDir(), maxSteps: 200, maxWallSeconds: 300,
    });
    const reached = results.find((r) => r.seed === 5)!;
    expect(reached).toMatchObject({ success: true, goalHeld: true, agentReached: false, status: "budget_exhausted", courseSeconds: 89.8 });
    expect(results.filter((r) => r.seed !== 5).every((r) => !r.success && r.courseSeconds === 100)).toBe(true);
    const report = buildReport({ name: "random", dataset: "course", noise: 0, seeds: 6, variants: ["random"], durationSeconds: 0 }, results.map((r) => ({ ...r, scores: { success: EVALUATORS.success({ outputs: r }).score } })));
    expect(report.table.random.all.successes).toBe(1);
    expect(vlmpcTables(report)).toMatch(/\| Random \| [\d.]+ \| 100\.0 \| 17 \| 0 \| 0 \|/);
  });
});
