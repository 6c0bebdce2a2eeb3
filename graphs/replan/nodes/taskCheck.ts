/**
 * Task completion (RePLan's TASKCOMPLETION): once a plan has run through, the perceiver looks again and the planner
 * judges the goal from that and the facts learnt. Not done: the failed procedure is remembered and a new one is asked
 * for. Without a perceiver there is no look: a plan whose motions all succeeded counts as done. A search ends here:
 * once every container (and every place seen into) has been looked into since the goal's object was last seen, it is
 * in none of them, and the run ends `failed` saying so instead of looking again.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured, addUsage, type Usage } from "../../../models";
import { GoalCheck } from "../../../models/answers";
import { type SceneScan } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { lookAtScene } from "./scan";
import { currentView, noteSceneLook } from "./view";
import { exhaustedReason, exhaustedSearch, searchedObjects } from "../../../nodes/search";
import { newProcedure } from "./budget";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const TASK_CHECK_PROMPT = `Decide whether the robot's goal is achieved, from what its camera shows now (the things
visible and the facts about them) and the facts established earlier. List what remains if it is not.`;

export async function checkTask(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  const blind = opts.variant === "no-perceiver" || opts.variant === "one-shot";
  const motionsOk = !state.failure;
  let usage: Usage = {};
  let seen: SceneScan | null = null;
  let frame = state.frame;
  let search = state.search;
  if (!blind) {
    const view = await currentView(session);
    frame = view.frame;
    const scan = await lookAtScene(session, view);
    usage = scan.usage;
    seen = scan.value;
    search = noteSceneLook(search, state.goal, session, view, seen.visible);
  }
  const check = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: GoalCheck,
    schemaName: "GoalCheck",
    system: TASK_CHECK_PROMPT,
    task: "task_done",
    context: {
      goal: state.goal,
      world: worldForModel(session.world),
      scene: seen?.visible ?? state.scene,
      facts: [...state.facts, ...(seen?.facts ?? [])],
      looked: !blind,
      motionsOk,
    },
  });
  usage = addUsage(usage, check.usage);
  const looked = seen ? { scene: seen.visible, sceneFacts: seen.facts, frame, search } : {};
  if (check.value.achieved) return { status: "succeeded", statusReason: "the goal is achieved", ...looked, usage };
  const remaining = check.value.remaining.join("; ") || "the goal is not achieved";
  if (seen) {
    // A vision step that found it somewhere ("the X is inside the C") keeps its search open, whatever a scan missed.
    const facts = [...state.facts, ...seen.facts];
    const located = (thing: string) =>
      facts.some((f) => f.includes(thing) && /\bis (?:inside|in|on)\b/.test(f) && !/\bnot\b/.test(f));
    const containers = session.world.places.filter((p) => p.kind === "container").map((p) => p.name);
    const exhausted = exhaustedSearch(
      search.since,
      searchedObjects(state.goal, session.world),
      [...new Set([...containers, ...search.viewed])],
      located,
    );
    if (exhausted) return { status: "failed", statusReason: exhaustedReason(exhausted), ...looked, usage };
  }
  if (opts.variant === "one-shot" || opts.variant === "no-replan")
    return {
      status: "failed",
      statusReason: `${opts.variant}: ${state.failure?.message ?? remaining}`,
      ...looked,
      usage,
    };
  const why = state.failure
    ? `the robot could not ${state.failure.step} (${state.failure.message})`
    : `the plan ran through but ${remaining}`;
  return { ...looked, usage, failure: null, ...newProcedure(state, state.failure?.step ?? null, why) };
}
