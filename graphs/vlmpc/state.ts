/**
 * VLM-PC's state: the step record (each step's frame, what the detector saw, the planner's answer and what the skill
 * did), the rest of the last plan, and the skill time spent — the paper's interaction history, checkpointed.
 */
import { Annotation } from "@langchain/langgraph";
import type { CourseCommand, CoursePlan } from "./schemas";
import type { CourseResult } from "./schemas";
import type { RangedDetection } from "../../robots/msgs/detections";
import { delta, deltaLast, last, usageChannel, type Status } from "../../nodes/state";
import type { FailureCounts } from "../../nodes/repeats";

/** What the robot saw at one step: the frame (artifact reference) and the detector's report. */
export interface Sight {
  frame: string;
  fov: number;
  /** Pixels across the image. */
  imageWidth: number;
  detections: RangedDetection[];
}

/** One step of the interaction history: what was seen, what the planner answered, what the body did. */
export interface StepRecord extends Sight {
  step: number;
  answer: CoursePlan;
  /** Set once the commanded skill has run. */
  result?: CourseResult & { seconds: number };
  /** What the planning call carried: images and prompt characters (for the cost of the history). */
  prompt: { images: number; chars: number };
}

export interface VlmpcCounters {
  /** Skills sent. */
  skills: number;
  /** Skill time spent, seconds (the paper's 100 s budget). */
  skillSeconds: number;
}

export const VlmpcState = Annotation.Root({
  goal: Annotation<string>(),
  /** The newest look, not yet planned from. */
  sight: deltaLast<Sight | null>(null),
  // The whole history, as the paper keeps it; checkpoints store each step's new record only.
  steps: delta<StepRecord[], StepRecord[] | { step: number; result: StepRecord["result"] }>(
    (current, writes) =>
      writes.reduce<StepRecord[]>(
        (acc, write) =>
          Array.isArray(write)
            ? [...acc, ...write]
            : acc.map((r) => (r.step === write.step ? { ...r, result: write.result } : r)),
        current,
      ),
    () => [],
  ),
  /** The rest of the last plan after its first skill (what the next planning call compares against). */
  plan: deltaLast<CourseCommand[]>([]),
  pendingGoal: last<{ goalId: string; command: CourseCommand; step: number } | null>(null),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  /** Skills the robot refused or aborted, by command and reason (the same one a third time ends the run). */
  repeats: last<FailureCounts>({}),
  counters: last<VlmpcCounters>({ skills: 0, skillSeconds: 0 }),
  usage: usageChannel(),
  startedAt: last<number>(0),
});

export type VlmpcStateType = typeof VlmpcState.State;
export type VlmpcUpdate = typeof VlmpcState.Update;
