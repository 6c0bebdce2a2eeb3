/**
 * RePLan's hierarchical replanning (Algorithm 1), the closed loop's `replan` mode:
 *
 *   scan the scene → high-level plan (→ verify names)
 *   for each step:
 *     vision → the planner asks ≤ 2 questions → the perceiver answers → the planner decides done / what remains
 *     motion → low-level planner writes reward terms → verifier keeps the needed ones, picks the primary → controller
 *       failed → perceiver diagnoses (several phrasings) → verifier fixes names → planner consolidates ≤ 2 reasons
 *                → a reason: replan around it │ none: a new procedure
 *   plan ran through → look again: done, or a new procedure with the failed ones in memory; budgets end it.
 *
 * Variants (configurable.variant): full, no-verifier, no-perceiver, no-replan, and one-shot — Language to Rewards'
 * baseline: one reward program for the whole goal, no perceiver, no replanning.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { ReplanState, type ReplanStateType, type ReplanUpdate } from "../nodes/replan/state";
import { ReplanConfiguration } from "../nodes/replan/configuration";
import { runOptions } from "../nodes/configuration";
import { GoalInput } from "../nodes/state";
import { ended, guardedNodes, resumable } from "../nodes/guard";
import { scanScene } from "../nodes/replan/scan";
import { planHighLevel } from "../nodes/replan/highLevelPlanner";
import { verifyPlan } from "../nodes/replan/planVerifier";
import { askQuestions } from "../nodes/replan/visionQuestions";
import { answerQuestions } from "../nodes/replan/visionAnswer";
import { checkStep } from "../nodes/replan/stepCheck";
import { planMotion } from "../nodes/replan/lowLevelPlanner";
import { verifyMotion } from "../nodes/replan/rewardVerifier";
import { dispatchMotion, runMotion } from "../nodes/replan/motionExecutor";
import { diagnose } from "../nodes/replan/diagnose";
import { remapReasons } from "../nodes/replan/remapReasons";
import { consolidate } from "../nodes/replan/consolidate";
import { checkTask } from "../nodes/replan/taskCheck";

const variant = (config?: RunnableConfig) => runOptions(config).variant;
const verifying = (config?: RunnableConfig) => !["no-verifier", "one-shot"].includes(variant(config));

/** Where the plan goes next: its current step by kind, or the completion check once it has run through. */
function nextStep(s: ReplanStateType) {
  if (ended(s)) return END;
  const step = s.plan?.steps[s.cursor];
  if (!step) return "task_check";
  return step.kind === "vision" ? "vision_questions" : "low_level_planner";
}

/** A node that ended the run (a model endpoint unavailable, an answer that never fit) goes nowhere further. */
const then = (next: string) => (s: ReplanStateType) => (ended(s) ? END : next);

function afterScan(s: ReplanStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  return variant(config) === "one-shot" ? "low_level_planner" : "high_level_planner";
}

function afterHighLevel(s: ReplanStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  return verifying(config) ? "plan_verifier" : nextStep(s);
}

/** A plan the verifier emptied goes back to the planner (as a new procedure). */
function afterPlanCheck(s: ReplanStateType) {
  return !ended(s) && !s.plan?.steps.length ? "high_level_planner" : nextStep(s);
}

function afterQuestions(s: ReplanStateType) {
  if (ended(s)) return END;
  return s.answers.length ? "vision_answer" : nextStep(s);
}

function afterLowLevel(s: ReplanStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  return verifying(config) ? "reward_verifier" : "dispatch";
}

/** A motion with no term left is not sent: the planner finds another procedure. */
function afterRewardCheck(s: ReplanStateType) {
  if (ended(s)) return END;
  return s.motion ? "dispatch" : "high_level_planner";
}

/** A budget can end the run just before an action. */
function afterDispatch(s: ReplanStateType) {
  return s.pendingGoal && !ended(s) ? "executor" : END;
}

/** A failed motion is diagnosed only where there is a perceiver and replanning; otherwise the run takes stock. */
function afterMotion(s: ReplanStateType, config?: RunnableConfig) {
  // The same failure a third time ends the run (nodes/repeats.ts).
  if (ended(s)) return END;
  if (variant(config) === "one-shot") return "task_check";
  if (!s.failure) return nextStep(s);
  return ["full", "no-verifier"].includes(variant(config)) ? "diagnose" : "task_check";
}

function afterDiagnose(s: ReplanStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  return verifying(config) ? "remap_reasons" : "consolidate";
}

function afterTaskCheck(s: ReplanStateType) {
  return ended(s) ? END : "high_level_planner";
}

type Node = (state: ReplanStateType, config?: RunnableConfig) => Promise<ReplanUpdate>;
const REPLAN_NODES = {
  // Model nodes end `interrupted` when their endpoint stays unavailable (nodes/guard.ts); dispatch and executor talk
  // to the robot only.
  ...guardedNodes({
    scan: scanScene,
    high_level_planner: planHighLevel,
    plan_verifier: verifyPlan,
    vision_questions: askQuestions,
    vision_answer: answerQuestions,
    step_check: checkStep,
    low_level_planner: planMotion,
    reward_verifier: verifyMotion,
    diagnose,
    remap_reasons: remapReasons,
    consolidate,
    task_check: checkTask,
  }),
  dispatch: resumable(dispatchMotion),
  executor: resumable(runMotion),
};

export function buildReplan(n: Record<keyof typeof REPLAN_NODES, Node> = REPLAN_NODES) {
  const steps = ["vision_questions", "low_level_planner", "task_check", END] as const;
  return new StateGraph({ state: ReplanState, input: GoalInput, context: ReplanConfiguration })
    .addNode("scan", n.scan)
    .addNode("high_level_planner", n.high_level_planner)
    .addNode("plan_verifier", n.plan_verifier)
    .addNode("vision_questions", n.vision_questions)
    .addNode("vision_answer", n.vision_answer)
    .addNode("step_check", n.step_check)
    .addNode("low_level_planner", n.low_level_planner)
    .addNode("reward_verifier", n.reward_verifier)
    .addNode("dispatch", n.dispatch)
    .addNode("executor", n.executor)
    .addNode("diagnose", n.diagnose)
    .addNode("remap_reasons", n.remap_reasons)
    .addNode("consolidate", n.consolidate)
    .addNode("task_check", n.task_check)
    .addEdge(START, "scan")
    .addConditionalEdges("scan", afterScan, ["high_level_planner", "low_level_planner", END])
    .addConditionalEdges("high_level_planner", afterHighLevel, ["plan_verifier", ...steps])
    .addConditionalEdges("plan_verifier", afterPlanCheck, ["high_level_planner", ...steps])
    .addConditionalEdges("vision_questions", afterQuestions, ["vision_answer", ...steps])
    .addConditionalEdges("vision_answer", then("step_check"), ["step_check", END])
    .addConditionalEdges("step_check", nextStep, [...steps])
    .addConditionalEdges("low_level_planner", afterLowLevel, ["reward_verifier", "dispatch", END])
    .addConditionalEdges("reward_verifier", afterRewardCheck, ["dispatch", "high_level_planner", END])
    .addConditionalEdges("dispatch", afterDispatch, ["executor", END])
    .addConditionalEdges("executor", afterMotion, ["diagnose", ...steps])
    .addConditionalEdges("diagnose", afterDiagnose, ["remap_reasons", "consolidate", END])
    .addConditionalEdges("remap_reasons", then("consolidate"), ["consolidate", END])
    .addConditionalEdges("consolidate", then("high_level_planner"), ["high_level_planner", END])
    .addConditionalEdges("task_check", afterTaskCheck, ["high_level_planner", END]);
}

const replanBuilder = buildReplan();

export function compileReplan(checkpointer?: BaseCheckpointSaver, store?: BaseStore) {
  return replanBuilder.compile({ checkpointer, store, name: "replan" }).withConfig({ recursionLimit: 2000 });
}

/** For the LangGraph server, which supplies its own checkpointer. */
export const graph = compileReplan();
