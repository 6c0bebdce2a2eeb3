/**
 * Grounding feedback (the paper's augmented critic): each event the critic claimed is checked by a perception module
 * — the detector reading the whole rollout's tracked detections (every 0.1 s, not just the key frames), or the
 * simulator's event log (perfect grounding, what a person watching would say) — and the critic is told which claims
 * were not found and revises its critique. The no-grounding variant keeps the raw critique.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { BehaviourCritique, type ClaimedEvent, type GroundingFeedback } from "../schemas";
import { observedEvents, type Thresholds, KEY_FRAME_THRESHOLDS, MORE_KINDS } from "../evidence";
import { UNDESIRABLE_KINDS, type LoggedEvent, type Rollout } from "../../../robots/msgs/rollout";
import { readRollout, rolloutId, seenFrame } from "./rollouts";
import { lastAttempt, type CriticStateType, type CriticUpdate } from "../state";
import { runOf, type Run } from "../../../runtime/run";
import type { CriticSettings } from "../configuration";

export const REFINE_PROMPT = `You reviewed a robot video and listed undesirable events. A perception check has since looked for each
event you listed in the whole recording. Revise your critique given what it did not find: an event it did not find
did not happen as you described it. Answer with the revised critique in the same form.`;

/**
 * The dense track (every 0.1 s) measures speeds near their peak, where key frames further apart average them down. On
 * the generated tuning set's careful twins (seeds 0–119) the dense track shows carries up to 0.28 m/s and the hand
 * coming down up to 0.31 m/s: a rush is twice that carry, a fast set-down a little over that descent.
 */
export const TRACK_THRESHOLDS: Thresholds = {
  ...KEY_FRAME_THRESHOLDS,
  spillSpeed: 0.6,
  rushSpeed: 0.55,
  setDown: 0.35,
};

/**
 * A claim is found when an event of its kind happened to the thing it names (or one the event's detail names). Only a
 * claim named by a behaviour the check knows can be looked for; the rest are left to the critic (`checkable`).
 */
export function claimFound(
  claim: Pick<ClaimedEvent, "kind" | "object">,
  events: Pick<LoggedEvent, "kind" | "object" | "detail">[],
): boolean {
  const word = new RegExp(`\\b${claim.object.replace(/[^a-z0-9_]/gi, "")}\\b`);
  return events.some((e) => e.kind === claim.kind && (e.object === claim.object || word.test(e.detail ?? "")));
}

/** What each check can look for: the detector, whatever its reading names; the event log, what the world logs. */
const LOOKS_FOR: Record<GroundingFeedback["source"], Set<string>> = {
  detector: new Set<string>([...UNDESIRABLE_KINDS, ...MORE_KINDS]),
  events: new Set<string>(UNDESIRABLE_KINDS),
};
export const checkable = (
  claim: Pick<ClaimedEvent, "kind">,
  source: GroundingFeedback["source"],
): claim is { kind: string } => !!claim.kind && LOOKS_FOR[source].has(claim.kind);

/** The event log of a benchmark rollout (events/<id>.json beside rollouts/), or, live, the evaluator's log in its window. */
async function loggedEvents(ref: string, rollout: Rollout, run: Run<CriticSettings>): Promise<LoggedEvent[]> {
  if (!ref.startsWith("sha256:")) {
    const file = join(dirname(ref), "..", "events", `${rolloutId(ref)}.json`);
    if (!existsSync(file)) throw new Error(`perfect grounding needs the rollout's event log at ${file}`);
    return JSON.parse(readFileSync(file, "utf8")) as LoggedEvent[];
  }
  const session = await run.session();
  const key = run.settings.evaluatorKey;
  const reply = await session.client.callService<{ events: LoggedEvent[] }>("/evaluator/events", key ? { key } : {});
  const end = rollout.startTime + rollout.duration + 1e-6;
  return reply.events.filter((e) => e.t >= rollout.startTime - 1e-6 && e.t <= end);
}

export async function groundingFeedback(
  ref: string,
  rollout: Rollout,
  claims: ClaimedEvent[],
  run: Run<CriticSettings>,
): Promise<GroundingFeedback> {
  const opts = run.settings;
  const found: Pick<LoggedEvent, "kind" | "object" | "detail">[] =
    opts.grounding === "events"
      ? await loggedEvents(ref, rollout, run)
      : observedEvents(
          rollout.instruction,
          rollout.track.map((x) => seenFrame(x.t, x.detections)),
          TRACK_THRESHOLDS,
        ).map((e) => ({ kind: e.kind, object: e.object, detail: e.what }));
  const unchecked = claims
    .filter((c) => !checkable(c, opts.grounding))
    .map((c) => ({ what: c.what, object: c.object }));
  const notFound = claims.flatMap((claim) =>
    checkable(claim, opts.grounding) && !claimFound(claim, found) ? [{ kind: claim.kind, object: claim.object }] : [],
  );
  return { source: opts.grounding, notFound, ...(unchecked.length ? { unchecked } : {}) };
}

export async function ground(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  const run = runOf<CriticSettings>(config);
  const opts = run.settings;
  const attempt = lastAttempt(state)!;
  const raw = attempt.critique!;
  if (opts.variant === "no-grounding" || raw.events.length === 0) return { attempts: { ...attempt, refined: raw } };
  const rollout = readRollout(attempt.rollout, run.artifacts);
  const feedback = await groundingFeedback(attempt.rollout, rollout, raw.events, run);
  if (feedback.notFound.length === 0) return { attempts: { ...attempt, feedback, refined: raw } };
  const { value, usage } = await askStructured(run.models, run.modelConfig, {
    role: "critic",
    schema: BehaviourCritique,
    schemaName: "BehaviourCritique",
    system: REFINE_PROMPT,
    task: "refine_critique",
    context: { instruction: state.goal, previous: raw, feedback },
  });
  return { attempts: { ...attempt, feedback, refined: value }, usage };
}
