/**
 * Prediction check (configurable.pipeline): the look after a skill has one question left — did the world come out as
 * predicted? No model is asked: the skill's own result and the look's reports are compared with the predicted belief
 * (graphs/clea/prediction.ts). Agreed: the predicted belief stands, and the action prepared on it, already judged,
 * goes next with no model call before it. Contradicted (the skill failed, something moved, a thing not where
 * predicted): everything prepared is dropped, and the look takes the ordinary path.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { runOf } from "../../../runtime/run";
import { tally } from "../../../nodes/speculation";
import { disagreements } from "../prediction";
import { rememberSightings } from "../lessons";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import type { CleaSettings } from "../configuration";

export async function checkPrediction(
  state: ClosedLoopStateType,
  config?: LangGraphRunnableConfig,
): Promise<ClosedLoopUpdate> {
  const sp = state.speculation;
  if (!sp || sp.outcome) return {};
  const run = runOf<CleaSettings>(config);
  const session = await run.session();
  const critiquing = !["no-critic", "open-loop"].includes(run.settings.variant);
  const prepared = !!sp.action && (critiquing ? sp.critique?.verdict === "ok" : true);
  const result = state.history.findLast((e) => e.kind === "action");
  const look = state.history.flatMap((e) => (e.kind === "observation" && e.id > sp.entryId ? [e] : []));
  const why =
    !result || result.id !== sp.entryId
      ? ["made for an earlier skill"]
      : result.kind === "action" && !result.ok
        ? [`the skill did not succeed: ${result.message}`]
        : sp.belief
          ? disagreements(sp.belief, look, session.world.labels)
          : [];
  if (why.length) {
    return {
      speculation: { ...sp, outcome: "revoked", why: why.join("; ") },
      pipeline: tally(state.pipeline, "revoked", prepared, sp.usage),
    };
  }
  // Nothing predicted (the speculator could not work): nothing to confirm or to drop.
  if (!sp.belief)
    return {
      speculation: { ...sp, outcome: "unused", why: sp.note ?? "nothing predicted" },
      pipeline: tally(state.pipeline, "unused", false, sp.usage),
    };
  // The prediction held: the belief written on it is the belief now (the look agrees with it, so folding it in would
  // change no fact), and what it shows of where things are is remembered as a look would be.
  const adopted =
    sp.judged && sp.belief && run.settings.variant !== "no-summarizer"
      ? { belief: sp.belief, beliefUpTo: sp.entryId, judged: sp.judged }
      : {};
  if ("belief" in adopted) {
    const thread = String((config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "");
    await rememberSightings(
      config?.store,
      session.world.name,
      state.belief,
      sp.belief!,
      session.world.places.map((p) => p.name),
      thread,
    );
  }
  if (!prepared)
    return {
      ...adopted,
      speculation: { ...sp, outcome: "unused", why: sp.note ?? "nothing prepared" },
      pipeline: tally(state.pipeline, "unused", false, sp.usage),
    };
  const now = state.counters.iterations;
  const planned = sp.planned
    ? {
        plannedAt: now,
        lastFailure: null,
        focus: sp.planned.focus,
        counters: { ...state.counters, replans: state.counters.replans + (sp.planned.replan ? 1 : 0) },
      }
    : {};
  return {
    ...adopted,
    ...planned,
    plan: sp.plan,
    cursor: sp.cursor,
    // Judged on the prediction the look just confirmed: it clears the action in this look (`at`).
    ...(sp.critique
      ? {
          critique: { ...sp.critique, action: sp.action!, at: now, speculative: true },
          verdicts: { [sp.critique.verdict]: 1 },
        }
      : {}),
    speculation: { ...sp, outcome: "used" },
    pipeline: tally(state.pipeline, "used", true, sp.usage),
  };
}
