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
  (action: string) =>
    `Look at this picture: an attempt to ${action} just failed. Which object here explains that, leaving the robot itself aside?`,
  (action: string) =>
    `Why might "${action}" be impossible right now? Point to whatever in the picture stands in the way.`,
  (action: string) => `Failed: ${action}. Obstacle in view?`,
  (action: string) => `Suppose you had to ${action} yourself in this scene. What would you have to deal with first?`,
  (action: string) =>
    `Something keeps the hand from managing to ${action}. Name the thing in the image responsible, if any.`,
  (action: string) =>
    `Study the scene for anything resting on, pressing against, latching or covering what is needed to ${action}.`,
];

export async function diagnose(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  const view = await currentView(session);
  const failure = state.failure!;
  const action = failure.step.replace(/[.]$/, "").replace(/^./, (c) => c.toLowerCase());
  // Each phrasing is answered on its own, so they are asked at once: one round trip, not one per phrasing.
  const answers = await Promise.all(
    DIAGNOSIS_PHRASINGS.slice(0, opts.diagnosisPhrasings).map((phrase) =>
      askStructured(session.models, session.modelConfig, {
        role: "perceiver",
        schema: Diagnosis,
        schemaName: "Diagnosis",
        system: DIAGNOSE_PROMPT,
        task: "diagnose",
        context: {
          phrasing: phrase(action),
          action,
          controller: failure.message,
          ...sceneVocabulary(session),
          world: worldForModel(session.world),
          detections: view.detections,
        },
        images: [view.image],
      }),
    ),
  );
  const usage = answers.reduce<Usage>((u, r) => addUsage(u, r.usage), {});
  return { explanations: answers.map((r) => r.value.explanation), frame: view.frame, usage };
}
