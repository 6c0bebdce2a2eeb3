/** What RePLan's nodes look through: the palm camera's newest frame with its detections, and the names a plan may use. */
import type { DetectionsMessage } from "../../robots/msgs/detections";
import type { SceneDetections } from "../../models/symbolic/replan";
import { latestFrame, type Frame } from "../camera";
import type { Session } from "../runtime";

export type View = Omit<Frame<SceneDetections>, "png">;

export async function currentView(s: Session): Promise<View> {
  const { robot, frame, detections: det, image } = await latestFrame<DetectionsMessage>(s);
  // The prompt carries the detections and places only (no header), as it always has.
  return { robot, frame, detections: { detections: det.detections, places: det.places }, image };
}

/** The names a plan may use, as the prompts list them: objects, joints (with what they move) and target points. */
export function sceneVocabulary(s: Session) {
  return { objects: s.world.labels, joints: s.world.joints ?? [], targets: s.world.targets ?? [] };
}
