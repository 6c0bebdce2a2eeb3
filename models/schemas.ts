/**
 * What each model role answers, as zod schemas: the openai backend asks for these as structured output, the
 * symbolic backend produces them, and nodes validate whatever comes back against them.
 */
import { z } from "zod";
import { RewardTerm } from "../tools/motion";

export const SkillCall = z.object({
  robot: z.string().describe("robot id, e.g. mobile or arm"),
  skill: z.string().describe("skill name from that robot's manifest"),
  args: z.record(z.string(), z.string()).describe("skill arguments by name"),
});
export type SkillCall = z.infer<typeof SkillCall>;

export const Observation = z.object({
  robot: z.string(),
  objects: z.array(z.object({ name: z.string(), relation: z.enum(["in", "on", "held_by"]), place: z.string() })),
  containers: z.array(z.object({ name: z.string(), state: z.enum(["open", "closed"]) })),
  /** Places whose inside or top is in view, so what is there is seen. */
  visiblePlaces: z.array(z.string()),
  summary: z.string().describe("one or two sentences on what the robot sees"),
});
export type Observation = z.infer<typeof Observation>;

export const Belief = z.object({
  objects: z.array(z.object({
    name: z.string(),
    place: z.string().describe("a place name, or a robot id when held"),
    source: z.enum(["seen", "action", "told"]).describe("how this is known"),
  })),
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
});
export type Plan = z.infer<typeof Plan>;

export const Verification = z.object({
  steps: z.array(z.object({
    status: z.enum(["ok", "remapped", "rejected"]),
    call: SkillCall,
    note: z.string(),
  })),
});
export type Verification = z.infer<typeof Verification>;

export const CRITIC_VERDICTS = ["ok", "outdated", "redundant", "invalid", "wrong_plan"] as const;
export const Critique = z.object({
  verdict: z.enum(CRITIC_VERDICTS),
  feedback: z.string(),
});
export type Critique = z.infer<typeof Critique>;

export const GoalCheck = z.object({
  achieved: z.boolean(),
  remaining: z.array(z.string()).describe("goal conditions not yet met"),
});
export type GoalCheck = z.infer<typeof GoalCheck>;

// ---- RePLan's hierarchical mode ------------------------------------------------------------------------------------

/** What the perceiver confirms at the start: which of the scene's known things it can see, and how they look. */
export const SceneScan = z.object({
  visible: z.array(z.string()).describe("known object names the image shows"),
  facts: z.array(z.string()).describe("short plain statements about what is seen, e.g. 'the microwave is closed'"),
});
export type SceneScan = z.infer<typeof SceneScan>;

export const PlanStep = z.object({
  kind: z.enum(["vision", "motion"]).describe("vision: answered by looking; motion: the robot moves something"),
  action: z.string().describe("one short imperative sentence using the scene's names, e.g. 'open the microwave'"),
});
export type PlanStep = z.infer<typeof PlanStep>;

export const HighLevelPlan = z.object({
  thought: z.string(),
  steps: z.array(PlanStep).describe("abstract subtasks, one object at a time, usually under five"),
});
export type HighLevelPlan = z.infer<typeof HighLevelPlan>;

export const PlanCheck = z.object({
  steps: z.array(z.object({ status: z.enum(["ok", "remapped", "rejected"]), step: PlanStep, note: z.string() })),
});
export type PlanCheck = z.infer<typeof PlanCheck>;

export const VisionQuestions = z.object({
  questions: z.array(z.string()).max(2).describe("at most two questions for the perception model; none if already known"),
});
export type VisionQuestions = z.infer<typeof VisionQuestions>;

export const VisionAnswer = z.object({ question: z.string(), answer: z.string() });
export type VisionAnswer = z.infer<typeof VisionAnswer>;

export const StepCheck = z.object({
  done: z.boolean(),
  /** What still has to be done for this step, as a motion, when the answers show it is not done. */
  remaining: z.string().nullable(),
  facts: z.array(z.string()).describe("what the answers established, as short statements to remember"),
});
export type StepCheck = z.infer<typeof StepCheck>;

/** The low-level planner's answer: a motion plan in words, and reward terms each tied to one of its lines. */
export const MotionDraft = z.object({
  description: z.array(z.string()).describe("the motion plan, one line per thing that must come close, go apart, open, rise or turn"),
  terms: z.array(z.object({ line: z.number().int().describe("index of the description line this term serves"), term: RewardTerm })).min(1).max(8),
  duration: z.number().min(0.5).max(20),
});
export type MotionDraft = z.infer<typeof MotionDraft>;

export const TermCheck = z.object({
  keep: z.array(z.object({ index: z.number().int(), line: z.number().int().describe("the description line it serves, -1 for none") })),
  primary: z.number().int().describe("index (into the original terms) of the term whose satisfaction means the step is done"),
});
export type TermCheck = z.infer<typeof TermCheck>;

export const Diagnosis = z.object({
  explanation: z.string().describe("what in the scene, other than the robot, prevents the action — or that nothing does"),
});
export type Diagnosis = z.infer<typeof Diagnosis>;

export const NameCheck = z.object({
  wrongNames: z.boolean().describe("whether the sentence names things that are not in the scene"),
  rewritten: z.string().describe("the sentence with each wrong name replaced by the closest name in the scene"),
});
export type NameCheck = z.infer<typeof NameCheck>;

export const FailureReasons = z.object({
  reasons: z.array(z.string()).max(2).describe("up to two reasons, about objects in the scene, never the robot"),
});
export type FailureReasons = z.infer<typeof FailureReasons>;
