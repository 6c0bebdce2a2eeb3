/**
 * CLEA's belief, kept from the history as its summarizer would: where each thing was last seen or put, which doors
 * are open, who holds what, which places were looked into, and how far the instruction is done. The summarizer node
 * asks a model for it; the no-summarizer ablation rebuilds it from the raw history with this, and the offline
 * reasoner answers the summarizer's request with it.
 */
import { parseLiteral, type WorldDescription } from "../../robots/manifests/schema";
import type { Belief, HistoryEntry, Observation } from "./schemas";
import { closestName, lexicon, readInstruction, type NamedRobot } from "../../models/reasoning/language";

/**
 * A name a literal can carry. A detector's label outside the world's vocabulary ("cell phone", "dining table") is
 * kept as an unknown thing — seen, but never a fact to plan with nor an action's argument.
 */
export const isThingName = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

/** An instruction read with the world's names and their wordings (and the robots' skills, when at hand). */
export const readGoal = (goal: string, world: WorldDescription, robots: NamedRobot[] = []) =>
  readInstruction(
    goal,
    world.labels,
    world.places.map((p) => p.name),
    lexicon(world, robots),
  );

/** Why an instruction cannot be acted on as a whole: the parts not understood, quoted. */
export const notUnderstoodText = (parts: string[]) => `not understood: ${parts.map((p) => `"${p}"`).join(", ")}`;

export function emptyBelief(robots: string[], world: WorldDescription): Belief {
  return {
    objects: [],
    containers: world.places.filter((p) => p.openable).map((p) => ({ name: p.name, state: "unknown" as const })),
    holding: robots.map((robot) => ({ robot, object: null })),
    robotsAt: robots.map((robot) => ({ robot, at: null })),
    explored: [],
    seen: [],
    progress: "nothing done yet",
  };
}

export function summarize(ctx: {
  goal: string;
  previousBelief: Belief | null;
  entries: HistoryEntry[];
  robots: string[];
  world: WorldDescription;
  /** Where objects were found in earlier episodes. */
  remembered?: { object: string; place: string }[];
}): Belief {
  const belief: Belief = structuredClone(ctx.previousBelief ?? emptyBelief(ctx.robots, ctx.world));
  const placeNames = ctx.world.places.map((p) => p.name);
  const labels = ctx.world.labels;
  if (!ctx.previousBelief) {
    // Memories first, so what this instruction says overrides them.
    for (const r of ctx.remembered ?? [])
      if (placeNames.includes(r.place)) setObject(belief, canonicalName(r.object, labels), r.place, "told");
    for (const t of readGoal(ctx.goal, ctx.world).told) setObject(belief, t.object, t.place, "told");
  }
  for (let i = 0; i < ctx.entries.length;) {
    const entry = ctx.entries[i];
    if (entry.kind === "action") applyAction(belief, entry);
    if (entry.kind !== "observation") {
      i++;
      continue;
    }
    // A look: the observations entered together, with no action between them, weighed together.
    const look = lookFrom(ctx.entries, i);
    applyLook(
      belief,
      look.map((x) => x.observation),
      labels,
      false,
      new Set(look.flatMap((x) => x.askedAbout ?? [])),
    );
    i += look.length;
  }
  belief.progress = progressText(ctx.goal, belief, ctx.world);
  return belief;
}

function lookFrom(entries: HistoryEntry[], start: number): Extract<HistoryEntry, { kind: "observation" }>[] {
  const out: Extract<HistoryEntry, { kind: "observation" }>[] = [];
  for (let i = start; i < entries.length; i++) {
    const entry = entries[i];
    if (entry.kind !== "observation") break;
    out.push(entry);
  }
  return out;
}

/**
 * The world's name for a perceiver's wording of it ("tea_bottle", "milks" → bottle_of_tea, milk): the belief keeps one
 * entry per thing under the vocabulary's name, whatever wording each look used. A name close to none stays as it is.
 */
export function canonicalName(name: string, labels: readonly string[]): string {
  if (labels.includes(name)) return name;
  return closestName(name, [...labels]) ?? name;
}

function setObject(belief: Belief, name: string, place: string, source: Belief["objects"][number]["source"]): void {
  // One entry per object, whatever wording earlier entries used for it.
  belief.objects = belief.objects.filter((o) => o.name !== name && closestName(o.name, [name]) !== name);
  belief.objects.push({ name, place, source });
  for (const h of belief.holding) {
    const same = h.object !== null && (h.object === name || closestName(h.object, [name]) === name);
    if (h.robot === place) h.object = name;
    else if (same) h.object = null;
  }
}

function setContainer(belief: Belief, name: string, state: "open" | "closed"): void {
  const container = belief.containers.find((x) => x.name === name);
  if (container) container.state = state;
}

function applyAction(belief: Belief, entry: Extract<HistoryEntry, { kind: "action" }>): void {
  const { robot, skill, args } = entry.call;
  // A gripper that cannot sense a grasp reports the motion it made ("closed its hand at the table"), never what it
  // holds: what the belief puts in the hand is the thing this agent asked it to pick — its own action, not the robot's
  // word — believed until a camera that sees the place shows otherwise (the summarizer's order of evidence,
  // docs/clea.md). A look that shows the thing elsewhere empties the hand in the belief: the fingers may be closed,
  // but on nothing this agent knows of, and such a robot opens its hand before the next skill that needs it.
  const source = entry.unsensed ? "reported" : "action";
  if (entry.ok) {
    if (skill === "go_to") belief.robotsAt.find((r) => r.robot === robot)!.at = args.navigation_point ?? null;
    if (skill === "open") setContainer(belief, args.target, "open");
    if (skill === "close") setContainer(belief, args.target, "closed");
    if (skill === "pick_from") {
      setObject(belief, args.object, robot, source);
      const hand = belief.holding.find((x) => x.robot === robot);
      if (hand) hand.object = args.object;
    }
    if (skill === "release_to") {
      setObject(belief, args.object, args.place, source);
      const hand = belief.holding.find((x) => x.robot === robot);
      if (hand) hand.object = null;
    }
    return;
  }
  // What a failure says about the world.
  let match: RegExpExecArray | null;
  if ((match = /there is no (\w+) (?:in|on) the (\w+)/.exec(entry.message)))
    belief.objects = belief.objects.filter((o) => !(o.name === match![1] && o.place === match![2]));
  if (
    (match = /the (\w+): it is closed/.exec(entry.message)) ||
    (match = /the (\w+) is already closed/.exec(entry.message))
  )
    setContainer(belief, match[1], "closed");
  if ((match = /the (\w+) is already open/.exec(entry.message))) setContainer(belief, match[1], "open");
  // A gripper that senses its grasp names what it holds when it refuses for it: it holds that thing, wherever a camera
  // last placed it. A gripper without grasp sensing never names it (it opens its hand instead of refusing), so no
  // thing's name comes into the hand from a robot's words unless its sensor stands behind them.
  if (
    (match = /already holding the (\w+)/.exec(entry.message)) ||
    (match = /needs its hand free to \w+ the \w+ but holds the (\w+)/.exec(entry.message))
  )
    setObject(belief, match[1], robot, "action");
  if ((match = /is at (\w+), not at/.exec(entry.message)))
    belief.robotsAt.find((r) => r.robot === robot)!.at = match[1];
}

/**
 * Folds one look — what each camera reported at one moment — into a belief, in the order of evidence docs/clea.md
 * gives:
 * - a thing believed in a place some camera now shows, seen by no camera, is not there — except one a robot that
 *   senses its grasp has just put there (one frame is not enough to doubt a sensed result; `trustImage`, the critic
 *   looking right before acting, doubts it all the same). A thing in a hand is never judged by its absence: no camera
 *   here reliably sees a hand (the arm's overhead camera shows 7 of the 10 things the arm can hold, the mobile
 *   robot's none of its own);
 * - a thing seen where the belief already has it stays; seen somewhere else, it has moved — unless another camera in
 *   the same look shows that place without it: cameras that disagree do not overrule what was known before.
 */
export function applyLook(
  belief: Belief,
  look: Observation[],
  labels: readonly string[],
  trustImage = false,
  askedAbout: ReadonlySet<string> = new Set(),
): void {
  for (const o of look) for (const c of o.containers) setContainer(belief, c.name, c.state);
  const sightings = new Map<string, { robot: string; place: string }[]>();
  for (const o of look) {
    for (const x of o.objects) {
      if (!isThingName(x.name)) {
        // An unknown thing: remembered as seen, given no place in the facts the planner reasons over.
        if (!belief.seen.includes(x.name)) belief.seen.push(x.name);
        continue;
      }
      const name = canonicalName(x.name, labels);
      sightings.set(name, [...(sightings.get(name) ?? []), { robot: o.robot, place: x.place }]);
    }
  }
  const inView = (place: string) => look.some((o) => o.visiblePlaces.includes(place));
  // An unsensed report stands against a plain look that contradicts it until a look asked about the thing decides.
  const pending = (x: Belief["objects"][number]) => !trustImage && x.source === "reported" && !askedAbout.has(x.name);
  belief.objects = belief.objects.filter(
    (x) =>
      !(
        inView(x.place) &&
        !sightings.has(canonicalName(x.name, labels)) &&
        (trustImage || x.source !== "action") &&
        !pending(x)
      ),
  );
  const shownWithout = (name: string, sighting: { robot: string; place: string }) =>
    look.some(
      (observation) =>
        observation.robot !== sighting.robot &&
        observation.visiblePlaces.includes(sighting.place) &&
        !observation.objects.some((y) => y.place === sighting.place && canonicalName(y.name, labels) === name),
    );
  for (const [name, seen] of sightings) {
    const prior = belief.objects.find((o) => o.name === name || closestName(o.name, [name]) === name);
    const before = prior?.place;
    if (prior && pending(prior) && !seen.some((s) => s.place === before)) {
      if (!belief.seen.includes(name)) belief.seen.push(name);
      continue;
    }
    // A first sighting stands although another camera missed it: a miss and a phantom are as likely, and a look for
    // the thing settles it (graphs/clea/loops.ts).
    const place = seen.some((s) => s.place === before)
      ? before
      : before === undefined
        ? seen[0].place
        : seen.find((s) => !shownWithout(name, s))?.place;
    if (place === undefined) continue;
    setObject(belief, name, place, "seen");
    if (!belief.seen.includes(name)) belief.seen.push(name);
  }
  for (const o of look) for (const p of o.visiblePlaces) if (!belief.explored.includes(p)) belief.explored.push(p);
}

/**
 * Whether a look speaks against a thing being at a place (a place's name, or the robot holding it): the thing seen
 * somewhere else, or the place in view without it. A hand is never judged by a camera not showing the thing.
 */
export function lookContradicts(
  look: Observation[],
  thing: { name: string; place: string },
  labels: readonly string[],
): boolean {
  const sightings = look.flatMap((observation) =>
    observation.objects.filter((x) => isThingName(x.name) && canonicalName(x.name, labels) === thing.name),
  );
  if (sightings.some((x) => x.place !== thing.place)) return true;
  return !sightings.length && look.some((o) => o.visiblePlaces.includes(thing.place));
}

/** One camera's observation folded in alone (the critic's look through the acting robot's camera). */
export function applyObservation(
  belief: Belief,
  observation: Observation,
  labels: readonly string[],
  trustImage = false,
): void {
  applyLook(belief, [observation], labels, trustImage);
}

function progressText(goal: string, belief: Belief, world: WorldDescription): string {
  const { goals, notUnderstood } = readGoal(goal, world);
  if (!goals.length) return notUnderstood.length ? `goal ${notUnderstoodText(notUnderstood)}` : "goal not understood";
  const text = goals.map((g) => `${g}: ${holdsInBelief(g, belief) ? "done" : "open"}`).join("; ");
  return notUnderstood.length ? `${text}; ${notUnderstoodText(notUnderstood)}` : text;
}

/** A goal literal judged on the belief; object names are matched loosely (the belief may use another wording). */
export function holdsInBelief(literal: string, belief: Belief): boolean {
  const parsed = parseLiteral(literal);
  const name = (n: string) => closestName(n, belief.objects.map((o) => o.name).concat(belief.seen)) ?? n;
  let holds = false;
  if (parsed.pred === "in")
    holds = belief.objects.some((o) => o.name === name(parsed.args[0]) && o.place === parsed.args[1]);
  else if (parsed.pred === "found") holds = belief.seen.includes(name(parsed.args[0]));
  else if (parsed.pred === "closed")
    holds = belief.containers.some((c) => c.name === parsed.args[0] && c.state === "closed");
  else if (parsed.pred === "holding")
    holds = belief.holding.some((h) => h.robot === parsed.args[0] && h.object === name(parsed.args[1]));
  return parsed.negated ? !holds : holds;
}
