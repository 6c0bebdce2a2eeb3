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
 * Beside the plan verifier and the name check of a failure's explanations, the work after them is prepared on their
 * likely outcome (they change nothing); their answer confirms it or revokes it (graphs/replan/nodes/speculator.ts).
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
import { speculate, speculateBesideNameCheck, speculateBesidePlanCheck } from "./nodes/speculator";
import { checkPrediction } from "./nodes/predictionCheck";
import { inRun, runOf, type MethodRuntime } from "../../runtime/run";
import type { ReplanSettings } from "./configuration";

const variant = (config?: RunnableConfig) => runOf<ReplanSettings>(config).settings.variant;
const verifying = (config?: RunnableConfig) => !["no-verifier", "one-shot"].includes(variant(config));
/** The one-shot baseline has no next step to prepare. */
const pipelining = (config?: RunnableConfig) =>
  runOf<ReplanSettings>(config).settings.pipeline && variant(config) !== "one-shot";

/** Where the plan goes next: its current step by kind, or the completion check once it has run through. */
function nextStep(state: ReplanStateType) {
  if (ended(state)) return END;
  const step = state.plan?.steps[state.cursor];
  if (!step) return "task_check";
  return step.kind === "vision" ? "vision_questions" : "low_level_planner";
}

/** A node that ended the run (a model endpoint unavailable, an answer that never fit) goes nowhere further. */
const then = (next: string) => (s: ReplanStateType) => (ended(s) ? END : next);

function afterScan(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  return variant(config) === "one-shot" ? "low_level_planner" : "high_level_planner";
}

/** With speculation, the plan's current step is prepared beside the verifier, on the plan as written. */
function afterHighLevel(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  if (!verifying(config)) return nextStep(state);
  return pipelining(config) ? ["plan_verifier", "plan_check_speculator"] : "plan_verifier";
}

/** With speculation, the verifier's answer goes to the check of what was prepared beside it. */
function afterPlanVerifier(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  return pipelining(config) ? "prediction_check" : afterPlanCheck(state);
}

/** A plan the verifier emptied goes back to the planner (as a new procedure). */
function afterPlanCheck(state: ReplanStateType) {
  return !ended(state) && !state.plan?.steps.length ? "high_level_planner" : nextStep(state);
}

function afterQuestions(state: ReplanStateType) {
  if (ended(state)) return END;
  return state.answers.length ? "vision_answer" : nextStep(state);
}

function afterLowLevel(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  return verifying(config) ? "reward_verifier" : "dispatch";
}

/** A motion with no term left is not sent: the planner finds another procedure. */
function afterRewardCheck(state: ReplanStateType) {
  if (ended(state)) return END;
  return state.motion ? "dispatch" : "high_level_planner";
}

/** A budget can end the run just before an action; with speculation, the speculator works beside the executor. */
function afterDispatch(state: ReplanStateType, config?: RunnableConfig) {
  if (!state.pendingGoal || ended(state)) return END;
  return pipelining(config) ? ["executor", "speculator"] : "executor";
}

/** A failed motion is diagnosed only where there is a perceiver and replanning; otherwise the run takes stock. */
function afterMotion(state: ReplanStateType, config?: RunnableConfig) {
  // The same failure a third time ends the run (nodes/repeats.ts).
  if (ended(state)) return END;
  // An edge sees only its own node's writes: the speculator's record, written beside this motion, is read by the check.
  if (pipelining(config)) return "prediction_check";
  return ordinaryAfterMotion(state, config);
}

/**
 * The prediction held: the prepared motion goes at once, prepared questions go to the perceiver, a prepared
 * consolidation goes to the planner. Else the path after the motion or the check, as ever.
 */
function afterPredictionCheck(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  const sp = state.speculation;
  if (sp?.outcome !== "used") {
    if (sp?.beside === "plan_verifier") return afterPlanCheck(state);
    if (sp?.beside === "remap_reasons") return "consolidate";
    return ordinaryAfterMotion(state, config);
  }
  if (sp.consolidated) return "high_level_planner";
  if (sp.motion) return "dispatch";
  return afterQuestions(state);
}

function ordinaryAfterMotion(state: ReplanStateType, config?: RunnableConfig) {
  if (variant(config) === "one-shot") return "task_check";
  if (!state.failure) return nextStep(state);
  return ["full", "no-verifier"].includes(variant(config)) ? "diagnose" : "task_check";
}

/** With speculation, the explanations' consolidation is prepared beside their name check, on them as worded. */
function afterDiagnose(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  if (!verifying(config)) return "consolidate";
  return pipelining(config) ? ["remap_reasons", "name_check_speculator"] : "remap_reasons";
}

function afterNameCheck(state: ReplanStateType, config?: RunnableConfig) {
  if (ended(state)) return END;
  return pipelining(config) ? "prediction_check" : "consolidate";
}

function afterTaskCheck(state: ReplanStateType) {
  return ended(state) ? END : "high_level_planner";
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
  plan_check_speculator: speculateBesidePlanCheck,
  name_check_speculator: speculateBesideNameCheck,
  prediction_check: checkPrediction,
};

/** The wiring, with the node implementations as a parameter; every node and edge runs in a run of `method` (runtime/run.ts). */
export function buildReplan(
  method: MethodRuntime<ReplanSettings>,
  nodes: Record<keyof typeof REPLAN_NODES, Node> = REPLAN_NODES,
) {
  const withRun = <St, R>(step: (state: St, config?: RunnableConfig) => R) => inRun(method, step);
  const steps = ["vision_questions", "low_level_planner", "task_check", END] as const;
  return new StateGraph({ state: ReplanState, input: GoalInput, context: ReplanConfiguration })
    .addNode("scan", withRun(nodes.scan))
    .addNode("high_level_planner", withRun(nodes.high_level_planner))
    .addNode("plan_verifier", withRun(nodes.plan_verifier))
    .addNode("vision_questions", withRun(nodes.vision_questions))
    .addNode("vision_answer", withRun(nodes.vision_answer))
    .addNode("step_check", withRun(nodes.step_check))
    .addNode("low_level_planner", withRun(nodes.low_level_planner))
    .addNode("reward_verifier", withRun(nodes.reward_verifier))
    .addNode("dispatch", withRun(nodes.dispatch))
    .addNode("executor", withRun(nodes.executor))
    .addNode("diagnose", withRun(nodes.diagnose))
    .addNode("remap_reasons", withRun(nodes.remap_reasons))
    .addNode("consolidate", withRun(nodes.consolidate))
    .addNode("task_check", withRun(nodes.task_check))
    .addNode("speculator", withRun(nodes.speculator))
    .addNode("plan_check_speculator", withRun(nodes.plan_check_speculator))
    .addNode("name_check_speculator", withRun(nodes.name_check_speculator))
    .addNode("prediction_check", withRun(nodes.prediction_check))
    .addEdge(START, "scan")
    .addConditionalEdges("scan", withRun(afterScan), ["high_level_planner", "low_level_planner", END])
    .addConditionalEdges("high_level_planner", withRun(afterHighLevel), [
      "plan_verifier",
      "plan_check_speculator",
      ...steps,
    ])
    .addEdge("plan_check_speculator", END)
    .addConditionalEdges("plan_verifier", withRun(afterPlanVerifier), [
      "high_level_planner",
      "prediction_check",
      ...steps,
    ])
    .addConditionalEdges("vision_questions", withRun(afterQuestions), ["vision_answer", ...steps])
    .addConditionalEdges("vision_answer", withRun(then("step_check")), ["step_check", END])
    .addConditionalEdges("step_check", withRun(nextStep), [...steps])
    .addConditionalEdges("low_level_planner", withRun(afterLowLevel), ["reward_verifier", "dispatch", END])
    .addConditionalEdges("reward_verifier", withRun(afterRewardCheck), ["dispatch", "high_level_planner", END])
    .addConditionalEdges("dispatch", withRun(afterDispatch), ["executor", "speculator", END])
    .addEdge("speculator", END)
    .addConditionalEdges("executor", withRun(afterMotion), ["diagnose", "prediction_check", ...steps])
    .addConditionalEdges("prediction_check", withRun(afterPredictionCheck), [
      "diagnose",
      "dispatch",
      "vision_answer",
      "high_level_planner",
      "consolidate",
      ...steps,
    ])
    .addConditionalEdges("diagnose", withRun(afterDiagnose), [
      "remap_reasons",
      "name_check_speculator",
      "consolidate",
      END,
    ])
    .addEdge("name_check_speculator", END)
    .addConditionalEdges("remap_reasons", withRun(afterNameCheck), ["consolidate", "prediction_check", END])
    .addConditionalEdges("consolidate", withRun(then("high_level_planner")), ["high_level_planner", END])
    .addConditionalEdges("task_check", withRun(afterTaskCheck), ["high_level_planner", END]);
}

export function compileReplan(
  method: MethodRuntime<ReplanSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  return buildReplan(method).compile({ checkpointer, store, name: "replan" }).withConfig({ recursionLimit: 2000 });
}
