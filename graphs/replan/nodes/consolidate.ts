/**
 * The planner consolidates the perceiver's explanations into at most two reasons (RePLan B.12). With a reason, the
 * graph replans around it; with none, the cause is unknown and the planner must find a different procedure.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { FailureReasons } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { newProcedure } from "./budget";
import { NO_CAUSE_SEEN } from "../checks";
import { runOf } from "../../../runtime/run";

export const CONSOLIDATE_PROMPT = `A robot could not do an action. Several looks at its camera image gave possible
explanations. Write the one or two reasons most of them support, each as one short sentence about objects in the
scene (never about the robot). If they mostly found nothing in the way, give no reason.`;

export async function consolidate(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  const failure = state.failure!;
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: FailureReasons,
    schemaName: "FailureReasons",
    system: CONSOLIDATE_PROMPT,
    task: "consolidate",
    context: { action: failure.step, controller: failure.message, explanations: state.explanations },
  });
  const log = [
    { kind: "diagnosis" as const, step: failure.step, explanations: state.explanations, reasons: value.reasons },
  ];
  // A reason already planned around for this step did not help: treat the cause as unknown.
  const fresh = value.reasons.filter(
    (reason) => !state.reasons.some((r) => r.step === failure.step && r.reason === reason),
  );
  if (fresh.length) {
    return {
      reasons: fresh.map((reason) => ({ step: failure.step, reason })),
      counters: { ...state.counters, replans: state.counters.replans + 1 },
      usage,
      log,
    };
  }
  const why = value.reasons.length ? `planning around "${value.reasons.join("; ")}" did not help` : NO_CAUSE_SEEN;
  return {
    ...newProcedure(state, failure.step, `the robot could not ${failure.step} (${failure.message}) and ${why}`),
    usage,
    log,
  };
}
