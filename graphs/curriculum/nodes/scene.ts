/**
 * The basket as the curriculum sees it when it proposes: the first instance loaded with a layout the run's episodes
 * could start from (its start — floor, stacked, leaning, held — is the world's), then its frame and the detector's
 * blocks. Not where the last episode left the blocks: the episodes the proposal leads to begin from fresh layouts, so
 * a stack the last plan built is nothing the next ones start with.
 */
import type { SeenBlock } from "../schemas";
import { RESET_SERVICE } from "../../../robots/msgs/runSkills";
import type { DetectionsMessage } from "../../../robots/msgs/detections";
import { PROPOSAL_SEEDS } from "../../../models/learning/evaluation";
import { latestFrame } from "../../../nodes/perceiver";
import type { Session } from "../../../runtime/session";

/** The layout shown for proposal `cycle` of a run under `seed`: fixed by both, so a resumed run is shown the same. */
export const proposalLayout = (seed: number, cycle: number) =>
  PROPOSAL_SEEDS.from + ((seed * 10_007 + cycle) % PROPOSAL_SEEDS.count);

/** "red_block" → "red"; where it rests: the basket, another block ("green_block" → "green"), or the gripper. */
const colourOf = (label: string, color?: string) => color ?? label.replace(/_block$/, "");

export async function lookAtBasket(session: Session, layout: number) {
  // The reset latches fresh frames before it answers: the frame read next is of this layout.
  await session.client.callService(RESET_SERVICE, { seed: layout });
  const latest = await latestFrame<DetectionsMessage>(session);
  const blocks: SeenBlock[] = latest.detections.detections.map((detection) => ({
    label: colourOf(detection.label, detection.color),
    u: Math.round(detection.box.x + detection.box.w / 2),
    v: Math.round(detection.box.y + detection.box.h / 2),
    on: detection.location.relation === "held_by" ? "gripper" : colourOf(detection.location.place),
  }));
  const held = blocks.find((b) => b.on === "gripper");
  return { frame: latest.frame, image: latest.image, blocks, holding: held?.label ?? null };
}
