/**
 * The closed-loop agent (CLEA mode): observe → summarize → check the goal → plan a short stretch → verify it →
 * critique each action against the belief and the current image → act → observe … The critic of an action the plan
 * already holds judges it while the summarizer updates the belief from the same look (a fan-out).
 * A critic rejection, a failed action or an exhausted plan sends control back to the planner with the reason; the same
 * rejection or failure a second time first sends every camera to look for what is in question (graphs/clea/loops.ts);
 * budgets end a run with a status. Variants (configurable.variant): full, no-critic, no-summarizer, open-loop.
 * With configurable.pipeline the speculator works beside each skill on each likely outcome of the look after it (the
 * thing sought there or not, a door open or shut: summary, next action, critique for each, bounded), and the look goes
 * to the prediction check: the branch it confirms has its prepared action sent at once; none confirmed, the look takes
 * the ordinary path.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { ClosedLoopState, type ClosedLoopStateType, type ClosedLoopUpdate } from "./state";
import { ClosedLoopConfiguration } from "./configuration";
import { GoalInput } from "../../nodes/state";
import { ended, guardedNodes, resumable } from "../../nodes/guard";
import { perceive } from "./nodes/perceiver";
import { summarize } from "./nodes/summarizer";
import { checkGoal } from "./nodes/goalCheck";
import { plan } from "./nodes/planner";
import { verify } from "./nodes/verifier";
import { critique } from "./nodes/critic";
import { act, dispatch } from "./nodes/executor";
import { speculate } from "./nodes/speculator";
import { checkPrediction } from "./nodes/predictionCheck";
import { inRun, runOf, type MethodRuntime } from "../../runtime/run";
import type { CleaSettings } from "./configuration";

const running = (s: ClosedLoopStateType) => !ended(s);
/** A node that ended the run (a model endpoint unavailable, an answer that never fit) goes nowhere further. */
const then = (next: string) => (s: ClosedLoopStateType) => (running(s) ? next : END);
const hasNextStep = (s: ClosedLoopStateType) => !!s.plan && s.cursor < s.plan.steps.length;
const usesCritic = (config?: RunnableConfig) =>
  !["no-critic", "open-loop"].includes(runOf<CleaSettings>(config).settings.variant);
/** Speculation needs a look after each skill to check it against: the open-loop baseline has none. */
const pipelining = (config?: RunnableConfig) => {
  const settings = runOf<CleaSettings>(config).settings;
  return settings.pipeline && settings.variant !== "open-loop";
};
/** Work prepared beside the skill that just ran, not yet checked against the look after it. */
const awaitingCheck = (s: ClosedLoopStateType) => !!s.speculation && !s.speculation.outcome;

/**
 * After a look: the summarizer folds it into the belief and, when the plan has a next action, the critic judges that
 * action against the same look at the same time (it gets the belief and what the belief does not hold yet) — one
 * model round trip instead of two.
 */
function afterPerceive(state: ClosedLoopStateType, config?: RunnableConfig) {
  if (!running(state)) return END;
  if (pipelining(config) && awaitingCheck(state)) return "prediction_check";
  return ordinaryLook(state, config);
}

/** The look as the paper's loop takes it: the summarizer, and beside it the critic of the plan's next action. */
function ordinaryLook(state: ClosedLoopStateType, config?: RunnableConfig) {
  return hasNextStep(state) && usesCritic(config) ? ["summarizer", "critic"] : "summarizer";
}

/** The critic judged the next action in this look (beside the summarizer): its verdict stands for that action. */
const judgedInThisLook = (state: ClosedLoopStateType) => {
  const critique = state.critique;
  const next = state.plan?.steps[state.cursor];
  return (
    !!critique &&
    !!next &&
    critique.at === state.counters.iterations &&
    JSON.stringify(critique.action) === JSON.stringify(next)
  );
};

/** After looking and remembering: done, or carry on with the current plan, or plan anew. */
function afterGoalCheck(state: ClosedLoopStateType, config?: RunnableConfig) {
  if (!running(state)) return END;
  // Something in question (graphs/clea/loops.ts): the cameras look for it before anything else.
  if (state.focus && !state.focus.afterPlan) return "perceiver";
  if (!hasNextStep(state)) return "planner";
  if (!usesCritic(config)) return "dispatch";
  return judgedInThisLook(state) ? "dispatch" : "critic";
}

function afterPlan(state: ClosedLoopStateType) {
  return running(state) ? "verifier" : END;
}

function afterVerify(state: ClosedLoopStateType, config?: RunnableConfig) {
  if (!running(state)) return END;
  if (!state.plan) return "planner";
  return usesCritic(config) ? "critic" : "dispatch";
}

/**
 * A critique beside the look waits in the state for the goal check, which the summarizer's edge reaches (an edge sees
 * only its own node's writes: the critic cannot tell whether the summarizer ended the run); one of a plan made in
 * this look clears or rejects it.
 */
function afterCritique(state: ClosedLoopStateType) {
  if (state.plannedAt < state.counters.iterations) return END;
  if (!running(state)) return END;
  return state.plan ? "dispatch" : state.focus && !state.focus.afterPlan ? "perceiver" : "planner";
}

/**
 * The prediction held and its action goes: the goal check (no model call: the predicted belief's verdict stands), then
 * dispatch. It held but nothing went with it: the plan's next action is judged beside the summarizer as ever, and with
 * no next action the goal check and the planner take over. Contradicted: the look as ever.
 */
function afterPredictionCheck(state: ClosedLoopStateType, config?: RunnableConfig) {
  if (!running(state)) return END;
  const sp = state.speculation;
  // The predicted belief became the belief (the summarizer's verdict with it stands): nothing is left to fold in.
  const adopted = !!sp && state.beliefUpTo === sp.entryId;
  if (sp?.outcome === "used" || (sp?.outcome === "unused" && adopted && !(hasNextStep(state) && usesCritic(config))))
    return "goal_check";
  return ordinaryLook(state, config);
}

/** With speculation, the speculator works beside the executor while the skill runs. */
function afterDispatch(state: ClosedLoopStateType, config?: RunnableConfig) {
  if (!running(state)) return END;
  if (!state.pendingGoal) return "planner";
  return pipelining(config) ? ["executor", "speculator"] : "executor";
}

/** The open-loop baseline runs its plan straight through; every other variant looks again after each action. */
function afterAct(state: ClosedLoopStateType, config?: RunnableConfig) {
  // The same failure a third time ends the run (nodes/repeats.ts).
  if (!running(state)) return END;
  if (runOf<CleaSettings>(config).settings.variant === "open-loop" && hasNextStep(state)) return "dispatch";
  return "perceiver";
}

type Node = (state: ClosedLoopStateType, config?: RunnableConfig) => Promise<ClosedLoopUpdate>;
export const CLOSED_LOOP_NODES = {
  // Model nodes end `interrupted` when their endpoint stays unavailable (nodes/guard.ts); dispatch and executor talk
  // to the robot only.
  ...guardedNodes({
    perceiver: perceive,
    summarizer: summarize,
    goal_check: checkGoal,
    planner: plan,
    verifier: verify,
    critic: critique,
  }),
  dispatch: resumable(dispatch),
  executor: resumable(act),
  // Its model calls are its own to lose: a failure leaves nothing prepared, and the ordinary path runs.
  speculator: speculate,
  prediction_check: checkPrediction,
};

/**
 * The wiring, with the node implementations as a parameter (benchmarks swap them to time the wiring alone); every
 * node and edge runs in a run of `method` (runtime/run.ts).
 */
export function buildClosedLoop(
  method: MethodRuntime<CleaSettings>,
  nodes: Record<keyof typeof CLOSED_LOOP_NODES, Node> = CLOSED_LOOP_NODES,
) {
  const withRun = <St, R>(step: (state: St, config?: RunnableConfig) => R) => inRun(method, step);
  return new StateGraph({ state: ClosedLoopState, input: GoalInput, context: ClosedLoopConfiguration })
    .addNode("perceiver", withRun(nodes.perceiver))
    .addNode("summarizer", withRun(nodes.summarizer))
    .addNode("goal_check", withRun(nodes.goal_check))
    .addNode("planner", withRun(nodes.planner))
    .addNode("verifier", withRun(nodes.verifier))
    .addNode("critic", withRun(nodes.critic))
    .addNode("dispatch", withRun(nodes.dispatch))
    .addNode("executor", withRun(nodes.executor))
    .addNode("speculator", withRun(nodes.speculator))
    .addNode("prediction_check", withRun(nodes.prediction_check))
    .addEdge(START, "perceiver")
    .addConditionalEdges("perceiver", withRun(afterPerceive), ["summarizer", "critic", "prediction_check", END])
    .addConditionalEdges("prediction_check", withRun(afterPredictionCheck), ["summarizer", "critic", "goal_check", END])
    .addConditionalEdges("summarizer", withRun(then("goal_check")), ["goal_check", END])
    .addConditionalEdges("goal_check", withRun(afterGoalCheck), ["perceiver", "planner", "critic", "dispatch", END])
    .addConditionalEdges("planner", withRun(afterPlan), ["verifier", END])
    .addConditionalEdges("verifier", withRun(afterVerify), ["planner", "critic", "dispatch", END])
    .addConditionalEdges("critic", withRun(afterCritique), ["perceiver", "planner", "dispatch", END])
    .addConditionalEdges("dispatch", withRun(afterDispatch), ["planner", "executor", "speculator", END])
    .addEdge("speculator", END)
    .addConditionalEdges("executor", withRun(afterAct), ["perceiver", "dispatch", END]);
}

/** With a store, the summarizer remembers where things were seen, across episodes. */
export function compileClosedLoop(
  method: MethodRuntime<CleaSettings>,
  checkpointer?: BaseCheckpointSaver,
  store?: BaseStore,
) {
  // Each skill takes ~6 node steps; budgets, not the recursion limit, are what end a long episode.
  return buildClosedLoop(method)
    .compile({ checkpointer, store, name: "closedLoop" })
    .withConfig({ recursionLimit: 2000 });
}
