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
 * With configurable.pipeline the speculator prepares the next step beside each motion (its reward terms, or a vision
 * step's questions) on the motion's predicted success; the controller's report confirms it (sent at once) or revokes it.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { ReplanState, type ReplanStateType, type ReplanUpdate } from "./state";
import { ReplanConfiguration } from "./configuration";
import { GoalInput } from "../../nodes/state";
import { ended, guardedNodes, resumable } from "../../nodes/guard";
import { scanScene } from "./nodes/scan";
import { planHighLevel } from "./nodes/highLevelPlanner";
import { verifyPlan } from "./nodes/planVerifier";
import { askQuestions } from "./nodes/visionQuestions";
import { answerQuestions } from "./nodes/visionAnswer";
import { checkStep } from "./nodes/stepCheck";
import { planMotion } from "./nodes/lowLevelPlanner";
import { verifyMotion } from "./nodes/rewardVerifier";
import { dispatchMotion, runMotion } from "./nodes/motionExecutor";
import { diagnose } from "./nodes/diagnose";
import { remapReasons } from "./nodes/remapReasons";
import { consolidate } from "./nodes/consolidate";
import { checkTask } from "./nodes/taskCheck";
import { speculate } from "./nodes/speculator";
import { checkPrediction } from "./nodes/predictionCheck";
import { inRun, runOf, type MethodRuntime } from "../../runtime/run";
import type { ReplanSettings } from "./configuration";

const variant = (config?: RunnableConfig) => runOf<ReplanSettings>(config).settings.variant;
const verifying = (config?: RunnableConfig) => !["no-verifier", "one-shot"].includes(variant(config));
/** The one-shot baseline has no next step to prepare. */
const pipelining = (config?: RunnableConfig) =>
  runOf<ReplanSettings>(config).settings.pipeline && variant(config) !== "one-shot";

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

/** A budget can end the run just before an action; with speculation, the speculator works beside the executor. */
function afterDispatch(s: ReplanStateType, config?: RunnableConfig) {
  if (!s.pendingGoal || ended(s)) return END;
  return pipelining(config) ? ["executor", "speculator"] : "executor";
}

/** A failed motion is diagnosed only where there is a perceiver and replanning; otherwise the run takes stock. */
function afterMotion(s: ReplanStateType, config?: RunnableConfig) {
  // The same failure a third time ends the run (nodes/repeats.ts).
  if (ended(s)) return END;
  // An edge sees only its own node's writes: the speculator's record, written beside this motion, is read by the check.
  if (pipelining(config)) return "prediction_check";
  return ordinaryAfterMotion(s, config);
}

/** The prediction held: the prepared motion goes at once, prepared questions go to the perceiver. Else as ever. */
function afterPredictionCheck(s: ReplanStateType, config?: RunnableConfig) {
  if (ended(s)) return END;
  const sp = s.speculation;
  if (sp?.outcome !== "used") return ordinaryAfterMotion(s, config);
  if (sp.motion) return "dispatch";
  return afterQuestions(s);
}

function ordinaryAfterMotion(s: ReplanStateType, config?: RunnableConfig) {
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
  // Its model calls are its own to lose: a failure leaves nothing prepared, and the ordinary path runs.
  speculator: speculate,
  prediction_check: checkPrediction,
};

/** The wiring, with the node implementations as a parameter; every node and edge runs in a run of `method` (runtime/run.ts). */
export function buildReplan(
  method: MethodRuntime<ReplanSettings>,
  n: Record<keyof typeof REPLAN_NODES, Node> = REPLAN_NODES,
) {
  const w = <St, R>(step: (state: St, config?: RunnableConfig) => R) => inRun(method, step);
  const steps = ["vision_questions", "low_level_planner", "task_check", END] as const;
  return new StateGraph({ state: ReplanState, input: GoalInput, context: ReplanConfiguration })
    .addNode("scan", w(n.scan))
    .addNode("high_level_planner", w(n.high_level_planner))
    .addNode("plan_verifier", w(n.plan_verifier))
    .addNode("vision_questions", w(n.vision_questions))
    .addNode("vision_answer", w(n.vision_answer))
    .addNode("step_check", w(n.step_check))
    .addNode("low_level_planner", w(n.low_level_planner))
    .addNode("reward_verifier", w(n.reward_verifier))
    .addNode("dispatch", w(n.dispatch))
    .addNode("executor", w(n.executor))
    .addNode("diagnose", w(n.diagnose))
    .addNode("remap_reasons", w(n.remap_reasons))
    .addNode("consolidate", w(n.consolidate))
    .addNode("task_check", w(n.task_check))
    .addNode("speculator", w(n.speculator))
    .addNode("prediction_check", w(n.prediction_check))
    .addEdge(START, "scan")
    .addConditionalEdges("scan", w(afterScan), ["high_level_planner", "low_level_planner", END])
    .addConditionalEdges("high_level_planner", w(afterHighLevel), ["plan_verifier", ...steps])
    .addConditionalEdges("plan_verifier", w(afterPlanCheck), ["high_level_planner", ...steps])
    .addConditionalEdges("vision_questions", w(afterQuestions), ["vision_answer", ...steps])
    .addConditionalEdges("vision_answer", w(then("step_check")), ["step_check", END])
    .addConditionalEdges("step_check", w(nextStep), [...steps])
    .addConditionalEdges("low_level_planner", w(afterLowLevel), ["reward_verifier", "dispatch", END])
    .addConditionalEdges("reward_verifier", w(afterRewardCheck), ["dispatch", "high_level_planner", END])
    .addConditionalEdges("dispatch", w(afterDispatch), ["executor", "speculator", END])
    .addEdge("speculator", END)
    .addConditionalEdges("executor", w(afterMotion), ["diagnose", "prediction_check", ...steps])
    .addConditionalEdges("prediction_check", w(afterPredictionCheck), [
      "diagnose",
      "dispatch",
      "vision_answer",
      ...steps,
    ])
    .addConditionalEdges("diagnose", w(afterDiagnose), ["remap_reasons", "consolidate", END])
    .addConditionalEdges("remap_reasons", w(then("consolidate")), ["consolidate", END])
    .addConditionalEdges("consolidate", w(then("high_level_planner")), ["high_level_planner", END])
    .addConditionalEdges("task_check", w(afterTaskCheck), ["high_level_planner", END]);
}

export function compileReplan(
  method: MethodRuntime<ReplanSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  return buildReplan(method).compile({ checkpointer, store, name: "replan" }).withConfig({ recursionLimit: 2000 });
}
