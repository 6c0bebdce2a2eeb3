/**
 * Goal check: does the belief show the task done? Also where budgets end a run, and where a search ends: once every
 * place the robots can look into has been looked into twice since a goal object was last seen, looking on cannot
 * find it (nodes/search.ts).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, totalUsage } from "../../models";
import { GoalCheck } from "../../models/schemas";
import { overBudget } from "../budget";
import { exhaustedReason, exhaustedSearch, lookablePlaces, searchedObjects, noteLook } from "../search";
import { closestName } from "../../models/symbolic/language";
import { runOptions, session } from "../runtime";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "./state";
import { rawBelief } from "./planner";

export const GOAL_CHECK_PROMPT = `Decide whether the task is complete. Compare each part of the instruction with the
belief (for a "find" task, an object counts as found once a camera has seen it). List the parts that remain.`;

export async function checkGoal(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const opts = runOptions(config);
  const s = await session(opts);
  const belief = state.belief ?? (await rawBelief(state, s));
  const { value, usage } = await askStructured(s.models, s.modelConfig, {
    role: "summarizer",
    schema: GoalCheck,
    schemaName: "GoalCheck",
    system: GOAL_CHECK_PROMPT,
    task: "check_goal",
    context: { goal: state.goal, belief, world: s.world },
  });
  if (value.achieved) return { status: "succeeded", statusReason: "the belief shows every part of the task done", usage };
  // The search ledger, from the perceiver's reports since the last check: places whose inside was in view, things seen.
  const objects = searchedObjects(state.goal, s.world);
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
  const exhausted = exhaustedSearch(since, objects, lookablePlaces(s.robots, s.world, search.viewed), located);
  if (exhausted) return { status: "failed", statusReason: exhaustedReason(exhausted), usage, search };
  const over = overBudget(opts, { actions: state.counters.steps, replans: state.counters.replans, modelCalls: totalUsage(state.usage).calls, startedAt: state.startedAt });
  if (over) return { status: "budget_exhausted", statusReason: `stopped after ${over}; remaining: ${value.remaining.join(", ")}`, usage, search };
  return { usage, search };
}
