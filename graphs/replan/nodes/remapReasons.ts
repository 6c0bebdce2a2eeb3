/**
 * Verifier on the perceiver's explanations (RePLan B.10–B.11): a VLM may call a thing by a synonym; each explanation
 * that names something the scene does not have is rewritten with the closest names the robot can act on.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured, addUsage, type Usage } from "../../../models";
import { NameCheck } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { sceneVocabulary } from "./view";
import { runOf } from "../../../runtime/run";

export const REMAP_PROMPT = `A vision model described a robot's camera image in one sentence, in its own words. You know the
exact names the robot uses for the things in its scene. Flag whether any thing in the sentence goes by a name outside
that list, and give the sentence back with each such thing called by the listed name it most likely means (as it
was, if every name already matches).`;

export async function remapReasons(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  // Each sentence is checked on its own: all at once, one round trip.
  const checked = await Promise.all(
    state.explanations.map((sentence) =>
      askStructured(session.models, session.modelConfig, {
        role: "verifier",
        schema: NameCheck,
        schemaName: "NameCheck",
        system: REMAP_PROMPT,
        task: "check_names",
        context: { sentence, ...sceneVocabulary(session), world: worldForModel(session.world) },
      }),
    ),
  );
  const usage = checked.reduce<Usage>((u, r) => addUsage(u, r.usage), {});
  const explanations = checked.map((r, i) => (r.value.wrongNames ? r.value.rewritten : state.explanations[i]));
  return { explanations, usage };
}
