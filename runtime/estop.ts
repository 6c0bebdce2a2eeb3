/**
 * The emergency stop, as nodes see it. The agent's process requests it (SIGINT/SIGTERM to `npm start`, an aborted
 * experiment); under the LangGraph server a canceled run aborts its own `config.signal`. Either way a goal in flight is
 * canceled on the robot (the bridge cancels it and the robot stops), no new goal is sent, no model is asked further, and
 * the run ends `interrupted`. A goal canceled by anyone else — the bridge's `/robograph/stop` service, an operator's
 * client — ends the run the same way: the robot was stopped, and acting on would overrule whoever stopped it.
 */
import { setMaxListeners } from "node:events";
import type { RunnableConfig } from "@langchain/core/runnables";
import { runStopOf } from "./run";

export class EmergencyStop extends Error {
  override name = "EmergencyStop";
}

/** Every request in flight listens to the stop (a run's concurrent requests too): no listener limit applies. */
function stopController(): AbortController {
  const fresh = new AbortController();
  setMaxListeners(0, fresh.signal);
  return fresh;
}

let controller = stopController();

/** Stops every run in this process (the first reason is kept). */
export function emergencyStop(reason: string): void {
  if (!controller.signal.aborted) controller.abort(new EmergencyStop(reason));
}

/** Lifts the stop for runs started afterwards (tests; a process that goes on after a stopped experiment). */
export function clearEmergencyStop(): void {
  controller = stopController();
}

/**
 * Why this run must stop now, or undefined: the process's stop, the run's own (MCP's emergency_stop of one run), or
 * the run's config signal (a server-side cancel).
 */
export function stopReason(config?: RunnableConfig): string | undefined {
  if (controller.signal.aborted) return (controller.signal.reason as Error).message;
  const own = runStopOf(config);
  if (own?.aborted) return own.reason instanceof Error ? own.reason.message : "the run was stopped";
  if (config?.signal?.aborted)
    return `the run was canceled${config.signal.reason instanceof Error ? ` (${config.signal.reason.message})` : ""}`;
  return undefined;
}

/**
 * Why a run that ended early was stopped, or undefined: the process's stop, or the run's own signal (a canceled server
 * run, MCP's emergency_stop) — what a runner reads once the graph has returned.
 */
export function stoppedBy(signal?: AbortSignal): string | undefined {
  return stopReason() ?? (signal?.aborted ? (signal.reason as Error | undefined)?.message || "stopped" : undefined);
}

/** The signal a node's work listens to: aborted by the process's stop, the run's own, or the run's cancel. */
export function runSignal(config?: RunnableConfig): AbortSignal {
  const others = [runStopOf(config), config?.signal].filter((signal): signal is AbortSignal => !!signal);
  if (!others.length) return controller.signal;
  const signal = AbortSignal.any([controller.signal, ...others]);
  // A node's concurrent requests each listen to it.
  setMaxListeners(0, signal, ...others);
  return signal;
}

/** The sentence that tells a user how to continue an interrupted thread. */
export const resumeHint = (thread?: string) => `resume with: npm start -- --thread ${thread ?? "<thread>"} --resume`;
