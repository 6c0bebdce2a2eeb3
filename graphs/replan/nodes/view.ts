/** What RePLan's nodes look through: the palm camera's newest frame with its detections, and the names a plan may use. */
import type { DetectionsMessage } from "../../../robots/msgs/detections";
import type { SceneDetections } from "../checks";
import { latestFrame, type Frame } from "../../../nodes/perceiver";
import type { Session } from "../../../runtime/session";
import { INSIDE_IN_VIEW_PIXELS, searchedObjects, noteLook, type SearchLedger } from "../../../nodes/search";

export type View = Omit<Frame<SceneDetections>, "png">;

export async function currentView(session: Session): Promise<View> {
  const { robot, frame, detections: det, image } = await latestFrame<DetectionsMessage>(session);
  // The prompt carries the detections and places only (no header), as it always has.
  return { robot, frame, detections: { detections: det.detections, places: det.places }, image };
}

/** The names a plan may use, as the prompts list them: objects, joints (with what they move) and target points. */
export function sceneVocabulary(session: Session) {
  return { objects: session.world.labels, joints: session.world.joints ?? [], targets: session.world.targets ?? [] };
}

/**
 * Folds one look into the search ledger: the places whose inside the frame shows (as its detector reports them) were
 * looked into, and the things the perceiver confirmed were seen.
 */
export function noteSceneLook(
  search: { since: SearchLedger; viewed: string[] },
  goal: string,
  session: Session,
  view: View,
  visible: string[],
): { since: SearchLedger; viewed: string[] } {
  const lookedInto = view.detections.places
    .filter((p) => p.insidePixels >= INSIDE_IN_VIEW_PIXELS && p.state === "open")
    .map((p) => p.name);
  return {
    since: noteLook(search.since, searchedObjects(goal, session.world), { lookedInto, seen: visible }),
    viewed: [...new Set([...search.viewed, ...lookedInto])],
  };
}
