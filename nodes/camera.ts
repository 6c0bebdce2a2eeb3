/** What the hierarchical nodes look through: the robot's latest camera frame and detections, stored as an artifact. */
import { imagePart } from "../models";
import type { Session } from "./runtime";
import type { SceneDetections } from "../models/symbolic/replan";

export interface View {
  robot: string;
  /** Artifact reference of the frame. */
  frame: string;
  detections: SceneDetections;
  image: Awaited<ReturnType<typeof imagePart>>;
}

/** The first camera's newest frame (RePLan's robot has one), after the first frames have arrived. */
export async function currentView(s: Session): Promise<View> {
  await s.firstViews;
  const robot = s.robots.find((r) => r.cameras.length && s.views.get(r.id)?.image);
  const v = robot && s.views.get(robot.id);
  if (!robot || !v?.image || !v.detections) throw new Error("no camera frame from the robot yet");
  const png = Buffer.from(v.image.data, "base64");
  const det = v.detections as unknown as SceneDetections;
  return {
    robot: robot.id,
    frame: s.artifacts.put(png),
    detections: { detections: det.detections, places: det.places },
    image: await imagePart(png, s.modelConfig.imageMaxSide),
  };
}

/** The names a plan may use, as the prompts list them: objects, joints (with what they move) and target points. */
export function sceneVocabulary(s: Session) {
  return { objects: s.world.labels, joints: s.world.joints ?? [], targets: s.world.targets ?? [] };
}
