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
import { CriticConfiguration } from "./configuration";
import { CriticInput, CriticState, type CriticStateType } from "./state";
import { begin } from "./nodes/begin";
import { critique } from "./nodes/critique";
import { ground } from "./nodes/ground";
import { prefer } from "./nodes/prefer";
import { writeProgram } from "./nodes/writer";
import { dispatchProgram, runProgram } from "./nodes/executor";
import { verdict } from "./nodes/verdict";
import { guardedNodes, resumable } from "../../nodes/guard";
import { inRun, type MethodRuntime } from "../../runtime/run";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CriticSettings } from "./configuration";

const firstStep = (state: CriticStateType) =>
  state.status !== "running"
    ? END
    : state.job === "prefer"
      ? "prefer"
      : state.job === "critique"
        ? "critique"
        : state.program
          ? "dispatch"
          : "writer";
const running = (next: string) => (s: CriticStateType) => (s.status === "running" ? next : END);
// A program stopped on the robot runs again once the run is resumed; one that ran is critiqued.
const afterRun = (s: CriticStateType) => (s.status !== "running" ? END : s.redo ? "dispatch" : "critique");

const model = guardedNodes({ writer: writeProgram, critique, ground, prefer });

/** The wiring; every node and edge runs in a run of `method` (runtime/run.ts). */
export function buildBehaviorCritic(method: MethodRuntime<CriticSettings>) {
  const withRun = <St, R>(step: (state: St, config?: RunnableConfig) => R) => inRun(method, step);
  return (
    new StateGraph({ state: CriticState, input: CriticInput, context: CriticConfiguration })
      .addNode("begin", withRun(begin))
      // Model nodes end `interrupted` when their endpoint stays unavailable or the run is stopped (nodes/guard.ts); the
      // hand's nodes pause the same way on an emergency stop, and a resume runs the node it stopped in again.
      .addNode("writer", withRun(model.writer))
      .addNode("critique", withRun(model.critique))
      .addNode("ground", withRun(model.ground))
      .addNode("prefer", withRun(model.prefer))
      .addNode("dispatch", withRun(resumable(dispatchProgram)))
      .addNode("executor", withRun(resumable(runProgram)))
      .addNode("verdict", withRun(verdict))
      .addEdge(START, "begin")
      .addConditionalEdges("begin", withRun(firstStep), ["prefer", "critique", "dispatch", "writer", END])
      .addConditionalEdges("writer", withRun(running("dispatch")), ["dispatch", END])
      .addConditionalEdges("dispatch", withRun(running("executor")), ["executor", END])
      .addConditionalEdges("executor", withRun(afterRun), ["dispatch", "critique", END])
      .addConditionalEdges("critique", withRun(running("ground")), ["ground", END])
      .addConditionalEdges("ground", withRun(running("verdict")), ["verdict", END])
      .addConditionalEdges("verdict", withRun(running("writer")), ["writer", END])
      .addEdge("prefer", END)
  );
}

export function compileBehaviorCritic(
  method: MethodRuntime<CriticSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  return buildBehaviorCritic(method).compile({ checkpointer, store, name: "behaviorCritic" });
}
