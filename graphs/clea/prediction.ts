/**
 * CLEA with speculation (configurable.pipeline): what a skill is predicted to leave behind, and which of those
 * predictions the look after it agrees with. Where the look decides what comes next — opening a door or going to a
 * place whose inside is not known yet, while the task still seeks something — the look has more than one likely
 * outcome: the thing sought is there, or it is not. Each such outcome is a branch, prepared on its own while the skill
 * runs: the skill's result as its manifest promises it (it succeeds), the look predicted for that outcome, both folded
 * into the belief by the summarizer like any other entries, then the next action and the critic's verdict on it. The
 * look after the skill confirms at most one branch, by folding it into that branch's belief — every camera trusted
 * over the belief, as the critic trusts the image — and finding no fact the branch's action or the task rests on
 * changed: no thing elsewhere than predicted, none missing from a place in view, no door in another state, no hand
 * holding something else, nothing new that the task or the action names. Every other branch is dropped.
 *
 * The outcomes come from the belief and the manifests alone (what the agent knows), never from the simulator: which
 * places a skill brings into view (the door it opens, the places its navigation point serves) and which of the goal's
 * things the belief has not placed yet. Their number is bounded here (MAX_BRANCHES), what they may cost in
 * nodes/speculation.ts (`mayPrepareAlternatives`).
 */
import type { Belief, Critique, FailedPlan, GoalCheck, HistoryEntry, Observation, Plan, SkillCall } from "./schemas";
import type { Usage } from "../../models";
import type { SpeculationOutcome } from "../../nodes/speculation";
import type { RobotManifest, WorldDescription } from "../../robots/manifests/schema";
import { parseLiteral } from "../../robots/manifests/schema";
import { closestName } from "../../models/reasoning/language";
import type { Focus } from "./loops";
import type { FailureCounts } from "../../nodes/repeats";
import { applyLook, isThingName, readGoal } from "./belief";

/** At most this many outcomes of one look are prepared for: the manifest's promise and up to two alternatives. */
export const MAX_BRANCHES = 3;

/** One outcome of the look after a skill, as prepared for: what it assumes, and the look a camera would report then. */
export interface Outcome {
  /** In words: "as its manifest says", "the bottle_of_tea in the refrigerator". */
  assumes: string;
  /** The observations predicted for it; none: the look is predicted to change nothing the task rests on. */
  look: Observation[];
}

/** The work done beside one skill for one outcome of the look after it. */
export interface Branch extends Outcome {
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
  /** A rejection on the predicted belief that the branch's plan was made after (as the loop replans after one). */
  rejection?: Rejection;
  /** Why no action is ready, when none is. */
  note?: string;
  /** What this branch's speculative calls cost. */
  usage: Usage;
}

/** What a rejection on a prediction leaves in the state once the look confirms the branch it was made in. */
export interface Rejection extends Critique {
  action: SkillCall;
  rejections: FailureCounts;
  failedPlans: FailedPlan[];
}

/**
 * The work done beside one skill. Its own fields are the first outcome's branch (the manifest's promise) until the
 * look decides; then, if the look confirms an alternative, that branch's.
 */
export interface Speculation extends Branch {
  /** The skill goal whose outcome is assumed, and the history entry its result becomes. */
  goalId: string;
  entryId: number;
  /** What every branch cost together (all of it wasted when the look confirms none). */
  spent: Usage;
  /** The other outcomes prepared for, in order of preparation (at most MAX_BRANCHES - 1). */
  alternatives?: Branch[];
  /** Which outcome the look confirmed: 0 the first, k the k-th alternative. */
  chosen?: number;
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

/** The history entries a predicted look becomes, after the skill's own (ids from `firstId`). */
export function predictedLook(firstId: number, step: number, look: Observation[]): (HistoryEntry & { id: number })[] {
  return look.map((observation, i) => ({
    id: firstId + i,
    step,
    kind: "observation" as const,
    robot: observation.robot,
    observation,
    predicted: true,
  }));
}

/** The goal's things the belief has not placed (an `in` literal) or seen (a `found` one): what a search is for. */
export function soughtThings(goal: string, belief: Belief, world: WorldDescription): string[] {
  const known = belief.objects.map((o) => o.name).filter(isThingName);
  const out: string[] = [];
  for (const text of readGoal(goal, world).goals) {
    const literal = parseLiteral(text);
    if (literal.negated) continue;
    const thing = literal.args[0];
    const placed = (literal.pred === "in" ? known : belief.seen).some(
      (n) => n === thing || closestName(n, [thing]) === thing,
    );
    if ((literal.pred === "in" || literal.pred === "found") && !placed && !out.includes(thing)) out.push(thing);
  }
  return out;
}

/** The places a navigation point serves, by the acting robot's own facts (`serves(point, place)`). */
function servedBy(call: SkillCall, robots: readonly RobotManifest[]): string[] {
  if (call.skill !== "go_to" || !call.args.navigation_point) return [];
  const facts = robots.find((r) => r.id === call.robot)?.facts ?? [];
  return facts.flatMap((fact) => {
    const literal = parseLiteral(fact);
    return literal.pred === "serves" && !literal.negated && literal.args[0] === call.args.navigation_point
      ? [literal.args[1]]
      : [];
  });
}

/**
 * The places whose inside `call` brings into view that the belief has not seen into: the door it opens, or the
 * places its navigation point serves that stand open.
 */
export function placesBroughtIntoView(
  call: SkillCall,
  belief: Belief,
  robots: readonly RobotManifest[],
  world: WorldDescription,
): string[] {
  const unseen = (place: string) => world.places.some((x) => x.name === place) && !belief.explored.includes(place);
  if (call.skill === "open" && call.args.target) return unseen(call.args.target) ? [call.args.target] : [];
  const standsOpen = (place: string) =>
    !world.places.find((x) => x.name === place)?.openable ||
    belief.containers.find((c) => c.name === place)?.state === "open";
  return servedBy(call, robots).filter((place) => unseen(place) && standsOpen(place));
}

/** The doors a navigation point serves whose state the belief does not know: the look there will show it. */
export function doorsBroughtIntoView(call: SkillCall, belief: Belief, robots: readonly RobotManifest[]): string[] {
  return servedBy(call, robots).filter((place) => belief.containers.find((c) => c.name === place)?.state === "unknown");
}

/** The first outcome of every look: the skill does what its manifest promises, and the look changes nothing else that matters. */
export const AS_PROMISED: Outcome = { assumes: "as its manifest says, and nothing else the task rests on", look: [] };

const relationTo = (place: string, world: WorldDescription) =>
  world.places.find((p) => p.name === place)?.kind === "container" ? ("in" as const) : ("on" as const);

/**
 * The outcomes of the look after `call` worth preparing for, most certain first, at most `MAX_BRANCHES`, and only the
 * first when `alternatives` is false (the token bound). First the manifest's promise — where the skill brings a door
 * of unknown state into view, that door shut (what a plan assumes of a door it does not know) — then that door open
 * with nothing sought inside, then each sought thing seen in each place the skill brings into view.
 */
export function likelyOutcomes(
  call: SkillCall,
  goal: string,
  belief: Belief,
  robots: readonly RobotManifest[],
  world: WorldDescription,
  alternatives = true,
): Outcome[] {
  const doors = doorsBroughtIntoView(call, belief, robots);
  const seenBy = (containers: Observation["containers"], visiblePlaces: string[], objects: Observation["objects"]) => [
    {
      robot: call.robot,
      objects,
      containers,
      visiblePlaces,
      summary: `predicted, not seen: ${[...containers.map((c) => `the ${c.name} ${c.state}`), ...objects.map((o) => `the ${o.name} ${o.relation} the ${o.place}`)].join(", ") || "nothing new"}`,
    },
  ];
  const first: Outcome = doors.length
    ? {
        assumes: `as its manifest says, the ${doors.join(" and the ")} shut`,
        look: seenBy(
          doors.map((name) => ({ name, state: "closed" as const })),
          [],
          [],
        ),
      }
    : AS_PROMISED;
  const out: Outcome[] = [first];
  if (!alternatives) return out;
  for (const door of doors) {
    if (out.length >= MAX_BRANCHES) return out;
    out.push({
      assumes: `the ${door} open, nothing sought inside`,
      look: seenBy([{ name: door, state: "open" }], [door], []),
    });
  }
  const places = [...placesBroughtIntoView(call, belief, robots, world), ...doors];
  for (const thing of soughtThings(goal, belief, world))
    for (const place of places) {
      if (out.length >= MAX_BRANCHES) return out;
      const relation = relationTo(place, world);
      const openable = world.places.find((p) => p.name === place)?.openable;
      out.push({
        assumes: `the ${thing} ${relation} the ${place}`,
        look: seenBy(openable ? [{ name: place, state: "open" }] : [], [place], [{ name: thing, relation, place }]),
      });
    }
  return out;
}

/** What the look changed of a predicted belief, and which thing and place each change is about. */
export interface Disagreement {
  text: string;
  /** A thing seen that the prediction did not hold at all: the only kind that may not bear on the branch. */
  fresh: boolean;
  thing?: string;
  place?: string;
}

const placeOf = (b: Belief) => new Map(b.objects.map((o) => [o.name, o.place]));

/** What folding a look into the predicted belief would change (empty: the look agrees with the prediction). */
export function disagreements(
  predicted: Belief,
  look: Extract<HistoryEntry, { kind: "observation" }>[],
  labels: readonly string[],
): string[] {
  return [...new Set(changes(predicted, look, labels).map((d) => d.text))];
}

/** The changes a look makes to a predicted belief, each with what it is about. */
export function changes(
  predicted: Belief,
  look: Extract<HistoryEntry, { kind: "observation" }>[],
  labels: readonly string[],
): Disagreement[] {
  const after = structuredClone(predicted);
  applyLook(
    after,
    look.map((e) => e.observation),
    labels,
    true,
  );
  const out: Disagreement[] = [];
  const before = placeOf(predicted);
  const now = placeOf(after);
  for (const [name, place] of before) {
    const seen = now.get(name);
    if (seen === undefined)
      out.push({ text: `the ${name} is not in the ${place}, where predicted`, fresh: false, thing: name, place });
    else if (seen !== place)
      out.push({
        text: `the ${name} is at ${seen}, not ${place} as predicted`,
        fresh: false,
        thing: name,
        place: seen,
      });
  }
  for (const [name, place] of now)
    if (!before.has(name))
      out.push({
        text: `the ${name} is seen at ${place}, which the prediction did not hold`,
        fresh: true,
        thing: name,
        place,
      });
  for (const c of after.containers) {
    const was = predicted.containers.find((x) => x.name === c.name)?.state;
    if (was !== c.state)
      out.push({
        text: `the ${c.name} is ${c.state}, not ${was ?? "unknown"} as predicted`,
        fresh: false,
        place: c.name,
      });
  }
  for (const h of after.holding) {
    const was = predicted.holding.find((x) => x.robot === h.robot)?.object ?? null;
    if (was !== h.object)
      out.push({
        text: `${h.robot} holds ${h.object ?? "nothing"}, not ${was ?? "nothing"} as predicted`,
        fresh: false,
      });
  }
  return out;
}

/**
 * The names a branch rests on: the goal's things and places, the prepared action's arguments' things, and the places
 * whose contents its preconditions weigh (`full(place)`: a new thing there may fill it). A thing newly seen elsewhere
 * changes no fact the summarizer's verdict, the planner's next step or the critic's check of it reads.
 */
export function restsOn(
  goal: string,
  action: SkillCall | null,
  robots: readonly RobotManifest[],
  world: WorldDescription,
): { things: Set<string>; places: Set<string> } {
  const things = new Set<string>();
  const places = new Set<string>();
  const { goals, notUnderstood } = readGoal(goal, world);
  for (const text of goals) {
    const literal = parseLiteral(text);
    if (literal.args[0]) things.add(literal.args[0]);
    for (const a of literal.args.slice(1)) places.add(a);
  }
  // A goal read only in part: anything new may bear on it.
  if (notUnderstood.length || !goals.length)
    return { things: new Set(world.labels), places: new Set(world.places.map((p) => p.name)) };
  if (action) {
    for (const v of Object.values(action.args)) if (world.labels.includes(v)) things.add(v);
    const skill = robots.find((r) => r.id === action.robot)?.skills.find((s) => s.name === action.skill);
    for (const pre of skill?.preconditions ?? []) {
      const literal = parseLiteral(pre);
      if (literal.pred === "full") for (const a of literal.args) if (action.args[a]) places.add(action.args[a]);
    }
  }
  return { things, places };
}

/**
 * Of a look's changes to a branch's belief, those that bear on it: everything but fresh sightings of unrelated
 * things. A fresh thing in a place the goal or the action puts something into bears on it only where that place may
 * be full now (`full`: its capacity unknown, or reached with the look folded in).
 */
export function contradictions(
  changed: Disagreement[],
  rests: { things: Set<string>; places: Set<string> },
  full: (place: string) => boolean = () => true,
): string[] {
  const bears = (change: Disagreement) =>
    !change.fresh ||
    (change.thing !== undefined &&
      (rests.things.has(change.thing) || [...rests.things].some((t) => closestName(change.thing!, [t]) === t))) ||
    (change.place !== undefined && rests.places.has(change.place) && full(change.place));
  return [...new Set(changed.filter(bears).map((d) => d.text))];
}

/** Whether a place may be full once the look is folded into the belief: capacity not common knowledge, or reached. */
function mayBeFull(
  belief: Belief,
  look: Extract<HistoryEntry, { kind: "observation" }>[],
  world: WorldDescription,
): (place: string) => boolean {
  const after = structuredClone(belief);
  applyLook(
    after,
    look.map((e) => e.observation),
    world.labels,
    true,
  );
  return (place) => {
    const capacity = world.places.find((p) => p.name === place)?.capacity;
    // Besides the things there, one more is to be put in.
    return capacity === undefined || after.objects.filter((o) => o.place === place).length + 1 > capacity;
  };
}

/**
 * Which branch the look after the skill confirms: the first, in order of preparation, that has a belief and that the
 * look contradicts in nothing its action (when `ready` to go) or the task rests on; -1 when none. `against` says
 * what the look contradicts of each (a failed skill contradicts them all).
 */
export function confirmBranch(
  branches: readonly Branch[],
  look: Extract<HistoryEntry, { kind: "observation" }>[],
  ctx: { goal: string; robots: readonly RobotManifest[]; world: WorldDescription; failed?: string },
  ready: (b: Branch) => boolean,
): { chosen: number; against: string[][] } {
  const against = branches.map((branch) =>
    ctx.failed
      ? [ctx.failed]
      : branch.belief
        ? contradictions(
            changes(branch.belief, look, ctx.world.labels),
            restsOn(ctx.goal, ready(branch) ? branch.action : null, ctx.robots, ctx.world),
            mayBeFull(branch.belief, look, ctx.world),
          )
        : [],
  );
  return { chosen: branches.findIndex((b, k) => !!b.belief && against[k].length === 0), against };
}
