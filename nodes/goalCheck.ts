/** Goal check: does the belief show the task done? Also where budgets end a run. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, totalUsage } from "../models";
import { GoalCheck } from "../models/schemas";
import { runOptions, session } from "../graphs/session";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../graphs/state";
import { rawBelief } from "./planner";

export const GOAL_CHECK_PROMPT = `Decide whether the task is complete. Compare each part of the instruction with the
belief (for a "find" task, an object counts as found once a camera has seen it). List the parts that remain.`;

export async function checkGoal(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const opts = runOptions(config);
  const s = await session(opts);
  const belief = state.belief ?? (await rawBelief(state, s));
  const { value, usage } = await askStructured(s.models, s.modelConfig, {
    role: "summarizer",
    schema: GoalCheck,
    schemaName: "GoalCheck",
    system: GOAL_CHECK_PROMPT,
    task: "check_goal",
    context: { goal: state.goal, belief, world: s.world },
  });
  if (value.achieved) return { status: "succeeded", statusReason: "the belief shows every part of the task done", usage };
  const calls = totalUsage(state.usage).calls;
  const wall = (Date.now() - (state.startedAt || Date.now())) / 1000;
  const over =
    state.counters.steps >= opts.maxSteps ? `${state.counters.steps} skills (budget ${opts.maxSteps})`
    : state.counters.replans > opts.maxReplans ? `${state.counters.replans} replans (budget ${opts.maxReplans})`
    : calls >= opts.maxModelCalls ? `${calls} model calls (budget ${opts.maxModelCalls})`
    : wall >= opts.maxWallSeconds ? `${Math.round(wall)} s (budget ${opts.maxWallSeconds} s)`
    : undefined;
  if (over) return { status: "budget_exhausted", statusReason: `stopped after ${over}; remaining: ${value.remaining.join(", ")}`, usage };
  return { usage };
}
