/**
 * Low-level planner (RePLan B.4–B.6, after Language to Rewards): a motion step → a motion plan in words, and reward
 * terms each serving one of its lines, one marked primary. The one-shot baseline asks it once for the whole goal.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { MotionDraft } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { REWARD_KINDS } from "../../../robots/msgs/motion";
import { sceneVocabulary } from "./view";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const LOW_LEVEL_PROMPT = `You turn one action of a robot palm into reward terms for its motion controller. First
describe the motion plan in short lines, one per thing that must happen: the palm moving close to what it must grasp
(it grasps what it is brought close to), an object brought close to or far from another, a joint set to a fraction
(0 closed, 1 open), an object raised to a height or turned. Then write one term per line, tied to its line by index:
${REWARD_KINDS.join(", ")}. Use only the names listed ("palm" is the hand). Mark primary the single term whose
satisfaction means the action is done. Add nothing the action does not need. Pick a duration in seconds.`;

export async function planMotion(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  // The one-shot baseline writes one reward program for the whole instruction.
  const step = opts.variant === "one-shot" ? state.goal : state.plan!.steps[state.cursor].action;
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: MotionDraft,
    schemaName: "MotionDraft",
    system: LOW_LEVEL_PROMPT,
    task: "motion_draft",
    // Language to Rewards is given the objects the scan identified, as RePLan's authors gave it.
    context: {
      step,
      goal: state.goal,
      procedure: state.plan?.steps ?? [],
      ...sceneVocabulary(session),
      ...(opts.variant === "one-shot" ? { objects: state.scene } : {}),
      world: worldForModel(session.world),
      facts: [...state.sceneFacts, ...state.facts],
    },
  });
  const terms = value.terms.map((t) => t.term);
  // Unverified, the draft's own primary marks stand (exactly one: the last marked, or the last term).
  const marked = terms.map((t) => t.primary).lastIndexOf(true);
  const primary = marked >= 0 ? marked : terms.length - 1;
  return {
    motion: {
      step,
      description: value.description,
      terms: terms.map((t, i) => ({ ...t, primary: i === primary })),
      duration: value.duration,
      draft: value,
    },
    usage,
  };
}
