/**
 * The behaviour critic's state: what the run is asked to do (critique a recorded rollout, compare two, or refine a
 * policy), the programs tried, each rollout's critique before and after grounding, and the preference.
 */
import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import type { BehaviourCritique, GroundingFeedback, Preference } from "./schemas";
import type { PrimitiveProgram } from "../../robots/msgs/primitives";
import { delta, deltaLast, GoalInput, last, usageChannel, type Status } from "../../nodes/state";

/** What a user (or an eval) hands the critic graph: the instruction, the job, and recorded rollouts or a program to start from. */
export const CriticInput = GoalInput.extend({
  job: z
    .enum(["refine", "critique", "prefer"])
    .optional()
    .describe(
      "refine (default): write a program, run it, critique it and rewrite until nothing undesirable remains; critique: one recorded rollout; prefer: two recorded rollouts",
    ),
  rollouts: z
    .array(z.string())
    .max(2)
    .optional()
    .describe("recorded rollout files (critique: one; prefer: two), e.g. data/critic-benchmark/rollouts/<id>.json"),
  program: z
    .unknown()
    .optional()
    .describe("refine: a primitive program to start from instead of the writer's first draft"),
});
export type CriticInput = z.infer<typeof CriticInput>;

/** One rollout watched: the program that made it (when this run made it), and the critique before and after grounding. */
export interface Attempt {
  iteration: number;
  program?: PrimitiveProgram;
  /** Rollout reference: a file path or an artifact reference. */
  rollout: string;
  /** The program ran to its end (the robot's own report). */
  completed?: boolean;
  critique?: BehaviourCritique;
  feedback?: GroundingFeedback;
  /** The critique after grounding feedback (the same as `critique` when everything was found or grounding is off). */
  refined?: BehaviourCritique;
}

export const CriticState = Annotation.Root({
  goal: Annotation<string>(),
  job: last<NonNullable<CriticInput["job"]>>("refine"),
  rollouts: last<string[]>([]),
  program: last<unknown>(undefined),
  // Every attempt in order; checkpoints keep each write only.
  attempts: delta<Attempt[], Attempt | Attempt[]>(
    (current, writes) =>
      writes.reduce<Attempt[]>((acc, write) => {
        for (const x of Array.isArray(write) ? write : [write]) {
          const i = acc.findIndex((y) => y.iteration === x.iteration);
          acc = i < 0 ? [...acc, x] : acc.map((y, k) => (k === i ? { ...y, ...x } : y));
        }
        return acc;
      }, current),
    () => [],
  ),
  preference: deltaLast<Preference | null>(null),
  pendingGoal: last<{ goalId: string; iteration: number } | null>(null),
  // Goals sent so far, canceled ones too: each goal id is new, so a program run again is not taken for the canceled one.
  dispatched: last<number>(0),
  // The last program was stopped on the robot (an emergency stop): it runs again from a reset scene when resumed.
  redo: last<boolean>(false),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  usage: usageChannel(),
  startedAt: last<number>(0),
});

export type CriticStateType = typeof CriticState.State;
export type CriticUpdate = typeof CriticState.Update;

export const lastAttempt = (s: CriticStateType): Attempt | undefined => s.attempts[s.attempts.length - 1];
