/**
 * The blocks world's shared definitions (robograph_msgs for Game On): the blocks, the geometry both ends agree on, the
 * state a reward reads (and its flat row in an episode), and the one parameter vector every skill's controller reads.
 * The skills and their rewards are the arm's catalogue (robots/manifests/blocks/skills.ts); the `run_skills` goal and
 * the recorded episode are ./runSkills.ts.
 */
import { z } from "zod";

export const COLORS = ["red", "green", "blue"] as const;
export type Color = (typeof COLORS)[number];

// ---- geometry both ends agree on ---------------------------------------------------------------------------------

/** Edge of a block, metres (a stacked block's centre sits one edge above the one below: the paper's "4 cm above Y"). */
export const BLOCK_SIZE = 0.04;
/** Widest finger opening, metres; the gripper's opening fraction is the opening over this. */
export const FINGER_MAX = 0.08;
/** Seconds per control step: the controller acts and every reward is computed once per step. */
export const CONTROL_TICK = 0.05;
/** Length of an evaluation episode of one skill, seconds; with rewards clipped to [0, 1] a skill's return is at most EVAL_STEPS. */
export const EVAL_SECONDS = 4;
export const EVAL_STEPS = Math.round(EVAL_SECONDS / CONTROL_TICK);

// ---- the state rewards read ----------------------------------------------------------------------------------------

/** What a reward reads of the world: the tool centre point, the gripper, and the blocks' centres (basket floor at z = 0). */
export interface BlockState {
  tcp: [number, number, number];
  /** Finger opening as a fraction of FINGER_MAX: 0 shut, 1 wide open. */
  opening: number;
  /** The grasp sensor: the fingers hold something. */
  grasped: boolean;
  held: Color | null;
  blocks: Record<Color, [number, number, number]>;
}

/** An episode stores each state as this flat row (see stateRow / stateFromRow). */
export const STATE_FIELDS = [
  "tcp_x",
  "tcp_y",
  "tcp_z",
  "opening",
  "grasped",
  "held",
  "red_x",
  "red_y",
  "red_z",
  "green_x",
  "green_y",
  "green_z",
  "blue_x",
  "blue_y",
  "blue_z",
] as const;

export function stateRow(state: BlockState): number[] {
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return [
    ...state.tcp.map(round),
    round(state.opening),
    state.grasped ? 1 : 0,
    state.held ? COLORS.indexOf(state.held) : -1,
    ...COLORS.flatMap((c) => state.blocks[c].map(round)),
  ];
}

export function stateFromRow(row: readonly number[]): BlockState {
  const triple = (i: number): [number, number, number] => [row[i], row[i + 1], row[i + 2]];
  return {
    tcp: triple(0),
    opening: row[3],
    grasped: row[4] > 0.5,
    held: row[5] >= 0 ? COLORS[row[5]] : null,
    blocks: { red: triple(6), green: triple(9), blue: triple(12) },
  };
}

/** An action as recorded: the controller's TCP target and the finger opening fraction it commands. */
export const ACTION_FIELDS = ["target_x", "target_y", "target_z", "opening_cmd"] as const;

// ---- the shared controller parameters ------------------------------------------------------------------------------

/**
 * One parameter vector for every skill: the simulator's controller reads it the same way whichever skill it runs, so a
 * segment collected for one skill, scored with another's reward, is a sample for that other skill (relabelling).
 * The controller: pick a source block (argmax of its logits); if `close` < 0.5 just hold the TCP at the source plus
 * `reach offset` with the fingers at `idle opening`; otherwise grasp the source (approach from above, descend to
 * `grasp dz`, close), then carry it to `carry z` and, if a destination block is chosen, over it and down to `place dz`
 * above it, letting go there if `release` >= 0.5.
 */
export const PARAMS = [
  { name: "src_red", min: -1, max: 1, description: "logit: red is the source block" },
  { name: "src_green", min: -1, max: 1, description: "logit: green is the source block" },
  { name: "src_blue", min: -1, max: 1, description: "logit: blue is the source block" },
  { name: "dst_red", min: -1, max: 1, description: "logit: carry the source onto red" },
  { name: "dst_green", min: -1, max: 1, description: "logit: carry the source onto green" },
  { name: "dst_blue", min: -1, max: 1, description: "logit: carry the source onto blue" },
  { name: "dst_none", min: -1, max: 1, description: "logit: keep the source held up where it was lifted" },
  {
    name: "close",
    min: 0,
    max: 1,
    description: ">= 0.5: grasp the source; below: only move the TCP, fingers at idle opening",
  },
  { name: "idle_opening", min: 0, max: 1, description: "finger opening fraction when not grasping" },
  { name: "reach_dx", min: -0.12, max: 0.12, description: "m, TCP target from the source's centre when not grasping" },
  { name: "reach_dy", min: -0.12, max: 0.12, description: "m" },
  { name: "reach_dz", min: -0.04, max: 0.16, description: "m" },
  {
    name: "grasp_dz",
    min: -0.03,
    max: 0.04,
    description: "m, TCP height over the source's centre where the fingers close",
  },
  {
    name: "carry_z",
    min: 0.03,
    max: 0.25,
    description: "m above the basket floor the held block's centre is carried at",
  },
  {
    name: "place_dz",
    min: 0,
    max: 0.12,
    description: "m above the destination's centre where the held block's centre is set down",
  },
  { name: "release", min: 0, max: 1, description: ">= 0.5: open the fingers once the held block is set down" },
  { name: "speed", min: 0.1, max: 0.6, description: "m/s, the TCP's top speed" },
] as const;
export const PARAM_DIM = PARAMS.length;
export const PARAM_NAMES = PARAMS.map((p) => p.name);
export const PARAM_MIN = PARAMS.map((p) => p.min);
export const PARAM_MAX = PARAMS.map((p) => p.max);

export const ParamVector = z
  .array(z.number())
  .length(PARAM_DIM, `a parameter vector has ${PARAM_DIM} numbers (${PARAM_NAMES.join(", ")})`)
  .superRefine((vector, ctx) => {
    vector.forEach((x, i) => {
      if (!Number.isFinite(x) || x < PARAM_MIN[i] || x > PARAM_MAX[i]) {
        ctx.addIssue({
          code: "custom",
          path: [i],
          message: `${PARAM_NAMES[i]} must be in [${PARAM_MIN[i]}, ${PARAM_MAX[i]}], got ${x}`,
        });
      }
    });
  });

export const clampParams = (v: readonly number[]) => v.map((x, i) => Math.min(PARAM_MAX[i], Math.max(PARAM_MIN[i], x)));
