/** Perception of frames, for every method: a robot's newest camera frame, stored as an artifact, and its detections. */
import { imagePart } from "../models";
import { RobotLostError } from "../robots/bridge/errors";
import { imageSize, pngOf } from "../robots/msgs/images";
import type { RobotManifest } from "../robots/manifests/schema";
import { cameraHealth, type CameraView, type Session } from "../runtime/session";

export interface Frame<D> {
  robot: string;
  /** Artifact reference of the frame (content-addressed: an unchanged view gives the same reference). */
  frame: string;
  png: Buffer;
  /** The detector's message as the robot published it. */
  detections: D;
  /** The frame as a model's image part (longest side capped). */
  image: Awaited<ReturnType<typeof imagePart>>;
}

/** The newest colour frame of a robot's camera as PNG, whatever the robot publishes (raw or compressed). */
export function framePng(robot: RobotManifest, view: CameraView<unknown>): Promise<Buffer> {
  return pngOf(view.image!, robot.cameras[0]?.image ?? `${robot.id}'s camera`);
}

/**
 * Refuses a frame whose robot is lost: its last frame is not what it sees now, however recent it looks. Thrown as the
 * robot's loss (RobotLostError), it pauses the run resumable (nodes/guard.ts), saying the frame's age.
 */
export function refuseLostCamera(session: Pick<Session, "robots" | "views" | "liveness">, robot: string): void {
  const health = cameraHealth(session, robot);
  if (health.state === "lost")
    throw new RobotLostError(`robot ${robot}`, (health.silentSec ?? 0) * 1000, `robot lost — ${health.said}`);
}

/**
 * What a robot's detector reported with its frame. A robot with no detector of ours (no detections topic) has none:
 * a VLM reads the image alone, so it gets an empty report; the offline reasoner reads nothing but detections, so it
 * refuses, saying what would make the run possible. A lost robot's frame is refused (`refuseLostCamera`).
 */
export function detectionsOf<D>(
  session: Pick<Session, "modelConfig" | "robots" | "views" | "liveness">,
  robot: RobotManifest,
  view: CameraView<unknown>,
): D | undefined {
  if (view.image) refuseLostCamera(session, robot.id);
  if (view.detections) return view.detections as D;
  if (robot.cameras[0]?.detections || !view.image) return undefined;
  if (session.modelConfig.backend === "symbolic") {
    throw new Error(
      `robot ${robot.id} publishes no detections (its camera has no detections topic), and the offline reasoner reads only detections: run with a VLM (OPENAI_API_KEY, and OPENAI_BASE_URL for a local one) or give the camera a detections topic (robograph_msgs/Detections)`,
    );
  }
  const size = imageSize(view.image);
  // Nothing detected, nothing named: the image is the whole report.
  return {
    header: view.image.header,
    robot: robot.id,
    width: size?.width ?? robot.cameras[0].width,
    height: size?.height ?? robot.cameras[0].height,
    detections: [],
    places: [],
  } as D;
}

/** The newest frame of the first robot with a camera (RePLan's palm, VLM-PC's dog), after the first frames arrived. */
export async function latestFrame<D>(session: Session): Promise<Frame<D>> {
  await session.firstViews;
  const robot = session.robots.find((r) => r.cameras.length && session.views.get(r.id)?.image);
  const view = robot && session.views.get(robot.id);
  const detections = robot && view ? detectionsOf<D>(session, robot, view) : undefined;
  if (!robot || !view?.image || !detections) throw new Error("no camera frame from the robot yet");
  const png = await framePng(robot, view);
  return {
    robot: robot.id,
    frame: session.artifacts.put(png),
    png,
    detections,
    image: await imagePart(png, session.modelConfig.imageMaxSide),
  };
}
