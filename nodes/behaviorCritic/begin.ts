/** The critic graph's first node: checks the run's configuration and what it was given, and sets up the job. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { CRITIC_VARIANTS } from "./configuration";
import { graphRunOptions } from "../configuration";
import type { CriticStateType, CriticUpdate } from "./state";

export function begin(state: CriticStateType, config?: RunnableConfig): CriticUpdate {
  graphRunOptions(config, "behaviorCritic", CRITIC_VARIANTS, state.job !== "refine");
  const need = { critique: 1, prefer: 2, refine: 0 }[state.job];
  if (state.job !== "refine" && state.rollouts.length !== need) {
    return { status: "failed", statusReason: `a ${state.job} needs ${need} recorded rollout${need > 1 ? "s" : ""}, got ${state.rollouts.length}` };
  }
  const update: CriticUpdate = { startedAt: state.startedAt || Date.now() };
  if (state.job === "critique" && state.attempts.length === 0) update.attempts = { iteration: 0, rollout: state.rollouts[0] };
  return update;
}
