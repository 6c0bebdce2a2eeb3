/**
 * Experiments in LangSmith through the real `langsmith` SDK, against a local server that speaks its REST API
 * (test/helpers/langsmithServer.ts): the dataset created once and only missing examples added, one experiment per
 * variant with one row per episode linked to its example and scored as feedback, a resumed experiment recording
 * nothing twice. Episodes run on the real kitchen simulator (two examples, one seed).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../cli/eval";
import { EVALUATORS } from "../../evals/metrics";
import { startLocalLangSmith, type LocalLangSmith } from "../helpers/langsmithServer";
import { scratchDir } from "../helpers/episode";

let server: LocalLangSmith;
const saved = { ...process.env };
beforeAll(async () => {
  server = await startLocalLangSmith();
  Object.assign(process.env, { LANGSMITH_API_KEY: "ls-local", LANGSMITH_ENDPOINT: server.url });
  delete process.env.LANGSMITH_TRACING;
  delete process.env.LANGCHAIN_TRACING_V2;
});
afterAll(async () => {
  process.env = saved;
  await server?.close();
});

const KEYS = Object.keys(EVALUATORS).length;
const kitchenRows = readFileSync(join(__dirname, "../../evals/datasets/kitchen.jsonl"), "utf8").trim().split("\n");

describe("an experiment in LangSmith", () => {
  it("creates the dataset once, records one experiment per variant with a row per episode and its feedback", async () => {
    const root = scratchDir();
    const run = (name: string, dataset = "kitchen") =>
      evalCommand([
        ...["--dataset", dataset, "--variants", "full,no-critic", "--limit", "2", "--seeds", "1"],
        ...["--name", name, "--root", root, "--concurrency", "2"],
      ]);
    expect(await run("ls")).toBe(0);

    expect(server.datasets.map((d) => d.name)).toEqual(["kitchen"]);
    expect(server.datasets[0].description).toMatch(/kitchen world \(CLEA/);
    expect(server.examples).toHaveLength(kitchenRows.length);
    // The experiments, and the project the SDK traces our evaluators' own runs to.
    expect(server.sessions.map((s) => s.name).sort()).toEqual(["evaluators", "ls-full", "ls-no-critic"]);
    const exampleIds = new Set(server.examples.map((e) => e.id));
    for (const variant of ["full", "no-critic"]) {
      const session = server.sessions.find((s) => s.name === `ls-${variant}`)!;
      expect(session.reference_dataset_id).toBe(server.datasets[0].id);
      const rows = server.runsOf(`ls-${variant}`).filter((r) => !r.parent_run_id);
      expect(rows.map((r) => r.name).sort()).toEqual(
        kitchenRows
          .slice(0, 2)
          .map((l) => JSON.parse(l).metadata)
          .map((m) => `${variant}__${m.task}__${m.condition}__s0`)
          .sort(),
      );
      for (const row of rows) {
        // Linked to the example the server created for that row (not an id made up on our side).
        expect(exampleIds.has(String(row.reference_example_id))).toBe(true);
        const example = server.examples.find((e) => e.id === row.reference_example_id)!;
        expect(row.name).toContain(String(example.metadata?.example_id));
        expect(row.outputs).toMatchObject({ id: row.name, variant });
        expect(row.extra?.metadata).toMatchObject({ variant, method: "clea", world: "kitchen", seed: 0 });
        expect(row.end_time).toBeTruthy();
        const scores = server.feedback.filter((f) => f.run_id === row.id);
        expect(scores.map((f) => f.key).sort()).toEqual(Object.keys(EVALUATORS).sort());
        const result = JSON.parse(readFileSync(join(root, "ls", "episodes", row.name, "result.json"), "utf8")) as {
          success: boolean;
        };
        expect(scores.find((f) => f.key === "success")?.score).toBe(result.success ? 1 : 0);
      }
    }
    expect(server.feedback).toHaveLength(4 * KEYS);
    // Tracing off: the rows and our evaluators' runs, no graph run.
    expect(server.runs.size).toBe(4 + 4 * KEYS);
    expect(server.unknown).toEqual([]);
    console.log(
      `local LangSmith after one experiment: datasets ${server.datasets.length}, examples ${server.examples.length}, ` +
        `experiments ${server.sessions.length}, root runs ${[...server.runs.values()].filter((r) => !r.parent_run_id && server.sessions.some((s) => s.id === r.session_id && s.name.startsWith("ls-"))).length}, ` +
        `runs in all ${server.runs.size}, feedback ${server.feedback.length}`,
    );

    // The same experiment again: its episodes are on disk and in LangSmith; nothing is added anywhere.
    const before = { runs: server.runs.size, feedback: server.feedback.length, requests: server.requests.length };
    expect(await run("ls")).toBe(0);
    expect(server.runs.size).toBe(before.runs);
    expect(server.feedback.length).toBe(before.feedback);
    expect(server.datasets).toHaveLength(1);
    expect(server.examples).toHaveLength(kitchenRows.length);
    expect(server.requests.slice(before.requests).filter((r) => r.startsWith("POST /datasets"))).toEqual([]);

    // A dataset that gained a row: only that example is added (the file's dataset is named after it).
    const file = join(root, "kitchen.jsonl");
    const extra = JSON.parse(kitchenRows[0]);
    extra.metadata.condition = "extra";
    writeFileSync(file, [...kitchenRows, JSON.stringify(extra)].join("\n"));
    writeFileSync(join(root, "k1.jsonl"), kitchenRows.join("\n"));
    expect(await evalCommand(["--dataset", join(root, "k1.jsonl"), "--upload-dataset", "kitchen-grown"])).toBe(0);
    const grown = () => server.examples.filter((e) => e.dataset_id === server.datasets.at(-1)!.id);
    expect(grown()).toHaveLength(kitchenRows.length);
    expect(await evalCommand(["--dataset", file, "--upload-dataset", "kitchen-grown"])).toBe(0);
    expect(server.datasets.map((d) => d.name)).toEqual(["kitchen", "kitchen-grown"]);
    expect(grown()).toHaveLength(kitchenRows.length + 1);
    expect(grown().at(-1)!.metadata?.example_id).toBe(`${extra.metadata.task}__extra`);
    expect(await evalCommand(["--dataset", file, "--upload-dataset", "kitchen-grown"])).toBe(0);
    expect(grown()).toHaveLength(kitchenRows.length + 1);

    // A row edited in the file (its instruction reworded): its example is updated in place, keeping its id; nothing
    // is added, and the same file again changes nothing.
    const edited = { ...extra, inputs: { ...extra.inputs, goal: "throw the tea bottle away, please" } };
    writeFileSync(file, [...kitchenRows, JSON.stringify(edited)].join("\n"));
    const example = grown().at(-1)!;
    const patches = () => server.requests.filter((r) => r.startsWith("PATCH") && r.endsWith("/examples")).length;
    expect(await evalCommand(["--dataset", file, "--upload-dataset", "kitchen-grown"])).toBe(0);
    expect(grown()).toHaveLength(kitchenRows.length + 1);
    expect(grown().at(-1)).toMatchObject({ id: example.id, inputs: edited.inputs, metadata: example.metadata });
    expect(patches()).toBe(1);
    expect(await evalCommand(["--dataset", file, "--upload-dataset", "kitchen-grown"])).toBe(0);
    expect(patches()).toBe(1);
    expect(server.unknown).toEqual([]);
  });
});
