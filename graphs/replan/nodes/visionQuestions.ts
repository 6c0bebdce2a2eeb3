/**
 * A vision step, first part (RePLan B.14): the planner decides what to ask the perception model — at most two
 * questions, none when the facts already answer the step. Without a perceiver (ablation) nothing can be asked, and
 * the step is taken as done.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { VisionQuestions } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { budgetEnd } from "./budget";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const QUESTIONS_PROMPT = `You are carrying out a plan and the current step needs vision. Write at most two short
questions for a perception model that looks at the robot's camera image, so that its answers settle the step. Ask
about one thing per question (is X inside Y, what colour is X, is X in view); do not ask it to compare. Ask nothing
if the known facts already settle the step.`;

export async function askQuestions(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const step = state.plan!.steps[state.cursor];
  const ended = budgetEnd(state, opts);
  if (ended) return ended;
  if (opts.variant === "no-perceiver") {
    return {
      cursor: state.cursor + 1,
      answers: [],
      log: [{ kind: "vision", step: step.action, answers: [], done: true }],
    };
  }
  const session = await run.session();
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: VisionQuestions,
    schemaName: "VisionQuestions",
    system: QUESTIONS_PROMPT,
    task: "vision_questions",
    context: {
      goal: state.goal,
      plan: state.plan!.steps,
      step: step.action,
      scene: state.scene,
      facts: [...state.sceneFacts, ...state.facts],
    },
  });
  if (!value.questions.length)
    return {
      cursor: state.cursor + 1,
      answers: [],
      usage,
      log: [{ kind: "vision", step: step.action, answers: [], done: true }],
    };
  return { answers: value.questions.map((question) => ({ question, answer: "" })), usage };
}
