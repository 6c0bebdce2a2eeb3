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
import { CriticConfiguration } from "../nodes/behaviorCritic/configuration";
import { CriticInput, CriticState, type CriticStateType } from "../nodes/behaviorCritic/state";
import { begin } from "../nodes/behaviorCritic/begin";
import { critique } from "../nodes/behaviorCritic/critique";
import { ground } from "../nodes/behaviorCritic/ground";
import { prefer } from "../nodes/behaviorCritic/prefer";
import { writeProgram } from "../nodes/behaviorCritic/writer";
import { dispatchProgram, runProgram } from "../nodes/behaviorCritic/executor";
import { verdict } from "../nodes/behaviorCritic/verdict";
import { guardedNodes, resumable } from "../nodes/guard";

const firstStep = (s: CriticStateType) =>
  s.status !== "running" ? END : s.job === "prefer" ? "prefer" : s.job === "critique" ? "critique" : s.program ? "dispatch" : "writer";
const running = (next: string) => (s: CriticStateType) => (s.status === "running" ? next : END);
// A program stopped on the robot runs again once the run is resumed; one that ran is critiqued.
const afterRun = (s: CriticStateType) => (s.status !== "running" ? END : s.redo ? "dispatch" : "critique");

const model = guardedNodes({ writer: writeProgram, critique, ground, prefer });

const criticBuilder = new StateGraph({ state: CriticState, input: CriticInput, context: CriticConfiguration })
  .addNode("begin", begin)
  // Model nodes end `interrupted` when their endpoint stays unavailable or the run is stopped (nodes/guard.ts); the
  // hand's nodes pause the same way on an emergency stop, and a resume runs the node it stopped in again.
  .addNode("writer", model.writer)
  .addNode("critique", model.critique)
  .addNode("ground", model.ground)
  .addNode("prefer", model.prefer)
  .addNode("dispatch", resumable(dispatchProgram))
  .addNode("executor", resumable(runProgram))
  .addNode("verdict", verdict)
  .addEdge(START, "begin")
  .addConditionalEdges("begin", firstStep, ["prefer", "critique", "dispatch", "writer", END])
  .addConditionalEdges("writer", running("dispatch"), ["dispatch", END])
  .addConditionalEdges("dispatch", running("executor"), ["executor", END])
  .addConditionalEdges("executor", afterRun, ["dispatch", "critique", END])
  .addConditionalEdges("critique", running("ground"), ["ground", END])
  .addConditionalEdges("ground", running("verdict"), ["verdict", END])
  .addConditionalEdges("verdict", running("writer"), ["writer", END])
  .addEdge("prefer", END);

export function compileBehaviorCritic(checkpointer?: BaseCheckpointSaver, store?: BaseStore) {
  return criticBuilder.compile({ checkpointer, store, name: "behaviorCritic" });
}

/** For the LangGraph server, which supplies its own checkpointer. */
export const graph = compileBehaviorCritic();
