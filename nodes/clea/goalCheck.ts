/** Goal check: does the belief show the task done? Also where budgets end a run. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, totalUsage } from "../../models";
import { GoalCheck } from "../../models/schemas";
import { overBudget } from "../budget";
import { runOptions, session } from "../runtime";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "./state";
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
  const over = overBudget(opts, { actions: state.counters.steps, replans: state.counters.replans, modelCalls: totalUsage(state.usage).calls, startedAt: state.startedAt });
  if (over) return { status: "budget_exhausted", statusReason: `stopped after ${over}; remaining: ${value.remaining.join(", ")}`, usage };
  return { usage };
}
