/**
 * Prediction check (configurable.pipeline): the look after a skill has one question left — which of the outcomes
 * prepared for, if any, did the world come to? No model is asked: the skill's own result and the look's reports are
 * compared with each branch's predicted belief (graphs/clea/prediction.ts), in the order they were prepared. The
 * first the look contradicts in nothing its action or the task rests on is confirmed: its belief stands, and the
 * action prepared on it, already judged, goes next with no model call before it; every other branch is dropped. None
 * confirmed (the skill failed, something moved, a thing not where predicted, a sought thing where no branch had it):
 * everything prepared is dropped, and the look takes the ordinary path.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { runOf } from "../../../runtime/run";
import { tally } from "../../../nodes/speculation";
import { confirmBranch, type Branch } from "../prediction";
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
  const ready = (b: Branch) => !!b.action && (critiquing ? b.critique?.verdict === "ok" : true);
  const branches: Branch[] = [sp, ...(sp.alternatives ?? [])];
  const alternatives = branches.length - 1;
  const result = state.history.findLast((e) => e.kind === "action");
  const look = state.history.flatMap((e) => (e.kind === "observation" && e.id > sp.entryId ? [e] : []));
  const failed =
    !result || result.id !== sp.entryId
      ? "made for an earlier skill"
      : result.kind === "action" && !result.ok
        ? `the skill did not succeed: ${result.message}`
        : undefined;
  const { chosen, against } = confirmBranch(
    branches,
    look,
    { goal: state.goal, robots: session.robots, world: session.world, failed },
    ready,
  );
  // What the alternatives added to the waste: every one the look did not confirm (the first prediction's work is what
  // one prediction alone would have spent, confirmed or not).
  const unconfirmed = branches.slice(1).flatMap((b, k) => (k + 1 === chosen ? [] : [b.usage]));
  if (chosen < 0 && (failed || branches.some((b) => b.belief))) {
    return {
      speculation: { ...sp, outcome: "revoked", why: against[0].join("; ") },
      pipeline: tally(state.pipeline, "revoked", branches.some(ready), sp.spent, [], {
        alternatives,
        alternativeUsed: false,
        unconfirmed,
      }),
    };
  }
  const dropped = branches.filter((_, k) => k !== chosen).map((b) => b.usage);
  const counted = { alternatives, alternativeUsed: chosen > 0, unconfirmed };
  // Nothing predicted (the speculator could not work): nothing to confirm or to drop.
  if (chosen < 0)
    return {
      speculation: { ...sp, outcome: "unused", why: sp.note ?? "nothing predicted" },
      pipeline: tally(state.pipeline, "unused", false, sp.spent, dropped, counted),
    };
  const branch = branches[chosen];
  // The record now names the confirmed branch; the others stay listed beside it, dropped.
  const decided = {
    ...sp,
    ...branch,
    alternatives: branches.filter((_, k) => k !== chosen),
    chosen,
  };
  // The prediction held: the belief written on it is the belief now (the look agrees with it in all the task and the
  // action rest on; the summarizer folds the look in full next time, from the skill's entry on), and what it shows of
  // where things are is remembered as a look would be.
  const adopted =
    branch.judged && branch.belief && run.settings.variant !== "no-summarizer"
      ? { belief: branch.belief, beliefUpTo: sp.entryId, judged: { ...branch.judged, upTo: sp.entryId } }
      : {};
  if ("belief" in adopted) {
    const thread = String((config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "");
    await rememberSightings(
      config?.store,
      session.world.name,
      state.belief,
      branch.belief!,
      session.world.places.map((p) => p.name),
      thread,
    );
  }
  if (!ready(branch))
    return {
      ...adopted,
      speculation: { ...decided, outcome: "unused", why: branch.note ?? "nothing prepared" },
      pipeline: tally(state.pipeline, "unused", false, sp.spent, dropped, counted),
    };
  const now = state.counters.iterations;
  const planned = branch.planned
    ? {
        plannedAt: now,
        lastFailure: null,
        focus: branch.planned.focus,
        counters: { ...state.counters, replans: state.counters.replans + (branch.planned.replan ? 1 : 0) },
      }
    : {};
  // A rejection the branch's plan was made after counts as the loop's own would have, in this look.
  const rejection = branch.rejection;
  const verdicts = { ...(rejection ? { [rejection.verdict]: 1 } : {}) };
  if (branch.critique) verdicts[branch.critique.verdict] = (verdicts[branch.critique.verdict] ?? 0) + 1;
  return {
    ...adopted,
    ...planned,
    ...(rejection ? { rejections: rejection.rejections, failedPlans: rejection.failedPlans } : {}),
    plan: branch.plan,
    cursor: branch.cursor,
    // Judged on the prediction the look just confirmed: it clears the action in this look (`at`).
    ...(branch.critique
      ? { critique: { ...branch.critique, action: branch.action!, at: now, speculative: true } }
      : {}),
    ...(Object.keys(verdicts).length ? { verdicts } : {}),
    speculation: { ...decided, outcome: "used" },
    pipeline: tally(state.pipeline, "used", true, sp.spent, dropped, counted),
  };
}
