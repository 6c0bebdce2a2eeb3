/**
 * Prediction check (configurable.pipeline): after a motion, RePLan reads the controller's report (Algorithm 1 looks
 * again only when a plan has run through or a motion failed). The work prepared beside the motion assumed it
 * succeeded and the plan moved on to the step it was made for: if so, it is used — a prepared motion is sent at once,
 * prepared questions go to the perceiver; if not (the motion failed, was stopped, the plan changed), it is dropped and
 * the failure takes the ordinary path. No model is asked.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { tally } from "../../../nodes/speculation";
import type { ReplanStateType, ReplanUpdate } from "../state";

export async function checkPrediction(state: ReplanStateType, _config?: RunnableConfig): Promise<ReplanUpdate> {
  const sp = state.speculation;
  if (!sp || sp.outcome) return {};
  const prepared = !!sp.motion || sp.answers !== null;
  const result = state.log.findLast((e) => e.kind === "motion");
  const why = state.failure
    ? `the motion did not succeed: ${state.failure.message}`
    : !result?.ok
      ? "the motion did not succeed"
      : state.cursor !== sp.cursor || (state.plan?.steps[state.cursor]?.action ?? null) !== sp.step
        ? "the plan is not at the step the work was prepared for"
        : undefined;
  if (why)
    return {
      speculation: { ...sp, outcome: "revoked", why },
      pipeline: tally(state.pipeline, "revoked", prepared, sp.usage),
    };
  if (!prepared)
    return {
      speculation: { ...sp, outcome: "unused", why: sp.note ?? "nothing prepared" },
      pipeline: tally(state.pipeline, "unused", false, sp.usage),
    };
  const used = {
    speculation: { ...sp, outcome: "used" as const },
    pipeline: tally(state.pipeline, "used", true, sp.usage),
  };
  if (sp.motion) return { ...used, motion: sp.motion, ...(sp.notes?.length ? { log: sp.notes } : {}) };
  // Questions prepared: the perceiver answers them on the view now. None: the facts settled the step.
  const step = state.plan!.steps[state.cursor];
  if (!sp.answers!.length)
    return {
      ...used,
      cursor: state.cursor + 1,
      answers: [],
      log: [{ kind: "vision", step: step.action, answers: [], done: true }],
    };
  return { ...used, answers: sp.answers! };
}
