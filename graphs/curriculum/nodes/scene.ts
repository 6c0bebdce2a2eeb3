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

export async function lookAtBasket(s: Session, layout: number) {
  // The reset latches fresh frames before it answers: the frame read next is of this layout.
  await s.client.callService(RESET_SERVICE, { seed: layout });
  const f = await latestFrame<DetectionsMessage>(s);
  const blocks: SeenBlock[] = f.detections.detections.map((d) => ({
    label: colourOf(d.label, d.color),
    u: Math.round(d.box.x + d.box.w / 2),
    v: Math.round(d.box.y + d.box.h / 2),
    on: d.location.relation === "held_by" ? "gripper" : colourOf(d.location.place),
  }));
  const held = blocks.find((b) => b.on === "gripper");
  return { frame: f.frame, image: f.image, blocks, holding: held?.label ?? null };
}
