/**
 * What a run needs besides its state: the bridge connection, the robots' manifests, the latest camera frames, the
 * models and the artifact store. Resolved from the run's configuration and cached per bridge URL, so the same graph
 * runs from the CLI, from tests and under the LangGraph server.
 */
import { join } from "node:path";
import { z } from "zod";
import type { RunnableConfig } from "@langchain/core/runnables";
import { BridgeClient } from "../robots/bridge/client";
import type { RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { discoverRobots, manifestsFromFile } from "../tools/skills";
import { createModels, modelConfig, ROLES, type ModelConfig, type Role, type RoleModels } from "../models";
import { ArtifactStore } from "../memory/artifacts";
import { dataDir } from "../memory/checkpointer";
import type { DetectionsMessage, Header } from "../robots/msgs/detections";

/** Each graph's variants (`full` is every graph's complete agent; the others remove one part, or are the paper's baseline). */
export const CLEA_VARIANTS = ["full", "no-critic", "no-summarizer", "open-loop"] as const;
export const REPLAN_VARIANTS = ["full", "no-verifier", "no-perceiver", "no-replan", "one-shot"] as const;
/** VLM-PC's: the full method, its two ablations, the random baseline, and the full method with labelled examples. */
export const VLMPC_VARIANTS = ["full", "no-history", "no-multi-step", "random", "full+ic"] as const;
/** The behaviour critic's: with grounding feedback (the paper's augmented critic) or its raw critique. */
export const CRITIC_VARIANTS = ["full", "no-grounding"] as const;
/** Game On's curriculum: the full method, or base-only (the library never grows: the base-skill data to compare with). */
export const CURRICULUM_VARIANTS = ["full", "base-only"] as const;
export type Variant = (typeof CLEA_VARIANTS)[number] | (typeof REPLAN_VARIANTS)[number] | (typeof VLMPC_VARIANTS)[number] | (typeof CRITIC_VARIANTS)[number] | (typeof CURRICULUM_VARIANTS)[number];
const VARIANTS = [...new Set<Variant>([...CLEA_VARIANTS, ...REPLAN_VARIANTS, ...VLMPC_VARIANTS, ...CRITIC_VARIANTS, ...CURRICULUM_VARIANTS])] as [Variant, ...Variant[]];

const count = (what: string, dflt: number) => z.coerce.number().int().min(0).default(dflt).describe(`${what} (default ${dflt})`);

/**
 * A graph's run configuration: what Studio draws as the assistant's form (published by the LangGraph server as the
 * graph's config/context schema) and what every node reads through `runOptions`. One schema, so the form's defaults
 * are the defaults the run uses.
 */
export function runConfiguration<V extends readonly [string, ...string[]], E extends z.ZodRawShape = {}>(variants: V, own: E = {} as E) {
  return z.object({
    bridgeUrl: z.string().optional().describe("WebSocket URL of the robot bridge (rosbridge v2), e.g. ws://127.0.0.1:9090; falls back to ROBOGRAPH_BRIDGE_URL"),
    bridgeToken: z.string().optional().describe("token the bridge requires off loopback; falls back to ROBOGRAPH_BRIDGE_TOKEN"),
    manifest: z.string().optional().describe("a manifest file ({ robots, world }) for a robot whose bridge serves no /robograph/manifest, such as a plain ROS robot (robograph connect drafts one); falls back to ROBOGRAPH_MANIFEST"),
    variant: z.enum(variants).default(variants[0] as V[number] as never).describe(`which agent runs: ${variants.join(", ")} (default ${variants[0]})`),
    backend: z.enum(["openai", "symbolic"]).optional().describe("model backend: openai (any OpenAI-compatible endpoint; needs OPENAI_API_KEY) or symbolic (the built-in offline reasoner); default openai when a key is set"),
    model: z.string().optional().describe("model name for every role (ROBOGRAPH_MODEL, default gpt-4o-mini)"),
    models: z.object(Object.fromEntries(ROLES.map((r) => [r, z.string().optional().describe(`model for the ${r} role`)])) as Record<Role, z.ZodOptional<z.ZodString>>)
      .optional()
      .describe("per-role model names, over `model`"),
    seed: z.coerce.number().int().default(0).describe("seed of every random draw (symbolic reasoner's noise); the same seed gives the same run"),
    noise: z.coerce.number().min(0).max(1).default(0).describe("symbolic reasoner's noise level in [0, 1]: one level sets every knob in fixed proportions"),
    noiseKnobs: z.record(z.string(), z.number()).optional().describe("individual noise knobs on top of the level (studies and tests)"),
    approve: z
      .preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(z.string()))
      .default([])
      .describe("skills that pause for a human's approval before they run, as robot/skill"),
    maxSteps: count("skills (or motions) a run may send", 40),
    maxReplans: count("plans a run may make after its first", 15),
    maxModelCalls: count("model calls a run may make", 400),
    maxWallSeconds: count("wall-clock seconds a run may take", 900),
    pausedSeconds: z.coerce.number().min(0).default(0).describe("seconds a resumed run spent stopped (its process dead, its job waiting to be taken over): not counted against maxWallSeconds"),
    dataDir: z.string().optional().describe("where checkpoints, memory and frames are kept (ROBOGRAPH_DATA_DIR, default ./data)"),
    ...own,
  });
}

/** RePLan's own settings. */
export const REPLAN_SETTINGS = {
  maxProcedures: count("new procedures after a plan ended without the goal", 3),
  diagnosisPhrasings: z.coerce.number().int().min(1).max(6).default(6).describe("differently worded questions the perceiver is asked about a failure (1–6, default 6)"),
};

/** VLM-PC's own settings. */
export const VLMPC_SETTINGS = {
  maxSkillSeconds: count("seconds of skill time before the run ends (the paper's 100 s)", 100),
  historyWindow: count("how many recent steps the planner sees with their images; older ones as a text summary (0: the whole history, as the paper)", 0),
  examples: z.string().optional().describe("full+ic: a JSON file of labelled example frames (evals/datasets/course_examples/<course>.json)"),
};

/** The behaviour critic's own settings. */
export const CRITIC_SETTINGS = {
  grounding: z
    .enum(["detector", "events"])
    .default("detector")
    .describe("what checks the critic's claims: detector (the tracked detections of the whole rollout) or events (the simulator's event log: perfect grounding, as a person watching would give)"),
  maxRewrites: count("programs the writer may rewrite after a critique", 5),
  maxImages: z.coerce.number().int().min(2).max(60).default(30).describe("most images in one request (the paper's 30 key frames; lower it for endpoints that cap images)"),
};

/** Game On's own settings: the embodiment's simulator instances and the curriculum's budgets. */
export const CURRICULUM_SETTINGS = {
  instanceUrls: z
    .preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(z.string()))
    .default([])
    .describe("bridge URLs of the embodiment's simulator instances, comma-separated (default: bridgeUrl alone); the first one's camera is what proposals are made from"),
  episodesPerInstance: z.coerce.number().int().min(1).default(2).describe("episodes each instance runs per embodied plan (default 2; the paper ran 5)"),
  maxEpisodes: count("embodied episodes before the curriculum ends", 60),
  maxIterations: count("learner iterations before the curriculum ends", 40),
  practiceEpisodes: count("episodes each skill being learned is tried alone per learner iteration, with samples of its policy (0: learn only from the curriculum's plans)", 6),
  maxLearning: z.coerce.number().int().min(1).default(3).describe("skills learned at once; later proposals wait their turn, first proposed first (default 3)"),
  maxDiscardsInRow: z.coerce.number().int().min(1).default(3).describe("plans discarded in a row before a cycle goes on to learning without new episodes (default 3)"),
  curveHorizon: z.coerce.number().int().min(2).default(8).describe("learner iterations a learning-curve plot's x axis spans at least (default 8)"),
  // Chosen on curriculum seeds 0–4 (docs/results/curriculum-tuning.md); the reported runs use other seeds.
  learnerElite: z.coerce.number().gt(0).max(1).default(0.05).describe("share of the relabelled samples in the learner's elite, per skill (default 0.05, chosen on tuning seeds 0–4)"),
  learnerStep: z.coerce.number().gt(0).max(1).default(0.7).describe("how far each learner iteration moves a policy towards its elite's fit (default 0.7, chosen on tuning seeds 0–4)"),
  baseSkills: z.string().optional().describe("file of the pretrained base skills' policies (default data/blocks/base-skills.json)"),
};

/** Any graph's configuration: nodes do not know which graph runs them; the graph's own schema checks its variants. */
const AnyRunConfiguration = runConfiguration(VARIANTS, { ...REPLAN_SETTINGS, ...VLMPC_SETTINGS, ...CRITIC_SETTINGS, ...CURRICULUM_SETTINGS });
export type RunOptions = z.infer<typeof AnyRunConfiguration> & { bridgeUrl: string; variant: Variant; dataDir: string };

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ""));

/**
 * The run's configuration, from the environment overlaid by `configurable` and then LangGraph's `context`.
 * `robotless`: a node that needs no robot (a critique of recorded rollouts) runs without a bridge URL.
 */
export function runOptions(config?: RunnableConfig & { context?: unknown }, robotless = false): RunOptions {
  const env = process.env;
  const fromEnv = defined({ bridgeUrl: env.ROBOGRAPH_BRIDGE_URL, bridgeToken: env.ROBOGRAPH_BRIDGE_TOKEN, manifest: env.ROBOGRAPH_MANIFEST, variant: env.ROBOGRAPH_VARIANT, seed: env.ROBOGRAPH_SEED, noise: env.ROBOGRAPH_NOISE, approve: env.ROBOGRAPH_APPROVE });
  const given = { ...fromEnv, ...defined((config?.configurable ?? {}) as Record<string, unknown>), ...defined((config?.context ?? {}) as Record<string, unknown>) };
  const parsed = AnyRunConfiguration.safeParse(given);
  if (!parsed.success) throw new Error(`invalid run configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  if (!c.bridgeUrl && !robotless) throw new Error("no bridge URL: set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL (e.g. ws://127.0.0.1:9090)");
  return { ...c, bridgeUrl: c.bridgeUrl ?? "", dataDir: c.dataDir ?? dataDir() };
}

/**
 * `runOptions` for a graph's first node: the LangGraph server validates `context` against the graph's schema but not
 * `configurable`, so a variant of another graph would otherwise run here as an unnamed hybrid.
 */
export function graphRunOptions(config: RunnableConfig | undefined, graph: string, variants: readonly string[], robotless = false): RunOptions {
  const opts = runOptions(config, robotless);
  if (!variants.includes(opts.variant)) throw new Error(`invalid run configuration: variant ${opts.variant} is not one of ${graph}'s: ${variants.join(", ")}`);
  return opts;
}

/** A robot's latest camera messages; `D` is its detector's message (manipulation worlds' by default). */
export interface CameraView<D = DetectionsMessage> {
  image?: { data: string; header: Pick<Header, "stamp"> };
  detections?: D;
}

export interface Session {
  client: BridgeClient;
  robots: RobotManifest[];
  world: WorldDescription;
  models: RoleModels;
  modelConfig: ModelConfig;
  artifacts: ArtifactStore;
  /** Latest frame and detections per robot (the camera topics are latched and republished after every skill). */
  views: Map<string, CameraView>;
  /** Resolves once every robot's camera has sent a frame and detections. */
  firstViews: Promise<void>;
  /** The session for the same configuration now: this one while its client lives, a new one once it gave up. */
  reopen(): Promise<Session>;
}

const sessions = new Map<string, Promise<Session>>();
const modelSessions = new Map<string, Pick<Session, "models" | "modelConfig" | "artifacts">>();

/** The models and artifact store alone, for nodes that need no robot (critiques of recorded rollouts). */
export function modelSession(opts: RunOptions): Pick<Session, "models" | "modelConfig" | "artifacts"> {
  const key = JSON.stringify([opts.backend, opts.model, opts.models, opts.seed, opts.noise, opts.noiseKnobs, opts.dataDir]);
  let s = modelSessions.get(key);
  if (!s) {
    const mc = modelConfig(process.env, { backend: opts.backend, model: opts.model, roleModels: opts.models, seed: opts.seed, noise: opts.noise, noiseKnobs: opts.noiseKnobs });
    s = { models: createModels(mc), modelConfig: mc, artifacts: new ArtifactStore(join(opts.dataDir, "artifacts")) };
    modelSessions.set(key, s);
  }
  return s;
}

export function session(opts: RunOptions): Promise<Session> {
  const key = JSON.stringify([opts.bridgeUrl, opts.backend, opts.model, opts.models, opts.seed, opts.noise, opts.noiseKnobs, opts.dataDir]);
  let s = sessions.get(key);
  if (!s) {
    // A client that gave up reconnecting is closed for good; leaving it cached would fail every later run on this URL
    // (a long-lived LangGraph server would need a restart), so the cache lets it go and the next call opens a new one.
    const forget = () => {
      if (sessions.get(key) === s) sessions.delete(key);
    };
    s = open(opts, forget).catch((err) => {
      forget();
      throw err;
    });
    sessions.set(key, s);
  }
  return s;
}

async function open(opts: RunOptions, onClientGone: () => void): Promise<Session> {
  if (!opts.bridgeUrl) throw new Error("no bridge URL: set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL (e.g. ws://127.0.0.1:9090)");
  const client = await BridgeClient.connect(opts.bridgeUrl, { token: opts.bridgeToken, connectAttempts: 8 });
  client.once("close", onClientGone);
  const { robots, world } = opts.manifest ? await manifestsFromFile(client, opts.manifest) : await discoverRobots(client);
  if (!world) throw new Error(`${opts.bridgeUrl} serves no world description; the closed loop needs its places and labels`);
  const views = new Map<string, CameraView>();
  const waits: Promise<void>[] = [];
  for (const r of robots) {
    const cam = r.cameras[0];
    if (!cam) continue;
    const v: CameraView = {};
    views.set(r.id, v);
    waits.push(
      new Promise<void>((resolve) => {
        const check = () => v.image && v.detections && resolve();
        client.subscribe<CameraView["image"]>(cam.image, "sensor_msgs/msg/CompressedImage", (m) => ((v.image = m), check()));
        if (cam.detections) client.subscribe<CameraView["detections"]>(cam.detections, undefined, (m) => ((v.detections = m), check()));
      }),
    );
  }
  return {
    client,
    robots,
    world,
    ...modelSession(opts),
    views,
    firstViews: Promise.all(waits).then(() => undefined),
    reopen: () => session(opts),
  };
}

/** Closes the sessions bound to one bridge (an experiment's episode is done with its simulator). */
export async function closeSessionsFor(bridgeUrl: string): Promise<void> {
  for (const [key, s] of [...sessions]) {
    if (JSON.parse(key)[0] !== bridgeUrl) continue;
    sessions.delete(key);
    await s.then((x) => x.client.close()).catch(() => {});
  }
}

/** Closes every cached session (end of a CLI run or a test). */
export async function closeSessions(): Promise<void> {
  const all = [...sessions.values()];
  sessions.clear();
  for (const s of all) await s.then((x) => x.client.close()).catch(() => {});
}
