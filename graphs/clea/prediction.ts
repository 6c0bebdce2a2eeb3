/**
 * CLEA with speculation (configurable.pipeline): what a skill is predicted to leave behind, and whether the look after
 * it agrees. The prediction is the skill's result as its manifest promises it (the action succeeds), folded into the
 * belief by the summarizer like any other entry; the look agrees when folding it into that predicted belief — every
 * camera trusted over the belief, as the critic trusts the image — changes no fact: no thing elsewhere than predicted,
 * none missing from a place in view, no door in another state, nothing new.
 */
import type { Belief, Critique, GoalCheck, HistoryEntry, Plan, SkillCall } from "./schemas";
import type { Usage } from "../../models";
import type { SpeculationOutcome } from "../../nodes/speculation";
import type { Focus } from "./loops";
import { applyLook } from "./belief";

/** The work done beside one skill, against its predicted outcome. */
export interface Speculation {
  /** The skill goal whose outcome is assumed, and the history entry its result becomes. */
  goalId: string;
  entryId: number;
  /** The belief with that outcome folded in (null: no summarizer), and the summarizer's verdict on the task with it. */
  belief: Belief | null;
  judged: (GoalCheck & { upTo: number }) | null;
  /** The action prepared for after the skill: its plan (the current one, or one made on the prediction) and place in it. */
  plan: Plan | null;
  cursor: number;
  /** A plan made on the prediction: whether it counts as a replan, and the look it asks for. */
  planned?: { replan: boolean; focus: Focus | null };
  action: SkillCall | null;
  /** The critic's verdict on it, given on the predicted belief. */
  critique: Critique | null;
  /** Why no action is ready, when none is. */
  note?: string;
  /** What the speculative calls cost (wasted when revoked). */
  usage: Usage;
  /** Set by the look after the skill. */
  outcome?: SpeculationOutcome;
  why?: string;
}

/** The history entry a skill is predicted to leave: it succeeds, as its manifest says. */
export function predictedEntry(
  id: number,
  step: number,
  call: SkillCall,
  unsensed: boolean,
): HistoryEntry & { id: number } {
  return {
    id,
    step,
    kind: "action",
    call,
    ok: true,
    message: "still running: predicted to succeed as its manifest says",
    predicted: true,
    ...(unsensed ? { unsensed } : {}),
  };
}

const placeOf = (b: Belief) => new Map(b.objects.map((o) => [o.name, o.place]));

/** What folding a look into the predicted belief would change (empty: the look agrees with the prediction). */
export function disagreements(
  predicted: Belief,
  look: Extract<HistoryEntry, { kind: "observation" }>[],
  labels: readonly string[],
): string[] {
  const after = structuredClone(predicted);
  applyLook(
    after,
    look.map((e) => e.observation),
    labels,
    true,
  );
  const out: string[] = [];
  const before = placeOf(predicted);
  const now = placeOf(after);
  for (const [name, place] of before) {
    const seen = now.get(name);
    if (seen === undefined) out.push(`the ${name} is not in the ${place}, where predicted`);
    else if (seen !== place) out.push(`the ${name} is at ${seen}, not ${place} as predicted`);
  }
  for (const [name, place] of now)
    if (!before.has(name)) out.push(`the ${name} is seen at ${place}, which the prediction did not hold`);
  for (const c of after.containers) {
    const was = predicted.containers.find((x) => x.name === c.name)?.state;
    if (was !== c.state) out.push(`the ${c.name} is ${c.state}, not ${was ?? "unknown"} as predicted`);
  }
  for (const h of after.holding) {
    const was = predicted.holding.find((x) => x.robot === h.robot)?.object ?? null;
    if (was !== h.object) out.push(`${h.robot} holds ${h.object ?? "nothing"}, not ${was ?? "nothing"} as predicted`);
  }
  return [...new Set(out)];
}
