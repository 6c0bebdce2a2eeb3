/**
 * The skill rewards as the simulator computes them at every control step: the block state read from the physics
 * (TCP, fingers, grasp sensor, block centres) and every skill's reward from the pure functions of robots/manifests/blocks/skills.ts
 * (the paper's Appendix D), which tests and the learner also use on hand-built or recorded states.
 */
import { COLORS, FINGER_MAX, type BlockState, type Color } from "../../msgs/blocks";
import { allRewards } from "../../manifests/blocks/skills";
import type { MjData } from "../mujoco";
import { pointPosition } from "../palm/rewards";
import type { Thing } from "../palm/bodies";

export { allRewards };

export interface StateSource {
  data: MjData;
  palmBody: number;
  /** The blocks as the tabletop indexer found them, in COLORS order. */
  blocks: readonly Thing[];
  /** Index into `blocks` of the held one, -1 for none. */
  held: number;
  /** Finger opening, metres. */
  opening: number;
}

export function readState(src: StateSource): BlockState {
  const asVec3 = (p: number[]) => p as [number, number, number];
  const blocks = {} as Record<Color, [number, number, number]>;
  COLORS.forEach((c, i) => (blocks[c] = asVec3(pointPosition(src.data, src.blocks[i].point))));
  return {
    tcp: asVec3(pointPosition(src.data, { kind: "body", id: src.palmBody })),
    opening: Math.min(1, Math.max(0, src.opening / FINGER_MAX)),
    grasped: src.held >= 0,
    held: src.held >= 0 ? COLORS[src.held] : null,
    blocks,
  };
}
