/**
 * When a search is over: every place the robots can look into has been looked into since the object was last seen
 * anywhere, and it was not seen — then looking on cannot find it, and the run ends `failed` naming the places, while an
 * object seen anywhere (moved, or found) opens its search afresh. "Looked into" means twice, at two different looks:
 * one look is not enough to rule a place out, since a perceiver can miss what is there and a thing can be moved, unseen,
 * into a place already searched (the second round of looks, least recently searched first, is what finds it). The
 * ledger is kept from what the agent's own perception reported (places whose inside was in view, things seen), never
 * from the simulator.
 */
import { parseLiteral, type RobotManifest, type WorldDescription } from "../robots/manifests/schema";
import { canonicalText, closestName, lexicon } from "../models/reasoning/language";

/** Per goal object: how many looks saw into each place since it was last seen (empty: just seen, or not looked for). */
export type SearchLedger = Record<string, Record<string, number>>;

/** Looks into a place, since the object was last seen, that rule the place out. */
export const LOOKS_TO_RULE_OUT = 2;

/** Pixels of a place's inside that must be in view for its contents to count as seen (what the perceiver can answer from). */
export const INSIDE_IN_VIEW_PIXELS = 150;

/** The world's objects an instruction names, in the order they appear (word-bounded; "bottle of tea" also names bottle_of_tea). */
export function namedObjects(goal: string, labels: string[]): string[] {
  const text = ` ${goal.toLowerCase().replace(/[^a-z0-9_]+/g, " ")} `;
  return labels
    .map((label) => ({
      l: label,
      i: Math.min(
        ...[label, label.replace(/_/g, " ")]
          .map((w) => text.indexOf(` ${w.toLowerCase()} `))
          .map((i) => (i < 0 ? Infinity : i)),
      ),
    }))
    .filter((x) => Number.isFinite(x.i))
    .sort((a, b) => a.i - b.i)
    .map((x) => x.l);
}

/**
 * The things a goal names that can be searched for: objects, not places, doors or handles (those stay where built).
 * The goal is read in the world's names first, so "the tea bottle" names bottle_of_tea.
 */
export function searchedObjects(goal: string, world: WorldDescription): string[] {
  const fixed = new Set([
    ...world.places.map((p) => p.name),
    ...(world.joints ?? []).flatMap((j) => [j.object, j.handle, j.name]),
  ]);
  return namedObjects(
    canonicalText(goal, lexicon(world)).text,
    world.labels.filter((l) => !fixed.has(l)),
  );
}

/**
 * Places the robots can look into: a door or drawer some robot reaches (opening it shows its inside), a place a
 * navigation point serves (a mobile robot can stand in front of it), and any place whose inside has been in view in
 * this run (`viewed`: a fixed camera covers it). An open place only a stationary arm reaches, whose inside no camera
 * has shown — the kitchen's garbage can, seen from above at too steep an angle — is not one: no look would show what
 * is in it, so it cannot hold a search open, nor be claimed searched.
 */
export function lookablePlaces(robots: RobotManifest[], world: WorldDescription, viewed: string[] = []): string[] {
  const reached = new Set<string>();
  const served = new Set<string>();
  for (const r of robots) {
    for (const f of r.facts) {
      const literal = parseLiteral(f);
      if (literal.pred === "reaches") reached.add(literal.args[1]);
      if (literal.pred === "serves") served.add(literal.args[1]);
    }
  }
  return world.places
    .filter(
      (place) =>
        (place.openable && (reached.has(place.name) || served.has(place.name))) ||
        served.has(place.name) ||
        viewed.includes(place.name),
    )
    .map((p) => p.name);
}

/** Is `name` (as a perceiver wrote it) the object `object`? Loosely, as the summarizer matches names. */
const sameThing = (name: string, object: string) => name === object || closestName(name, [object]) === object;

/**
 * Folds one look (what every camera showed at one moment) into the ledger: a seen object's search starts over; an
 * unseen one's counts one more look into each place in view.
 */
export function noteLook(
  ledger: SearchLedger,
  objects: string[],
  look: { lookedInto: string[]; seen: string[] },
): SearchLedger {
  const out: SearchLedger = { ...ledger };
  for (const o of objects) {
    if (look.seen.some((s) => sameThing(s, o))) {
      out[o] = {};
      continue;
    }
    const counts = { ...out[o] };
    for (const p of new Set(look.lookedInto)) counts[p] = (counts[p] ?? 0) + 1;
    out[o] = counts;
  }
  return out;
}

/**
 * The first object whose search is exhausted — every lookable place ruled out since it was last seen — among those the
 * agent does not believe to be somewhere (`located`), with the places; undefined while some place is left.
 */
export function exhaustedSearch(
  ledger: SearchLedger,
  objects: string[],
  lookable: string[],
  located: (object: string) => boolean = () => false,
): { object: string; places: string[] } | undefined {
  if (!lookable.length) return undefined;
  for (const o of objects) {
    const looks = ledger[o] ?? {};
    if (!located(o) && lookable.every((p) => (looks[p] ?? 0) >= LOOKS_TO_RULE_OUT))
      return { object: o, places: lookable };
  }
  return undefined;
}

export const exhaustedReason = (exhausted: { object: string; places: string[] }) =>
  `no ${exhausted.object} in any of: ${exhausted.places.join(", ")} (each looked into ${LOOKS_TO_RULE_OUT === 2 ? "twice" : `${LOOKS_TO_RULE_OUT} times`} since it was last seen anywhere, and it was not seen)`;
