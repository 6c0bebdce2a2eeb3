/**
 * Game On — a vision-language model as the reinforcement-learning experimenter:
 *
 *   begin with the base skills (open/close gripper, grasp anything, reach X)
 *   loop until a budget (episodes, learner iterations, model calls, wall time) ends it:
 *     propose    a new task from the camera image and the record of successes and failures
 *     decompose  it into free-text steps, given the skills in the library
 *     retrieve   one library skill per step; a step with none discards the plan and is proposed for learning
 *                (→ propose again, or on to learning after several discards in a row)
 *     embody     the plan open-loop in N simulator instances at once (a Send per instance), episodes recorded
 *     tally      the episodes' successes (each skill's reward > 0.5, the last one's > 0.95) into the record
 *     learn      one learner iteration on every episode so far, relabelled; a learning-curve point per skill learned
 *     analyse    each learning curve's plot shown to the analyst: converged skills join the library
 *
 * Variants (configurable.variant): full, base-only (nothing is learned: the library stays the base skills).
 */
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import { CurriculumConfiguration } from "./configuration";
import { ended, guarded, resumable } from "../../nodes/guard";
import { CurriculumState, type CurriculumStateType } from "./state";
import { begin } from "./nodes/begin";
import { propose } from "./nodes/propose";
import { decompose } from "./nodes/decompose";
import { retrieve } from "./nodes/retrieve";
import { fanOut } from "./nodes/embody";
import { rollout } from "./nodes/rollout";
import { tally } from "./nodes/tally";
import { learn } from "./nodes/learn";
import { analyse } from "./nodes/analyse";
import { z } from "zod";
import { inRun, runOf, type MethodRuntime } from "../../runtime/run";
import type { CurriculumSettings } from "./configuration";

const running = (s: CurriculumStateType) => (ended(s) ? END : "continue");

/** After retrieval: embody a complete plan on every instance; after a discarded one, propose again (a few times). */
function afterRetrieval(state: CurriculumStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  if (state.plan) return fanOut(state, config);
  return state.counters.discardsInRow >= runOf<CurriculumSettings>(config).settings.maxDiscardsInRow
    ? "learn"
    : "propose";
}

/** What a user types: what the experiment is for (the curriculum proposes its own tasks). */
export const CurriculumInput = z.object({
  goal: z
    .string()
    .min(1)
    .default("master the blocks in the basket")
    .describe("what the experiment is for, in words; the curriculum proposes its own tasks"),
});

/** The wiring; every node and edge runs in a run of `method` (runtime/run.ts). */
export function buildCurriculum(method: MethodRuntime<CurriculumSettings>) {
  const withRun = <St, R>(step: (state: St, config?: RunnableConfig) => R) => inRun(method, step);
  return new StateGraph({ state: CurriculumState, input: CurriculumInput, context: CurriculumConfiguration })
    .addNode("begin", withRun(resumable(begin)))
    .addNode("propose", withRun(guarded("propose", propose)))
    .addNode("decompose", withRun(guarded("decompose", decompose)))
    .addNode("retrieve", withRun(guarded("retrieve", retrieve)))
    .addNode("rollout", withRun(rollout) as never)
    .addNode("tally", withRun(tally))
    .addNode("learn", withRun(resumable(learn)))
    .addNode("analyse", withRun(guarded("analyse", analyse)))
    .addEdge(START, "begin")
    .addEdge("begin", "propose")
    .addConditionalEdges("propose", withRun(running), { continue: "decompose", [END]: END })
    .addConditionalEdges("decompose", withRun(running), { continue: "retrieve", [END]: END })
    .addConditionalEdges("retrieve", withRun(afterRetrieval), ["rollout", "propose", "learn", END])
    .addEdge("rollout", "tally")
    .addEdge("tally", "learn")
    .addEdge("learn", "analyse")
    .addConditionalEdges("analyse", withRun(running), { continue: "propose", [END]: END });
}

export function compileCurriculum(
  method: MethodRuntime<CurriculumSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  // Seven to nine node steps a cycle; the episode and iteration budgets, not the recursion limit, end a run.
  return buildCurriculum(method)
    .compile({ checkpointer, store, name: "curriculum" })
    .withConfig({ recursionLimit: 5000 });
}
