/** What a hierarchical run has spent, for the budgets every action and plan is checked against. */
import { totalUsage } from "../../../models";
import { overBudget } from "../../../nodes/budget";
import type { ReplanSettings } from "../configuration";
import type { ReplanStateType, ReplanUpdate } from "../state";

/** An update that ends the run when a budget is used up, or undefined while they all last. */
export function budgetEnd(state: ReplanStateType, opts: ReplanSettings): ReplanUpdate | undefined {
  const counters = state.counters;
  const over = overBudget(opts, {
    actions: counters.motions,
    replans: counters.replans,
    procedures: counters.procedures,
    modelCalls: totalUsage(state.usage).calls,
    startedAt: state.startedAt,
  });
  if (!over) return undefined;
  return {
    status: counters.procedures > opts.maxProcedures ? "gave_up" : "budget_exhausted",
    statusReason: `stopped after ${over}`,
  };
}

/** The update that starts a new procedure: the failed plan goes to memory, this procedure's reasons are cleared. */
export function newProcedure(state: ReplanStateType, failedStep: string | null, reason: string): ReplanUpdate {
  const plan = state.plan;
  return {
    failedAttempts: plan ? [{ thought: plan.thought, steps: plan.steps, failedStep, reason }] : [],
    reasons: "new_procedure",
    counters: { ...state.counters, procedures: state.counters.procedures + 1 },
  };
}
