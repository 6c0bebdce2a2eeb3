/**
 * LangSmith traces and resumes through the real SDK against the local LangSmith server: with LANGSMITH_TRACING=true an
 * episode's graph run is traced under its experiment row, named after the episode and tagged, with no frame uploaded;
 * an experiment stopped mid-episode and resumed, or `robograph eval` killed (kill -9) and run again, records every
 * episode and its scores exactly once, and episodes that ran before the
 * key was set are recorded from their stored results. Episodes run on the real kitchen simulator.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVALUATORS } from "../../evals/metrics";
import { programArgs } from "../../robots/programs";
import { ROOT, alive, descendants } from "../helpers/processes";
import { loadDataset } from "../../evals/datasets";
import { openLangSmithExperiment, scoreEpisodes } from "../../evals/langsmith";
import { runExperiment, type ExperimentOptions } from "../../evals/runner";
import { startLocalLangSmith, type LocalLangSmith, type StoredRun } from "../helpers/langsmithServer";
import { scratchDir } from "../helpers/episode";
import { answerAsReasoner, localModelEndpoint } from "../helpers/openaiServer";

let server: LocalLangSmith;
const saved = { ...process.env };
// A VLM behind a local OpenAI-compatible endpoint (the reasoner answering): its requests carry the camera's frames.
const endpoint = localModelEndpoint();
beforeAll(async () => {
  server = await startLocalLangSmith();
  Object.assign(process.env, { LANGSMITH_API_KEY: "ls-local", LANGSMITH_ENDPOINT: server.url });
});
afterAll(async () => {
  process.env = saved;
  await server?.close();
});

const options = (root: string, name: string, extra: Partial<ExperimentOptions> = {}): ExperimentOptions => ({
  name,
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

/** An experiment as `npm run eval` runs it with a key: recorded while it runs, the rest recorded at the end. */
async function recorded(settings: ExperimentOptions) {
  const rows = loadDataset(settings.dataset);
  const experiment = await openLangSmithExperiment({
    name: settings.name,
    datasetName: settings.dataset,
    rows,
    variants: settings.variants,
  });
  const results = await runExperiment({ ...settings, aroundEpisode: experiment.aroundEpisode });
  if (!settings.signal?.aborted) await scoreEpisodes(settings.name, settings.dataset, rows, results, 1, experiment);
  return results;
}

const childrenOf = (run: StoredRun) => [...server.runs.values()].filter((r) => r.parent_run_id === run.id);
function tree(run: StoredRun, depth: number, indent = ""): string[] {
  const kids = childrenOf(run);
  const names = [...new Set(kids.map((k) => k.name))];
  const line = `${indent}${run.name} (${run.run_type})`;
  if (depth === 0 || !kids.length) return [line];
  // One child of each name, with how many there are: an episode has dozens of steps.
  return [
    line,
    ...names.flatMap((name) => {
      const same = kids.filter((k) => k.name === name);
      const [first, ...rest] = tree(same[0], depth - 1, `${indent}  `);
      return [`${first}${same.length > 1 ? ` ×${same.length}` : ""}`, ...rest];
    }),
  ];
}

describe("LangSmith traces and resumes", () => {
  it("traces an episode's graph under its experiment row, named and tagged, frames left out unless asked", async () => {
    endpoint.fake.respond = answerAsReasoner;
    endpoint.use();
    const traced = async (name: string, frames: boolean) => {
      Object.assign(process.env, { LANGSMITH_TRACING: "true", ROBOGRAPH_TRACE_FRAMES: frames ? "true" : "" });
      try {
        const [result] = await recorded(options(scratchDir(), name, { backend: "openai" }));
        expect(result.success).toBe(true);
      } finally {
        delete process.env.LANGSMITH_TRACING;
        delete process.env.ROBOGRAPH_TRACE_FRAMES;
      }
      const [row, ...others] = server.runsOf(`${name}-full`).filter((r) => !r.parent_run_id);
      expect(others).toEqual([]);
      return { row, inTrace: [...server.runs.values()].filter((r) => r.trace_id === row.trace_id) };
    };
    const { row, inTrace } = await traced("traced", false);
    expect(row.name).toBe("full__search_tea_and_hamburger__c1__s0");
    const [graph] = childrenOf(row);
    expect(childrenOf(row)).toHaveLength(1);
    // The graph's own run, named after the episode, tagged with what it is, in the experiment's trace.
    expect(graph.name).toBe(row.name);
    expect(graph.tags).toEqual(expect.arrayContaining(["method:clea", "variant:full", "seed:0", "world:kitchen"]));
    expect(graph.trace_id).toBe(row.trace_id);
    expect(graph.session_id).toBe(row.session_id);
    const nodes = childrenOf(graph).map((r) => r.name);
    for (const node of ["perceiver", "planner", "executor"]) expect(nodes).toContain(node);
    expect(inTrace.filter((r) => r.run_type === "llm").length).toBeGreaterThan(5);
    // The VLM's requests had frames; none left this process: each stands in as a note.
    const text = JSON.stringify(inTrace);
    expect(text).not.toMatch(/data:image\/[a-z]+;base64,/);
    expect(text).not.toMatch(/[A-Za-z0-9+/]{4096}/);
    const standIns = (text.match(/base64 characters not uploaded/g) ?? []).length;
    expect(standIns).toBeGreaterThan(0);
    expect(endpoint.fake.requests.some((r) => JSON.stringify(r.messages).includes("data:image/png;base64,"))).toBe(
      true,
    );
    console.log(
      `traced episode: ${inTrace.length} runs in its trace, ${standIns} frames left out\n${tree(row, 4).join("\n")}`,
    );

    // Asked for, the frames are in the trace.
    const withFrames = await traced("framed", true);
    expect(JSON.stringify(withFrames.inTrace)).toMatch(/data:image\/png;base64,/);
  });

  it("records each episode once when the experiment is stopped mid-episode and resumed", async () => {
    const root = scratchDir();
    const controller = new AbortController();
    const settings = options(root, "stopped", { limit: 2 });
    const first = await recorded({
      ...settings,
      signal: controller.signal,
      // Stopped while the second episode runs: the first is kept (and recorded), the second is not.
      onProgress: (p) => (p.last ? controller.abort() : undefined),
    });
    expect(first).toHaveLength(1);
    const rows = () => server.runsOf("stopped-full").filter((r) => !r.parent_run_id);
    expect(rows().map((r) => r.name)).toEqual([first[0].id]);
    // Nothing of the stopped episode reached the server: no row, no feedback.
    const stoppedId = "full__search_tea_and_hamburger__c2__s0";
    expect([...server.runs.values()].some((r) => r.name === stoppedId)).toBe(false);

    const again = await recorded(settings);
    expect(again.map((r) => r.id)).toEqual([first[0].id, stoppedId]);
    expect(
      rows()
        .map((r) => r.name)
        .sort(),
    ).toEqual([first[0].id, stoppedId].sort());
    const feedbackOf = (name: string) =>
      server.feedback.filter((f) => f.run_id === rows().find((r) => r.name === name)!.id).length;
    expect(feedbackOf(first[0].id)).toBe(feedbackOf(stoppedId));

    // Once more: everything is there already.
    const count = server.runs.size;
    await recorded(settings);
    expect(server.runs.size).toBe(count);
  });

  it("records each episode once, with its scores once, when `robograph eval` is killed (kill -9) and run again", async () => {
    const root = scratchDir();
    const args = [
      ...["eval", "--dataset", "kitchen", "--variants", "full", "--limit", "2", "--seeds", "1"],
      ...["--name", "killed", "--root", root, "--concurrency", "1"],
    ];
    const env = { ...process.env, LANGSMITH_API_KEY: "ls-local", LANGSMITH_ENDPOINT: server.url, OPENAI_API_KEY: "" };
    const rows = () => server.runsOf("killed-full").filter((r) => !r.parent_run_id);
    const child = spawn(process.execPath, programArgs("cli/robograph.ts", args), { cwd: ROOT, env, stdio: "ignore" });
    const exited = new Promise((done) => child.once("exit", done));
    // Killed as soon as its first episode is recorded, with nothing of its own to tidy up.
    while (!rows().length && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    const sims = descendants(child.pid!).filter((d) => d.argv.some((a) => a.includes("robots/sim/main")));
    child.kill("SIGKILL");
    await exited;
    expect(rows(), "the first episode was recorded before the kill").toHaveLength(1);
    // Its simulator, left without its agent, ends on its own (robots/sim/process.ts ORPHAN_SECONDS) rather than
    // running on forever.
    expect(sims.length, "the killed eval's simulator").toBeGreaterThan(0);
    while (sims.some((s) => alive(s.pid))) await new Promise((r) => setTimeout(r, 500));

    // Run again (not spawnSync: the LangSmith server answers from this process).
    const again = spawn(process.execPath, programArgs("cli/robograph.ts", args), { cwd: ROOT, env });
    let said = "";
    again.stderr.on("data", (chunk: Buffer) => (said += chunk));
    again.stdout.resume();
    expect(await new Promise((done) => again.once("exit", done)), said).toBe(0);
    const names = rows().map((r) => r.name);
    expect(names.sort()).toEqual([...new Set(names)].sort());
    expect(names).toHaveLength(2);
    for (const row of rows())
      expect(
        server.feedback
          .filter((f) => f.run_id === row.id)
          .map((f) => f.key)
          .sort(),
      ).toEqual(Object.keys(EVALUATORS).sort());
    expect(server.unknown).toEqual([]);
  }, 900_000);

  it("records episodes that ran before LangSmith was on from their stored results, once", async () => {
    const root = scratchDir();
    const settings = options(root, "later");
    const key = process.env.LANGSMITH_API_KEY;
    delete process.env.LANGSMITH_API_KEY;
    const [result] = await runExperiment(settings);
    process.env.LANGSMITH_API_KEY = key;
    expect(server.sessions.some((s) => s.name === "later-full")).toBe(false);
    await recorded(settings);
    await recorded(settings);
    const rows = server.runsOf("later-full").filter((r) => !r.parent_run_id);
    expect(rows.map((r) => r.name)).toEqual([result.id]);
    expect(rows[0].outputs).toMatchObject({ id: result.id, success: result.success, steps: result.steps });
    expect(server.unknown).toEqual([]);
  });
});
