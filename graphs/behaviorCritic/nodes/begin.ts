/** The critic graph's first node: checks the run's configuration and what it was given, and sets up the job. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { runOf } from "../../../runtime/run";
import type { CriticStateType, CriticUpdate } from "../state";

export function begin(state: CriticStateType, config?: RunnableConfig): CriticUpdate {
  // Critiques read recorded rollouts; only a refinement drives the robot.
  if (state.job === "refine" && !runOf(config).settings.bridgeUrl)
    throw new Error(
      "no bridge URL: a refinement runs its programs on the robot (set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL)",
    );
  const need = { critique: 1, prefer: 2, refine: 0 }[state.job];
  if (state.job !== "refine" && state.rollouts.length !== need) {
    return {
      status: "failed",
      statusReason: `a ${state.job} needs ${need} recorded rollout${need > 1 ? "s" : ""}, got ${state.rollouts.length}`,
    };
  }
  const update: CriticUpdate = { startedAt: state.startedAt || Date.now() };
  if (state.job === "critique" && state.attempts.length === 0)
    update.attempts = { iteration: 0, rollout: state.rollouts[0] };
  return update;
}
