/**
 * Task completion (RePLan's TASKCOMPLETION): once a plan has run through, the perceiver looks again and the planner
 * judges the goal from that and the facts learnt. Not done: the failed procedure is remembered and a new one is asked
 * for. Without a perceiver there is no look: a plan whose motions all succeeded counts as done.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, addUsage, type Usage } from "../../models";
import { GoalCheck, type SceneScan } from "../../models/schemas";
import { runOptions, session } from "../runtime";
import type { ReplanStateType, ReplanUpdate } from "./state";
import { lookAtScene } from "./scan";
import { currentView } from "./view";
import { newProcedure } from "./budget";

export const TASK_CHECK_PROMPT = `Decide whether the robot's goal is achieved, from what its camera shows now (the things
visible and the facts about them) and the facts established earlier. List what remains if it is not.`;

export async function checkTask(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const opts = runOptions(config);
  const s = await session(opts);
  const blind = opts.variant === "no-perceiver" || opts.variant === "one-shot";
  const motionsOk = !state.failure;
  let usage: Usage = {};
  let seen: SceneScan | null = null;
  let frame = state.frame;
  if (!blind) {
    const view = await currentView(s);
    frame = view.frame;
    const r = await lookAtScene(s, view);
    usage = r.usage;
    seen = r.value;
  }
  const r = await askStructured(s.models, s.modelConfig, {
    role: "planner",
    schema: GoalCheck,
    schemaName: "GoalCheck",
    system: TASK_CHECK_PROMPT,
    task: "task_done",
    context: { goal: state.goal, world: s.world, scene: seen?.visible ?? state.scene, facts: [...state.facts, ...(seen?.facts ?? [])], looked: !blind, motionsOk },
  });
  usage = addUsage(usage, r.usage);
  const looked = seen ? { scene: seen.visible, sceneFacts: seen.facts, frame } : {};
  if (r.value.achieved) return { status: "succeeded", statusReason: "the goal is achieved", ...looked, usage };
  const remaining = r.value.remaining.join("; ") || "the goal is not achieved";
  if (opts.variant === "one-shot" || opts.variant === "no-replan") return { status: "failed", statusReason: `${opts.variant}: ${state.failure?.message ?? remaining}`, ...looked, usage };
  const why = state.failure ? `the robot could not ${state.failure.step} (${state.failure.message})` : `the plan ran through but ${remaining}`;
  return { ...looked, usage, failure: null, ...newProcedure(state, state.failure?.step ?? null, why) };
}
