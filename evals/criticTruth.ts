/** What undesirable behaviour a rollout showed, as its world's event log says: the critic benchmark's truth. */
import { UNDESIRABLE_KINDS } from "../robots/msgs/rollout";
import type { SimEvent } from "../robots/sim/events";
import { task } from "../robots/sim/workbench/behaviours";
import { buildWorkbenchScene, isWorkbenchScene } from "../robots/sim/workbench/scenes";
import type { CaseThings } from "./behaviourWords";

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

/**
 * A case's things by the part they play, from its scene (what the matcher reads a claim's thing against): the task's
 * object, where it goes, everything else on the table, what a container holds, what opens and shuts. Which neighbour an
 * edit acted on is not recorded, so every other thing of the scene counts as a neighbour.
 */
export function caseThings(sceneName: string): CaseThings {
  if (!isWorkbenchScene(sceneName)) return {};
  const scene = buildWorkbenchScene(sceneName, 0);
  const { obj, dest } = task(scene);
  return {
    object: [obj],
    destination: [dest],
    other: scene.things.map((t) => t.name).filter((name) => name !== obj),
    contents: scene.beads,
    hinged: scene.joints.map((j) => j.object),
  };
}
