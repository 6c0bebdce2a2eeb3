/**
 * Speculation's bookkeeping, shared by the methods that pipeline (CLEA, RePLan): while a skill runs, the next action is
 * prepared against the skill's predicted outcome; what the robot reports and sees after it decides whether that work
 * is used (the action is sent at once), revoked (the world did not come out as predicted: the work is dropped and the
 * ordinary path runs) or unused (the prediction held, but nothing was prepared that could go: the ordinary path runs).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { totalUsage, withModelScope, type ModelScope, type Usage } from "../models";
import { runSignal } from "./estop";

export type SpeculationOutcome = "used" | "revoked" | "unused";

/** What a run's speculation came to; tokens of revoked work are wasted (spent on a world that did not happen). */
export interface PipelineCounts {
  /** Skills during which the next action was prepared (and, where there is a critic, judged fit). */
  prepared: number;
  used: number;
  revoked: number;
  unused: number;
  wastedCalls: number;
  wastedInputTokens: number;
  wastedOutputTokens: number;
}

export const NO_PIPELINE: PipelineCounts = { prepared: 0, used: 0, revoked: 0, unused: 0, wastedCalls: 0, wastedInputTokens: 0, wastedOutputTokens: 0 };

/** The counts after one speculation was decided; what a revoked one spent is counted as wasted. */
export function tally(c: PipelineCounts, outcome: SpeculationOutcome, prepared: boolean, usage: Usage): PipelineCounts {
  const u = totalUsage(usage);
  const wasted = outcome === "revoked";
  return {
    ...c,
    prepared: c.prepared + (prepared ? 1 : 0),
    [outcome]: c[outcome] + 1,
    wastedCalls: c.wastedCalls + (wasted ? u.calls : 0),
    wastedInputTokens: c.wastedInputTokens + (wasted ? u.inputTokens : 0),
    wastedOutputTokens: c.wastedOutputTokens + (wasted ? u.outputTokens : 0),
  };
}

/**
 * A speculator's work, in a model scope of its own: `work` fills in what it prepares and returns why nothing (more) was
 * prepared, if so. The usage is every request the work sent; a failure (an endpoint down, an answer that never fit)
 * costs only the time and becomes the note, since the ordinary path runs after the skill all the same.
 */
export async function prepareBeside(config: RunnableConfig | undefined, work: () => Promise<string | undefined>): Promise<{ note?: string; usage: Usage }> {
  const scope: ModelScope = { signal: runSignal(config), usage: {} };
  try {
    const note = await withModelScope(scope, work);
    return { ...(note ? { note } : {}), usage: scope.usage };
  } catch (err) {
    return { note: `could not prepare: ${(err as Error).message}`, usage: scope.usage };
  }
}

/** The nodes that write what a dispatch sends: CLEA's critique clearing an action, RePLan's motion. */
const CLEARS = new Set(["critic", "planner", "verifier", "low_level_planner", "reward_verifier", "prediction_check"]);

/**
 * From a run's node updates: skills sent on prepared work when the look after the skill before had contradicted its
 * prediction. The prepared work reaches a dispatch only through the prediction check's write; if the latest write of
 * what is sent came from that check and the check's latest outcome is not `used`, the skill went out on work the
 * world had overtaken.
 */
export function sentAgainstContradiction(trace: readonly { node: string; update: unknown }[]): number {
  let outcome: SpeculationOutcome | undefined;
  let source: string | undefined;
  let n = 0;
  for (const step of trace) {
    const { node } = step;
    const update = step.update as Record<string, unknown>;
    if (node === "prediction_check") {
      const sp = update.speculation as { outcome?: SpeculationOutcome } | undefined;
      if (sp?.outcome) outcome = sp.outcome;
    }
    if (CLEARS.has(node) && (update.critique || update.motion)) source = node;
    if (node === "dispatch" && update.pendingGoal && source === "prediction_check" && outcome !== "used") n++;
  }
  return n;
}
