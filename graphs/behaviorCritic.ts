/**
 * VLMs as behaviour critics, with grounding and policy refinement:
 *
 *   critique job:  critique (key frames + instruction → undesirable events with causes)
 *                  → ground (check each claimed event; tell the critic which were not found; it revises) → end
 *   prefer job:    prefer (two rollouts → which behaves better, or equal, and why) → end
 *   refine job:    write (a typed primitive program) → run it on the robot, recording the rollout → critique → ground
 *                  → rewrite against the grounded critique … until no undesirable event remains or the budget ends it.
 *
 * Variants (configurable.variant): full (grounding feedback), no-grounding (the raw critique).
 */
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { CRITIC_SETTINGS, CRITIC_VARIANTS, runConfiguration } from "../nodes/runtime";
import { CriticInput, CriticState, type CriticStateType } from "../nodes/critic/state";
import { begin } from "../nodes/critic/begin";
import { critique } from "../nodes/critic/critique";
import { ground } from "../nodes/critic/ground";
import { prefer } from "../nodes/critic/prefer";
import { writeProgram } from "../nodes/critic/writer";
import { dispatchProgram, runProgram } from "../nodes/critic/executor";
import { verdict } from "../nodes/critic/verdict";

/** What Studio's assistant form shows and every run is checked against. */
export const CriticConfiguration = runConfiguration(CRITIC_VARIANTS, CRITIC_SETTINGS);

const firstStep = (s: CriticStateType) =>
  s.status !== "running" ? END : s.job === "prefer" ? "prefer" : s.job === "critique" ? "critique" : s.program ? "dispatch" : "writer";
const running = (next: string) => (s: CriticStateType) => (s.status === "running" ? next : END);

const criticBuilder = new StateGraph({ state: CriticState, input: CriticInput, context: CriticConfiguration })
  .addNode("begin", begin)
  .addNode("writer", writeProgram)
  .addNode("dispatch", dispatchProgram)
  .addNode("executor", runProgram)
  .addNode("critique", critique)
  .addNode("ground", ground)
  .addNode("verdict", verdict)
  .addNode("prefer", prefer)
  .addEdge(START, "begin")
  .addConditionalEdges("begin", firstStep, ["prefer", "critique", "dispatch", "writer", END])
  .addEdge("writer", "dispatch")
  .addConditionalEdges("dispatch", running("executor"), ["executor", END])
  .addEdge("executor", "critique")
  .addEdge("critique", "ground")
  .addEdge("ground", "verdict")
  .addConditionalEdges("verdict", running("writer"), ["writer", END])
  .addEdge("prefer", END);

export function compileBehaviorCritic(checkpointer?: BaseCheckpointSaver, store?: BaseStore) {
  return criticBuilder.compile({ checkpointer, store, name: "behaviorCritic" });
}

/** For the LangGraph server, which supplies its own checkpointer. */
export const graph = compileBehaviorCritic();
