/**
 * What a run needs besides its state: the bridge connection, the robots' manifests, the latest camera frames, the
 * models and the artifact store. A run opens it (./run.ts) from its robot link and its models.
 */
import { BridgeClient } from "../robots/bridge/client";
import type { RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { discoverRobots, manifestsFromFile } from "../tools/skills";
import { RobotLiveness, STALE_FRAME_SEC } from "../tools/liveness";
import type { ModelConfig, RoleModels } from "../models";
import type { ArtifactStore } from "../memory/artifacts";
import type { DetectionsMessage } from "../robots/msgs/detections";
import type { ImageMessage } from "../robots/msgs/images";

/**
 * A robot's latest camera messages, as the robot sent them (raw or compressed: robots/msgs/images.ts reads both);
 * `D` is its detector's message (manipulation worlds' by default), absent for a robot with no detector of ours.
 */
export interface CameraView<D = DetectionsMessage> {
  image?: ImageMessage;
  detections?: D;
  /** When the newest frame arrived here (Date.now()): its age is measured from this, not the robot's clock. */
  imageAt?: number;
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
  /**
   * Each robot's signs of life, whether or not a skill runs (tools/liveness.ts); absent where no robot is behind the
   * session (a node run alone on a recorded context).
   */
  liveness?: RobotLiveness;
  /** Resolves once every robot's camera has sent a frame and detections. */
  firstViews: Promise<void>;
  /** A new session to the same robots (this one's client gave up reconnecting). */
  reopen(): Promise<Session>;
}

/** Where a run's robots are: the bridge, its token, and a manifest file when the bridge serves none. */
export interface RobotLink {
  bridgeUrl: string;
  bridgeToken?: string;
  manifest?: string;
}

/** Connects to the robots at `link`, learns their manifests and world, and follows their cameras. */
export async function openSession(
  link: RobotLink,
  models: Pick<Session, "models" | "modelConfig" | "artifacts">,
  reopen: () => Promise<Session>,
): Promise<Session> {
  const client = await BridgeClient.connect(link.bridgeUrl, { token: link.bridgeToken, connectAttempts: 8 });
  const { robots, world } = link.manifest
    ? await manifestsFromFile(client, link.manifest)
    : await discoverRobots(client);
  const views = new Map<string, CameraView>();
  const waits: Promise<void>[] = [];
  for (const r of robots) {
    const cam = r.cameras[0];
    if (!cam) continue;
    const view: CameraView = {};
    views.set(r.id, view);
    const type = cam.imageType ?? "sensor_msgs/msg/CompressedImage";
    const raw = type === "sensor_msgs/msg/Image" ? { throttleRate: RAW_FRAME_EVERY_MS, queueLength: 1 } : {};
    waits.push(
      new Promise<void>((resolve) => {
        // A camera without a detector of ours is ready with its first frame (a VLM reads the image itself).
        const check = () => view.image && (view.detections || !cam.detections) && resolve();
        client.subscribe<ImageMessage>(
          cam.image,
          type,
          (frame) => {
            view.image = frame;
            view.imageAt = Date.now();
            check();
          },
          raw,
        );
        if (cam.detections)
          client.subscribe<CameraView["detections"]>(
            cam.detections,
            undefined,
            (m) => ((view.detections = m), check()),
          );
      }),
    );
  }
  return {
    client,
    robots,
    world: world ?? { name: "undescribed", places: [], navigationPoints: [], labels: [] },
    described: !!world,
    ...models,
    views,
    liveness: new RobotLiveness(client, robots),
    firstViews: Promise.all(waits).then(() => undefined),
    reopen,
  };
}

/** How a robot's camera stands: its newest frame's age, and whether that frame still shows what the robot sees. */
export interface CameraHealth {
  robot: string;
  /**
   * `live`: its robot gives signs of life and the frame is recent, or the camera publishes only on change (latched);
   * `quiet`: its robot lives but the camera, which publishes at a rate, has sent nothing for its `staleSec`;
   * `lost`: its robot gives no sign of life (tools/liveness.ts) — the last frame is not what it sees now.
   */
  state: "live" | "quiet" | "lost";
  /** Seconds since the newest frame arrived (undefined: none yet). */
  ageSec?: number;
  /** For a lost camera: seconds since its robot's last sign of life. */
  silentSec?: number;
  /** The camera's state in words, with the frame's age. */
  said: string;
}

const secondsOld = (ms: number) => `${(ms / 1000).toFixed(1)} s old`;

/** The health of `robot`'s first camera (the one its view follows), now. */
export function cameraHealth(session: Pick<Session, "robots" | "views" | "liveness">, robot: string): CameraHealth {
  const camera = session.robots.find((r) => r.id === robot)?.cameras[0];
  const view = session.views.get(robot);
  const ageMs = view?.imageAt === undefined ? undefined : Date.now() - view.imageAt;
  const ageSec = ageMs === undefined ? undefined : ageMs / 1000;
  const frame = ageMs === undefined ? "no frame yet" : `its last frame is ${secondsOld(ageMs)}`;
  const signs = session.liveness?.of(robot);
  if (signs?.lost)
    return {
      robot,
      state: "lost",
      ageSec,
      silentSec: signs.silentMs / 1000,
      said: `${robot}'s camera is lost with its robot (no sign of life from ${signs.sign} for ${(signs.silentMs / 1000).toFixed(1)} s): ${frame}, not what it sees now`,
    };
  const staleMs = (camera?.staleSec ?? STALE_FRAME_SEC) * 1000;
  if (ageMs !== undefined && !camera?.latched && ageMs > staleMs)
    return {
      robot,
      state: "quiet",
      ageSec,
      said: `${robot}'s camera ${camera?.image ?? ""} has gone quiet (nothing for over ${staleMs / 1000} s, its robot alive): ${frame}`,
    };
  return {
    robot,
    state: "live",
    ageSec,
    said: ageMs === undefined ? `${robot}'s camera has sent no frame yet` : `frame ${secondsOld(ageMs)}`,
  };
}

/**
 * One line for a run's report beside the frames it keeps: each camera's frame age and state as the step ended
 * (`robot`: that robot's camera alone).
 */
export function frameAgeLine(session: Pick<Session, "robots" | "views" | "liveness">, robot?: string): string {
  const robots = session.robots.filter((r) => r.cameras.length && (!robot || r.id === robot)).map((r) => r.id);
  const health = robots.map((id) => cameraHealth(session, id));
  if (!health.length) return "";
  return `\n_${health.map((h) => (h.state === "live" ? `${h.robot}: ${h.said}` : h.said)).join("; ")}_\n`;
}
