/**
 * A vision step, last part (RePLan B.17): given the answers, is the step done? The facts learnt are remembered;
 * when something remains to be done it replaces the step as a motion.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { StepCheck } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { runOf } from "../../../runtime/run";

export const STEP_CHECK_PROMPT = `One step of a robot's plan is settled by looking. Given the questions it put to a perception
model and the answers, say whether the step is settled, and note each thing the answers established as a short
statement (e.g. "the crate is red", "the green_apple is not inside the cabinet"). If it is not settled because
something must first be moved or opened, say what the palm should do next, as one imperative sentence.`;

export async function checkStep(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  const plan = state.plan!;
  const step = plan.steps[state.cursor];
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: StepCheck,
    schemaName: "StepCheck",
    system: STEP_CHECK_PROMPT,
    task: "step_check",
    context: { goal: state.goal, plan: plan.steps, step: step.action, answers: state.answers },
  });
  const log = [{ kind: "vision" as const, step: step.action, answers: state.answers, done: value.done }];
  // The remaining motion goes first, then the same look again — once: a second "not done" moves on, and the
  // completion check judges the goal.
  const tried = state.cursor > 0 && plan.steps[state.cursor - 1].action === value.remaining;
  if (value.done || !value.remaining || tried) return { cursor: state.cursor + 1, facts: value.facts, usage, log };
  const steps = [
    ...plan.steps.slice(0, state.cursor),
    { kind: "motion" as const, action: value.remaining },
    ...plan.steps.slice(state.cursor),
  ];
  return { plan: { ...plan, steps }, facts: value.facts, usage, log };
}
