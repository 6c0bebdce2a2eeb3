/**
 * The symbolic reasoner behind every role of the offline backend. Each function answers one node's request from
 * the structured context that node put in its prompt — detections, belief, history, manifests — and nothing else:
 * this module never reaches a simulator. Seeded noise reproduces the failure modes the verifier, critic and
 * replanning exist to catch.
 */
import type { DetectionsMessage } from "../../robots/msgs/detections";
import { parseLiteral, worldFacts, type RobotManifest, type WorldDescription } from "../../robots/manifests/schema";
import type { Belief, Critique, GoalCheck, HistoryEntry, Observation, Plan, SkillCall, Verification } from "./schemas";
import { alias, closestName, lexicon, notUnderstoodMessage } from "../../models/reasoning/language";
import { applyObservation, holdsInBelief, isThingName, notUnderstoodText, readGoal, summarize } from "./belief";
import { missRate, perceived, type Draw, type NoiseKnobs, type Task } from "../../models/symbolic/noise";
import { meaningHash } from "../../models/symbolic/meaning";

export { emptyBelief, holdsInBelief, summarize } from "./belief";
import { afterAction, firstUnmet, search, type Domain, type GroundAction } from "../../models/symbolic/search";

/** The world's name a detector's label is a display name or alias of ("tea bottle" → bottle_of_tea), if any. */
function worldName(label: string, world: WorldDescription): string {
  if (world.labels.includes(label)) return label;
  const wording = label.toLowerCase().replace(/_/g, " ");
  const hits = Object.entries(world.names ?? {}).filter(
    ([n, w]) => world.labels.includes(n) && [w.display, ...(w.aliases ?? [])].some((x) => x?.toLowerCase() === wording),
  );
  return hits.length === 1 ? hits[0][0] : label;
}

// ---- perceiver -----------------------------------------------------------------------------------------------------

/** What a robot's detector reported, as the perceiver's prompt carries it. */
export type DetectionsInput = Pick<DetectionsMessage, "detections" | "places">;

export function perceive(
  ctx: { robot: string; detections: DetectionsInput; world: WorldDescription; lookFor?: { objects: string[] } | null },
  noise: NoiseKnobs,
  rng: Draw,
): Observation {
  const kinds = new Map(ctx.world.places.map((p) => [p.name, p]));
  const objects: Observation["objects"] = [];
  // Faults belong to the view (this robot's detector report) and the thing, not to the request (models/symbolic/noise.ts);
  // a thing asked about is looked at closely: its miss rate scaled by one shared factor, on the same draw.
  const view = meaningHash([ctx.robot, ctx.detections]);
  const asked = new Set(ctx.lookFor?.objects ?? []);
  for (const d of ctx.detections.detections) {
    // A detector that names things in plain words ("tea bottle") is read through the world's wordings.
    const label = worldName(d.label, ctx.world);
    const about = perceived(rng, view, meaningHash(d));
    const miss = about.next() < missRate(noise, asked.has(label));
    const misname = about.next() < noise.misname;
    if (miss) continue;
    objects.push({ name: misname ? alias(label) : label, relation: d.location.relation, place: d.location.place });
  }
  // A place's contents are in view when enough of the surface they rest on is.
  const visiblePlaces = ctx.detections.places.filter((p) => p.insidePixels >= 150).map((p) => p.name);
  const ghost = perceived(rng, view, "hallucination");
  if (ghost.next() < noise.hallucinate && visiblePlaces.length) {
    const absent = ctx.world.labels.filter((l) => !objects.some((o) => o.name === l));
    if (absent.length) {
      const place = visiblePlaces[Math.floor(ghost.next() * visiblePlaces.length)];
      objects.push({
        name: absent[Math.floor(ghost.next() * absent.length)],
        relation: kinds.get(place)?.kind === "container" ? "in" : "on",
        place,
      });
    }
  }
  const containers = ctx.detections.places
    .filter((p) => kinds.get(p.name)?.openable)
    .map((p) => ({ name: p.name, state: p.state }));
  const summary = objects.length
    ? `${ctx.robot} sees ${objects.map((o) => `the ${o.name} ${o.relation === "held_by" ? "held by" : o.relation} the ${o.place}`).join(", ")}.`
    : `${ctx.robot} sees no objects.`;
  return {
    robot: ctx.robot,
    objects,
    containers,
    visiblePlaces,
    summary: containers.length
      ? `${summary} ${containers.map((c) => `The ${c.name} is ${c.state}.`).join(" ")}`
      : summary,
  };
}

// ---- planner -------------------------------------------------------------------------------------------------------

export interface PlanContext {
  goal: string;
  belief: Belief;
  robots: RobotManifest[];
  world: WorldDescription;
  maxSteps: number;
  lastFailure?: string | null;
  /** The plans that failed so far, each from the step that failed (rejected, or failed at the robot). */
  failedPlans?: { steps: SkillCall[] }[];
}

const sameCall = (left: SkillCall, right: SkillCall) =>
  left.robot === right.robot &&
  left.skill === right.skill &&
  JSON.stringify(Object.entries(left.args).sort()) === JSON.stringify(Object.entries(right.args).sort());

export function staticFacts(robots: RobotManifest[], world: WorldDescription): string[] {
  return [...worldFacts(world), ...robots.flatMap((r) => r.facts.map((f) => f.replace(/\bself\b/g, r.id)))];
}

export function beliefFacts(belief: Belief, world: WorldDescription): string[] {
  const places = new Set(world.places.map((p) => p.name));
  const facts: string[] = [];
  // A belief written by a model may still carry a label no literal can hold; such a thing is not planned with.
  for (const o of belief.objects)
    if (places.has(o.place) && isThingName(o.name)) facts.push(`in(${o.name}, ${o.place})`);
  for (const h of belief.holding)
    facts.push(
      h.object
        ? `holding(${h.robot}, ${isThingName(h.object) ? h.object : "unknown_thing"})`
        : `hand_empty(${h.robot})`,
    );
  // Unknown doors count as closed: opening first is the safe assumption.
  for (const c of belief.containers) if (c.state !== "open") facts.push(`closed(${c.name})`);
  for (const r of belief.robotsAt) if (r.at) facts.push(`at(${r.robot}, ${r.at})`);
  return facts;
}

function domainFor(ctx: { robots: RobotManifest[]; world: WorldDescription }, objects: string[]): Domain {
  return {
    robots: ctx.robots,
    staticFacts: staticFacts(ctx.robots, ctx.world),
    capacity: Object.fromEntries(ctx.world.places.map((p) => [p.name, p.capacity ?? Infinity])),
    objects,
  };
}

export function plan(ctx: PlanContext, noise: NoiseKnobs, rng: Draw): Plan {
  const read = readGoal(ctx.goal, ctx.world, ctx.robots);
  const { goals, notUnderstood } = read;
  // Acting on the understood part alone would report a different task as done. The message names the words it could
  // not place, the closest names and what it knows, so a person can say it again in words it reads.
  if (notUnderstood.length)
    return {
      subgoal: "understand the task",
      rationale: `part of the instruction names no action I can do`,
      steps: [],
      done: false,
      giveUp: notUnderstoodMessage(read, lexicon(ctx.world, ctx.robots)),
      lookFor: null,
    };
  if (!goals.length)
    return {
      subgoal: "understand the task",
      rationale: "the instruction names no object and place I know",
      steps: [],
      done: false,
      giveUp: `goal not understood: ${notUnderstoodMessage(read, lexicon(ctx.world, ctx.robots))}`,
      lookFor: null,
    };
  const belief = ctx.belief;
  if (goals.every((g) => holdsInBelief(g, belief)))
    return {
      subgoal: "report",
      rationale: "every goal condition holds in the belief",
      steps: [],
      done: true,
      giveUp: null,
      lookFor: null,
    };

  // Use the belief's own names for the goal objects (a perceiver may word them differently).
  const known = belief.objects.map((o) => o.name).filter(isThingName);
  const rename = (lit: string) => {
    const parsed = parseLiteral(lit);
    if (parsed.pred === "in" || parsed.pred === "found")
      parsed.args[0] = closestName(parsed.args[0], known) ?? parsed.args[0];
    return `${parsed.negated ? "not " : ""}${parsed.pred}(${parsed.args.join(", ")})`;
  };
  const open = goals.filter((g) => !holdsInBelief(g, belief)).map(rename);
  const missing = open
    .map(parseLiteral)
    .filter(
      (literal) =>
        (literal.pred === "in" && !known.includes(literal.args[0])) ||
        (literal.pred === "found" && !belief.seen.includes(literal.args[0])),
    )
    .map((l) => l.args[0]);
  const facts = beliefFacts(belief, ctx.world);
  const held = belief.holding.flatMap((h) => (h.object ? [h.object] : []));

  let subgoal: string;
  let rationale: string;
  let result: GroundAction[] | undefined;
  let lookFor: Plan["lookFor"] = null;
  if (missing.length) {
    const target = missing[0];
    const told = belief.objects.find((o) => o.name === target)?.place;
    const order = (x: { name: string; kind: string }, y: { name: string; kind: string }) =>
      Number(y.name === told) - Number(x.name === told) ||
      Number(y.kind === "container") - Number(x.kind === "container");
    // Unexplored places first; when every place has been looked into once, look again (a detector can miss, and a
    // thing can be moved into a place already searched).
    const candidates = [
      ...ctx.world.places.filter((p) => !belief.explored.includes(p.name)).sort(order),
      ...lookAgainOrder(belief, ctx, told),
    ];
    for (const p of candidates) {
      const look = lookGoal(p.name, p.openable, belief, ctx.robots);
      if (!look) continue;
      const searched = search(domainFor(ctx, held), facts, [look]);
      if (searched && searched.plan.length) {
        result = searched.plan;
        const again = belief.explored.includes(p.name);
        subgoal = `look ${again ? "again " : ""}into the ${p.name} for the ${target}`;
        rationale = again
          ? `the ${target} has not been seen anywhere; the first look into the ${p.name} may have missed it`
          : `the ${target} has not been seen; the ${p.name} is not yet explored`;
        // A second look at a place asks the cameras about the thing (the first one missed it, or it was not there).
        if (again) lookFor = { objects: [target], places: [p.name] };
        break;
      }
    }
    if (!result)
      return {
        subgoal: `find the ${target}`,
        rationale: "every place I can look into has been explored",
        steps: [],
        done: false,
        giveUp: `the ${target} was not found anywhere`,
        lookFor: null,
      };
  } else {
    const objects = [...new Set([...open.map((g) => parseLiteral(g).args[0]), ...held])];
    const placing = open.filter((g) => !g.startsWith("found("));
    const searched = search(domainFor(ctx, objects), facts, placing);
    if (searched && !searched.plan.length)
      return {
        subgoal: "report",
        rationale: "every goal condition holds in the belief's facts",
        steps: [],
        done: true,
        giveUp: null,
        lookFor: null,
      };
    if (searched) {
      result = searched.plan;
      subgoal = open.join(" and ");
      rationale = `shortest plan of ${searched.plan.length} skills over the manifests' preconditions and effects`;
    } else {
      // No way through as things stand. A place the goal fills that is full: move something out of it first.
      const room = makeRoom(ctx, belief, facts, placing, held, goals.map(rename));
      if (!room)
        return {
          subgoal: "achieve the goal",
          rationale: "no sequence of skills reaches the goal from the belief",
          steps: [],
          done: false,
          giveUp: noPlanReason(ctx, belief, placing),
          lookFor: null,
        };
      ({ plan: result, subgoal, rationale } = room);
    }
  }
  const found: SkillCall[] = result
    .slice(0, ctx.maxSteps)
    .map((a) => ({ robot: a.robot, skill: a.skill, args: { ...a.args } }));
  let steps = corrupt(found, ctx, noise, rng);
  // Told which action its last plan failed on — rejected by the critic or the verifier, or failed at the robot — the
  // planner does not repeat its own slip: a plan whose slip wrote that very call goes as the search found it. Every
  // variant gets this from whatever feedback it has (no-critic from the robot's failures alone).
  const failed = ctx.failedPlans?.at(-1)?.steps[0];
  if (failed && steps.some((x) => sameCall(x, failed)) && !found.some((x) => sameCall(x, failed))) steps = found;
  return { subgoal: subgoal!, rationale: rationale!, steps, done: false, giveUp: null, lookFor };
}

/** The things the belief has in `place`. */
const contents = (belief: Belief, place: string) =>
  belief.objects.filter((o) => o.place === place && isThingName(o.name)).map((o) => o.name);

/** Places the goal puts something in that the belief shows full (the world's capacity reached). */
function fullPlaces(ctx: PlanContext, belief: Belief, placing: string[]): string[] {
  const capacity = new Map(ctx.world.places.map((p) => [p.name, p.capacity ?? Infinity]));
  const targets = [
    ...new Set(
      placing
        .map((g) => parseLiteral(g))
        .filter((l) => l.pred === "in" && !l.negated)
        .map((l) => l.args[1]),
    ),
  ];
  return targets.filter((p) => contents(belief, p).length >= (capacity.get(p) ?? Infinity));
}

/**
 * Room made in a full place the goal needs: the shortest plan that takes one of the things the goal does not ask for
 * out of it and puts it down elsewhere (every hand empty after), planned over those things alone.
 */
function makeRoom(
  ctx: PlanContext,
  belief: Belief,
  facts: string[],
  placing: string[],
  held: string[],
  goals: string[],
): { plan: GroundAction[]; subgoal: string; rationale: string } | undefined {
  // Nothing the instruction names is moved to make room (a thing already where the goal wants it stays).
  const wanted = new Set(goals.map((g) => parseLiteral(g).args[0]));
  for (const place of fullPlaces(ctx, belief, placing)) {
    const movable = contents(belief, place).filter((o) => !wanted.has(o));
    if (!movable.length) continue;
    const hands = ctx.robots.map((r) => `hand_empty(${r.id})`);
    const searched = search(
      domainFor(ctx, [...new Set([...movable, ...held])]),
      facts,
      [`not full(${place})`, ...hands],
      20_000,
    );
    if (searched?.plan.length)
      return {
        plan: searched.plan,
        subgoal: `make room in the ${place}`,
        rationale: `the ${place} is full (${contents(belief, place).join(", ")}); the goal puts something there, so one thing goes elsewhere first`,
      };
  }
  return undefined;
}

/** Why no plan reaches the goal, as a person would want to hear it. */
function noPlanReason(ctx: PlanContext, belief: Belief, placing: string[]): string {
  const full = fullPlaces(ctx, belief, placing);
  if (full.length)
    return `no plan reaches the goal: the ${full.join(" and the ")} ${full.length > 1 ? "are" : "is"} full (${full.map((p) => contents(belief, p).join(", ")).join("; ")}) and no room can be made there`;
  return "no plan reaches the goal";
}

/**
 * Places already looked into, least recently searched first: in the order they were first looked into, starting
 * after the place a robot stands at now (the one searched last), so every place gets its turn before any gets a
 * second one — not the same two favourites again and again. A place the instruction names comes first.
 */
function lookAgainOrder(
  belief: Belief,
  ctx: { robots: RobotManifest[]; world: WorldDescription },
  told: string | undefined,
): WorldDescription["places"] {
  const explored = belief.explored.flatMap((n) => ctx.world.places.filter((p) => p.name === n));
  const servedFrom = (nav: string) =>
    ctx.robots.flatMap((robot) =>
      robot.facts.map((f) => new RegExp(`^serves\\(${nav}, (\\w+)\\)$`).exec(f)?.[1]).filter((x): x is string => !!x),
    );
  const here = new Set(belief.robotsAt.flatMap((r) => (r.at ? servedFrom(r.at) : [])));
  const last = Math.max(-1, ...explored.map((p, i) => (here.has(p.name) ? i : -1)));
  const turn = [...explored.slice(last + 1), ...explored.slice(0, last + 1)];
  return [...turn.filter((p) => p.name === told), ...turn.filter((p) => p.name !== told)];
}

/** A literal that, once true, puts the inside of `place` in some robot's view. */
function lookGoal(place: string, openable: boolean, belief: Belief, robots: RobotManifest[]): string | undefined {
  const servedBy = robots.flatMap((robot) =>
    robot.facts
      .filter((f) => new RegExp(`^serves\\((\\w+), ${place}\\)$`).test(f))
      .map((f) => /^serves\((\w+),/.exec(f)![1])
      .map((nav) => ({ robot: robot.id, nav })),
  );
  const state = belief.containers.find((c) => c.name === place)?.state;
  if (openable && state !== "open") return `not closed(${place})`;
  // Open (or no door): a mobile robot has to stand in front of it; a fixed camera already covers what the arm reaches.
  if (servedBy.length) return `at(${servedBy[0].robot}, ${servedBy[0].nav})`;
  return undefined;
}

function corrupt(steps: SkillCall[], ctx: PlanContext, noise: NoiseKnobs, rng: Draw): SkillCall[] {
  const out = steps.map((s) => ({ ...s, args: { ...s.args } }));
  if (out.length > 1 && rng.next() < noise.skipStep) out.splice(Math.floor(rng.next() * out.length), 1);
  if (out.length && rng.next() < noise.wrongArgument) {
    const step = out[Math.floor(rng.next() * out.length)];
    // Arguments in name order: which one goes wrong must not hang on the order a manifest lists them in.
    const keys = Object.keys(step.args).sort();
    const key = keys[Math.floor(rng.next() * keys.length)];
    const spec = ctx.robots.find((r) => r.id === step.robot)?.skills.find((k) => k.name === step.skill)?.parameters
      .properties[key];
    const choices = (spec?.enum ?? []).map(String).filter((v) => v !== step.args[key]);
    if (choices.length) step.args[key] = choices[Math.floor(rng.next() * choices.length)];
  }
  return out;
}

// ---- verifier ------------------------------------------------------------------------------------------------------

export function verify(ctx: { steps: SkillCall[]; robots: RobotManifest[] }): Verification {
  return {
    steps: ctx.steps.map((call) => {
      const robot = ctx.robots.find((m) => m.id === call.robot);
      if (!robot) return { status: "rejected" as const, call, note: `there is no robot ${call.robot}` };
      const skill = robot.skills.find((k) => k.name === call.skill);
      if (!skill) return { status: "rejected" as const, call, note: `${call.robot} has no skill ${call.skill}` };
      const args: Record<string, string> = {};
      const notes: string[] = [];
      for (const [key, value] of Object.entries(call.args)) {
        const parameter = skill.parameters.properties[key];
        if (!parameter) return { status: "rejected" as const, call, note: `${call.skill} takes no argument ${key}` };
        const allowed = (parameter.enum ?? []).map(String);
        if (!allowed.length || allowed.includes(value)) {
          args[key] = value;
          continue;
        }
        const fixed = closestName(value, allowed);
        if (!fixed)
          return { status: "rejected" as const, call, note: `${key}=${value} names nothing ${call.robot} knows` };
        args[key] = fixed;
        notes.push(`${value} → ${fixed}`);
      }
      const missing = skill.parameters.required.filter((k) => !(k in args));
      if (missing.length) return { status: "rejected" as const, call, note: `missing ${missing.join(", ")}` };
      return notes.length
        ? { status: "remapped" as const, call: { ...call, args }, note: `remapped ${notes.join(", ")}` }
        : { status: "ok" as const, call, note: "" };
    }),
  };
}

// ---- critic --------------------------------------------------------------------------------------------------------

export interface CritiqueContext {
  goal?: string;
  action: SkillCall;
  belief: Belief;
  /** History entries after the belief was written (the critic may run beside the summarizer). */
  since?: HistoryEntry[];
  observation: Observation | null;
  robots: RobotManifest[];
  world: WorldDescription;
}

export function critique(ctx: CritiqueContext, noise: NoiseKnobs, rng: Draw): Critique {
  const honest = judge(ctx);
  if (honest.verdict === "ok" && rng.next() < noise.criticFalseAlarm) {
    return {
      verdict: "outdated",
      feedback: `the image suggests the scene has changed since the plan was made; look again before ${ctx.action.skill}`,
    };
  }
  if (honest.verdict !== "ok" && rng.next() < noise.criticMiss)
    return { verdict: "ok", feedback: "the action looks consistent with the scene" };
  return honest;
}

function judge(ctx: CritiqueContext): Critique {
  let action = ctx.action;
  const observation = ctx.observation;
  const robot = ctx.robots.find((m) => m.id === action.robot);
  const skill = robot?.skills.find((k) => k.name === action.skill);
  if (!robot || !skill) return { verdict: "invalid", feedback: `${action.robot} has no skill ${action.skill}` };
  for (const [k, v] of Object.entries(action.args)) {
    const allowed = skill.parameters.properties[k]?.enum?.map(String);
    if (!allowed || !allowed.includes(v))
      return { verdict: "invalid", feedback: `${k}=${v} is not a valid argument of ${action.robot}.${action.skill}` };
  }
  // The belief brought up to date with what it does not hold yet, then corrected by what the acting robot sees now.
  const belief =
    ctx.since?.length && ctx.goal
      ? summarize({
          goal: ctx.goal,
          previousBelief: ctx.belief,
          entries: ctx.since,
          robots: ctx.robots.map((r) => r.id),
          world: ctx.world,
        })
      : structuredClone(ctx.belief);
  if (observation) applyObservation(belief, observation, ctx.world.labels, true);
  // Judge the action in the belief's own words for its objects.
  if (action.args.object) {
    const named = closestName(action.args.object, belief.objects.map((x) => x.name).filter(isThingName));
    if (named) action = { ...action, args: { ...action.args, object: named } };
  }
  const facts = beliefFacts(belief, ctx.world);
  const objects = Object.values(action.args).filter((v) => ctx.world.labels.includes(v));
  const dom = domainFor(ctx, objects);

  // Already done?
  if (action.skill === "open" && belief.containers.find((c) => c.name === action.args.target)?.state === "open")
    return { verdict: "redundant", feedback: `the ${action.args.target} is already open` };
  if (action.skill === "close" && belief.containers.find((c) => c.name === action.args.target)?.state === "closed")
    return { verdict: "redundant", feedback: `the ${action.args.target} is already closed` };
  if (
    action.skill === "go_to" &&
    belief.robotsAt.find((x) => x.robot === action.robot)?.at === action.args.navigation_point
  )
    return { verdict: "redundant", feedback: `${action.robot} is already at ${action.args.navigation_point}` };
  if (
    action.skill === "release_to" &&
    belief.objects.some((x) => x.name === action.args.object && x.place === action.args.place)
  )
    return { verdict: "redundant", feedback: `the ${action.args.object} is already in the ${action.args.place}` };

  const unmet = firstUnmet(dom, { robot: action.robot, skill: action.skill, args: action.args }, facts);
  if (!unmet)
    return (
      progress(ctx, belief, action, facts) ?? {
        verdict: "ok",
        feedback: "preconditions hold in the current view and belief, and it brings the goal closer",
      }
    );
  const parsed = parseLiteral(unmet);
  if (parsed.pred === "in" && !parsed.negated) {
    const [obj, place] = parsed.args;
    if (observation?.visiblePlaces.includes(place))
      return {
        verdict: "outdated",
        feedback: `the ${obj} is not in the ${place} any more: the current image shows the ${place} without it`,
      };
    return { verdict: "wrong_plan", feedback: `the ${obj} is not known to be in the ${place}` };
  }
  if (parsed.pred === "reaches" || parsed.pred === "serves")
    return { verdict: "invalid", feedback: `${action.robot} cannot reach the ${parsed.args[1] ?? parsed.args[0]}` };
  if (parsed.pred === "closed" && parsed.negated)
    return { verdict: "wrong_plan", feedback: `the ${parsed.args[0]} is closed; open it first` };
  if (parsed.pred === "at")
    return { verdict: "wrong_plan", feedback: `${action.robot} is not in front of the place; go there first` };
  if (parsed.pred === "hand_empty") return { verdict: "wrong_plan", feedback: `${action.robot}'s hand is not free` };
  if (parsed.pred === "holding")
    return { verdict: "wrong_plan", feedback: `${action.robot} is not holding the ${parsed.args[1]}` };
  if (parsed.pred === "full") return { verdict: "wrong_plan", feedback: `the ${parsed.args[0]} is full` };
  return { verdict: "wrong_plan", feedback: `precondition ${unmet} does not hold` };
}

/**
 * An action that can run may still be the wrong one: when every goal object's place is known, it must shorten the
 * shortest plan to the goal (an action that leaves the goal as far, or farther, serves some other purpose).
 */
function progress(ctx: CritiqueContext, belief: Belief, action: SkillCall, facts: string[]): Critique | undefined {
  if (!ctx.goal) return undefined;
  const { goals } = readGoal(ctx.goal, ctx.world);
  const known = belief.objects.map((o) => o.name).filter(isThingName);
  const open = goals
    .filter((g) => !holdsInBelief(g, belief) && g.startsWith("in("))
    .map((goal) => {
      const parsed = parseLiteral(goal);
      return `in(${closestName(parsed.args[0], known) ?? parsed.args[0]}, ${parsed.args[1]})`;
    });
  // Still searching (or only "find" goals): any step that looks somewhere is fair.
  if (!open.length || open.some((g) => !known.includes(parseLiteral(g).args[0]))) return undefined;
  const held = belief.holding.flatMap((h) => (h.object ? [h.object] : []));
  const dom = domainFor(ctx, [
    ...new Set([
      ...open.map((g) => parseLiteral(g).args[0]),
      ...held,
      ...(action.args.object ? [action.args.object] : []),
    ]),
  ]);
  const before = search(dom, facts, open, 20_000);
  if (!before) return undefined;
  const next = afterAction(dom, { robot: action.robot, skill: action.skill, args: action.args }, facts);
  const after = next ? search(dom, next, open, 20_000) : undefined;
  if (after && after.plan.length < before.plan.length) return undefined;
  return {
    verdict: "wrong_plan",
    feedback: `${action.robot}.${action.skill}(${Object.values(action.args).join(", ")}) does not bring ${open.join(" and ")} any closer`,
  };
}

// ---- goal check ----------------------------------------------------------------------------------------------------

export function checkGoal(ctx: { goal: string; belief: Belief; world: WorldDescription }): GoalCheck {
  const { goals, notUnderstood } = readGoal(ctx.goal, ctx.world);
  // A part not understood is never done: the understood rest holding is not the task holding.
  const remaining = [
    ...goals.filter((g) => !holdsInBelief(g, ctx.belief)),
    ...(notUnderstood.length ? [notUnderstoodText(notUnderstood)] : []),
  ];
  return { achieved: goals.length > 0 && remaining.length === 0, remaining };
}

/** CLEA's tasks, by the name each node's context block carries. */
/** The summarizer's task: the belief, and whether it shows the task complete (one answer, as the goal check gives it). */
function summarizeAndJudge(ctx: Parameters<typeof summarize>[0]) {
  const belief = summarize(ctx);
  return { ...belief, ...checkGoal({ goal: ctx.goal, belief, world: ctx.world }) };
}

export const TASKS: Record<string, Task> = {
  perceive,
  summarize: summarizeAndJudge,
  plan,
  verify,
  critique,
  check_goal: checkGoal,
};
