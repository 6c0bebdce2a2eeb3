/**
 * `npm run eval:vitest` with a key: langsmith/vitest records the suite in LangSmith (here the local server that speaks
 * its API) as a dataset and an experiment, with our evaluators' scores as feedback on each case's run. One case of the
 * slice runs (vitest's -t), on the real kitchen simulator. And any dataset kind goes to LangSmith with
 * `--upload-dataset`: a generated set too (courses: each checked doable by a search, no simulator needed).
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVALUATORS } from "../../evals/metrics";
import { generateCriticBenchmark } from "../../evals/datasets/behaviorCriticBenchmark";
import { loadCriticBenchmark } from "../../evals/datasets/behaviorCritic";
import { join } from "node:path";
import { startLocalLangSmith, type LocalLangSmith } from "../helpers/langsmithServer";
import { ROOT } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { programArgs } from "../../robots/programs";

let server: LocalLangSmith;
beforeAll(async () => {
  server = await startLocalLangSmith();
});
afterAll(async () => {
  await server?.close();
});

/** A command of the project's, in a process of its own pointed at the local LangSmith (not this run's vitest). */
function command(args: string[]): Promise<{ code: number | null; out: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, LANGSMITH_API_KEY: "ls-local", LANGSMITH_ENDPOINT: server.url, LANGSMITH_TRACING: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe("LangSmith from the commands", () => {
  it("eval:vitest logs each case's evaluator scores as feedback in LangSmith", async () => {
    const vitest = `${ROOT}/node_modules/vitest/vitest.mjs`;
    const { code, out } = await command([
      vitest,
      ...["run", "--config", "evals/vitest.config.ts", "-t", "search_tea_and_hamburger__c1"],
    ]);
    expect(code, out).toBe(0);
    const caseRuns = [...server.runs.values()].filter((r) => r.name === "search_tea_and_hamburger__c1");
    expect(caseRuns).toHaveLength(1);
    const run = caseRuns[0];
    expect(server.sessions.find((s) => s.id === run.session_id)?.reference_dataset_id).toBe(server.datasets[0].id);
    expect(server.examples.map((e) => e.id)).toContain(run.reference_example_id);
    const keys = server.feedback.filter((f) => f.run_id === run.id).map((f) => f.key);
    expect(keys).toEqual(expect.arrayContaining(Object.keys(EVALUATORS)));
    expect(run.outputs).toMatchObject({ success: true });
    expect(server.unknown).toEqual([]);
  }, 600_000);

  it("pushes a generated dataset with --upload-dataset, in the same example shape, once", async () => {
    const root = scratchDir();
    const upload = () =>
      command([
        ...programArgs("cli/robograph.ts", ["eval"]),
        ...["--dataset", "course-generated", "--count", "2", "--root", root, "--name", "gen"],
        ...["--upload-dataset", "courses-2"],
      ]);
    const first = await upload();
    expect(first.code, first.out).toBe(0);
    const dataset = server.datasets.find((d) => d.name === "courses-2")!;
    const examples = () => server.examples.filter((e) => e.dataset_id === dataset.id);
    expect(examples()).toHaveLength(2);
    for (const e of examples()) {
      expect(Object.keys(e.inputs).sort()).toEqual(expect.arrayContaining(["goal", "scenario", "world"]));
      expect(e.inputs.world).toBe("course");
      expect(e.metadata?.example_id).toMatch(/__/);
      expect(e.outputs).toBeTruthy();
    }
    expect(dataset.description).toMatch(/2 examples in the course world \(VLM-PC/);
    const again = await upload();
    expect(again.out).toMatch(/0 example\(s\) added, 0 updated, 2 in all/);
    expect(examples()).toHaveLength(2);
  }, 600_000);

  it("pushes the behaviour critic's cases with --upload-dataset, keyed by case, once", async () => {
    const dir = join(scratchDir(), "bench");
    await generateCriticBenchmark({ out: dir, seed: 3, casesPerBehaviour: 1, behaviours: ["squeezed"] });
    const [made] = loadCriticBenchmark(dir).cases;
    const upload = () =>
      command([
        ...programArgs("cli/robograph.ts", ["eval"]),
        ...["--dataset", "critic", "--benchmark", dir, "--upload-dataset", "critic-cases"],
      ]);
    for (const expected of [/1 example\(s\) added, 0 updated, 1 in all/, /0 example\(s\) added, 0 updated, 1 in all/]) {
      const { code, out } = await upload();
      expect(code, out).toBe(0);
      expect(out).toMatch(expected);
    }
    const dataset = server.datasets.find((d) => d.name === "critic-cases")!;
    expect(dataset.description).toMatch(/1 examples in the workbench world/);
    const [example] = server.examples.filter((e) => e.dataset_id === dataset.id);
    // The case as the benchmark holds it, in the same example shape.
    expect(example.inputs).toEqual(made.inputs);
    expect(example.outputs).toEqual(made.outputs);
    expect(example.metadata).toMatchObject({ ...made.metadata, example_id: made.metadata.case });
  }, 600_000);
});
