/** Verifier on a high-level plan: every step must use the scene's names; near-misses are renamed, the rest rejected. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { PlanCheck } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { sceneVocabulary } from "./view";
import { newProcedure } from "./budget";
import { missingArgument, vocabulary } from "../checks";
import { runOf } from "../../../runtime/run";

export const PLAN_VERIFIER_PROMPT = `Check each step of a robot's plan against the names of the things in its scene. A step
that calls something by another wording (a synonym, swapped words, a plural) is rewritten with the scene's name and
marked remapped; a step naming something the scene does not have is rejected with a note.`;

export async function verifyPlan(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  const plan = state.plan!;
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "verifier",
    schema: PlanCheck,
    schemaName: "PlanCheck",
    system: PLAN_VERIFIER_PROMPT,
    task: "verify_plan",
    context: { goal: state.goal, steps: plan.steps, ...sceneVocabulary(session), world: worldForModel(session.world) },
  });
  // Whatever the model judged, a step that stops before its object or target cannot be carried out as written.
  const names = vocabulary(session.world);
  const checked = value.steps.map((x) => {
    const missing = x.status === "rejected" ? undefined : missingArgument(x.step.action, names);
    return missing ? { ...x, status: "rejected" as const, note: missing } : x;
  });
  const rejected = checked.filter((x) => x.status === "rejected");
  const steps = checked.filter((x) => x.status !== "rejected").map((x) => x.step);
  const notes = checked
    .filter((x) => x.status !== "ok")
    .map((x) => `${x.status}: ${x.step.action}${x.note ? ` (${x.note})` : ""}`);
  const update: ReplanUpdate = {
    plan: { ...plan, steps },
    usage,
    log: notes.length ? [{ kind: "note", text: `verifier ${notes.join("; ")}` }] : [],
  };
  // Nothing left to run: a new procedure, with why in memory.
  if (!steps.length)
    return {
      ...update,
      ...newProcedure(state, null, `the verifier rejected every step: ${rejected.map((r) => r.note).join("; ")}`),
    };
  return update;
}
