/**
 * Experiments never report what did not happen: a resumed experiment reuses only episodes made under its own
 * settings and dataset rows; an episode that ran out of budget is no success in any table; points stop at the budget.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { experimentDir, ExperimentMismatchError, runExperiment, type ExperimentOptions } from "../../evals/runner";
import { buildReport } from "../../evals/experimentReport";
import { vlmpcTables } from "../../graphs/vlmpc/report";
import { counted, EVALUATORS, scoreWithinBudget, type EpisodeResult } from "../../evals/metrics";
import { scratchDir } from "../helpers/episode";

const options = (root: string, extra: Partial<ExperimentOptions> = {}): ExperimentOptions => ({
  name: "resumed",
  dataset: "kitchen",
  variants: ["full"],
  seeds: 1,
  noise: 0,
  concurrency: 1,
  limit: 1,
  root,
  maxSteps: 40,
  maxWallSeconds: 300,
  ...extra,
});

describe("resuming an experiment", () => {
  it("refuses episodes made under other settings (noise, grasp sensing), and reuses its own", async () => {
    const root = scratchDir();
    const settings = options(root);
    const [first] = await runExperiment(settings);
    expect(first.settings).toMatchObject({ noise: 0, graspSensing: true, dataset: "kitchen" });
    const kept = readFileSync(join(experimentDir(settings), "episodes", first.id, "result.json"), "utf8");

    await expect(runExperiment({ ...settings, noise: 0.3 })).rejects.toThrow(
      /experiment resumed holds episodes made with noise 0 \(now 0\.3\): give this run another --name/,
    );
    await expect(runExperiment({ ...settings, graspSensing: false })).rejects.toBeInstanceOf(ExperimentMismatchError);
    await expect(runExperiment({ ...settings, graspSensing: false })).rejects.toThrow(
      /graspSensing true \(now false\)/,
    );
    // Refused before anything was written: the experiment is as it was.
    expect(JSON.parse(readFileSync(join(experimentDir(settings), "experiment.json"), "utf8")).noise).toBe(0);

    // Its own settings: nothing runs again.
    const again = await runExperiment(settings);
    expect(readFileSync(join(experimentDir(settings), "episodes", first.id, "result.json"), "utf8")).toBe(kept);
    expect(again.map((r) => r.id)).toEqual([first.id]);
  });

  it("refuses episodes made from a dataset row that has since been edited", async () => {
    const root = scratchDir();
    const file = join(root, "kitchen-copy.jsonl");
    const lines = readFileSync(join(__dirname, "../../evals/datasets/kitchen.jsonl"), "utf8").trim().split("\n");
    writeFileSync(file, lines.join("\n"));
    const settings = options(root, { dataset: file });
    const [first] = await runExperiment(settings);
    // The row keeps its id; its scenario now hides the tea elsewhere.
    const row = JSON.parse(lines[0]);
    row.inputs.scenario.mobileAt =
      row.inputs.scenario.mobileAt === "in_front_of_sink" ? "in_front_of_oven" : "in_front_of_sink";
    writeFileSync(file, [JSON.stringify(row), ...lines.slice(1)].join("\n"));
    await expect(runExperiment(settings)).rejects.toThrow(
      `experiment resumed holds 1 episode(s) made from another version of their dataset rows (${first.id})`,
    );
  });
});

describe("what counts", () => {
  const episode = (over: Partial<EpisodeResult>): EpisodeResult => ({
    id: "x",
    variant: "full",
    example: "e",
    task: "t",
    family: "f",
    condition: "c",
    seed: 0,
    noise: 0,
    status: "succeeded",
    statusReason: "",
    success: true,
    goal: [],
    score: 3,
    steps: 3,
    failedActions: 0,
    replans: 0,
    verdicts: {},
    modelCalls: 1,
    inputTokens: 0,
    outputTokens: 0,
    skillSeconds: 1,
    wallSeconds: 1,
    record: "r",
    ...over,
  });

  it("never counts a CLEA or RePLan episode that ended on its budget as a success, whatever the world's state", () => {
    const exhausted = episode({ id: "b", status: "budget_exhausted", success: true, courseSeconds: 24.9 });
    expect(counted(exhausted)).toBe(false);
    expect(EVALUATORS.success({ outputs: exhausted }).score).toBe(0);
    const ok = episode({ id: "a" });
    const report = buildReport(
      { name: "n", dataset: "kitchen", noise: 0, seeds: 1, variants: ["full"], durationSeconds: 1 },
      [ok, exhausted].map((result) => ({
        ...result,
        scores: Object.fromEntries(
          Object.values(EVALUATORS).map((evaluator) => {
            const evaluation = evaluator({ outputs: result });
            return [evaluation.key, evaluation.score];
          }),
        ),
      })),
    );
    expect(report.table.full.all).toMatchObject({ trials: 2, successes: 1, successRate: 0.5 });
    // VLM-PC's trials end when the robot reaches the toy: the simulator saw it reach at 24.9 s, so its run going on to
    // the budget afterwards does not undo it (test/evals/courseScoring.int.test.ts); one that never reached counts 100 s.
    const reached = { ...exhausted, family: "vlmpc", task: "indoor_1", paperTable: "I" as const, scores: {} };
    const missed = { ...reached, id: "c", success: false, courseSeconds: 100 };
    const course = buildReport(
      { name: "n", dataset: "course", noise: 0, seeds: 1, variants: ["full"], durationSeconds: 1 },
      [reached, missed],
    );
    const tableI = vlmpcTables(course)
      .split("\n")
      .find((l) => l.startsWith("| VLM-PC"))!;
    expect(tableI).toMatch(/\| 62\.5 \| 62\.5 \| 50 \|$/);
  });

  it("gives no points for actions past the budget", () => {
    // VLM-PC: seconds of skill time against its 100 s; the skill that ran over and anything after it earn nothing.
    const skills = [
      { ok: true, cost: 40 },
      { ok: false, cost: 30 },
      { ok: true, cost: 29 },
      { ok: true, cost: 4 },
      { ok: true, cost: 2 },
    ];
    expect(scoreWithinBudget(skills, 100)).toBe(2);
    // CLEA and RePLan: a count of actions.
    expect(
      scoreWithinBudget(
        Array.from({ length: 45 }, () => ({ ok: true, cost: 1 })),
        40,
      ),
    ).toBe(40);
  });
});
