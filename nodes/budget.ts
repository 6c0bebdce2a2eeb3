/** The budgets every method's run is checked against: actions, replans, procedures, model calls and wall time. */
import type { SharedSettings } from "../runtime/settings";

/** What a run has used so far, against its budgets. */
export interface Spent {
  /** Skills (CLEA) or motions (RePLan) sent. */
  actions: number;
  replans: number;
  /** RePLan's new procedures. */
  procedures?: number;
  modelCalls: number;
  startedAt: number;
}

/**
 * The first budget a run has used up, in words, or undefined while every budget lasts. Replans and procedures are
 * counted when one is asked for, and the check stops the one over the budget before it is made: so the words say how
 * many were made (the budget) and that another was needed, not the count of the one refused.
 */
export function overBudget(settings: SharedSettings & { maxProcedures?: number }, spent: Spent): string | undefined {
  // Time the run lay dead before a resume is not the run's: it would end a resumed episode on time it never had.
  const wall = (Date.now() - (spent.startedAt || Date.now())) / 1000 - (settings.pausedSeconds ?? 0);
  return spent.actions >= settings.maxSteps
    ? `${spent.actions} actions (budget ${settings.maxSteps})`
    : spent.replans > settings.maxReplans
      ? `${settings.maxReplans} replans (budget ${settings.maxReplans}; another was needed)`
      : settings.maxProcedures !== undefined && (spent.procedures ?? 0) > settings.maxProcedures
        ? `${settings.maxProcedures} new procedures (budget ${settings.maxProcedures}; another was needed)`
        : spent.modelCalls >= settings.maxModelCalls
          ? `${spent.modelCalls} model calls (budget ${settings.maxModelCalls})`
          : wall >= settings.maxWallSeconds
            ? `${Math.round(wall)} s (budget ${settings.maxWallSeconds} s)`
            : undefined;
}
