/**
 * Perceiver diagnosis (RePLan B.9): after a motion fails, the perceiver is asked why, in several phrasings (how many
 * is configurable), each answered from the current frame on its own — sampling several answers is what makes the
 * consolidated reason trustworthy.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured, addUsage, type Usage } from "../../../models";
import { Diagnosis } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { currentView, sceneVocabulary } from "./view";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const DIAGNOSE_PROMPT = `You look at a robot's camera image after it failed to do something. Say what in the scene,
other than the robot itself, prevents the action — something in the way, something resting where a thing should go,
something that keeps a door shut — naming things by the scene's names. If nothing does, say so.`;

/** Ways of asking the same question; the n-th diagnosis uses the first n. */
export const DIAGNOSIS_PHRASINGS = [
  (a: string) =>
    `Look at this picture: an attempt to ${a} just failed. Which object here explains that, leaving the robot itself aside?`,
  (a: string) => `Why might "${a}" be impossible right now? Point to whatever in the picture stands in the way.`,
  (a: string) => `Failed: ${a}. Obstacle in view?`,
  (a: string) => `Suppose you had to ${a} yourself in this scene. What would you have to deal with first?`,
  (a: string) => `Something keeps the hand from managing to ${a}. Name the thing in the image responsible, if any.`,
  (a: string) =>
    `Study the scene for anything resting on, pressing against, latching or covering what is needed to ${a}.`,
];

export async function diagnose(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const s = await run.session();
  const view = await currentView(s);
  const failure = state.failure!;
  const action = failure.step.replace(/[.]$/, "").replace(/^./, (c) => c.toLowerCase());
  // Each phrasing is answered on its own, so they are asked at once: one round trip, not one per phrasing.
  const answers = await Promise.all(
    DIAGNOSIS_PHRASINGS.slice(0, opts.diagnosisPhrasings).map((phrase) =>
      askStructured(s.models, s.modelConfig, {
        role: "perceiver",
        schema: Diagnosis,
        schemaName: "Diagnosis",
        system: DIAGNOSE_PROMPT,
        task: "diagnose",
        context: {
          phrasing: phrase(action),
          action,
          controller: failure.message,
          ...sceneVocabulary(s),
          world: worldForModel(s.world),
          detections: view.detections,
        },
        images: [view.image],
      }),
    ),
  );
  const usage = answers.reduce<Usage>((u, r) => addUsage(u, r.usage), {});
  return { explanations: answers.map((r) => r.value.explanation), frame: view.frame, usage };
}
