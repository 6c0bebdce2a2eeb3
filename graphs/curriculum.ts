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
import { runOptions } from "../nodes/configuration";
import { CurriculumConfiguration } from "../nodes/curriculum/configuration";
import { ended, guarded, resumable } from "../nodes/guard";
import { CurriculumState, type CurriculumStateType } from "../nodes/curriculum/state";
import { begin } from "../nodes/curriculum/begin";
import { propose } from "../nodes/curriculum/propose";
import { decompose } from "../nodes/curriculum/decompose";
import { retrieve } from "../nodes/curriculum/retrieve";
import { fanOut } from "../nodes/curriculum/embody";
import { rollout } from "../nodes/curriculum/rollout";
import { tally } from "../nodes/curriculum/tally";
import { learn } from "../nodes/curriculum/learn";
import { analyse } from "../nodes/curriculum/analyse";
import { z } from "zod";

const running = (s: CurriculumStateType) => (ended(s) ? END : "continue");

/** After retrieval: embody a complete plan on every instance; after a discarded one, propose again (a few times). */
function afterRetrieval(s: CurriculumStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  if (s.plan) return fanOut(s, config);
  return s.counters.discardsInRow >= runOptions(config).maxDiscardsInRow ? "learn" : "propose";
}

/** What a user types: what the experiment is for (the curriculum proposes its own tasks). */
export const CurriculumInput = z.object({
  goal: z.string().min(1).default("master the blocks in the basket").describe("what the experiment is for, in words; the curriculum proposes its own tasks"),
});

const curriculumBuilder = new StateGraph({ state: CurriculumState, input: CurriculumInput, context: CurriculumConfiguration })
  .addNode("begin", resumable(begin))
  .addNode("propose", guarded("propose", propose))
  .addNode("decompose", guarded("decompose", decompose))
  .addNode("retrieve", guarded("retrieve", retrieve))
  .addNode("rollout", rollout as never)
  .addNode("tally", tally)
  .addNode("learn", resumable(learn))
  .addNode("analyse", guarded("analyse", analyse))
  .addEdge(START, "begin")
  .addEdge("begin", "propose")
  .addConditionalEdges("propose", running, { continue: "decompose", [END]: END })
  .addConditionalEdges("decompose", running, { continue: "retrieve", [END]: END })
  .addConditionalEdges("retrieve", afterRetrieval, ["rollout", "propose", "learn", END])
  .addEdge("rollout", "tally")
  .addEdge("tally", "learn")
  .addEdge("learn", "analyse")
  .addConditionalEdges("analyse", running, { continue: "propose", [END]: END });

export function compileCurriculum(checkpointer?: BaseCheckpointSaver, store?: BaseStore) {
  // Seven to nine node steps a cycle; the episode and iteration budgets, not the recursion limit, end a run.
  return curriculumBuilder.compile({ checkpointer, store, name: "curriculum" }).withConfig({ recursionLimit: 5000 });
}

/** For the LangGraph server, which supplies its own checkpointer. */
export const graph = compileCurriculum();
