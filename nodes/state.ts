/** What every graph's state is built from: the run's status, and channels that checkpoint only what changed. */
import { Annotation, DeltaChannel } from "@langchain/langgraph";
import { z } from "zod";
import { addUsage, type Usage } from "../models";

/**
 * `interrupted`: paused, not over — a model endpoint or the robot was unavailable after bounded retries, or an
 * emergency stop; the thread resumes (`--thread ID --resume`, or the same thread under the LangGraph server).
 */
export type Status = "running" | "succeeded" | "failed" | "gave_up" | "budget_exhausted" | "interrupted";

export const last = <T>(initial: T) => Annotation<T>({ reducer: (_a, b) => b, default: () => initial });

/**
 * A channel whose checkpoints store only what each step wrote (replayed through `reducer` on read), so state that is
 * rewritten every step — belief, plan, observations — does not re-enter every checkpoint in full.
 * The reducer must fold batches the same as single writes (associative), which all of these do.
 */
export function delta<T, U = T>(reducer: (value: T, writes: U[]) => T, initial: () => T) {
  return () => new DeltaChannel<T, U>(reducer, { initialValueFactory: initial, snapshotFrequency: 100 });
}
export const deltaLast = <T>(initial: T) =>
  delta<T>(
    (v, writes) => (writes.length ? writes[writes.length - 1] : v),
    () => initial,
  );

/** Model calls and tokens per role, summed over the run. */
export const usageChannel = () =>
  delta<Usage>(
    (v, writes) => writes.reduce(addUsage, v),
    () => ({}),
  );

/** What a user types to start a run (Studio's input form); the rest of the state is the graph's own. */
export const GoalInput = z.object({
  goal: z
    .string()
    .min(1)
    .describe("what the robot should do, in words, e.g. 'Find the bottle_of_tea and throw it into the trash_can.'"),
});
