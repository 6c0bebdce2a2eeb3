/** What RePLan's roles answer (scan, high- and low-level planners, verifiers, perceiver questions, diagnosis). */
import { z } from "zod";
import { RewardTerm } from "../../robots/msgs/motion";

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
  questions: z
    .array(z.string())
    .max(2)
    .describe("at most two questions for the perception model; none if already known"),
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
  description: z
    .array(z.string())
    .describe("the motion plan, one line per thing that must come close, go apart, open, rise or turn"),
  terms: z
    .array(
      z.object({ line: z.number().int().describe("index of the description line this term serves"), term: RewardTerm }),
    )
    .min(1)
    .max(8),
  duration: z.number().min(0.5).max(20),
});
export type MotionDraft = z.infer<typeof MotionDraft>;

export const TermCheck = z.object({
  keep: z.array(
    z.object({
      index: z.number().int(),
      line: z.number().int().describe("the description line it serves, -1 for none"),
    }),
  ),
  primary: z
    .number()
    .int()
    .describe("index (into the original terms) of the term whose satisfaction means the step is done"),
});
export type TermCheck = z.infer<typeof TermCheck>;

export const Diagnosis = z.object({
  explanation: z
    .string()
    .describe("what in the scene, other than the robot, prevents the action — or that nothing does"),
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
