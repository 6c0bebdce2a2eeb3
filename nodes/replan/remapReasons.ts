/**
 * Verifier on the perceiver's explanations (RePLan B.10–B.11): a VLM may call a thing by a synonym; each explanation
 * that names something the scene does not have is rewritten with the closest names the robot can act on.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, addUsage, type Usage } from "../../models";
import { NameCheck } from "../../models/schemas";
import { runOptions, session } from "../../graphs/session";
import type { ReplanStateType, ReplanUpdate } from "../../graphs/state";
import { sceneVocabulary } from "./view";

export const REMAP_PROMPT = `You get one sentence describing a robot's camera image and the exact names of the things in
its scene. Say whether the sentence names things that are not in the scene or calls them by the wrong name, and
rewrite it using the closest names from the scene (unchanged if it was right).`;

export async function remapReasons(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const s = await session(runOptions(config));
  let usage: Usage = {};
  const explanations: string[] = [];
  for (const sentence of state.explanations) {
    const r = await askStructured(s.models, s.modelConfig, {
      role: "verifier",
      schema: NameCheck,
      schemaName: "NameCheck",
      system: REMAP_PROMPT,
      task: "check_names",
      context: { sentence, ...sceneVocabulary(s), world: s.world },
    });
    usage = addUsage(usage, r.usage);
    explanations.push(r.value.wrongNames ? r.value.rewritten : sentence);
  }
  return { explanations, usage };
}
