/**
 * What a run needs besides its state: the bridge connection, the robots' manifests, the latest camera frames, the
 * models and the artifact store. Resolved from the run's configuration and cached per bridge URL, so the same graph
 * runs from the CLI, from tests and under the LangGraph server.
 */
import { join } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { BridgeClient } from "../robots/bridge/client";
import type { RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { discoverRobots } from "../tools/skills";
import { createModels, modelConfig, type ModelConfig, type RoleModels } from "../models";
import { ArtifactStore } from "../memory/artifacts";
import { dataDir } from "../memory/checkpointer";
import type { DetectionsInput } from "../models/symbolic/clea";
import type { NoiseKnobs } from "../models/symbolic/noise";

/** CLEA-mode variants, then RePLan-mode ones (`full` is both modes' complete agent). */
export const CLEA_VARIANTS = ["full", "no-critic", "no-summarizer", "open-loop"] as const;
export const REPLAN_VARIANTS = ["full", "no-verifier", "no-perceiver", "no-replan", "one-shot"] as const;
export type Variant = (typeof CLEA_VARIANTS)[number] | (typeof REPLAN_VARIANTS)[number];
const VARIANTS: Variant[] = [...new Set<Variant>([...CLEA_VARIANTS, ...REPLAN_VARIANTS])];

export interface RunOptions {
  bridgeUrl: string;
  bridgeToken?: string;
  variant: Variant;
  backend?: "openai" | "symbolic";
  model?: string;
  seed: number;
  noise: number;
  /** Individual noise knobs of the symbolic backend on top of `noise` (see models/symbolic/reasoner.ts). */
  noiseKnobs?: Partial<NoiseKnobs>;
  /** Skills that need a human's approval before they run, as `robot/skill` (on top of the manifests' flags). */
  approve: string[];
  maxSteps: number;
  maxReplans: number;
  /** RePLan: new procedures after a plan ends without the goal (its P). */
  maxProcedures: number;
  /** RePLan: how many differently worded questions the perceiver is asked about a failure. */
  diagnosisPhrasings: number;
  maxModelCalls: number;
  maxWallSeconds: number;
  dataDir: string;
}

export function runOptions(config?: RunnableConfig): RunOptions {
  const c = (config?.configurable ?? {}) as Partial<RunOptions> & { approve?: string[] | string };
  const env = process.env;
  const variant = (c.variant ?? env.ROBOGRAPH_VARIANT ?? "full") as Variant;
  if (!(VARIANTS as string[]).includes(variant)) throw new Error(`unknown variant ${variant}; one of ${VARIANTS.join(", ")}`);
  const bridgeUrl = c.bridgeUrl ?? env.ROBOGRAPH_BRIDGE_URL;
  if (!bridgeUrl) throw new Error("no bridge URL: set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL (e.g. ws://127.0.0.1:9090)");
  const approve = typeof c.approve === "string" ? c.approve.split(",").filter(Boolean) : c.approve ?? (env.ROBOGRAPH_APPROVE ?? "").split(",").filter(Boolean);
  return {
    bridgeUrl,
    bridgeToken: c.bridgeToken ?? env.ROBOGRAPH_BRIDGE_TOKEN,
    variant,
    backend: c.backend,
    model: c.model,
    seed: Number(c.seed ?? env.ROBOGRAPH_SEED ?? 0),
    noise: Number(c.noise ?? env.ROBOGRAPH_NOISE ?? 0),
    noiseKnobs: c.noiseKnobs,
    approve,
    maxSteps: Number(c.maxSteps ?? 40),
    maxReplans: Number(c.maxReplans ?? 15),
    maxProcedures: Number(c.maxProcedures ?? 3),
    diagnosisPhrasings: Math.max(1, Math.min(6, Number(c.diagnosisPhrasings ?? 6))),
    maxModelCalls: Number(c.maxModelCalls ?? 400),
    maxWallSeconds: Number(c.maxWallSeconds ?? 900),
    dataDir: c.dataDir ?? dataDir(),
  };
}

/** What a run has used so far, against its budgets. */
export interface Spent {
  /** Skills (CLEA) or motions (RePLan) sent. */
  actions: number;
  replans: number;
  /** RePLan's new procedures. */
  procedures?: number;
  modelCalls: number;
  startedAt: number;
}

/** The first budget a run has used up, in words, or undefined while every budget lasts. */
export function overBudget(o: RunOptions, spent: Spent): string | undefined {
  const wall = (Date.now() - (spent.startedAt || Date.now())) / 1000;
  return spent.actions >= o.maxSteps ? `${spent.actions} actions (budget ${o.maxSteps})`
    : spent.replans > o.maxReplans ? `${spent.replans} replans (budget ${o.maxReplans})`
    : (spent.procedures ?? 0) > o.maxProcedures ? `${spent.procedures} new procedures (budget ${o.maxProcedures})`
    : spent.modelCalls >= o.maxModelCalls ? `${spent.modelCalls} model calls (budget ${o.maxModelCalls})`
    : wall >= o.maxWallSeconds ? `${Math.round(wall)} s (budget ${o.maxWallSeconds} s)`
    : undefined;
}

export interface CameraView {
  image?: { data: string; header: { stamp: { sec: number; nanosec: number } } };
  detections?: DetectionsInput & { header: { stamp: { sec: number; nanosec: number } } };
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
}

const sessions = new Map<string, Promise<Session>>();

export function session(opts: RunOptions): Promise<Session> {
  const key = JSON.stringify([opts.bridgeUrl, opts.backend, opts.model, opts.seed, opts.noise, opts.noiseKnobs, opts.dataDir]);
  let s = sessions.get(key);
  if (!s) {
    s = open(opts).catch((err) => {
      sessions.delete(key);
      throw err;
    });
    sessions.set(key, s);
  }
  return s;
}

async function open(opts: RunOptions): Promise<Session> {
  const client = await BridgeClient.connect(opts.bridgeUrl, { token: opts.bridgeToken, connectAttempts: 8 });
  const { robots, world } = await discoverRobots(client);
  if (!world) throw new Error(`${opts.bridgeUrl} serves no world description; the closed loop needs its places and labels`);
  const mc = modelConfig(process.env, { backend: opts.backend, model: opts.model, seed: opts.seed, noise: opts.noise, noiseKnobs: opts.noiseKnobs });
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
    models: createModels(mc),
    modelConfig: mc,
    artifacts: new ArtifactStore(join(opts.dataDir, "artifacts")),
    views,
    firstViews: Promise.all(waits).then(() => undefined),
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
