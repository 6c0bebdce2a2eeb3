/** What undesirable behaviour a rollout showed, as its world's event log says: the critic benchmark's truth. */
import { UNDESIRABLE_KINDS } from "../robots/msgs/rollout";
import type { SimEvent } from "../robots/sim/events";

const UNDESIRABLE_SET = new Set<string>(UNDESIRABLE_KINDS);

/** The undesirable events of one rollout's event log, once per (kind, thing). */
export function truthOf(events: SimEvent[]): SimEvent[] {
  const seen = new Set<string>();
  return events.filter(
    (e) => UNDESIRABLE_SET.has(e.kind) && !seen.has(`${e.kind}|${e.object}`) && seen.add(`${e.kind}|${e.object}`),
  );
}

/**
 * Whether the event monitor sees a case's behaviour at all: it logged some undesirable event in both negatives. A
 * family it logs nothing for (a crawl, a slam, a shoved plate — the monitor watches the free things, not the supports)
 * has no monitor count: its refinement is measured against the twin alone.
 */
export function monitorSees(commonEvents: readonly { kind: string }[]): boolean {
  return commonEvents.some((e) => UNDESIRABLE_SET.has(e.kind));
}
