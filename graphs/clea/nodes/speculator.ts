/**
 * Speculator (configurable.pipeline): beside the executor, while the robot runs a skill, the work the look after it
 * would otherwise wait for — on each likely outcome of that look (graphs/clea/prediction.ts): the skill does what its
 * manifest says and, where the look decides what comes next (a search), the thing sought is in view or it is not. For
 * each outcome, on its own and at the same time: the summarizer folds the last look, the skill's predicted result and
 * the predicted look into the belief (its verdict on the task with it); the next action is the plan's next step, or
 * the planner's first on that belief; the critic judges it there, and a first rejection there sends the branch to the
 * planner again, as the loop would after the look. Nothing of it touches the state but the record it
 * writes: the look after the skill decides which branch, if any, is used (graphs/clea/nodes/predictionCheck.ts).
 * Its failure (an endpoint down, an answer that never fits) costs nothing but the time (nodes/speculation.ts).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { reportsHoldUnsensed } from "../../../robots/manifests";
import { prepareBeside, mayPrepareAlternatives } from "../../../nodes/speculation";
import { addUsage, type Usage } from "../../../models";
import { runOf } from "../../../runtime/run";
import {
  AS_PROMISED,
  likelyOutcomes,
  predictedEntry,
  predictedLook,
  type Branch,
  type Outcome,
  type Rejection,
  type Speculation,
} from "../prediction";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import type { CleaSettings } from "../configuration";
import { summarize } from "./summarizer";
import { plan, rawBelief } from "./planner";
import { verify } from "./verifier";
import { judgeAction } from "./critic";

/** A node's update read as plain values (none of these nodes writes an overwrite marker). */
const plain = async (u: Promise<ClosedLoopUpdate>) => (await u) as Partial<ClosedLoopStateType>;

export async function speculate(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  if (!state.pendingGoal) return {};
  const run = runOf<CleaSettings>(config);
  const { goalId, call } = state.pendingGoal;
  const entryId = state.counters.nextEntryId;
  // Which outcomes are worth the work: read from the belief and the manifests, never from the world itself.
  let outcomes: Outcome[] = [AS_PROMISED];
  try {
    const session = await run.session();
    const belief = state.belief ?? (await rawBelief(state, session));
    outcomes = likelyOutcomes(
      call,
      state.goal,
      belief,
      session.robots,
      session.world,
      mayPrepareAlternatives(state.usage, state.pipeline),
    );
  } catch {
    // No session: the one outcome is prepared, and its own failure says why.
  }
  const branches = await Promise.all(outcomes.map((outcome) => prepareBranch(state, config, entryId, outcome)));
  const [first, ...alternatives] = branches;
  const usage = branches.reduce<Usage>((u, b) => addUsage(u, b.usage), {});
  const record: Speculation = {
    goalId,
    entryId,
    ...first,
    ...(alternatives.length ? { alternatives } : {}),
    spent: usage,
  };
  return { speculation: record, usage };
}

/** The work for one outcome of the look after the pending skill, in a model scope of its own. */
async function prepareBranch(
  state: ClosedLoopStateType,
  config: RunnableConfig | undefined,
  entryId: number,
  outcome: Outcome,
): Promise<Branch> {
  const run = runOf<CleaSettings>(config);
  const call = state.pendingGoal!.call;
  const branch: Branch = {
    ...outcome,
    belief: null,
    judged: null,
    plan: null,
    cursor: 0,
    action: null,
    critique: null,
    usage: {},
  };
  const { note, usage } = await prepareBeside(config, async () => {
    const session = await run.session();
    const unsensed = session.robots.some((r) => r.id === call.robot && reportsHoldUnsensed(r, call.skill));
    // The state as it will be if the skill does what its manifest says and the look shows this outcome. A predicted
    // belief is not a sighting: the store of where things were seen is left alone.
    const quiet = { ...config, store: undefined } as LangGraphRunnableConfig;
    const step = state.counters.steps + 1;
    const entries = [predictedEntry(entryId, step, call, unsensed), ...predictedLook(entryId + 1, step, outcome.look)];
    let hyp: ClosedLoopStateType = {
      ...state,
      history: [...state.history, ...entries],
      cursor: state.cursor + 1,
      pendingGoal: null,
      counters: { ...state.counters, steps: step, nextEntryId: entryId + entries.length },
    };
    const summarizing = run.settings.variant !== "no-summarizer";
    const sum = summarizing ? await plain(summarize(hyp, quiet)) : {};
    if (sum.belief) hyp = { ...hyp, belief: sum.belief, beliefUpTo: sum.beliefUpTo!, judged: sum.judged ?? null };
    branch.belief = hyp.belief && summarizing ? hyp.belief : await rawBelief(hyp, session);
    // A summary that puts a report in question asks for a look for it: that summary is not adopted (no verdict to
    // stand), so the summarizer writes it again after the look and the look for the thing follows.
    if (sum.focus) return `the predicted belief puts a report in question (${sum.focus.why}): a look comes first`;
    branch.judged = summarizing ? hyp.judged : null;
    if (hyp.judged?.achieved && hyp.judged.upTo === hyp.beliefUpTo) return "the task is predicted done";
    // A rejection on the prediction is followed as the paper's loop follows one after a look: the planner hears it, its
    // plan is checked and its first action judged. Once: a second rejection in a row waits for the look.
    for (let rejected = false; ; rejected = true) {
      if (!(hyp.plan && hyp.cursor < hyp.plan.steps.length)) {
        const planned = await plain(plan(hyp, quiet));
        if ((planned.status && planned.status !== "running") || !planned.plan)
          return `the planner, on the prediction: ${planned.statusReason ?? "no plan"}`;
        hyp = {
          ...hyp,
          plan: planned.plan,
          cursor: 0,
          critique: null,
          lastFailure: null,
          counters: planned.counters ?? hyp.counters,
          plannedAt: state.counters.iterations,
        };
        branch.planned = {
          replan: (planned.counters?.replans ?? 0) > state.counters.replans,
          focus: planned.focus ?? null,
        };
        const verified = await plain(verify(hyp, quiet));
        if (verified.plan === null)
          return `the verifier rejected the plan made on the prediction: ${verified.lastFailure}`;
        if (verified.plan) hyp = { ...hyp, plan: verified.plan };
      }
      branch.plan = hyp.plan;
      branch.cursor = hyp.cursor;
      branch.action = hyp.plan!.steps[hyp.cursor];
      if (["no-critic", "open-loop"].includes(run.settings.variant)) return undefined;
      const judged = await plain(judgeAction(hyp, quiet, true));
      if (judged.critique) branch.critique = { verdict: judged.critique.verdict, feedback: judged.critique.feedback };
      if (judged.critique?.verdict === "ok") return undefined;
      const why = `the critic, on the prediction: ${judged.critique?.verdict}`;
      // Only a first rejection of its kind sends the loop back to the planner; a second asks for a look, a third is
      // overruled or ends the run: those wait for the look after the skill.
      const plainRejection = judged.plan === null && !judged.focus && !judged.status;
      if (rejected || !plainRejection || !judged.critique) return why;
      branch.rejection = {
        verdict: judged.critique.verdict,
        feedback: judged.critique.feedback,
        action: branch.action,
        rejections: judged.rejections!,
        failedPlans: judged.failedPlans as Rejection["failedPlans"],
      };
      hyp = {
        ...hyp,
        plan: null,
        cursor: 0,
        critique: judged.critique as ClosedLoopStateType["critique"],
        lastFailure: judged.lastFailure ?? null,
        failedPlans: [...hyp.failedPlans, ...branch.rejection.failedPlans].slice(-5),
        rejections: branch.rejection.rejections,
      };
      branch.action = null;
      branch.critique = null;
    }
  });
  return { ...branch, ...(note ? { note } : {}), usage };
}
