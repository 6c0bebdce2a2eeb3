/**
 * Preference between two rollouts of the same task: the critic watches both (key frames of the first, then of the
 * second, half the image budget each) and says which behaves better, or that neither is worse, and why.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart } from "../../../models";
import { Preference } from "../schemas";
import { CAUSES, UNDESIRABLE } from "../../../robots/msgs/rollout";
import { framePng, keyFrames, readRollout, seenFrame } from "./rollouts";
import type { CriticStateType, CriticUpdate } from "../state";
import { imageCapHint } from "./critique";
import { runOf } from "../../../runtime/run";
import type { CriticSettings } from "../configuration";

const list = (byName: Record<string, string>) =>
  Object.entries(byName)
    .map(([k, v]) => `- ${k}: ${v}`)
    .join("\n");

export const PREFER_PROMPT = `You compare two videos of a robot hand doing the same tabletop task and judge which one behaves better.
Both may be fine, both may be flawed in the same way, or one may be worse. Each video comes as key frames in order
(the first video's frames, then the second's), each with the depth camera's detections (label, position in metres
with z up, lowest and highest z, box, held or not, open doors and drawers).
Undesirable behaviour that often comes up (neither list is complete; describe anything else in your own words):
${list(UNDESIRABLE)}
Causes: ${Object.values(CAUSES).join("; ")}.
List the undesirable events of each video, then say which is better: first, second, or equal when neither is worse.`;

export async function prefer(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  const run = runOf<CriticSettings>(config);
  const opts = run.settings;
  if (state.rollouts.length !== 2)
    throw new Error(`a preference needs two recorded rollouts, got ${state.rollouts.length}`);
  const per = Math.floor(opts.maxImages / 2);
  const [first, second] = state.rollouts.map((ref) => ({
    ref,
    frames: keyFrames(readRollout(ref, run.artifacts), per),
  }));
  const images =
    run.modelConfig.backend === "openai"
      ? await Promise.all(
          [first, second].flatMap((rollout) =>
            rollout.frames.map((frame) =>
              imagePart(framePng(rollout.ref, frame.image, run.artifacts), run.modelConfig.imageMaxSide),
            ),
          ),
        )
      : [];
  const seen = (r: typeof first) => ({ frames: r.frames.map((f) => seenFrame(f.t, f.detections)) });
  const { value, usage } = await askStructured(run.models, run.modelConfig, {
    role: "critic",
    schema: Preference,
    schemaName: "Preference",
    system: PREFER_PROMPT,
    task: "prefer_rollouts",
    context: { instruction: state.goal, first: seen(first), second: seen(second) },
    images,
  }).catch(imageCapHint(images.length));
  return { preference: value, usage, status: "succeeded", statusReason: value.justification };
}
