/**
 * After each grounded critique: a critique job ends with it; the refinement loop ends when no undesirable event
 * remains (or the program stopped short), or when its rewrite, model-call or wall budget runs out.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { totalUsage } from "../../../models";
import { claimLabel, type ClaimedEvent } from "../schemas";
import { lastAttempt, type CriticStateType, type CriticUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { CriticSettings } from "../configuration";

const named = (es: ClaimedEvent[]) => es.map(claimLabel).join(", ");

export function verdict(state: CriticStateType, config?: RunnableConfig): CriticUpdate {
  const run = runOf<CriticSettings>(config);
  const opts = run.settings;
  const attempt = lastAttempt(state)!;
  const events = attempt.refined!.events;
  if (state.job === "critique") return { status: "succeeded", statusReason: attempt.refined!.summary };
  if (attempt.completed === false) return { status: "failed", statusReason: state.statusReason };
  if (events.length === 0)
    return {
      status: "succeeded",
      statusReason: `no undesirable event remains after ${state.attempts.length} program(s)`,
    };
  const rewrites = state.attempts.length - 1;
  const calls = totalUsage(state.usage).calls;
  const wall = (Date.now() - state.startedAt) / 1000 - (opts.pausedSeconds ?? 0);
  const spent =
    rewrites >= opts.maxRewrites
      ? `${rewrites} rewrites (budget ${opts.maxRewrites})`
      : calls >= opts.maxModelCalls
        ? `${calls} model calls (budget ${opts.maxModelCalls})`
        : wall >= opts.maxWallSeconds
          ? `${Math.round(wall)} s (budget ${opts.maxWallSeconds} s)`
          : undefined;
  if (spent)
    return {
      status: "budget_exhausted",
      statusReason: `stopped after ${spent} with ${named(events)} still in the video`,
    };
  return {};
}
