/**
 * Verifier on a motion (RePLan B.7–B.8): keeps only the reward terms that serve a line of the motion plan, and picks
 * the primary term — the one after which the action is done. Unneeded terms make motion control harder.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { MotionDraft, TermCheck } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { termText } from "../../../robots/msgs/motion";
import { newProcedure } from "./budget";
import { runOf } from "../../../runtime/run";

export const REWARD_VERIFIER_PROMPT = `You check reward terms written for one robot action. For each term, say which line of
the motion plan it serves (-1 if none: such terms are dropped). Then choose the primary term: the one whose
satisfaction means the action itself is done (for "open the door", the door's joint fraction, not the palm reaching
the handle).`;

export async function verifyMotion(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  const motion = state.motion!;
  const draft = MotionDraft.parse(motion.draft);
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "verifier",
    schema: TermCheck,
    schemaName: "TermCheck",
    system: REWARD_VERIFIER_PROMPT,
    task: "check_terms",
    context: { step: motion.step, draft, world: worldForModel(session.world) },
  });
  const kept = [
    ...new Set(
      value.keep
        .filter((k) => k.line >= 0 && k.line < draft.description.length && k.index >= 0 && k.index < draft.terms.length)
        .map((k) => k.index),
    ),
  ];
  const primary = kept.includes(value.primary) ? value.primary : kept.at(-1);
  // No term serves the step: nothing is sent, and the planner must find another procedure.
  if (primary === undefined)
    return {
      motion: null,
      usage,
      log: [{ kind: "note", text: `verifier kept no term for "${motion.step}"` }],
      ...newProcedure(state, motion.step, `no reward term written for "${motion.step}" served its motion plan`),
    };
  const terms = kept.map((i) => ({ ...draft.terms[i].term, primary: i === primary }));
  const dropped = draft.terms.filter((_, i) => !kept.includes(i)).map((t) => termText(t.term));
  return {
    motion: { ...motion, terms },
    usage,
    log: dropped.length ? [{ kind: "note", text: `verifier dropped ${dropped.join(", ")}` }] : [],
  };
}
