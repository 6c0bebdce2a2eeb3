/** RePLan's hierarchical state: the scene, the high-level plan, the motion in hand, failure reasons and failed attempts. */
import { Annotation } from "@langchain/langgraph";
import type { HighLevelPlan, PlanStep, VisionAnswer } from "./schemas";
import type { RewardTerm } from "../../robots/msgs/motion";
import { delta, deltaLast, last, usageChannel, type Status } from "../../nodes/state";
import type { FailureCounts } from "../../nodes/repeats";
import type { SearchLedger } from "../../nodes/search";
import { NO_PIPELINE, type PipelineCounts, type SpeculationOutcome } from "../../nodes/speculation";
import type { Usage } from "../../models";

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

/**
 * The work done beside a running motion (configurable.pipeline), on its predicted outcome: the motion succeeds, and the
 * plan moves on to its next step. For a motion step, its reward terms drafted and verified; for a vision step, the
 * questions for the perceiver (its answers need the view after the motion). Or the work done beside a check whose
 * outcome the next request waits for (`beside`): the plan verifier keeps the plan as written (the step after it is
 * prepared on that plan), or the name check keeps the perceiver's explanations as worded (their consolidation is
 * prepared on them).
 */
export interface ReplanSpeculation {
  /** The motion goal whose success is assumed; empty beside a check. */
  goalId: string;
  /** The check the work was prepared beside, predicted to change nothing; absent: beside a motion. */
  beside?: "plan_verifier" | "remap_reasons";
  /** Beside the plan verifier: the plan as the planner wrote it. */
  plan?: HighLevelPlan;
  /** Beside the name check: the explanations as the perceiver worded them, and the consolidation prepared on them. */
  explanations?: string[];
  consolidated?: Omit<ReplanUpdate, "usage">;
  /** The plan step the prepared work is for. */
  cursor: number;
  step: string | null;
  motion: Motion | null;
  /** A vision step's questions (empty: the facts already settle it, the step is done). */
  answers: VisionAnswer[] | null;
  /** What the verifier noted of the prepared motion (terms it dropped), entered in the log when it is used. */
  notes?: ReplanEntry[];
  note?: string;
  usage: Usage;
  outcome?: SpeculationOutcome;
  why?: string;
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
  facts: delta<string[]>(
    (a, writes) => [...new Set([...a, ...writes.flat()])].slice(-40),
    () => [],
  ),
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
    (current, writes) =>
      writes.reduce<{ step: string; reason: string }[]>(
        (acc, w) => (w === "new_procedure" ? [] : [...acc, ...w].slice(-6)),
        current,
      ),
    () => [],
  ),
  failedAttempts: delta<FailedAttempt[]>(
    (a, writes) => [...a, ...writes.flat()].slice(-6),
    () => [],
  ),
  log: delta<ReplanEntry[]>(
    (a, writes) => [...a, ...writes.flat()].slice(-60),
    () => [],
  ),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  /** Failed motions by step and message (the same one a third time ends the run). */
  repeats: last<FailureCounts>({}),
  /** Per goal object, the places looked into since it was last seen; every place whose inside has been in view. */
  search: last<{ since: SearchLedger; viewed: string[] }>({ since: {}, viewed: [] }),
  speculation: deltaLast<ReplanSpeculation | null>(null),
  pipeline: last<PipelineCounts>(NO_PIPELINE),
  counters: last<ReplanCounters>({ motions: 0, visionSteps: 0, replans: 0, procedures: 0, skillSeconds: 0 }),
  usage: usageChannel(),
  startedAt: last<number>(0),
});

export type ReplanStateType = typeof ReplanState.State;
export type ReplanUpdate = typeof ReplanState.Update;
