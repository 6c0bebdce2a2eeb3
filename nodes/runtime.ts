/**
 * What a run needs besides its state: the bridge connection, the robots' manifests, the latest camera frames, the
 * models and the artifact store. Resolved from the run's configuration (./configuration.ts) and cached per bridge URL,
 * so the same graph runs from the CLI, from tests and under the LangGraph server.
 */
import { join } from "node:path";
import { BridgeClient } from "../robots/bridge/client";
import type { RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { discoverRobots, manifestsFromFile } from "../tools/skills";
import { createModels, modelConfig, type ModelConfig, type RoleModels } from "../models";
import { ArtifactStore } from "../memory/artifacts";
import type { DetectionsMessage } from "../robots/msgs/detections";
import type { ImageMessage } from "../robots/msgs/images";
import type { RunOptions } from "./configuration";

/**
 * A robot's latest camera messages, as the robot sent them (raw or compressed: robots/msgs/images.ts reads both);
 * `D` is its detector's message (manipulation worlds' by default), absent for a robot with no detector of ours.
 */
export interface CameraView<D = DetectionsMessage> {
  image?: ImageMessage;
  detections?: D;
}

/** Raw frames are large (a 640x480 rgb8 frame is 1.2 MB as JSON): the bridge sends the newest at most this often. */
const RAW_FRAME_EVERY_MS = 100;

export interface Session {
  client: BridgeClient;
  robots: RobotManifest[];
  /** The world's vocabulary; empty when the robot's bridge and manifest file describe none (then `described` is false). */
  world: WorldDescription;
  described: boolean;
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

const sessionKey = (opts: RunOptions) => JSON.stringify([opts.bridgeUrl, opts.backend, opts.model, opts.models, opts.seed, opts.noise, opts.noiseKnobs, opts.dataDir]);

/**
 * A session the caller made, for the configuration `opts`: nodes run with it as with one they opened (a node run alone
 * on a recorded context, with no robot behind it). Returns the function that forgets it.
 */
export function provideSession(opts: RunOptions, s: Session): () => void {
  const key = sessionKey(opts);
  const given = Promise.resolve(s);
  sessions.set(key, given);
  return () => {
    if (sessions.get(key) === given) sessions.delete(key);
  };
}

/**
 * The session for a run's configuration, opened once and shared. The methods plan over the world's places and labels,
 * so by default a robot that describes no world is refused; `{ world: false }` (MCP's skill tools, `look`) takes it.
 */
export async function session(opts: RunOptions, need: { world: boolean } = { world: true }): Promise<Session> {
  const s = await openShared(opts);
  if (need.world && !s.described) throw new Error(`${opts.bridgeUrl} serves no world description; the closed loop needs its places and labels (add "world" to the manifest file)`);
  return s;
}

function openShared(opts: RunOptions): Promise<Session> {
  const key = sessionKey(opts);
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
  const views = new Map<string, CameraView>();
  const waits: Promise<void>[] = [];
  for (const r of robots) {
    const cam = r.cameras[0];
    if (!cam) continue;
    const v: CameraView = {};
    views.set(r.id, v);
    const type = cam.imageType ?? "sensor_msgs/msg/CompressedImage";
    const raw = type === "sensor_msgs/msg/Image" ? { throttleRate: RAW_FRAME_EVERY_MS, queueLength: 1 } : {};
    waits.push(
      new Promise<void>((resolve) => {
        // A camera without a detector of ours is ready with its first frame (a VLM reads the image itself).
        const check = () => v.image && (v.detections || !cam.detections) && resolve();
        client.subscribe<ImageMessage>(cam.image, type, (m) => ((v.image = m), check()), raw);
        if (cam.detections) client.subscribe<CameraView["detections"]>(cam.detections, undefined, (m) => ((v.detections = m), check()));
      }),
    );
  }
  return {
    client,
    robots,
    world: world ?? { name: "undescribed", places: [], navigationPoints: [], labels: [] },
    described: !!world,
    ...modelSession(opts),
    views,
    firstViews: Promise.all(waits).then(() => undefined),
    reopen: () => openShared(opts),
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
