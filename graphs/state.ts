/** The closed-loop agent's state: the channels every graph shares (see DESIGN.md "State and memory"). */
import { Annotation, DeltaChannel } from "@langchain/langgraph";
import type { Belief, Critique, HighLevelPlan, Observation, Plan, PlanStep, SkillCall, VisionAnswer } from "../models/schemas";
import type { RewardTerm } from "../tools/motion";
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

/**
 * A channel whose checkpoints store only what each step wrote (replayed through `reducer` on read), so state that is
 * rewritten every step — belief, plan, observations — does not re-enter every checkpoint in full.
 * The reducer must fold batches the same as single writes (associative), which all of these do.
 */
function delta<T, U = T>(reducer: (value: T, writes: U[]) => T, initial: () => T) {
  return () => new DeltaChannel<T, U>(reducer, { initialValueFactory: initial, snapshotFrequency: 100 });
}
const deltaLast = <T>(initial: T) => delta<T>((v, writes) => (writes.length ? writes[writes.length - 1] : v), () => initial);

export const ClosedLoopState = Annotation.Root({
  goal: Annotation<string>(),
  /** Latest observation per robot; a step writes only the robots it looked through. */
  observations: delta<Record<string, SeenFrame>>((v, writes) => Object.assign({}, v, ...writes), () => ({})),
  // Checkpoints store each step's new entries, not the whole buffer again (a delta channel replays them on read).
  history: () =>
    new DeltaChannel<(HistoryEntry & { id: number })[], (HistoryEntry & { id: number })[]>((a, writes) => [...a, ...writes.flat()].slice(-HISTORY_LIMIT), {
      initialValueFactory: () => [],
      snapshotFrequency: 100,
    }),
  belief: deltaLast<Belief | null>(null),
  /** Id of the last history entry the belief accounts for. */
  beliefUpTo: last<number>(-1),
  plan: deltaLast<Plan | null>(null),
  cursor: last<number>(0),
  critique: deltaLast<(Critique & { action: SkillCall }) | null>(null),
  lastFailure: last<string | null>(null),
  failedPlans: delta<{ subgoal: string; steps: SkillCall[]; reason: string }[]>((a, writes) => [...a, ...writes.flat()].slice(-5), () => []),
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
  usage: delta<Usage>((v, writes) => writes.reduce(addUsage, v), () => ({})),
  startedAt: last<number>(0),
});

export type ClosedLoopStateType = typeof ClosedLoopState.State;
export type ClosedLoopUpdate = typeof ClosedLoopState.Update;

// ---- RePLan's hierarchical mode ------------------------------------------------------------------------------------

/** One motion as sent: the step it serves, its plan in words, the verified terms and the duration. */
export interface Motion {
  step: string;
  description: string[];
  terms: RewardTerm[];
  duration: number;
}

/** What happened to one motion step, as the trace and the planner's memory keep it. */
export type ReplanEntry =
  | { kind: "motion"; step: string; terms: string[]; ok: boolean; message: string; seconds: number }
  | { kind: "vision"; step: string; answers: VisionAnswer[]; done: boolean }
  | { kind: "diagnosis"; step: string; explanations: string[]; reasons: string[] }
  | { kind: "note"; text: string };

/** A plan that did not reach the goal, with why (RePLan's memory of failed attempts). */
export interface FailedAttempt {
  thought: string;
  steps: PlanStep[];
  /** The step that could not be done, when one failed. */
  failedStep: string | null;
  reason: string;
}

export interface ReplanCounters {
  /** execute_motion goals sent. */
  motions: number;
  visionSteps: number;
  /** Plans made after a diagnosed failure (RePLan's replans). */
  replans: number;
  /** New procedures after a plan ended without the goal or a failure had no known cause. */
  procedures: number;
  skillSeconds: number;
}

export const ReplanState = Annotation.Root({
  goal: Annotation<string>(),
  /** Objects the perceiver confirmed in the scene at its latest look, and what that look showed (RePLan's s_scene). */
  scene: last<string[]>([]),
  sceneFacts: last<string[]>([]),
  /** What vision steps established (they accumulate; a later look does not undo what was learnt). */
  facts: delta<string[]>((a, writes) => [...new Set([...a, ...writes.flat()])].slice(-40), () => []),
  /** The latest camera frame (artifact reference) the perceiver looked at. */
  frame: last<string | null>(null),
  plan: deltaLast<HighLevelPlan | null>(null),
  cursor: last<number>(0),
  /** Questions asked and answered for the current vision step. */
  answers: last<VisionAnswer[]>([]),
  /** The motion being prepared or run: drafted, then verified, then sent. */
  motion: deltaLast<(Motion & { draft?: unknown }) | null>(null),
  pendingGoal: last<{ goalId: string; motion: Motion } | null>(null),
  /** The step that just failed and the controller's message. */
  failure: last<{ step: string; message: string } | null>(null),
  explanations: last<string[]>([]),
  /** Consolidated failure reasons of the current procedure (RePLan's B.13 context); "new_procedure" clears them. */
  reasons: delta<{ step: string; reason: string }[], { step: string; reason: string }[] | "new_procedure">(
    (a, writes) => writes.reduce<{ step: string; reason: string }[]>((acc, w) => (w === "new_procedure" ? [] : [...acc, ...w].slice(-6)), a),
    () => [],
  ),
  failedAttempts: delta<FailedAttempt[]>((a, writes) => [...a, ...writes.flat()].slice(-6), () => []),
  log: delta<ReplanEntry[]>((a, writes) => [...a, ...writes.flat()].slice(-60), () => []),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  counters: last<ReplanCounters>({ motions: 0, visionSteps: 0, replans: 0, procedures: 0, skillSeconds: 0 }),
  usage: delta<Usage>((v, writes) => writes.reduce(addUsage, v), () => ({})),
  startedAt: last<number>(0),
});

export type ReplanStateType = typeof ReplanState.State;
export type ReplanUpdate = typeof ReplanState.Update;
