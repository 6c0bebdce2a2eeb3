/**
 * Repeated identical failures: the same action failing for the same reason a third time will not go differently a
 * fourth, so the run ends `failed` with that reason instead of spending the rest of its budget on it.
 */
export const REPEAT_LIMIT = 3;

/** Counts of failures by action and reason, as a state channel keeps them. */
export type FailureCounts = Record<string, number>;

/** How counts are keyed: the action and the reason it failed (or was rejected) for. */
export const repeatKey = (action: string, reason: string) => `${action} → ${reason}`;

/**
 * Counts one failure of `action` for `reason`; returns the new counts and, at the limit, the update that ends the run.
 * Canceled goals (an emergency stop) are not failures of the action and are not counted by callers.
 */
export function countFailure(
  counts: FailureCounts,
  action: string,
  reason: string,
): { repeats: FailureCounts; n: number; end?: { status: "failed"; statusReason: string } } {
  const key = repeatKey(action, reason);
  const count = (counts[key] ?? 0) + 1;
  const repeats = { ...counts, [key]: count };
  if (count < REPEAT_LIMIT) return { repeats, n: count };
  return {
    repeats,
    n: count,
    end: { status: "failed", statusReason: `${action} failed ${count} times for the same reason: ${reason}` },
  };
}
