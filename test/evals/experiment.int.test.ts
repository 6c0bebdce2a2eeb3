/** Experiments end to end: real simulator processes, resumable runs, reproducible numbers, honest reports. */
import { readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../evals/datasets";
import { experimentDir, runExperiment, type ExperimentOptions, type Progress } from "../../evals/runner";
import { buildReport, tables, withoutTiming, writeReport } from "../../evals/experimentReport";
import { scoreEpisodes } from "../../evals/langsmith";
import { scratchDir } from "../helpers/episode";
import { stallSimulators } from "../helpers/processes";

const options = (root: string, extra: Partial<ExperimentOptions> = {}): ExperimentOptions => ({
  name: "two",
  dataset: "kitchen",
  variants: ["full"],
  seeds: 1,
  noise: 0,
  concurrency: 2,
  limit: 2,
  root,
  maxSteps: 40,
  maxWallSeconds: 300,
  ...extra,
});

async function experiment(settings: ExperimentOptions) {
  const results = await runExperiment(settings);
  const rows = loadDataset(settings.dataset);
  const scores = await scoreEpisodes(settings.name, settings.dataset, rows, results);
  const report = buildReport(
    {
      name: settings.name,
      dataset: settings.dataset,
      noise: settings.noise,
      seeds: settings.seeds,
      variants: settings.variants,
      durationSeconds: 1,
    },
    results.map((r) => ({ ...r, scores: scores.get(r.id)! })),
  );
  return { results, report, files: writeReport(experimentDir(settings), report) };
}

describe("experiments", () => {
  it("runs a two-example experiment whose report agrees with the episodes' own records", async () => {
    const settings = options(scratchDir());
    const { report, files } = await experiment(settings);
    expect(report.episodes).toHaveLength(2);
    expect(report.table.full.all).toMatchObject({ trials: 2, successes: 2, successRate: 1 });
    for (const e of report.episodes) {
      // Recount from the episode's event record, independently of the runner's summary.
      const lines = readFileSync(join(experimentDir(settings), e.record), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const actions = lines.filter((l) => l.node === "executor").map((l) => l.update.history[0]);
      expect(e.scores.average_score).toBe(actions.filter((a: { ok: boolean }) => a.ok).length);
      expect(e.scores.steps).toBe(actions.length);
      expect(e.scores.success).toBe(1);
      const result = JSON.parse(readFileSync(join(experimentDir(settings), "episodes", e.id, "result.json"), "utf8"));
      expect(result.goal.every((g: { holds: boolean }) => g.holds)).toBe(true);
    }
    const md = readFileSync(files.md, "utf8");
    // Both examples are conditions of the first task: one task column, one family column, the total.
    expect(md).toMatch(/\| full \| 100% \(2\/2\) \| 100% \(2\/2\) \| 100% \(2\/2\) \|/);
    expect(readFileSync(files.html, "utf8")).toMatch(/<svg/);
  });

  it("resumes an interrupted experiment by running only the missing episodes", async () => {
    const root = scratchDir();
    const settings = options(root);
    const first = await runExperiment(settings);
    const dropped = first[1].id;
    rmSync(join(experimentDir(settings), "episodes", dropped, "result.json"));
    const keptMtime = readFileSync(join(experimentDir(settings), "episodes", first[0].id, "result.json"), "utf8");
    const progress: Progress[] = [];
    const again = await runExperiment({ ...settings, onProgress: (p) => progress.push(p) });
    expect(progress[0]).toMatchObject({ done: 1, total: 2, skipped: 1 });
    expect(progress.filter((p) => p.last).map((p) => p.last!.id)).toEqual([dropped]);
    expect(readFileSync(join(experimentDir(settings), "episodes", first[0].id, "result.json"), "utf8")).toBe(keptMtime);
    expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
  });

  it("repeats its report byte for byte under a seed, wall-clock fields aside, one or two at a time, its simulators stalled in turn", async () => {
    const noisy = { noise: 0.3, variants: ["full", "no-critic"] as ExperimentOptions["variants"], seeds: 1 };
    const concurrent = await experiment(options(scratchDir(), { ...noisy, concurrency: 2 }));
    // The second run one episode at a time, its simulators stalled in turn: another machine's timing.
    const stalling = stallSimulators();
    let serial, stalls;
    try {
      serial = await experiment(options(scratchDir(), { ...noisy, concurrency: 1 }));
    } finally {
      stalls = stalling.stop();
    }
    expect(stalls).toBeGreaterThan(5);
    expect(JSON.stringify(withoutTiming(serial.report), null, 1)).toBe(
      JSON.stringify(withoutTiming(concurrent.report), null, 1),
    );
    expect(tables(serial.report, { timing: false })).toBe(tables(concurrent.report, { timing: false }));
  });

  it("reports a bad dataset row with its line number", () => {
    const file = join(scratchDir(), "bad.jsonl");
    const good = readFileSync(join(__dirname, "../../evals/datasets/kitchen.jsonl"), "utf8").split("\n")[0];
    writeFileSync(file, `${good}\n{"inputs": {}}\nnot json\n`);
    expect(() => loadDataset(file)).toThrow(/line 2: inputs\.world.*\n.*line 3: not JSON/s);
    expect(existsSync(file)).toBe(true);
  });
});
