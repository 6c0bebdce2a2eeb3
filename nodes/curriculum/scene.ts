/** The basket as the curriculum sees it: the first instance's newest frame and its detector's blocks. */
import type { SeenBlock } from "../../models/schemas/curriculum";
import type { DetectionsMessage } from "../../robots/msgs/detections";
import { latestFrame } from "../camera";
import type { Session } from "../runtime";

/** "red_block" → "red"; where it rests: the basket, another block ("green_block" → "green"), or the gripper. */
const colourOf = (label: string, color?: string) => color ?? label.replace(/_block$/, "");

export async function lookAtBasket(s: Session) {
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
