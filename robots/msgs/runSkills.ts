/**
 * The blocks arm's messages (robograph_msgs for Game On): the `run_skills` goal (a plan of skills, each with its
 * parameter vector) and its result, and the recorded episode the agent fetches to relabel and learn from.
 */
import { z } from "zod";
import { isSkillId } from "../manifests/blocks/skills";
import { CONTROL_TICK, PARAM_DIM, ParamVector } from "./blocks";

// ---- the run_skills goal and its result ----------------------------------------------------------------------------

export const ARM_ROBOT = "arm";
export const RUN_SKILLS_ACTION = "/arm/run_skills";
export const RUN_SKILLS_TYPE = "robograph_msgs/action/RunSkills";
export const EPISODES_SERVICE = "/arm/episodes";
export const EPISODES_TYPE = "robograph_msgs/srv/Episodes";
export { RESET_SERVICE, RESET_TYPE } from "./rollout";

export const SkillStep = z.strictObject({
  skill: z
    .string()
    .refine(isSkillId, { message: `not a skill of the catalogue (e.g. lift_red, stack_red_on_green)` })
    .describe("a skill id of the catalogue"),
  params: ParamVector.describe(`the controller's ${PARAM_DIM} parameters (the skill's policy sample)`),
  seconds: z.number().min(CONTROL_TICK).max(20).describe("how long the skill runs, open-loop"),
});
export type SkillStep = z.infer<typeof SkillStep>;

export const RunSkillsGoal = z.strictObject({
  steps: z.array(SkillStep).min(1).max(12).describe("skills run in order, each for its fixed duration"),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional()
    .describe("layout to start from (default: the next layout of this instance's seeded sequence)"),
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
