/** Verifier: every robot, skill and argument must exist; misnamed objects are remapped, the rest rejected. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { Verification } from "../schemas";
import { argumentsValidator } from "../../../robots/manifests/schema";
import type { Session } from "../../../runtime/session";
import { robotsForModel } from "../../../nodes/modelContext";
import type { SkillCall } from "../schemas";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { runOf } from "../../../runtime/run";

export const VERIFIER_PROMPT = `Check a plan against the robots' manifests before anything runs. For each step: the robot
must exist, the skill must be one of its skills, and every argument must be a value its schema allows. When an
argument names something by another wording (a synonym, a plural, swapped words), replace it with the name the
manifest uses and mark the step remapped; when it matches nothing, mark the step rejected and say why.`;

/** A step every name of which the manifests allow as written: there is nothing for a model to remap or reject. */
function allowedAsWritten(step: SkillCall, session: Session): boolean {
  const spec = session.robots.find((r) => r.id === step.robot)?.skills.find((k) => k.name === step.skill);
  return !!spec && argumentsValidator(spec.parameters).safeParse(step.args).success;
}

export async function verify(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const session = await runOf(config).session();
  const plan = state.plan!;
  const pending = plan.steps.slice(state.cursor);
  // The manifests' own schema check settles a plan whose every step it accepts; only the rest goes to the model.
  if (pending.every((step) => allowedAsWritten(step, session))) return {};
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "verifier",
    schema: Verification,
    schemaName: "Verification",
    system: VERIFIER_PROMPT,
    task: "verify",
    context: { robots: robotsForModel(session.robots), steps: pending },
  });
  const firstRejected = value.steps.findIndex((v) => v.status === "rejected");
  const kept = value.steps.slice(0, firstRejected < 0 ? undefined : firstRejected).map((v) => v.call);
  const steps = [...plan.steps.slice(0, state.cursor), ...kept];
  if (kept.length === 0) {
    const reason = `verifier rejected ${JSON.stringify(value.steps[0]?.call)}: ${value.steps[0]?.note}`;
    return {
      plan: null,
      lastFailure: reason,
      failedPlans: [{ subgoal: plan.subgoal, steps: plan.steps, reason }],
      usage,
    };
  }
  return { plan: { ...plan, steps }, usage };
}
