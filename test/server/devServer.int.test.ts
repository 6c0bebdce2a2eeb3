/**
 * The graph under the real LangGraph dev server (the pinned CLI, offline), driven by the real SDK client:
 * a thread, a streamed run against a running simulator, the approval interrupt, resume, and the state history; and a
 * run paused by a model endpoint that went down, resumed on the same thread once it is back.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { ROOT, startSim, type SimProcess } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { loadScenario } from "../../robots/sim/kitchen/scenario";
import { freePort } from "../../robots/sim/process";
import { BridgeClient } from "../../robots/bridge/client";
import {
  answerAsReasoner,
  contextText,
  startFakeOpenAI,
  type ChatRequest,
  type FakeOpenAI,
} from "../helpers/openaiServer";

let sim: SimProcess;
let server: ChildProcess;
let apiUrl: string;
let log = "";
// The served graphs' OpenAI-compatible endpoint (a hosted VLM's stand-in): it answers as the symbolic reasoner would from
// the context text alone, unless the test has taken it down.
let endpoint: FakeOpenAI;
let endpointDown = false;
const taskOf = (req: ChatRequest) => /"task":"(\w+)"/.exec(contextText(req))?.[1];

beforeAll(async () => {
  sim = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
  endpoint = await startFakeOpenAI(async (req) =>
    endpointDown
      ? { status: 503, body: JSON.stringify({ error: { message: "the model is overloaded" } }) }
      : await answerAsReasoner(req),
  );
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  const { OPENAI_API_KEY: _k, LANGSMITH_TRACING: _t, ...env } = process.env;
  server = spawn(
    join(ROOT, "node_modules", ".bin", "langgraphjs"),
    ["dev", "--no-browser", "--host", "127.0.0.1", "--port", String(port)],
    {
      cwd: ROOT,
      env: {
        ...env,
        LANGGRAPH_CLI_NO_ANALYTICS: "1",
        ROBOGRAPH_DATA_DIR: scratchDir(),
        // The endpoint is configured; runs that do not ask for the openai backend use the built-in reasoner.
        OPENAI_API_KEY: "sk-local",
        OPENAI_BASE_URL: endpoint.baseURL,
        ROBOGRAPH_MODEL: "local-vlm",
        ROBOGRAPH_MODEL_RETRIES: "1",
        ROBOGRAPH_MODEL_BACKOFF_MS: "10",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  server.stdout!.on("data", (d) => (log += d));
  server.stderr!.on("data", (d) => (log += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${apiUrl}/ok`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`dev server did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}, 120_000);

afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    // The CLI starts workers of its own: stop the whole process group.
    process.kill(-server.pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await sim?.stop();
  await endpoint?.close();
});

describe("LangGraph dev server", () => {
  it("runs the closed loop as a served graph, pauses for approval, resumes and keeps the history", async () => {
    const client = new Client({ apiUrl });
    const assistants = await client.assistants.search({ graphId: "closedLoop" });
    expect(assistants.length).toBeGreaterThan(0);
    // RePLan's hierarchical mode is served beside it, with its nodes visible to Studio.
    const replan = (await client.assistants.search({ graphId: "replan" }))[0];
    const drawn = await client.assistants.getGraph(replan.assistant_id);
    expect(drawn.nodes.map((n) => n.id)).toEqual(
      expect.arrayContaining(["scan", "high_level_planner", "diagnose", "consolidate", "task_check"]),
    );
    const thread = await client.threads.create();
    const config = { configurable: { bridgeUrl: sim.url, backend: "symbolic", approve: ["arm/release_to"] } };
    const nodes: string[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, "closedLoop", {
      input: { goal: loadScenario("integration_tea_to_trash").instruction },
      config,
      streamMode: "updates",
    })) {
      if (chunk.event === "updates") nodes.push(...Object.keys(chunk.data as object));
      if (chunk.event === "error") throw new Error(`run failed: ${JSON.stringify(chunk.data)}`);
    }
    expect(nodes).toContain("planner");
    expect(nodes).toContain("executor");

    // Paused before the arm throws the tea away, with a HumanInterrupt the agent inbox understands.
    const paused = await client.threads.getState(thread.thread_id);
    expect(paused.next).toEqual(["dispatch"]);
    const request = (
      paused.tasks[0].interrupts[0].value as {
        action_request: { action: string; args: Record<string, string> };
        config: Record<string, boolean>;
      }[]
    )[0];
    expect(request.action_request).toEqual({
      action: "arm/release_to",
      args: { object: "bottle_of_tea", place: "trash_can" },
    });
    expect(request.config).toMatchObject({ allow_accept: true, allow_ignore: true });

    for await (const _ of client.runs.stream(thread.thread_id, "closedLoop", {
      command: { resume: [{ type: "accept" }] },
      config,
      streamMode: "updates",
    })) {
      // drain
    }
    const done = await client.threads.getState(thread.thread_id);
    expect((done.values as { status: string }).status).toBe("succeeded");
    expect(done.next).toEqual([]);

    const history = await client.threads.getHistory(thread.thread_id, { limit: 200 });
    expect(history.length).toBeGreaterThan(20);
    // Checkpoints hold frame references, never image bytes.
    expect(JSON.stringify(history[0].values)).not.toMatch(/iVBORw0KGgo/);
  });

  it("publishes each graph's configuration and input schemas, so Studio draws a form", async () => {
    const client = new Client({ apiUrl });
    const graphs = Object.keys(
      JSON.parse(readFileSync(join(ROOT, "langgraph.json"), "utf8")).graphs as Record<string, string>,
    );
    expect(graphs.length).toBeGreaterThanOrEqual(2);
    for (const graphId of graphs) {
      const [assistant] = await client.assistants.search({ graphId });
      const schemas = await client.assistants.getSchemas(assistant.assistant_id);
      for (const config of [schemas.config_schema, schemas.context_schema]) {
        const props = (
          config as { properties: Record<string, { enum?: string[]; description?: string; default?: unknown }> }
        ).properties;
        expect(props.bridgeUrl.description, graphId).toMatch(/bridge/);
        expect(props.variant.enum, graphId).toContain("full");
        expect(props.variant.default, graphId).toBe("full");
        for (const key of [
          "backend",
          "model",
          "models",
          "noise",
          "seed",
          "maxSteps",
          "maxModelCalls",
          "maxWallSeconds",
          "approve",
          "dataDir",
        ]) {
          expect(props[key]?.description, `${graphId}.${key}`).toBeTruthy();
        }
      }
      // The input form asks only for what a user types (the critic also for its job and recorded rollouts); the rest
      // of the state is the graph's own.
      const input = schemas.input_schema as { properties: Record<string, unknown>; required?: string[] };
      expect(Object.keys(input.properties), graphId).toEqual(
        graphId === "behaviorCritic" ? ["goal", "job", "rollouts", "program"] : ["goal"],
      );
      expect(input.required ?? [], graphId).not.toContain(expect.not.stringMatching(/^goal$/));
    }
    // Each graph has its own variants: RePLan's ablations are not offered for CLEA's loop, and the other way round.
    const variants = async (graphId: string) => {
      const [assistant] = await client.assistants.search({ graphId });
      return (
        (await client.assistants.getSchemas(assistant.assistant_id)).config_schema as {
          properties: { variant: { enum: string[] } };
        }
      ).properties.variant.enum;
    };
    expect(await variants("closedLoop")).toEqual(["full", "no-critic", "no-summarizer", "open-loop"]);
    expect(await variants("replan")).toEqual(["full", "no-verifier", "no-perceiver", "no-replan", "one-shot"]);
    expect(await variants("behaviorCritic")).toEqual(["full", "no-grounding"]);
  });

  it("refuses a run whose configuration names a variant the graph does not have, saying which", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    const chunks: { event: string; data: unknown }[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, "closedLoop", {
      input: { goal: "Find the bottle_of_tea." },
      config: { configurable: { bridgeUrl: sim.url, backend: "symbolic", variant: "no-verifier" } },
      streamMode: "updates",
    }))
      chunks.push(chunk);
    const error = chunks.find((c) => c.event === "error");
    expect(JSON.stringify(error?.data)).toMatch(/variant/);
    expect(JSON.stringify(error?.data)).toMatch(/no-critic/);
  });

  it("a run paused by a model endpoint that stays down ends interrupted, and the same thread resumes at that node once it is back", async () => {
    const own = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
    const watcher = await BridgeClient.connect(own.url);
    try {
      const client = new Client({ apiUrl });
      const thread = await client.threads.create();
      const config = { configurable: { bridgeUrl: own.url, backend: "openai" } };
      // Up for the first two looks; down from the third on. (The trigger is a look's first perception: both robots'
      // perceptions of a look are in one node, so the node that stops is always the perceiver — a trigger inside the
      // summarizer would race the critic that runs beside it.)
      let perceptions = 0;
      const served = endpoint.respond;
      endpoint.respond = (req, count) => {
        if (taskOf(req) === "perceive" && ++perceptions === 5) endpointDown = true;
        return served(req, count);
      };
      const drain = async (stream: AsyncIterable<{ event: string; data: unknown }>) => {
        for await (const chunk of stream)
          if (chunk.event === "error") throw new Error(`run failed: ${JSON.stringify(chunk.data)}`);
      };
      await drain(
        client.runs.stream(thread.thread_id, "closedLoop", {
          input: { goal: loadScenario("integration_tea_to_trash").instruction },
          config,
          streamMode: "updates",
        }),
      );
      const paused = await client.threads.getState(thread.thread_id);
      const values = paused.values as { status: string; statusReason: string };
      expect(values.status, values.statusReason).toBe("interrupted");
      expect(values.statusReason).toMatch(
        /^interrupted in perceiver: the perceiver model \(local-vlm at http:\/\/127\.0\.0\.1:\d+\/v1\) failed 2 times \(1 retries\); last error: HTTP 503/,
      );
      expect(paused.next).toEqual([]);
      const started = async () =>
        (await watcher.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events")).events
          .filter((e) => e.kind === "skill_started")
          .map((e) => e.goalId);
      const skillsBefore = await started();
      expect(skillsBefore.length).toBeGreaterThan(0);

      // Back up: the nodes to run again are those the checkpoint before the last was about to run (what --resume does;
      // the summarizer and the critic of one look run side by side).
      endpointDown = false;
      endpoint.respond = served;
      const [, before] = await client.threads.getHistory(thread.thread_id, { limit: 2 });
      expect(before.next).toEqual(["perceiver"]);
      await drain(
        client.runs.stream(thread.thread_id, "closedLoop", {
          command: { goto: before.next },
          config,
          streamMode: "updates",
        }),
      );
      const done = await client.threads.getState(thread.thread_id);
      expect((done.values as { status: string }).status).toBe("succeeded");
      // Nothing the robot already did was sent again.
      const all = await started();
      expect(all.slice(0, skillsBefore.length)).toEqual(skillsBefore);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      endpointDown = false;
      await watcher.close();
      await own.stop();
    }
  });
});
