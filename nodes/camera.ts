/** Perception of frames, for every method: a robot's newest camera frame, stored as an artifact, and its detections. */
import { imagePart } from "../models";
import type { Session } from "./runtime";

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

/** The newest frame of the first robot with a camera (RePLan's palm, VLM-PC's dog), after the first frames arrived. */
export async function latestFrame<D>(s: Session): Promise<Frame<D>> {
  await s.firstViews;
  const robot = s.robots.find((r) => r.cameras.length && s.views.get(r.id)?.image);
  const v = robot && s.views.get(robot.id);
  if (!robot || !v?.image || !v.detections) throw new Error("no camera frame from the robot yet");
  const png = Buffer.from(v.image.data, "base64");
  return { robot: robot.id, frame: s.artifacts.put(png), png, detections: v.detections as D, image: await imagePart(png, s.modelConfig.imageMaxSide) };
}
