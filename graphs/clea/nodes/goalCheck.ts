/**
 * Goal check: does the belief show the task done? Also where budgets end a run, and where a search ends: once every
 * place the robots can look into has been looked into twice since a goal object was last seen, looking on cannot
 * find it (nodes/search.ts).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured, totalUsage } from "../../../models";
import { GoalCheck } from "../schemas";
import { overBudget } from "../../../nodes/budget";
import { exhaustedReason, exhaustedSearch, lookablePlaces, searchedObjects, noteLook } from "../../../nodes/search";
import { closestName } from "../../../models/reasoning/language";
import { ended } from "../../../nodes/guard";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { rawBelief } from "./planner";
import { runOf } from "../../../runtime/run";
import type { CleaSettings } from "../configuration";

export const GOAL_CHECK_PROMPT = `Decide whether the task is complete. Compare each part of the instruction with the
belief (for a "find" task, an object counts as found once a camera has seen it). List the parts that remain.`;

export async function checkGoal(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  // Reached from the critic's branch of a look whose other branch (the summarizer) ended the run: it stays ended.
  // (A run interrupted here is being resumed here, and goes on.)
  if (ended(state) && !state.statusReason.startsWith("interrupted in goal_check")) return { status: state.status };
  const run = runOf<CleaSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  const belief = state.belief ?? (await rawBelief(state, session));
  // The summarizer judged the task with the belief it wrote: that answer stands. Without a summarizer (its ablation)
  // the model is asked here, from the raw history's belief.
  const fresh = state.judged && state.judged.upTo === state.beliefUpTo && state.belief ? state.judged : undefined;
  const { value, usage } = fresh
    ? { value: fresh, usage: {} }
    : await askStructured(session.models, session.modelConfig, {
        role: "summarizer",
        schema: GoalCheck,
        schemaName: "GoalCheck",
        system: GOAL_CHECK_PROMPT,
        task: "check_goal",
        context: { world: worldForModel(session.world), goal: state.goal, belief },
      });
  // Ending here, a verdict the critic gave beside this look (on an action now never taken) is withdrawn: it counts
  // as it would have had the critic waited for this check.
  const unused =
    state.critique?.at === state.counters.iterations && state.plannedAt < state.counters.iterations
      ? { verdicts: { [state.critique.verdict]: -1 } }
      : {};
  // A task done on a report in question is not done yet: the cameras look for it first (afterGoalCheck).
  if (value.achieved && state.focus && !state.focus.afterPlan) return { usage, ...unused };
  if (value.achieved)
    return { status: "succeeded", statusReason: "the belief shows every part of the task done", usage, ...unused };
  // The search ledger, from the perceiver's reports since the last check: places whose inside was in view, things seen.
  const objects = searchedObjects(state.goal, session.world);
  let since = state.search.since;
  const viewed = new Set(state.search.viewed);
  const entries = state.history.filter((e) => e.id > state.search.upTo);
  // One look is what every camera showed at one moment (the robots' observations of one perceiver step).
  const looks = new Map<number, { lookedInto: string[]; seen: string[] }>();
  for (const e of entries) {
    if (e.kind !== "observation") continue;
    const look = looks.get(e.step) ?? { lookedInto: [], seen: [] };
    look.lookedInto.push(...e.observation.visiblePlaces);
    look.seen.push(...e.observation.objects.map((o) => o.name));
    looks.set(e.step, look);
  }
  for (const look of looks.values()) {
    since = noteLook(since, objects, look);
    for (const p of look.lookedInto) viewed.add(p);
  }
  const search = { upTo: Math.max(state.search.upTo, ...entries.map((e) => e.id)), since, viewed: [...viewed] };
  // Only an object the belief places nowhere is being searched for (one it places is there to be acted on).
  const located = (o: string) => belief.objects.some((b) => b.name === o || closestName(b.name, [o]) === o);
  const exhausted = exhaustedSearch(
    since,
    objects,
    lookablePlaces(session.robots, session.world, search.viewed),
    located,
  );
  if (exhausted) return { status: "failed", statusReason: exhaustedReason(exhausted), usage, search, ...unused };
  const over = overBudget(opts, {
    actions: state.counters.steps,
    replans: state.counters.replans,
    modelCalls: totalUsage(state.usage).calls,
    startedAt: state.startedAt,
  });
  if (over)
    return {
      status: "budget_exhausted",
      statusReason: `stopped after ${over}; remaining: ${value.remaining.join(", ")}`,
      usage,
      search,
      ...unused,
    };
  return { usage, search };
}
