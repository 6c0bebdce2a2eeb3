/**
 * VLM-Predictive Control for a legged robot:
 *
 *   look (the head camera's newest view)
 *   → plan (from the view and the whole history: reason about progress, write a multi-step plan of skill × magnitude,
 *           compare it with the previous plan, keep or revise it)
 *   → run the plan's first skill → look …
 *   until the planner sees the toy reached, or the 100 s of skill time (or the model-call and wall budgets) run out.
 *
 * Variants (configurable.variant): full, no-history, no-multi-step, random, full+ic (labelled example frames).
 */
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { VlmpcConfiguration, type VlmpcSettings } from "./configuration";
import { GoalInput } from "../../nodes/state";
import { ended, guarded, resumable } from "../../nodes/guard";
import { VlmpcState, type VlmpcStateType } from "./state";
import { look } from "./nodes/look";
import { planCourse } from "./nodes/planner";
import { dispatchSkill, runSkill } from "./nodes/executor";
import { inRun, type MethodRuntime } from "../../runtime/run";

const running = (s: VlmpcStateType) => (ended(s) ? END : "continue");

/** The wiring; every node runs in a run of `method` (runtime/run.ts). */
export function buildVlmpc(method: MethodRuntime<VlmpcSettings>) {
  return (
    new StateGraph({ state: VlmpcState, input: GoalInput, context: VlmpcConfiguration })
      .addNode("look", inRun(method, resumable(look)))
      // The planner ends `interrupted` when its endpoint stays unavailable (nodes/guard.ts).
      .addNode("planner", inRun(method, guarded("planner", planCourse)))
      .addNode("dispatch", inRun(method, resumable(dispatchSkill)))
      .addNode("executor", inRun(method, resumable(runSkill)))
      .addEdge(START, "look")
      .addConditionalEdges("look", running, { continue: "planner", [END]: END })
      .addConditionalEdges("planner", running, { continue: "dispatch", [END]: END })
      .addEdge("dispatch", "executor")
      // The same refusal a third time ends the run (nodes/repeats.ts).
      .addConditionalEdges("executor", running, { continue: "look", [END]: END })
  );
}

export function compileVlmpc(
  method: MethodRuntime<VlmpcSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  // Four node steps a skill; the skill-time budget, not the recursion limit, ends a long episode.
  return buildVlmpc(method).compile({ checkpointer, store, name: "vlmpc" }).withConfig({ recursionLimit: 2000 });
}
