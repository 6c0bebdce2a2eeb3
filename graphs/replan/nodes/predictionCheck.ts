/**
 * Prediction check (configurable.pipeline). After a motion, RePLan reads the controller's report (Algorithm 1 looks
 * again only when a plan has run through or a motion failed). The work prepared beside the motion assumed it
 * succeeded and the plan moved on to the step it was made for: if so, it is used — a prepared motion is sent at once,
 * prepared questions go to the perceiver; if not (the motion failed, was stopped, the plan changed), it is dropped and
 * the failure takes the ordinary path. After a check the work was prepared beside (the plan verifier, the name check
 * of the perceiver's explanations), the check's answer decides: it kept what the work was prepared on — the plan, the
 * explanations — word for word, and the work is what the ordinary path would ask for; else it is dropped. No model is
 * asked.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { tally } from "../../../nodes/speculation";
import type { ReplanSpeculation, ReplanStateType, ReplanUpdate } from "../state";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Why the work prepared does not fit the state now, if it does not. */
function overtaken(state: ReplanStateType, sp: ReplanSpeculation): string | undefined {
  if (sp.beside === "remap_reasons")
    return same(state.explanations, sp.explanations)
      ? undefined
      : "the name check rewrote an explanation the work was prepared on";
  if (sp.beside === "plan_verifier")
    return same(state.plan?.steps, sp.plan?.steps) && state.cursor === sp.cursor
      ? undefined
      : "the verifier changed the plan the work was prepared on";
  const result = state.log.findLast((e) => e.kind === "motion");
  return state.failure
    ? `the motion did not succeed: ${state.failure.message}`
    : !result?.ok
      ? "the motion did not succeed"
      : state.cursor !== sp.cursor || (state.plan?.steps[state.cursor]?.action ?? null) !== sp.step
        ? "the plan is not at the step the work was prepared for"
        : undefined;
}

export async function checkPrediction(state: ReplanStateType, _config?: RunnableConfig): Promise<ReplanUpdate> {
  const sp = state.speculation;
  if (!sp || sp.outcome) return {};
  const prepared = !!sp.motion || sp.answers !== null || !!sp.consolidated;
  const why = overtaken(state, sp);
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
  if (sp.consolidated) return { ...sp.consolidated, ...used };
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
