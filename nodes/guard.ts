/**
 * What ends a node that asks a model without ending the run badly: an endpoint that stays unavailable after its
 * bounded retries ends the node `interrupted` (checkpointed, with the role, the endpoint and the last error), and the
 * thread resumes by running that node again; an answer that never fits its schema, or a request the endpoint refuses
 * for good (a 400, a refused key), ends the run `failed`, naming it.
 * Either way every request the node sent is in the usage it returns. An emergency stop (runtime/estop.ts) ends a model
 * node before it starts, or aborts its request in flight, the same way. Only model nodes are guarded: robots' skills
 * have their own path (nodes/executor.ts), and nothing here sends anything to a robot.
 * A robot lost while a node waited on it (RobotLostError: no sign of life for its liveness window) ends that node
 * `interrupted` too, whatever node it is (`resumable`): the goal it ran is marked lost in the checkpoint, and the node,
 * run again on resume, reconciles it with the robot instead of sending it again (nodes/executor.ts).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  ModelOutputError,
  ModelRequestError,
  ModelUnavailableError,
  withModelScope,
  type ModelScope,
  type Usage,
} from "../models";
import { RobotLostError } from "../robots/bridge/errors";
import { runOf } from "../runtime/run";
import { resumeHint, runSignal, stopReason } from "../runtime/estop";
import { withLostGoal } from "./executor";
import type { Status } from "./state";

interface Guardable {
  startedAt?: number;
}
type Ended = { status: Status; statusReason: string; usage: Usage };

/** The goal a node sends, as every graph records it before sending; `lost` once its robot went while it ran. */
interface PendingGoal {
  goalId: string;
  lost?: string;
}

/**
 * A node run while the state says `interrupted` is the one a resume runs again (`Command({ goto: node })`): unless it
 * ends the run itself, its update clears the interruption. (The resume cannot set the status with the Command's
 * `update`: that passes the graph's input schema, which is the goal alone.) A robot lost while the node waited on it
 * ends the node `interrupted`, its pending goal marked lost; run again, the node reconciles that goal with the robot.
 */
export function resumable<S extends { status?: Status }, U>(
  node: (state: S, config?: RunnableConfig) => Promise<U>,
): (state: S, config?: RunnableConfig) => Promise<U> {
  return async (state, config) => {
    const pending = (state as { pendingGoal?: PendingGoal | null }).pendingGoal;
    let out: U;
    try {
      out = await (pending?.lost !== undefined
        ? withLostGoal(pending.goalId, pending.lost, () => node(state, config))
        : node(state, config));
    } catch (err) {
      if (!(err instanceof RobotLostError)) throw err;
      const thread = (config?.configurable as { thread_id?: string } | undefined)?.thread_id;
      const lost = !!pending && err.goalId === pending.goalId;
      return {
        status: "interrupted",
        statusReason: `interrupted: ${err.message}; ${resumeHint(thread)} once the robot is back`,
        ...(lost ? { pendingGoal: { ...pending, lost: err.message } } : {}),
      } as U;
    }
    if (state.status !== "interrupted" || (out && typeof out === "object" && "status" in out)) return out;
    return { ...(out as object), status: "running", statusReason: "" } as U;
  };
}

export function guarded<S extends Guardable & { status?: Status }, U>(
  name: string,
  node: (state: S, config?: RunnableConfig) => Promise<U>,
): (state: S, config?: RunnableConfig) => Promise<U> {
  return resumable(async (state: S, config?: RunnableConfig): Promise<U> => {
    const thread = (config?.configurable as { thread_id?: string } | undefined)?.thread_id;
    const stopped = (why: string, usage: Usage = {}): U =>
      ({
        status: "interrupted",
        statusReason: `interrupted in ${name}: emergency stop (${why}); ${resumeHint(thread)}`,
        usage,
      }) satisfies Ended as U;
    const before = stopReason(config);
    if (before) return stopped(before);
    let deadline: number | undefined;
    try {
      // The run's wall budget bounds how long a node may wait for an endpoint (its first node has no start yet: now).
      const settings = runOf(config).settings;
      deadline = (state.startedAt || Date.now()) + (settings.maxWallSeconds + (settings.pausedSeconds ?? 0)) * 1000;
    } catch {
      // An invalid configuration is the node's own error to report.
    }
    const scope: ModelScope = { deadline, signal: runSignal(config), usage: {} };
    try {
      return await withModelScope(scope, () => node(state, config));
    } catch (err) {
      const why = stopReason(config);
      if (why) return stopped(why, scope.usage);
      if (err instanceof ModelUnavailableError) {
        const ended: Ended = {
          status: "interrupted",
          statusReason: `interrupted in ${name}: ${err.message}; ${resumeHint(thread)} once the endpoint answers`,
          usage: scope.usage,
        };
        return ended as U;
      }
      // An answer that never fit, or a request the endpoint refuses (a 400, a refused key): retrying cannot help.
      if (err instanceof ModelOutputError || err instanceof ModelRequestError) {
        const ended: Ended = { status: "failed", statusReason: `${name}: ${err.message}`, usage: scope.usage };
        return ended as U;
      }
      throw err;
    }
  });
}

/** Every node of a table guarded (the table's names are the graph's node names). */
export function guardedNodes<T extends Record<string, (state: never, config?: RunnableConfig) => Promise<unknown>>>(
  nodes: T,
): T {
  return Object.fromEntries(Object.entries(nodes).map(([name, fn]) => [name, guarded(name, fn as never)])) as T;
}

/** The statuses a run ends on: anything but running. */
export const ended = (s: { status: Status }) => s.status !== "running";
