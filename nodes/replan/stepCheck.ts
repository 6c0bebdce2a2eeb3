/**
 * A vision step, last part (RePLan B.17): given the answers, is the step done? The facts learnt are remembered;
 * when something remains to be done it replaces the step as a motion.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../models";
import { StepCheck } from "../../models/schemas";
import { runOptions, session } from "../../graphs/session";
import type { ReplanStateType, ReplanUpdate } from "../../graphs/state";

export const STEP_CHECK_PROMPT = `A robot asked a perception model questions to carry out one step of its plan. From the
questions and answers, decide whether the step is complete. List what the answers established as short statements
(e.g. "the crate is red", "the green_apple is not inside the cabinet"). If the step is not complete, write the
remaining action the robot must do, as a motion in one imperative sentence.`;

export async function checkStep(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const s = await session(runOptions(config));
  const plan = state.plan!;
  const step = plan.steps[state.cursor];
  const { value, usage } = await askStructured(s.models, s.modelConfig, {
    role: "planner",
    schema: StepCheck,
    schemaName: "StepCheck",
    system: STEP_CHECK_PROMPT,
    task: "step_check",
    context: { goal: state.goal, plan: plan.steps, step: step.action, answers: state.answers },
  });
  const log = [{ kind: "vision" as const, step: step.action, answers: state.answers, done: value.done }];
  if (value.done || !value.remaining) return { cursor: state.cursor + 1, facts: value.facts, usage, log };
  // The remaining motion goes first, then the same look again.
  const steps = [...plan.steps.slice(0, state.cursor), { kind: "motion" as const, action: value.remaining }, ...plan.steps.slice(state.cursor)];
  return { plan: { ...plan, steps }, facts: value.facts, usage, log };
}
