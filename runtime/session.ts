/**
 * What a run needs besides its state: the bridge connection, the robots' manifests, the latest camera frames, the
 * models and the artifact store. A run opens it (./run.ts) from its robot link and its models.
 */
import { BridgeClient } from "../robots/bridge/client";
import type { RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { discoverRobots, manifestsFromFile } from "../tools/skills";
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
        client.subscribe<ImageMessage>(cam.image, type, (m) => ((view.image = m), check()), raw);
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
    firstViews: Promise.all(waits).then(() => undefined),
    reopen,
  };
}
