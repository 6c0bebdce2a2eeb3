/** Look: the head camera's newest frame and detections, and the budgets checked before anything else is spent. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { totalUsage } from "../../models";
import type { RangedDetectionsMessage } from "../../robots/msgs/detections";
import { overBudget } from "../budget";
import { latestFrame } from "../camera";
import { graphRunOptions } from "../configuration";
import { session } from "../runtime";
import { VLMPC_VARIANTS } from "./configuration";
import type { VlmpcStateType, VlmpcUpdate } from "./state";

export async function look(state: VlmpcStateType, config?: RunnableConfig): Promise<VlmpcUpdate> {
  const opts = graphRunOptions(config, "vlmpc", VLMPC_VARIANTS);
  const startedAt = state.startedAt || Date.now();
  const c = state.counters;
  if (c.skillSeconds >= opts.maxSkillSeconds) {
    return { status: "budget_exhausted", statusReason: `stopped after ${c.skillSeconds.toFixed(1)} s of skill time (budget ${opts.maxSkillSeconds} s)`, startedAt };
  }
  const over = overBudget(opts, { actions: c.skills, replans: 0, modelCalls: totalUsage(state.usage).calls, startedAt });
  if (over) return { status: "budget_exhausted", statusReason: `stopped after ${over}`, startedAt };
  const s = await session(opts);
  const { frame, detections } = await latestFrame<RangedDetectionsMessage>(s);
  return { sight: { frame, fov: detections.fov, imageWidth: detections.width, detections: detections.detections }, startedAt };
}
