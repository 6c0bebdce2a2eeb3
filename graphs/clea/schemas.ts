/** What CLEA's roles answer (perceiver, summarizer, planner, verifier, critic, goal check). */
import { z } from "zod";
import { GoalCheck } from "../../models/answers";

export { GoalCheck };

export const SkillCall = z.object({
  robot: z.string().describe("robot id, e.g. mobile or arm"),
  skill: z.string().describe("skill name from that robot's manifest"),
  args: z.record(z.string(), z.string()).describe("skill arguments by name"),
});
export type SkillCall = z.infer<typeof SkillCall>;

/** A plan that failed or was rejected, kept for the planner so that it does not write it again. */
export interface FailedPlan {
  subgoal: string;
  steps: SkillCall[];
  reason: string;
}

export const Observation = z.object({
  robot: z.string(),
  objects: z.array(z.object({ name: z.string(), relation: z.enum(["in", "on", "held_by"]), place: z.string() })),
  containers: z.array(z.object({ name: z.string(), state: z.enum(["open", "closed"]) })),
  /** Places whose inside or top is in view, so what is there is seen. */
  visiblePlaces: z.array(z.string()),
  summary: z.string().describe("one or two sentences on what the robot sees"),
});
export type Observation = z.infer<typeof Observation>;

/** One entry of CLEA's bounded history buffer, as the summarizer (and, without one, the planner) reads it. */
export type HistoryEntry =
  | {
      step: number;
      kind: "observation";
      robot: string;
      observation: Observation;
      /** The things this look was asked about (a look that settles something: graphs/clea/loops.ts). */
      askedAbout?: string[];
      /** Not a look yet: one outcome the look after a running skill is predicted to have (graphs/clea/prediction.ts). */
      predicted?: boolean;
    }
  | {
      step: number;
      kind: "action";
      call: SkillCall;
      ok: boolean;
      message: string;
      /** The result changed what a hand holds and the robot's gripper cannot sense a grasp: it reports the motion made. */
      unsensed?: boolean;
      /** Not a result yet: the outcome a skill still running is predicted to have (graphs/clea/prediction.ts). */
      predicted?: boolean;
    }
  | { step: number; kind: "feedback"; text: string };

export const Belief = z.object({
  objects: z.array(
    z.object({
      name: z.string(),
      place: z.string().describe("a place name, or a robot id when held"),
      source: z
        .enum(["seen", "action", "reported", "told"])
        .describe(
          "how this is known: seen by a camera, the sensed result of an action, an action's unsensed report, or told",
        ),
    }),
  ),
  containers: z.array(z.object({ name: z.string(), state: z.enum(["open", "closed", "unknown"]) })),
  holding: z.array(z.object({ robot: z.string(), object: z.string().nullable() })),
  robotsAt: z.array(z.object({ robot: z.string(), at: z.string().nullable() })),
  /** Places whose inside has been seen (so an object not seen there is not there). */
  explored: z.array(z.string()),
  /** Objects that some camera has seen at least once. */
  seen: z.array(z.string()),
  progress: z.string().describe("what of the task is done and what remains"),
});
export type Belief = z.infer<typeof Belief>;

export const Plan = z.object({
  subgoal: z.string(),
  rationale: z.string(),
  steps: z.array(SkillCall).describe("the next skill calls, in order"),
  /** The planner judges the task already achieved. */
  done: z.boolean(),
  /** Set when the planner sees no way forward. */
  giveUp: z.string().nullable(),
  /** What the look after these steps is for (a search): the cameras are asked about these things and places. */
  lookFor: z.object({ objects: z.array(z.string()), places: z.array(z.string()) }).nullable(),
});
export type Plan = z.infer<typeof Plan>;

export const Verification = z.object({
  steps: z.array(
    z.object({
      status: z.enum(["ok", "remapped", "rejected"]),
      call: SkillCall,
      note: z.string(),
    }),
  ),
});
export type Verification = z.infer<typeof Verification>;

export const CRITIC_VERDICTS = ["ok", "outdated", "redundant", "invalid", "wrong_plan"] as const;
export const Critique = z.object({
  verdict: z.enum(CRITIC_VERDICTS),
  feedback: z.string(),
});
export type Critique = z.infer<typeof Critique>;

/**
 * The summarizer's answer: the updated belief and, in the same answer, whether it shows the task complete — the goal
 * check's question, asked of the model that just wrote the belief rather than in a second request.
 */
export const Summary = Belief.extend(GoalCheck.shape);
export type Summary = z.infer<typeof Summary>;
