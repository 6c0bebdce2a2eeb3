/** Look: the head camera's newest frame and detections, and the budgets checked before anything else is spent. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { totalUsage } from "../../../models";
import type { RangedDetectionsMessage } from "../../../robots/msgs/detections";
import { overBudget } from "../../../nodes/budget";
import { latestFrame } from "../../../nodes/perceiver";
import type { VlmpcStateType, VlmpcUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { VlmpcSettings } from "../configuration";

export async function look(state: VlmpcStateType, config?: RunnableConfig): Promise<VlmpcUpdate> {
  const run = runOf<VlmpcSettings>(config);
  const opts = run.settings;
  const startedAt = state.startedAt || Date.now();
  const counters = state.counters;
  if (counters.skillSeconds >= opts.maxSkillSeconds) {
    return {
      status: "budget_exhausted",
      statusReason: `stopped after ${counters.skillSeconds.toFixed(1)} s of skill time (budget ${opts.maxSkillSeconds} s)`,
      startedAt,
    };
  }
  const over = overBudget(opts, {
    actions: counters.skills,
    replans: 0,
    modelCalls: totalUsage(state.usage).calls,
    startedAt,
  });
  if (over) return { status: "budget_exhausted", statusReason: `stopped after ${over}`, startedAt };
  const session = await run.session();
  const { frame, detections } = await latestFrame<RangedDetectionsMessage>(session);
  return {
    sight: { frame, fov: detections.fov, imageWidth: detections.width, detections: detections.detections },
    startedAt,
  };
}
