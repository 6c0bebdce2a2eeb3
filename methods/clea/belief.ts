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
  readInstruction(goal, world.labels, world.places.map((p) => p.name), lexicon(world, robots));

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
  const b: Belief = structuredClone(ctx.previousBelief ?? emptyBelief(ctx.robots, ctx.world));
  const placeNames = ctx.world.places.map((p) => p.name);
  if (!ctx.previousBelief) {
    // Memories first, so what this instruction says overrides them.
    for (const r of ctx.remembered ?? []) if (placeNames.includes(r.place)) setObject(b, r.object, r.place, "told");
    for (const t of readGoal(ctx.goal, ctx.world).told) setObject(b, t.object, t.place, "told");
  }
  // A look: the observations entered together, with no action between them.
  let look: Extract<HistoryEntry, { kind: "observation" }>[] = [];
  ctx.entries.forEach((e, i) => {
    if (e.kind === "action") applyAction(b, e);
    else if (e.kind === "observation") {
      if (i === 0 || ctx.entries[i - 1].kind !== "observation") look = lookFrom(ctx.entries, i);
      // Cameras that look at once: a thing one of them sees is not taken away because another missed it.
      const others = look.filter((x) => x.robot !== e.robot).flatMap((x) => x.observation.objects.map((o) => o.name));
      applyObservation(b, e.observation, false, new Set(others));
    }
  });
  b.progress = progressText(ctx.goal, b, ctx.world);
  return b;
}

function lookFrom(entries: HistoryEntry[], start: number): Extract<HistoryEntry, { kind: "observation" }>[] {
  const out: Extract<HistoryEntry, { kind: "observation" }>[] = [];
  for (let i = start; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind !== "observation") break;
    out.push(e);
  }
  return out;
}

function setObject(b: Belief, name: string, place: string, source: "seen" | "action" | "told"): void {
  // One entry per object, whatever wording earlier entries used for it.
  b.objects = b.objects.filter((o) => o.name !== name && closestName(o.name, [name]) !== name);
  b.objects.push({ name, place, source });
  for (const h of b.holding) {
    const same = h.object !== null && (h.object === name || closestName(h.object, [name]) === name);
    if (h.robot === place) h.object = name;
    else if (same) h.object = null;
  }
}

function setContainer(b: Belief, name: string, state: "open" | "closed"): void {
  const c = b.containers.find((x) => x.name === name);
  if (c) c.state = state;
}

function applyAction(b: Belief, e: Extract<HistoryEntry, { kind: "action" }>): void {
  const { robot, skill, args } = e.call;
  if (e.ok) {
    if (skill === "go_to") b.robotsAt.find((r) => r.robot === robot)!.at = args.navigation_point ?? null;
    if (skill === "open") setContainer(b, args.target, "open");
    if (skill === "close") setContainer(b, args.target, "closed");
    if (skill === "pick_from") {
      setObject(b, args.object, robot, "action");
      const h = b.holding.find((x) => x.robot === robot);
      if (h) h.object = args.object;
    }
    if (skill === "release_to") {
      setObject(b, args.object, args.place, "action");
      const h = b.holding.find((x) => x.robot === robot);
      if (h) h.object = null;
    }
    return;
  }
  // What a failure says about the world.
  let m: RegExpExecArray | null;
  if ((m = /there is no (\w+) (?:in|on) the (\w+)/.exec(e.message))) b.objects = b.objects.filter((o) => !(o.name === m![1] && o.place === m![2]));
  if ((m = /the (\w+): it is closed/.exec(e.message)) || (m = /the (\w+) is already closed/.exec(e.message))) setContainer(b, m[1], "closed");
  if ((m = /the (\w+) is already open/.exec(e.message))) setContainer(b, m[1], "open");
  if ((m = /already holding the (\w+)/.exec(e.message))) {
    const h = b.holding.find((x) => x.robot === robot);
    if (h) h.object = m[1];
  }
  if ((m = /is at (\w+), not at/.exec(e.message))) b.robotsAt.find((r) => r.robot === robot)!.at = m[1];
}

/**
 * Folds one observation into a belief. An object believed in a place now in view, but not seen there, is not there —
 * except, for the summarizer, one a robot has just put there (one frame is not enough to doubt an action that
 * reported success). The critic, looking at the image right before acting, trusts the image over the action
 * (`trustImage`).
 */
export function applyObservation(b: Belief, o: Observation, trustImage = false, seenInThisLook = new Set<string>()): void {
  for (const c of o.containers) setContainer(b, c.name, c.state);
  const seenHere = new Set([...o.objects.map((x) => x.name), ...seenInThisLook]);
  b.objects = b.objects.filter((x) => !(o.visiblePlaces.includes(x.place) && !seenHere.has(x.name) && (trustImage || x.source !== "action")));
  for (const x of o.objects) {
    if (!isThingName(x.name)) {
      // An unknown thing: remembered as seen, given no place in the facts the planner reasons over.
      if (!b.seen.includes(x.name)) b.seen.push(x.name);
      continue;
    }
    setObject(b, x.name, x.place, "seen");
    if (!b.seen.includes(x.name)) b.seen.push(x.name);
  }
  for (const p of o.visiblePlaces) if (!b.explored.includes(p)) b.explored.push(p);
}

function progressText(goal: string, b: Belief, world: WorldDescription): string {
  const { goals, notUnderstood } = readGoal(goal, world);
  if (!goals.length) return notUnderstood.length ? `goal ${notUnderstoodText(notUnderstood)}` : "goal not understood";
  const text = goals.map((g) => `${g}: ${holdsInBelief(g, b) ? "done" : "open"}`).join("; ");
  return notUnderstood.length ? `${text}; ${notUnderstoodText(notUnderstood)}` : text;
}

/** A goal literal judged on the belief; object names are matched loosely (the belief may use another wording). */
export function holdsInBelief(literal: string, b: Belief): boolean {
  const l = parseLiteral(literal);
  const name = (n: string) => closestName(n, b.objects.map((o) => o.name).concat(b.seen)) ?? n;
  let v = false;
  if (l.pred === "in") v = b.objects.some((o) => o.name === name(l.args[0]) && o.place === l.args[1]);
  else if (l.pred === "found") v = b.seen.includes(name(l.args[0]));
  else if (l.pred === "closed") v = b.containers.some((c) => c.name === l.args[0] && c.state === "closed");
  else if (l.pred === "holding") v = b.holding.some((h) => h.robot === l.args[0] && h.object === name(l.args[1]));
  return l.negated ? !v : v;
}
