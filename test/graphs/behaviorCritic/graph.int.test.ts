/**
 * The behaviour critic graph on real rollouts: critiques of benchmark videos made by the workbench simulator, grounding
 * that removes what did not happen, preferences, the refinement loop against a live simulator over the bridge, bad
 * input, and the openai path over HTTP with the key frames as images.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import { closePooledSessions, openRun } from "../../../runtime/run";
import type { CriticStateType } from "../../../graphs/behaviorCritic/state";
import { generateCriticBenchmark } from "../../../evals/datasets/behaviorCriticBenchmark";
import { loadCriticBenchmark, type CriticBenchmark } from "../../../evals/datasets/behaviorCritic";
import { truthOf } from "../../../evals/behaviorCritic";
import { startSimProcess, type SimProcess } from "../../../robots/sim/process";
import { BridgeClient } from "../../../robots/bridge/client";
import type { SimEvent } from "../../../robots/sim/events";
import { answerAsReasoner, startFakeOpenAI, type ChatRequest, type FakeOpenAI } from "../../helpers/openaiServer";
import { scratchDir } from "../../helpers/episode";
import { behaviorCritic } from "../../../graphs/behaviorCritic";

let bench: CriticBenchmark;
let sim: SimProcess | undefined;
const data = scratchDir();
const graph = behaviorCritic.compile();
/** A critique as a caller runs one: in a run it opens with these settings (over the environment's now), then closes. */
async function critique(id: string, given: Record<string, unknown> = {}): Promise<CriticStateType> {
  const run = openRun(behaviorCritic.runtime, { backend: "symbolic", dataDir: data, ...given });
  try {
    return (await graph.invoke(
      {
        goal: bench.cases.find((c) => [c.inputs.positive, ...c.inputs.negatives].includes(id))!.inputs.instruction,
        job: "critique",
        rollouts: [bench.rolloutPath(id)],
      },
      { context: run.context },
    )) as CriticStateType;
  } finally {
    await run.close();
  }
}
const log = (id: string) => JSON.parse(readFileSync(bench.eventsPath(id), "utf8")) as SimEvent[];
const caseOf = (b: string) => bench.cases.find((c) => c.outputs.behaviour === b)!;

beforeAll(async () => {
  const dir = join(data, "bench");
  await generateCriticBenchmark({
    out: dir,
    seed: 3,
    casesPerBehaviour: 1,
    behaviours: ["dropped", "squeezed", "left_open"],
  });
  bench = loadCriticBenchmark(dir);
}, 300_000);
afterAll(async () => {
  await closePooledSessions();
  await sim?.stop();
});

describe("critique and grounding", () => {
  it("names what each negative shows and nothing in its positive", async () => {
    for (const c of bench.cases) {
      const pos = await critique(c.inputs.positive);
      expect(pos.attempts[0].refined!.undesirable, c.metadata.case).toBe(false);
      for (const id of c.inputs.negatives) {
        const state = await critique(id, { variant: "no-grounding" });
        const kinds = state.attempts[0].refined!.events.map((e) => e.kind);
        expect(kinds, `${id}: ${JSON.stringify(state.attempts[0].refined)}`).toContain(c.outputs.behaviour);
        expect(truthOf(log(id)).map((e) => e.kind)).toContain(c.outputs.behaviour);
      }
    }
  });

  it("drops a hallucinated claim once grounding says it was not found, and keeps the real one", async () => {
    const id = caseOf("dropped").inputs.negatives[0];
    const knobs = { noiseKnobs: { hallucinateEvent: 1 }, seed: 1 };
    const raw = (await critique(id, { ...knobs, variant: "no-grounding" })).attempts[0].refined!;
    expect(raw.events.length).toBe(2);
    for (const grounding of ["events", "detector"]) {
      const state = await critique(id, { ...knobs, grounding });
      const attempt = state.attempts[0];
      expect(attempt.critique).toEqual(raw);
      expect(attempt.feedback?.notFound.length, grounding).toBe(1);
      expect(
        attempt.refined!.events.map((e) => e.kind),
        grounding,
      ).toEqual(["dropped"]);
    }
  });

  it("prefers the positive over a negative in either order, and calls two negatives of a case equal", async () => {
    const example = caseOf("squeezed");
    const prefer = (ids: string[]) =>
      graph.invoke(
        { goal: example.inputs.instruction, job: "prefer", rollouts: ids.map((id) => bench.rolloutPath(id)) },
        { configurable: { backend: "symbolic", dataDir: data } },
      ) as Promise<CriticStateType>;
    expect((await prefer([example.inputs.positive, example.inputs.negatives[0]])).preference!.better).toBe("first");
    expect((await prefer([example.inputs.negatives[1], example.inputs.positive])).preference!.better).toBe("second");
    expect((await prefer(example.inputs.negatives)).preference!.better).toBe("equal");
  });

  it("refuses a job without its rollouts, and a rollout file that is not there, saying so", async () => {
    const state = (await graph.invoke(
      {
        goal: "put the apple on the plate",
        job: "prefer",
        rollouts: [bench.rolloutPath(caseOf("dropped").inputs.positive)],
      },
      { configurable: { backend: "symbolic", dataDir: data } },
    )) as CriticStateType;
    expect(state.status).toBe("failed");
    expect(state.statusReason).toMatch(/a prefer needs 2 recorded rollouts, got 1/);
    await expect(
      graph.invoke(
        { goal: "x", job: "critique", rollouts: [join(data, "nowhere.json")] },
        { configurable: { backend: "symbolic", dataDir: data } },
      ),
    ).rejects.toThrow(/no recorded rollout at .*nowhere\.json/);
  });
});

describe("refinement with the robot in the loop", () => {
  it("rewrites each negative program until nothing undesirable remains, and the goal is still reached", async () => {
    for (const behaviour of ["dropped", "squeezed", "left_open"]) {
      const example = caseOf(behaviour);
      const recorded = bench.rollouts.get(example.inputs.negatives[0])!;
      sim = await startSimProcess("workbench", [
        "--scenario",
        example.inputs.scene,
        "--seed",
        String(recorded.seed),
        "--speed",
        "max",
      ]);
      const state = (await behaviorCritic.compile(new MemorySaver()).invoke(
        { goal: example.inputs.instruction, job: "refine", program: recorded.program },
        {
          configurable: { thread_id: `refine-${behaviour}`, bridgeUrl: sim.url, backend: "symbolic", dataDir: data },
        },
      )) as CriticStateType;
      expect(state.status, `${behaviour}: ${state.statusReason}`).toBe("succeeded");
      expect(state.attempts.length).toBeGreaterThan(1);
      expect(state.attempts[0].refined!.events.map((e) => e.kind)).toContain(behaviour);
      const client = await BridgeClient.connect(sim.url);
      const check = await client.callService<{ success: boolean }>("/evaluator/check", {});
      const { events } = await client.callService<{ events: SimEvent[] }>("/evaluator/events", {});
      await client.close();
      expect(check.success, behaviour).toBe(true);
      expect(truthOf(events), behaviour).toEqual([]);
      await closePooledSessions();
      await sim.stop();
      sim = undefined;
    }
  });

  it("refuses a program that fails its schema before anything is sent, naming the field; ends a run whose program the robot refuses", async () => {
    sim = await startSimProcess("workbench", ["--scenario", "apple_plate", "--speed", "max"]);
    const state = (await behaviorCritic.compile(new MemorySaver()).invoke(
      {
        goal: "put the apple on the plate",
        job: "refine",
        program: { steps: [{ op: "grasp", object: "apple", force: 500, width: 0 }] },
      },
      { configurable: { thread_id: "bad-program", bridgeUrl: sim.url, backend: "symbolic", dataDir: data } },
    )) as CriticStateType;
    expect(state.status).toBe("failed");
    expect(state.statusReason).toMatch(/steps\.0\.force/);
    expect(state.attempts).toEqual([]);
    // Valid in form but naming what the scene does not have: the robot refuses it, and the run ends saying why.
    const refused = (await behaviorCritic.compile(new MemorySaver()).invoke(
      {
        goal: "put the apple on the plate",
        job: "refine",
        program: { steps: [{ op: "move_to", target: "bead_1", offset: [0, 0, 0.1] }] },
      },
      { configurable: { thread_id: "refused-program", bridgeUrl: sim.url, backend: "symbolic", dataDir: data } },
    )) as CriticStateType;
    expect(refused.status).toBe("failed");
    expect(refused.statusReason).toMatch(
      /program 0 was refused by the robot: unknown name\(s\) steps\.0\.target "bead_1"/,
    );
    expect(refused.attempts).toEqual([]);
    await closePooledSessions();
    await sim.stop();
    sim = undefined;
  });
});

describe("the critic over HTTP (openai backend against a local OpenAI-compatible server)", () => {
  let fake: FakeOpenAI;
  const saved = { ...process.env };
  beforeAll(async () => {
    fake = await startFakeOpenAI(answerAsReasoner);
    Object.assign(process.env, {
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: fake.baseURL,
      ROBOGRAPH_MODEL: "local-vlm",
      ROBOGRAPH_MODEL_RETRIES: "0",
    });
  });
  afterAll(async () => {
    process.env = saved;
    await fake.close();
  });
  const images = (req: ChatRequest) =>
    (req.messages.find((m) => m.role === "user")!.content as { type: string }[]).filter((p) => p.type === "image_url")
      .length;

  it("sends the key frames as images, at most 30 (or the configured cap) in one request", async () => {
    const id = caseOf("dropped").inputs.negatives[0];
    const state = await critique(id, { backend: "openai", variant: "no-grounding" });
    expect(state.attempts[0].refined!.events.map((e) => e.kind)).toContain("dropped");
    expect(images(fake.requests[0])).toBe(bench.rollouts.get(id)!.frames.length);
    expect(images(fake.requests[0])).toBeLessThanOrEqual(30);
    fake.requests.length = 0;
    await critique(id, { backend: "openai", variant: "no-grounding", maxImages: 8 });
    expect(images(fake.requests[0])).toBe(8);
  });

  it("says how to fix it when an endpoint refuses that many images", async () => {
    const respond = fake.respond;
    fake.respond = (req) =>
      images(req) > 16
        ? {
            status: 400,
            body: JSON.stringify({
              error: { message: "too many images in one request: at most 16", type: "invalid_request_error" },
            }),
          }
        : respond(req, 0);
    try {
      await expect(critique(caseOf("dropped").inputs.positive, { backend: "openai" })).rejects.toThrow(
        /refused \d+ images in one request.*set maxImages/,
      );
      const state = await critique(caseOf("dropped").inputs.positive, { backend: "openai", maxImages: 16 });
      expect(state.status).toBe("succeeded");
    } finally {
      fake.respond = respond;
    }
  });
});
