/** CLEA's closed-loop state: observations per robot, the history buffer, the belief, the plan and its cursor. */
import { Annotation, DeltaChannel } from "@langchain/langgraph";
import type { Belief, Critique, FailedPlan, GoalCheck, HistoryEntry, Observation, Plan, SkillCall } from "./schemas";
import { delta, deltaLast, last, usageChannel, type Status } from "../../nodes/state";
import type { FailureCounts } from "../../nodes/repeats";
import type { SearchLedger } from "../../nodes/search";
import type { BrokenLoop, Focus } from "./loops";
import type { Speculation } from "./prediction";
import { NO_PIPELINE, type PipelineCounts } from "../../nodes/speculation";

/** How many observation/action/feedback entries the history buffer keeps (CLEA uses a bounded FIFO). */
export const HISTORY_LIMIT = 24;

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

export const ClosedLoopState = Annotation.Root({
  goal: Annotation<string>(),
  /** Latest observation per robot; a step writes only the robots it looked through. */
  observations: delta<Record<string, SeenFrame>>(
    (v, writes) => Object.assign({}, v, ...writes),
    () => ({}),
  ),
  /**
   * The perceiver's reports by request (frame + detections hash): a view seen before costs no new model call, in a
   * resumed run too (another process, its in-memory cache empty), so a resumed episode makes the calls an unbroken one does.
   */
  perceived: delta<Record<string, Observation>>(
    (v, writes) => Object.assign({}, v, ...writes),
    () => ({}),
  ),
  // Checkpoints store each step's new entries, not the whole buffer again (a delta channel replays them on read).
  history: () =>
    new DeltaChannel<(HistoryEntry & { id: number })[], (HistoryEntry & { id: number })[]>(
      (a, writes) => [...a, ...writes.flat()].slice(-HISTORY_LIMIT),
      {
        initialValueFactory: () => [],
        snapshotFrequency: 100,
      },
    ),
  belief: deltaLast<Belief | null>(null),
  /** Id of the last history entry the belief accounts for. */
  beliefUpTo: last<number>(-1),
  /** The summarizer's verdict on the task with the belief it wrote (upTo: that belief's `beliefUpTo`). */
  judged: last<(GoalCheck & { upTo: number }) | null>(null),
  plan: deltaLast<Plan | null>(null),
  cursor: last<number>(0),
  /** The critic's last verdict, on which action, in which look (`counters.iterations` when it was given). */
  critique: deltaLast<
    (Critique & { action: SkillCall; at?: number; overruled?: boolean; speculative?: boolean }) | null
  >(null),
  /** The look (`counters.iterations`) in which the current plan was made. */
  plannedAt: last<number>(-1),
  lastFailure: last<string | null>(null),
  failedPlans: delta<FailedPlan[]>(
    (a, writes) => [...a, ...writes.flat()].slice(-5),
    () => [],
  ),
  /** The goal recorded before it is sent; on resume the executor re-attaches to it instead of sending anew. */
  pendingGoal: last<{ goalId: string; call: SkillCall } | null>(null),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  /** Failures by action and reason (twice: a look for what is in question; not sent a third time — graphs/clea/loops.ts). */
  repeats: last<FailureCounts>({}),
  /** The critic's rejections by action and reason (twice: a look; a third: the planner's choice stands). */
  rejections: last<FailureCounts>({}),
  /** What the next look is asked to settle (set when a loop is broken by looking; the perceiver clears it). */
  focus: last<Focus | null>(null),
  /** The look (`counters.iterations`) last asked to settle something. */
  focusedAt: last<number>(-1),
  /** The loops broken in this run, and how. */
  loops: delta<BrokenLoop[]>(
    (a, writes) => [...a, ...writes.flat()],
    () => [],
  ),
  /** Per goal object, the places looked into since it was last seen; every place seen into; the last entry folded in. */
  search: last<{ upTo: number; since: SearchLedger; viewed: string[] }>({ upTo: -1, since: {}, viewed: [] }),
  /** The work done beside the running skill against its predicted outcome (configurable.pipeline), and how it ended. */
  speculation: deltaLast<Speculation | null>(null),
  pipeline: last<PipelineCounts>(NO_PIPELINE),
  counters: last<Counters>({ steps: 0, replans: 0, iterations: 0, skillSeconds: 0, nextEntryId: 0 }),
  verdicts: Annotation<Record<string, number>>({
    reducer: (current, added) => {
      const out = { ...current };
      // A negative count withdraws a verdict on an action the run never took (graphs/clea/nodes/goalCheck.ts).
      for (const [k, v] of Object.entries(added)) {
        out[k] = (out[k] ?? 0) + v;
        if (out[k] === 0) delete out[k];
      }
      return out;
    },
    default: () => ({}),
  }),
  usage: usageChannel(),
  startedAt: last<number>(0),
});

export type ClosedLoopStateType = typeof ClosedLoopState.State;
export type ClosedLoopUpdate = typeof ClosedLoopState.Update;
