/**
 * The blocks arm's skill catalogue: each skill's id, caption, family and blocks, and the paper's reward (its Appendix D)
 * as a pure function of a block state. Both ends import it: the simulator computes every skill's reward at every step;
 * the agent retrieves skills by caption and relabels the episodes with these rewards. The arm's manifest (./arm.json)
 * lists the same ids.
 */
import { BLOCK_SIZE, COLORS, type BlockState, type Color } from "../../msgs/blocks";

// ---- rewards (Appendix D), each in [0, 1] --------------------------------------------------------------------------

const clip01 = (v: number) => Math.min(1, Math.max(0, v));
const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
/** tanh² decay as dm_control's `tolerance`: 1 within `bound`, 0.1 at `bound + margin`, towards 0 beyond. */
const TANH_AT_MARGIN = Math.atanh(Math.sqrt(1 - 0.1));
export function tanhDecay(distance: number, bound = 0.01, margin = 0.1): number {
  if (distance <= bound) return 1;
  const decay = Math.tanh((TANH_AT_MARGIN * (distance - bound)) / margin);
  return clip01(1 - decay * decay);
}
const above = (p: readonly number[], dz: number): [number, number, number] => [p[0], p[1], p[2] + dz];

export const rewards = {
  open_gripper: (s: BlockState) => clip01(s.opening),
  close_gripper: (s: BlockState) => clip01(1 - s.opening),
  grasp_anything: (s: BlockState) => (s.grasped ? 1 : 0),
  reach: (s: BlockState, x: Color) => tanhDecay(dist(s.tcp, s.blocks[x])),
  above: (s: BlockState, x: Color) => tanhDecay(dist(s.tcp, above(s.blocks[x], 0.1))),
  /** 0 below 5 cm above the basket floor, 1 above 10 cm, linear between (the block's centre). */
  lift: (s: BlockState, x: Color) => clip01((s.blocks[x][2] - 0.05) / 0.05),
  /** Full reward within half a block of the spot (a pyramid's top block sits half a block off each base block). */
  place: (state: BlockState, x: Color, y: Color) =>
    tanhDecay(dist(state.blocks[x], above(state.blocks[y], BLOCK_SIZE)), BLOCK_SIZE / 2 + 0.002),
  /** place, but only once the gripper has let go. */
  stack: (s: BlockState, x: Color, y: Color) => (s.grasped ? 0 : rewards.place(s, x, y)),
  triple_stack: (s: BlockState, x: Color, y: Color, z: Color) => rewards.stack(s, x, y) * rewards.stack(s, y, z),
  pyramid: (s: BlockState, x: Color, y: Color, z: Color) => rewards.stack(s, x, y) * rewards.stack(s, x, z),
  inverse_pyramid: (s: BlockState, x: Color, y: Color, z: Color) => rewards.stack(s, x, y) * rewards.stack(s, z, y),
  /**
   * X taken off Y and let go: 1 once X's centre is well away from its place on Y (a block's width and a bit — it rests
   * elsewhere, not on Y), falling off steeply within that (not the place reward's 10 cm margin: a block set down
   * beside Y is off it). 0 while X is held.
   */
  unstack: (state: BlockState, x: Color, y: Color) =>
    state.grasped
      ? 0
      : clip01(
          1 - tanhDecay(dist(state.blocks[x], above(state.blocks[y], BLOCK_SIZE)), BLOCK_SIZE / 2, 0.75 * BLOCK_SIZE),
        ),
};
/** Sparse forms where the paper's shaped reward has a natural success threshold (reward > 0.95). */
export const sparse = (shaped: number) => (shaped > 0.95 ? 1 : 0);

// ---- the skill catalogue -------------------------------------------------------------------------------------------

export type SkillFamily =
  | "gripper"
  | "grasp"
  | "reach"
  | "above"
  | "lift"
  | "place"
  | "stack"
  | "triple_stack"
  | "pyramid"
  | "inverse_pyramid"
  | "unstack";

export interface SkillInfo {
  /** Machine id, e.g. `stack_red_on_green`. */
  id: string;
  /** The fixed text a retrieval maps a free-text step onto (the paper's skill captions), e.g. "stack red on green". */
  caption: string;
  family: SkillFamily;
  /** Blocks it names, in order (X, Y, Z of Appendix D). */
  blocks: Color[];
  /** Whether the paper's library starts with it (pretrained base skills). */
  base: boolean;
  reward: (s: BlockState) => number;
}

function catalogue(): SkillInfo[] {
  const out: SkillInfo[] = [
    {
      id: "open_gripper",
      caption: "open gripper",
      family: "gripper",
      blocks: [],
      base: true,
      reward: rewards.open_gripper,
    },
    {
      id: "close_gripper",
      caption: "close gripper",
      family: "gripper",
      blocks: [],
      base: true,
      reward: rewards.close_gripper,
    },
    {
      id: "grasp_anything",
      caption: "grasp anything",
      family: "grasp",
      blocks: [],
      base: true,
      reward: rewards.grasp_anything,
    },
  ];
  for (const x of COLORS)
    out.push({
      id: `reach_${x}`,
      caption: `reach ${x}`,
      family: "reach",
      blocks: [x],
      base: true,
      reward: (s) => rewards.reach(s, x),
    });
  for (const x of COLORS)
    out.push({
      id: `above_${x}`,
      caption: `above ${x}`,
      family: "above",
      blocks: [x],
      base: false,
      reward: (s) => rewards.above(s, x),
    });
  for (const x of COLORS)
    out.push({
      id: `lift_${x}`,
      caption: `lift ${x}`,
      family: "lift",
      blocks: [x],
      base: false,
      reward: (s) => rewards.lift(s, x),
    });
  const pairs = COLORS.flatMap((x) => COLORS.filter((y) => y !== x).map((y) => [x, y] as const));
  for (const [x, y] of pairs)
    out.push({
      id: `place_${x}_on_${y}`,
      caption: `place ${x} on ${y}`,
      family: "place",
      blocks: [x, y],
      base: false,
      reward: (s) => rewards.place(s, x, y),
    });
  for (const [x, y] of pairs)
    out.push({
      id: `stack_${x}_on_${y}`,
      caption: `stack ${x} on ${y}`,
      family: "stack",
      blocks: [x, y],
      base: false,
      reward: (s) => rewards.stack(s, x, y),
    });
  for (const [x, y] of pairs) {
    const z = COLORS.find((c) => c !== x && c !== y)!;
    out.push({
      id: `triple_stack_${x}_on_${y}_on_${z}`,
      caption: `tower ${x} on ${y} on ${z}`,
      family: "triple_stack",
      blocks: [x, y, z],
      base: false,
      reward: (s) => rewards.triple_stack(s, x, y, z),
    });
  }
  // Pyramids name an unordered pair: one of each, Y before Z in colour order.
  for (const x of COLORS) {
    const [y, z] = COLORS.filter((c) => c !== x);
    out.push({
      id: `pyramid_${x}_on_${y}_and_${z}`,
      caption: `pyramid ${x} on ${y} and ${z}`,
      family: "pyramid",
      blocks: [x, y, z],
      base: false,
      reward: (s) => rewards.pyramid(s, x, y, z),
    });
  }
  for (const y of COLORS) {
    const [x, z] = COLORS.filter((c) => c !== y);
    out.push({
      id: `inverse_pyramid_${x}_and_${z}_on_${y}`,
      caption: `inverted pyramid ${x} and ${z} on ${y}`,
      family: "inverse_pyramid",
      blocks: [x, y, z],
      base: false,
      reward: (s) => rewards.inverse_pyramid(s, x, y, z),
    });
  }
  // Clearing a block (a start with one block on another): appended, so the older skills keep their reward columns.
  for (const [x, y] of pairs)
    out.push({
      id: `unstack_${x}_from_${y}`,
      caption: `unstack ${x} from ${y}`,
      family: "unstack",
      blocks: [x, y],
      base: false,
      reward: (s) => rewards.unstack(s, x, y),
    });
  return out;
}

export const SKILLS: readonly SkillInfo[] = catalogue();
/** Column order of every episode's reward rows. */
export const SKILL_IDS: readonly string[] = SKILLS.map((s) => s.id);
export const BASE_SKILLS: readonly string[] = SKILLS.filter((s) => s.base).map((s) => s.id);
const byId = new Map(SKILLS.map((s) => [s.id, s]));
const byCaption = new Map(SKILLS.map((s) => [s.caption, s]));

export function skillInfo(id: string): SkillInfo {
  const skill = byId.get(id);
  if (!skill) throw new Error(`unknown skill ${JSON.stringify(id)}; known: ${SKILL_IDS.join(", ")}`);
  return skill;
}
export const isSkillId = (id: string) => byId.has(id);
/** Exact caption match (the retrieval the paper's exemplars do); undefined when no skill has that caption. */
export const skillByCaption = (caption: string): SkillInfo | undefined => byCaption.get(caption.trim().toLowerCase());

/** Every skill's reward at one state, in SKILL_IDS order, rounded to 1e-4. */
export function allRewards(state: BlockState): number[] {
  return SKILLS.map((k) => Math.round(clip01(k.reward(state)) * 1e4) / 1e4);
}
