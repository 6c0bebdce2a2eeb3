/**
 * The blocks world's shared definitions (robograph_msgs for Game On): the skill catalogue with its captions, the one
 * parameter vector every skill's controller reads, the paper's skill rewards (its Appendix D) as pure functions of a
 * block state, the `run_skills` goal, and the recorded episode. Both ends import this module: the simulator computes
 * rewards with these functions at every step; the agent relabels and learns from the episodes they fill.
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
  "tcp_x", "tcp_y", "tcp_z", "opening", "grasped", "held",
  "red_x", "red_y", "red_z", "green_x", "green_y", "green_z", "blue_x", "blue_y", "blue_z",
] as const;

export function stateRow(s: BlockState): number[] {
  const r = (v: number) => Math.round(v * 1e4) / 1e4;
  return [...s.tcp.map(r), r(s.opening), s.grasped ? 1 : 0, s.held ? COLORS.indexOf(s.held) : -1, ...COLORS.flatMap((c) => s.blocks[c].map(r))];
}

export function stateFromRow(row: readonly number[]): BlockState {
  const b = (i: number): [number, number, number] => [row[i], row[i + 1], row[i + 2]];
  return { tcp: b(0), opening: row[3], grasped: row[4] > 0.5, held: row[5] >= 0 ? COLORS[row[5]] : null, blocks: { red: b(6), green: b(9), blue: b(12) } };
}

/** An action as recorded: the controller's TCP target and the finger opening fraction it commands. */
export const ACTION_FIELDS = ["target_x", "target_y", "target_z", "opening_cmd"] as const;

// ---- rewards (Appendix D), each in [0, 1] --------------------------------------------------------------------------

const clip01 = (v: number) => Math.min(1, Math.max(0, v));
const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
/** tanh² decay as dm_control's `tolerance`: 1 within `bound`, 0.1 at `bound + margin`, towards 0 beyond. */
const TANH_AT_MARGIN = Math.atanh(Math.sqrt(1 - 0.1));
export function tanhDecay(d: number, bound = 0.01, margin = 0.1): number {
  if (d <= bound) return 1;
  const t = Math.tanh((TANH_AT_MARGIN * (d - bound)) / margin);
  return clip01(1 - t * t);
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
  place: (s: BlockState, x: Color, y: Color) => tanhDecay(dist(s.blocks[x], above(s.blocks[y], BLOCK_SIZE)), BLOCK_SIZE / 2 + 0.002),
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
  unstack: (s: BlockState, x: Color, y: Color) => (s.grasped ? 0 : clip01(1 - tanhDecay(dist(s.blocks[x], above(s.blocks[y], BLOCK_SIZE)), BLOCK_SIZE / 2, 0.75 * BLOCK_SIZE))),
};
/** Sparse forms where the paper's shaped reward has a natural success threshold (reward > 0.95). */
export const sparse = (shaped: number) => (shaped > 0.95 ? 1 : 0);

// ---- the skill catalogue -------------------------------------------------------------------------------------------

export type SkillFamily = "gripper" | "grasp" | "reach" | "above" | "lift" | "place" | "stack" | "triple_stack" | "pyramid" | "inverse_pyramid" | "unstack";

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
    { id: "open_gripper", caption: "open gripper", family: "gripper", blocks: [], base: true, reward: rewards.open_gripper },
    { id: "close_gripper", caption: "close gripper", family: "gripper", blocks: [], base: true, reward: rewards.close_gripper },
    { id: "grasp_anything", caption: "grasp anything", family: "grasp", blocks: [], base: true, reward: rewards.grasp_anything },
  ];
  for (const x of COLORS) out.push({ id: `reach_${x}`, caption: `reach ${x}`, family: "reach", blocks: [x], base: true, reward: (s) => rewards.reach(s, x) });
  for (const x of COLORS) out.push({ id: `above_${x}`, caption: `above ${x}`, family: "above", blocks: [x], base: false, reward: (s) => rewards.above(s, x) });
  for (const x of COLORS) out.push({ id: `lift_${x}`, caption: `lift ${x}`, family: "lift", blocks: [x], base: false, reward: (s) => rewards.lift(s, x) });
  const pairs = COLORS.flatMap((x) => COLORS.filter((y) => y !== x).map((y) => [x, y] as const));
  for (const [x, y] of pairs) out.push({ id: `place_${x}_on_${y}`, caption: `place ${x} on ${y}`, family: "place", blocks: [x, y], base: false, reward: (s) => rewards.place(s, x, y) });
  for (const [x, y] of pairs) out.push({ id: `stack_${x}_on_${y}`, caption: `stack ${x} on ${y}`, family: "stack", blocks: [x, y], base: false, reward: (s) => rewards.stack(s, x, y) });
  for (const [x, y] of pairs) {
    const z = COLORS.find((c) => c !== x && c !== y)!;
    out.push({ id: `triple_stack_${x}_on_${y}_on_${z}`, caption: `tower ${x} on ${y} on ${z}`, family: "triple_stack", blocks: [x, y, z], base: false, reward: (s) => rewards.triple_stack(s, x, y, z) });
  }
  // Pyramids name an unordered pair: one of each, Y before Z in colour order.
  for (const x of COLORS) {
    const [y, z] = COLORS.filter((c) => c !== x);
    out.push({ id: `pyramid_${x}_on_${y}_and_${z}`, caption: `pyramid ${x} on ${y} and ${z}`, family: "pyramid", blocks: [x, y, z], base: false, reward: (s) => rewards.pyramid(s, x, y, z) });
  }
  for (const y of COLORS) {
    const [x, z] = COLORS.filter((c) => c !== y);
    out.push({ id: `inverse_pyramid_${x}_and_${z}_on_${y}`, caption: `inverted pyramid ${x} and ${z} on ${y}`, family: "inverse_pyramid", blocks: [x, y, z], base: false, reward: (s) => rewards.inverse_pyramid(s, x, y, z) });
  }
  // Clearing a block (a start with one block on another): appended, so the older skills keep their reward columns.
  for (const [x, y] of pairs) out.push({ id: `unstack_${x}_from_${y}`, caption: `unstack ${x} from ${y}`, family: "unstack", blocks: [x, y], base: false, reward: (s) => rewards.unstack(s, x, y) });
  return out;
}

export const SKILLS: readonly SkillInfo[] = catalogue();
/** Column order of every episode's reward rows. */
export const SKILL_IDS: readonly string[] = SKILLS.map((s) => s.id);
export const BASE_SKILLS: readonly string[] = SKILLS.filter((s) => s.base).map((s) => s.id);
const byId = new Map(SKILLS.map((s) => [s.id, s]));
const byCaption = new Map(SKILLS.map((s) => [s.caption, s]));

export function skillInfo(id: string): SkillInfo {
  const s = byId.get(id);
  if (!s) throw new Error(`unknown skill ${JSON.stringify(id)}; known: ${SKILL_IDS.join(", ")}`);
  return s;
}
export const isSkillId = (id: string) => byId.has(id);
/** Exact caption match (the retrieval the paper's exemplars do); undefined when no skill has that caption. */
export const skillByCaption = (caption: string): SkillInfo | undefined => byCaption.get(caption.trim().toLowerCase());

/** Every skill's reward at one state, in SKILL_IDS order, rounded to 1e-4. */
export function allRewards(s: BlockState): number[] {
  return SKILLS.map((k) => Math.round(clip01(k.reward(s)) * 1e4) / 1e4);
}

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
  { name: "close", min: 0, max: 1, description: ">= 0.5: grasp the source; below: only move the TCP, fingers at idle opening" },
  { name: "idle_opening", min: 0, max: 1, description: "finger opening fraction when not grasping" },
  { name: "reach_dx", min: -0.12, max: 0.12, description: "m, TCP target from the source's centre when not grasping" },
  { name: "reach_dy", min: -0.12, max: 0.12, description: "m" },
  { name: "reach_dz", min: -0.04, max: 0.16, description: "m" },
  { name: "grasp_dz", min: -0.03, max: 0.04, description: "m, TCP height over the source's centre where the fingers close" },
  { name: "carry_z", min: 0.03, max: 0.25, description: "m above the basket floor the held block's centre is carried at" },
  { name: "place_dz", min: 0, max: 0.12, description: "m above the destination's centre where the held block's centre is set down" },
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
  .superRefine((v, ctx) => {
    v.forEach((x, i) => {
      if (!Number.isFinite(x) || x < PARAM_MIN[i] || x > PARAM_MAX[i]) {
        ctx.addIssue({ code: "custom", path: [i], message: `${PARAM_NAMES[i]} must be in [${PARAM_MIN[i]}, ${PARAM_MAX[i]}], got ${x}` });
      }
    });
  });

export const clampParams = (v: readonly number[]) => v.map((x, i) => Math.min(PARAM_MAX[i], Math.max(PARAM_MIN[i], x)));

// ---- the run_skills goal and its result ----------------------------------------------------------------------------

export const ARM_ROBOT = "arm";
export const RUN_SKILLS_ACTION = "/arm/run_skills";
export const RUN_SKILLS_TYPE = "robograph_msgs/action/RunSkills";
export const EPISODES_SERVICE = "/arm/episodes";
export const EPISODES_TYPE = "robograph_msgs/srv/Episodes";
export { RESET_SERVICE, RESET_TYPE } from "./rollout";

export const SkillStep = z.strictObject({
  skill: z.string().refine(isSkillId, { message: `not a skill of the catalogue (e.g. lift_red, stack_red_on_green)` }).describe("a skill id of the catalogue"),
  params: ParamVector.describe(`the controller's ${PARAM_DIM} parameters (the skill's policy sample)`),
  seconds: z.number().min(CONTROL_TICK).max(20).describe("how long the skill runs, open-loop"),
});
export type SkillStep = z.infer<typeof SkillStep>;

export const RunSkillsGoal = z.strictObject({
  steps: z.array(SkillStep).min(1).max(12).describe("skills run in order, each for its fixed duration"),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().describe("layout to start from (default: the next layout of this instance's seeded sequence)"),
  from_current: z.boolean().default(false).describe("start from the blocks as they are now instead of a fresh layout"),
  record: z.boolean().default(true).describe("store the episode (evaluation runs pass false)"),
  purpose: z.enum(["explore", "evaluate", "pretrain"]).default("explore").describe("why it ran, kept with the episode"),
});
export type RunSkillsGoal = z.input<typeof RunSkillsGoal>;

export interface SegmentReport {
  skill: string;
  /** Control steps of this segment. */
  steps: number;
  /** The segment's own skill's reward: at its first state, its last, its highest, and its mean over the segment's steps. */
  first: number;
  final: number;
  max: number;
  mean: number;
}

export interface RunSkillsResult {
  success: boolean;
  episode_id: string | null;
  seed: number;
  /** The paper's success: every skill's reward exceeded 0.5 during its segment, the last one's exceeded 0.95. */
  plan_success: boolean;
  segments: SegmentReport[];
  /** Every skill's reward at the last state (SKILL_IDS order as an object). */
  final_rewards: Record<string, number>;
  steps: number;
  message: string;
}

/** A recorded episode: states, actions and every skill's reward at every state, so it can be relabelled for any skill. */
export interface Episode {
  id: string;
  instance: string;
  seed: number;
  purpose: "explore" | "evaluate" | "pretrain";
  tick: number;
  created: string;
  state_fields: readonly string[];
  action_fields: readonly string[];
  /** Column order of `rewards`. */
  skills: readonly string[];
  /** Segment i ran actions [start, end): states start..end, reward rows start+1..end. */
  plan: { skill: string; params: number[]; seconds: number; start: number; end: number }[];
  /** T + 1 rows (the initial state, then the state after each action). */
  states: number[][];
  /** T rows. */
  actions: number[][];
  /** T + 1 rows, rewards[t][k] = skill k's reward at state t. */
  rewards: number[][];
  plan_success: boolean;
}

export const EpisodesRequest = z.strictObject({
  ids: z.array(z.string()).max(500).optional().describe("episodes to fetch by id"),
  since: z.number().int().min(0).optional().describe("every episode recorded since the reset, from this index on"),
  limit: z.number().int().min(1).max(500).default(200),
});

/** The paper's plan success from segment reports. */
export function planSuccess(segments: Pick<SegmentReport, "max">[]): boolean {
  return segments.length > 0 && segments.every((s, i) => s.max > (i === segments.length - 1 ? 0.95 : 0.5));
}

/** A refusal that names every bad field, e.g. `steps.0.params.13: carry_z must be in [0.03, 0.25], got 2`. */
export function explainGoalError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(goal)"}: ${i.message}`).join("; ");
}
