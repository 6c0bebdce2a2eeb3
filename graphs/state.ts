/** The closed-loop agent's state: the channels every graph shares (see DESIGN.md "State and memory"). */
import { Annotation } from "@langchain/langgraph";
import type { Belief, Critique, Observation, Plan, SkillCall } from "../models/schemas";
import type { HistoryEntry } from "../models/symbolic/reasoner";
import { addUsage, type Usage } from "../models";

/** How many observation/action/feedback entries the history buffer keeps (CLEA uses a bounded FIFO). */
export const HISTORY_LIMIT = 24;

export type Status = "running" | "succeeded" | "failed" | "gave_up" | "budget_exhausted";

export interface SeenFrame extends Observation {
  /** Artifact reference of the camera frame this observation was made from. */
  image: string;
  stamp: { sec: number; nanosec: number };
}

export interface Counters {
  /** Skill goals sent. */
  steps: number;
  /** Plans made after the first. */
  replans: number;
  iterations: number;
  /** Simulated/robot seconds spent in skills. */
  skillSeconds: number;
  nextEntryId: number;
}

const last = <T>(initial: T) => Annotation<T>({ reducer: (_a, b) => b, default: () => initial });

export const ClosedLoopState = Annotation.Root({
  goal: Annotation<string>(),
  observations: last<Record<string, SeenFrame>>({}),
  history: Annotation<(HistoryEntry & { id: number })[]>({
    reducer: (a, b) => [...a, ...b].slice(-HISTORY_LIMIT),
    default: () => [],
  }),
  belief: last<Belief | null>(null),
  /** Id of the last history entry the belief accounts for. */
  beliefUpTo: last<number>(-1),
  plan: last<Plan | null>(null),
  cursor: last<number>(0),
  critique: last<(Critique & { action: SkillCall }) | null>(null),
  lastFailure: last<string | null>(null),
  failedPlans: Annotation<{ subgoal: string; steps: SkillCall[]; reason: string }[]>({
    reducer: (a, b) => [...a, ...b].slice(-5),
    default: () => [],
  }),
  /** The goal recorded before it is sent; on resume the executor re-attaches to it instead of sending anew. */
  pendingGoal: last<{ goalId: string; call: SkillCall } | null>(null),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  counters: last<Counters>({ steps: 0, replans: 0, iterations: 0, skillSeconds: 0, nextEntryId: 0 }),
  verdicts: Annotation<Record<string, number>>({
    reducer: (a, b) => {
      const out = { ...a };
      for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
      return out;
    },
    default: () => ({}),
  }),
  usage: Annotation<Usage>({ reducer: addUsage, default: () => ({}) }),
  startedAt: last<number>(0),
});

export type ClosedLoopStateType = typeof ClosedLoopState.State;
export type ClosedLoopUpdate = typeof ClosedLoopState.Update;
