/**
 * Game On's curriculum graph: retrieval discards a plan with a step no skill does and records the missing skill as a
 * learning target; the `Send` fan-out runs the plan on N real blocks simulators (separate processes on loopback) and
 * gathers their episodes; the analyst judges rendered plots offline and over a real HTTP endpoint (the plot image in
 * the request); an answer that never fits the verdict's schema ends with a clear error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { retrieve } from "../../../graphs/curriculum/nodes/retrieve";
import { analyse, judge } from "../../../graphs/curriculum/nodes/analyse";
import { renderCurve } from "../../../graphs/curriculum/nodes/plot";
import { EXEMPLARS } from "../../../graphs/curriculum/nodes/exemplars";
import type { CurriculumStateType, LearningTarget } from "../../../graphs/curriculum/state";
import { closePooledSessions } from "../../../runtime/run";
import { ModelOutputError } from "../../../models";
import { memoryCheckpointer } from "../../../memory/checkpointer";
import { startSimProcess, type SimProcess } from "../../../robots/sim/process";
import { BridgeClient } from "../../../robots/bridge/client";
import { BASE_SKILLS } from "../../../robots/manifests/blocks/skills";
import { trainSkills } from "../../../models/learning/train";
import { saveLibrary } from "../../../models/learning/policy";
import { Rng } from "../../../robots/random";
import { startFakeOpenAI, type ChatRequest } from "../../helpers/openaiServer";
import { curriculum } from "../../../graphs/curriculum";
import { inRunOf } from "../../helpers/run";

const BASE = ["open gripper", "close gripper", "grasp anything", "reach red", "reach green", "reach blue"];
const scratch = mkdtempSync(join(tmpdir(), "robograph-curriculum-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A state in the middle of a cycle: the proposal made and decomposed, nothing retrieved yet. */
function midCycle(steps: string[], task: string): CurriculumStateType {
  return {
    goal: "master the blocks",
    library: BASE.map((caption) => ({ caption, since: 0, source: "base" as const })),
    current: {
      cycle: 3,
      library: BASE,
      scene: { frame: "sha256:" + "0".repeat(64) + ".png", blocks: [] },
      proposal: { task, reasoning: "" },
      decomposition: { steps, reasoning: "" },
    },
    cycles: [],
    plan: null,
    episodes: [],
    targets: {},
    policies: "",
    proposals: [],
    counters: { cycles: 4, episodes: 8, iterations: 2, discards: 0, discardsInRow: 0 },
    status: "running",
    statusReason: "",
    usage: {},
    startedAt: Date.now(),
  } as CurriculumStateType;
}

const offline = inRunOf(curriculum, { backend: "symbolic", dataDir: scratch });

describe("retrieve", () => {
  it("discards a plan with a step no library skill does, records it, and makes the missing skill a learning target", async () => {
    const update = (await retrieve(
      midCycle(["reach red", "grasp anything", "lift red"], "pick up the red block"),
      offline,
    )) as Partial<CurriculumStateType>;
    expect(update.plan).toBeNull();
    const record = (update.cycles as CurriculumStateType["cycles"])[0];
    expect(record.outcome).toEqual({ kind: "discarded", missing: ["lift red"] });
    expect(record.retrievals!.map((r) => r.skill)).toEqual(["reach red", "grasp anything", null]);
    const proposals = update.proposals as CurriculumStateType["proposals"];
    expect(proposals.map((p) => [p.step, p.skill])).toEqual([
      ["lift red", "lift red"],
      ["pick up the red block", "lift red"],
    ]);
    expect(Object.keys(update.targets!)).toEqual(["lift red"]);
    expect(update.targets!["lift red"]).toMatchObject({
      family: "lift",
      since: 2,
      converged: false,
      returns: [],
      snapshots: [],
    });
    expect(update.counters).toMatchObject({ discards: 1, discardsInRow: 1 });
  });

  it("records a missing step the embodiment has no reward for, without a target", async () => {
    const update = (await retrieve(
      midCycle(
        ["put green next to red", "reach blue"],
        "build a pyramid with the blue block on top of the green block and the red block",
      ),
      offline,
    )) as Partial<CurriculumStateType>;
    expect(update.plan).toBeNull();
    const proposals = update.proposals as CurriculumStateType["proposals"];
    expect(proposals[0]).toMatchObject({ step: "put green next to red", skill: null });
    // The task itself has a reward (the pyramid): that one becomes a target.
    expect(Object.keys(update.targets!)).toEqual(["pyramid blue on red and green"]);
  });

  it("keeps a plan whose every step is a library skill", async () => {
    const update = await retrieve(midCycle(["reach blue"], "reach the blue block"), offline);
    expect(update.plan).toEqual(["reach blue"]);
    expect(update.proposals).toEqual([]);
    expect(update.counters).toMatchObject({ discardsInRow: 0 });
  });
});

describe("analyse", () => {
  const target = (returns: number[]): LearningTarget => ({
    caption: "lift red",
    family: "lift",
    proposedFor: "lift red",
    since: 0,
    returns,
    finalSuccess: [],
    snapshots: [],
    maxReturn: 80,
    analyses: [],
    converged: false,
  });

  it("renders each curve, judges it offline from the image, and adds converged skills to the library", async () => {
    const state = midCycle([], "x");
    state.counters = { ...state.counters, iterations: 7 };
    state.targets = {
      "lift red": { ...target([0, 30, 60, 70, 71, 70, 71, 70]) },
      "above green": { ...target([0, 5, 12, 20, 29, 40, 52, 63]), caption: "above green", family: "above" },
    };
    const update = (await analyse(state, offline)) as Partial<CurriculumStateType>;
    expect(update.targets!["lift red"].converged).toBe(true);
    expect(update.targets!["above green"].converged).toBe(false);
    expect(update.library!.map((l) => l.caption)).toEqual([...BASE, "lift red"]);
    const plot = update.targets!["lift red"].analyses[0].plot;
    expect(plot).toMatch(/^sha256:[0-9a-f]{64}\.png$/);
  });

  it("keeps the policy of the point that is best on the selection layouts, not on the layouts the curve reports", async () => {
    const state = midCycle([], "x");
    state.counters = { ...state.counters, iterations: 7 };
    // Best on the reported layouts at point 4 (71); best on the selection layouts at point 6.
    state.targets = {
      "lift red": { ...target([0, 30, 60, 70, 71, 70, 70, 70]), selection: [0, 28, 55, 66, 64, 67, 69, 68] },
    };
    const update = (await analyse(state, offline)) as Partial<CurriculumStateType>;
    expect(update.targets!["lift red"].converged).toBe(true);
    expect(update.targets!["lift red"].kept).toMatchObject({ point: 6, return: 70 });
  });

  it("sends the exemplar plots and the curve's plot as images over the OpenAI protocol and reads the verdict", async () => {
    const fake = await startFakeOpenAI(() => ({
      arguments: JSON.stringify({ reasoning: "flat for the last iterations", converged: true }),
    }));
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: fake.baseURL,
      ROBOGRAPH_MODEL_RETRIES: "0",
      ROBOGRAPH_MODEL_TIMEOUT_MS: "5000",
    });
    try {
      const curveTarget = target([0, 40, 60, 62, 61]);
      const { analysis } = await judge(
        curveTarget,
        4,
        8,
        inRunOf(curriculum, { backend: "openai", dataDir: join(scratch, "http-ok") }),
      );
      expect(analysis.converged).toBe(true);
      const req = fake.requests[0] as ChatRequest;
      expect(req.tools?.[0].function.name).toBe("ConvergenceVerdict");
      const parts = req.messages.find((m) => m.role === "user")!.content as {
        type: string;
        image_url?: { url: string };
      }[];
      const images = parts
        .filter((p) => p.type === "image_url")
        .map((p) => Buffer.from(p.image_url!.url.replace(/^data:image\/png;base64,/, ""), "base64"));
      expect(images).toHaveLength(EXEMPLARS.length + 1);
      // The last image is the curve's own plot, pixel for pixel.
      const mine = await renderCurve({ title: "lift red", returns: curveTarget.returns, maxReturn: 80, horizon: 8 });
      const [sentPixels, ownPixels] = await Promise.all([images.at(-1)!, mine].map((p) => sharp(p).raw().toBuffer()));
      expect(sentPixels.equals(ownPixels)).toBe(true);
      // The prompt text carries no pixels of its own (the image does) and no numbers of the curve.
      const text = parts.find((p) => p.type === "text") as unknown as { text: string };
      expect(text.text).not.toContain("plotPng");
      expect(text.text).not.toContain("61");
    } finally {
      process.env = saved;
      await fake.close();
    }
  });

  it("fails clearly when the analyst's answer never fits the verdict schema", async () => {
    const fake = await startFakeOpenAI(() => ({
      arguments: JSON.stringify({ reasoning: "hard to say", converged: "maybe" }),
    }));
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: fake.baseURL,
      ROBOGRAPH_MODEL_RETRIES: "0",
      ROBOGRAPH_MODEL_TIMEOUT_MS: "5000",
    });
    try {
      const err = await judge(
        target([0, 40, 60]),
        2,
        8,
        inRunOf(curriculum, { backend: "openai", dataDir: join(scratch, "http-bad") }),
      ).catch((e) => e);
      expect(err).toBeInstanceOf(ModelOutputError);
      expect(err.message).toMatch(
        /analyst model's answer does not fit the ConvergenceVerdict schema: converged: .*after 3 attempts/,
      );
      expect(fake.requests).toHaveLength(3);
    } finally {
      process.env = saved;
      await fake.close();
    }
  });
});

describe("the embodiment fan-out", () => {
  const sims: SimProcess[] = [];
  const episodesDir = join(scratch, "episodes");
  const baseFile = join(scratch, "base-skills.json");

  beforeAll(async () => {
    for (let i = 0; i < 2; i++)
      sims.push(
        await startSimProcess("blocks", ["--seed", String(10 + i), "--episodes", episodesDir, "--instance", `i${i}`]),
      );
    // A small base library of our own (one learner iteration): the fan-out needs policies, not good ones.
    const clients = await Promise.all(sims.map((s) => BridgeClient.connect(s.url)));
    const { library } = await trainSkills(
      clients,
      { policies: {}, curves: {} },
      { skills: [...BASE_SKILLS], iterations: 1, episodesPerPlan: 2, rng: new Rng(3) },
    );
    saveLibrary(baseFile, library);
    for (const c of clients) await c.close();
  }, 120_000);
  afterAll(async () => {
    await closePooledSessions();
    for (const s of sims) await s.stop();
  });

  it("runs the plan on every instance (a Send each) and gathers all their episodes", async () => {
    const graph = curriculum.compile(memoryCheckpointer());
    const config = {
      configurable: {
        thread_id: "fan-out",
        backend: "symbolic",
        dataDir: scratch,
        bridgeUrl: sims[0].url,
        instanceUrls: sims.map((s) => s.url),
        baseSkills: baseFile,
        episodesPerInstance: 2,
        maxEpisodes: 4,
        practiceEpisodes: 0,
      },
    };
    const rollouts: { episodes: CurriculumStateType["episodes"] }[] = [];
    for await (const chunk of await graph.stream({ goal: "master the blocks" }, { ...config, streamMode: "updates" })) {
      for (const [node, u] of Object.entries(chunk as Record<string, unknown>))
        if (node === "rollout") rollouts.push(u as { episodes: CurriculumStateType["episodes"] });
    }
    const state = (await graph.getState(config)).values as CurriculumStateType;
    // The first proposal is a single base skill, so the first plan is embodied at once: one branch per instance.
    expect(rollouts).toHaveLength(2);
    expect(rollouts.map((r) => r.episodes.map((e) => e.instance))).toEqual(
      expect.arrayContaining([
        [0, 0],
        [1, 1],
      ]),
    );
    expect(state.episodes).toHaveLength(4);
    expect(new Set(state.episodes.map((e) => e.id)).size).toBe(4);
    // Each instance recorded its own episodes in the shared store, under its own name.
    const stored = readdirSync(episodesDir).filter((f) => f.endsWith(".json"));
    for (const e of state.episodes) expect(stored).toContain(`${e.id}.json`);
    expect(new Set(state.episodes.map((e) => e.id.split("-")[0]))).toEqual(new Set(["i0", "i1"]));
    // The tally counted them, and the run ended on its episode budget with a true status.
    expect(state.cycles[0].outcome).toMatchObject({ kind: "embodied", episodes: 4 });
    expect(state.counters.episodes).toBe(4);
    expect(state.status).toBe("budget_exhausted");
  }, 120_000);
});
