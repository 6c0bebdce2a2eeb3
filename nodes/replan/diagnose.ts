/**
 * Perceiver diagnosis (RePLan B.9): after a motion fails, the perceiver is asked why, in several phrasings (how many
 * is configurable), each answered from the current frame on its own — sampling several answers is what makes the
 * consolidated reason trustworthy.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, addUsage, type Usage } from "../../models";
import { Diagnosis } from "../../models/schemas";
import { runOptions, session } from "../../graphs/session";
import type { ReplanStateType, ReplanUpdate } from "../../graphs/state";
import { currentView, sceneVocabulary } from "./view";

export const DIAGNOSE_PROMPT = `You look at a robot's camera image after it failed to do something. Say what in the scene,
other than the robot itself, prevents the action — something in the way, something resting where a thing should go,
something that keeps a door shut — naming things by the scene's names. If nothing does, say so.`;

/** Ways of asking the same question; the n-th diagnosis uses the first n. */
export const DIAGNOSIS_PHRASINGS = [
  (a: string) => `The robot tried to ${a} and could not. Is anything in the scene, apart from the robot, stopping it?`,
  (a: string) => `In this scene a robot wants to ${a} but fails. What, besides the robot, is in its way?`,
  (a: string) => `Robot wants to ${a}; it can't. Anything else preventing it?`,
  (a: string) => `The robot can handle any object here. It wanted to ${a} but did not manage to. Is some object hindering it?`,
  (a: string) => `I want to ${a} but I cannot. Is there something in this scene preventing that, other than me?`,
  (a: string) => `Ignoring the robot, what in this picture could keep anyone from being able to ${a}?`,
];

export async function diagnose(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const opts = runOptions(config);
  const s = await session(opts);
  const view = await currentView(s);
  const failure = state.failure!;
  const action = failure.step.replace(/[.]$/, "").replace(/^./, (c) => c.toLowerCase());
  let usage: Usage = {};
  const explanations: string[] = [];
  for (const phrase of DIAGNOSIS_PHRASINGS.slice(0, opts.diagnosisPhrasings)) {
    const r = await askStructured(s.models, s.modelConfig, {
      role: "perceiver",
      schema: Diagnosis,
      schemaName: "Diagnosis",
      system: DIAGNOSE_PROMPT,
      task: "diagnose",
      context: { phrasing: phrase(action), action, controller: failure.message, ...sceneVocabulary(s), world: s.world, detections: view.detections },
      images: [view.image],
    });
    usage = addUsage(usage, r.usage);
    explanations.push(r.value.explanation);
  }
  return { explanations, frame: view.frame, usage };
}
