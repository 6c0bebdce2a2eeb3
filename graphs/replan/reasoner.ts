/**
 * The symbolic reasoner for RePLan's hierarchical mode. Like the rest of the symbolic backend it reads only what a
 * node puts in its prompt — the scene's vocabulary (objects, joints, targets), detections with boxes and colours, the
 * plan, answers, failure messages — and writes plain sentences in a small fixed phrasing that its own planner can read
 * back. Reward terms come from the declared structure (which joint opens what, which handle moves it); diagnoses come
 * from detections of what stands in the way. Seeded noise reproduces what the verifier and the replanning catch.
 */
import type { WorldDescription } from "../../robots/manifests/schema";
import type { RewardTermInput } from "../../robots/msgs/motion";
import { termNames } from "../../robots/msgs/motion";
import type {
  Diagnosis,
  FailureReasons,
  HighLevelPlan,
  MotionDraft,
  NameCheck,
  PlanCheck,
  PlanStep,
  SceneScan,
  StepCheck,
  TermCheck,
  VisionAnswer,
  VisionQuestions,
} from "./schemas";
import type { GoalCheck } from "../../models/answers";
import {
  alias,
  canonicalText,
  closestName,
  lexicon,
  namesThing,
  notUnderstoodMessage,
} from "../../models/reasoning/language";
import { restate } from "../../models/reasoning/phrasing";
import { mentioned, missingArgument, NO_CAUSE_SEEN, vocabulary, type SceneDetections } from "./checks";

export type { SceneDetections } from "./checks";
import { perceived, type Draw, type NoiseKnobs, type Task } from "../../models/symbolic/noise";
import { meaningHash } from "../../models/symbolic/meaning";

/** The perceiver's draws about one thing in a view: its detection there, or its name where it was not detected. */
const thingDraw = (rng: Draw, view: string, label: string, detection: unknown) =>
  perceived(rng, view, detection ? meaningHash(detection) : `absent:${label}`);

const NAME = "([a-z][a-z0-9_]*)";
/** The words before a name in a goal ("the", "a", "my", "their", …): none of them changes which thing is meant. */
const ARTICLE = "(?:the |a |an |my |your |our |his |her |their |this |that )?";
const isContainer = (world: WorldDescription, name: string) =>
  world.places.some((p) => p.name === name && p.kind === "container");
const jointOf = (world: WorldDescription, object: string) =>
  (world.joints ?? []).find((j) => j.object === object || j.name === object);

// ---- perceiver: scan, answers, diagnosis ---------------------------------------------------------------------------

export function scan(
  ctx: { world: WorldDescription; detections: SceneDetections },
  noise: NoiseKnobs,
  rng: Draw,
): SceneScan {
  const visible: string[] = [];
  // RePLan asks "do you see X?" once per known object; a miss is a "no". Faults belong to the view and the thing.
  const view = meaningHash(ctx.detections);
  for (const label of ctx.world.labels) {
    const detection = ctx.detections.detections.find((x) => x.label === label);
    const draw = thingDraw(rng, view, label, detection).next();
    if (detection && draw >= noise.missDetection) visible.push(label);
    else if (!detection && draw < noise.hallucinate / 4) visible.push(label);
  }
  const facts = ctx.detections.places
    .filter((p) => isContainer(ctx.world, p.name))
    .map((p) => `the ${p.name} is ${p.state}`);
  // Where each visible loose thing rests, when that is on or in something other than the floor, and its colour.
  const loose = looseThings(ctx.world);
  for (const d of ctx.detections.detections) {
    if (
      visible.includes(d.label) &&
      d.location.relation !== "held_by" &&
      d.location.place !== "floor" &&
      d.location.place !== d.label
    )
      facts.push(`the ${d.label} is ${d.location.relation} the ${d.location.place}`);
    if (visible.includes(d.label) && loose.includes(d.label) && d.color) facts.push(`the ${d.label} is ${d.color}`);
  }
  return { visible, facts: [...new Set(facts)] };
}

/** Things that can be moved: the scene's labels that are no place, no thing on a joint and no handle. */
function looseThings(world: WorldDescription): string[] {
  const fixed = new Set([
    ...world.places.map((p) => p.name),
    ...(world.joints ?? []).flatMap((j) => [j.object, j.handle]),
  ]);
  return world.labels.filter((l) => !fixed.has(l));
}

/** The colour the facts give a thing ("the crate is red"), not a door's state. */
const colourOf = (thing: string, facts: string[]) =>
  facts
    .map((f) => new RegExp(`^the ${thing} is ([a-z]+)$`).exec(f)?.[1])
    .find((c) => c && c !== "open" && c !== "closed");

/** The loose thing the facts say has this colour. */
const thingOfColour = (colour: string | undefined, world: WorldDescription, facts: string[]) =>
  colour ? looseThings(world).find((t) => colourOf(t, facts) === colour) : undefined;

export function answer(
  ctx: { question: string; world: WorldDescription; detections: SceneDetections },
  noise: NoiseKnobs,
  rng: Draw,
): VisionAnswer {
  const question = ctx.question;
  const det = (name: string) => ctx.detections.detections.find((d) => d.label === name);
  // Faults belong to the view and the thing asked about, not to the question's words: the same draw as the scan's.
  const view = meaningHash(ctx.detections);
  const about = (n: string) => thingDraw(rng, view, n, det(n));
  const name = (n: string) => (perceived(rng, view, `name:${n}`).next() < noise.misname ? alias(n) : n);
  let match: RegExpExecArray | null;
  if ((match = new RegExp(`is the ${NAME} inside the ${NAME}`, "i").exec(question))) {
    const [, x, container] = match;
    const place = ctx.detections.places.find((p) => p.name === container);
    const detection = det(x);
    const missed = about(x).next() < noise.missDetection;
    if (detection && !missed)
      return {
        question: question,
        answer:
          detection.location.place === container
            ? `Yes, the ${name(x)} is inside the ${container}.`
            : `The ${name(x)} is ${detection.location.relation} the ${detection.location.place}, not inside the ${container}.`,
      };
    if (!place || place.state === "closed" || place.insidePixels < 150)
      return { question: question, answer: `The inside of the ${container} is not in view.` };
    return {
      question: question,
      answer: `No, the ${x} is not inside the ${container}; its inside is in view and empty of it.`,
    };
  }
  if ((match = new RegExp(`what colou?r is the ${NAME}`, "i").exec(question))) {
    const detection = det(match[1]);
    return {
      question: question,
      answer: detection?.color ? `The ${match[1]} is ${detection.color}.` : `I do not see the ${match[1]}.`,
    };
  }
  if ((match = new RegExp(`is the ${NAME} (?:in view|visible)`, "i").exec(question))) {
    const seen = !!det(match[1]) && about(match[1]).next() >= noise.missDetection;
    return {
      question: question,
      answer: seen ? `Yes, the ${match[1]} is in view.` : `No, the ${match[1]} is not in view.`,
    };
  }
  if ((match = new RegExp(`is the ${NAME} on the ${NAME}`, "i").exec(question))) {
    const detection = det(match[1]);
    return {
      question: question,
      answer:
        detection && detection.location.place === match[2]
          ? `Yes, the ${match[1]} is on the ${match[2]}.`
          : `No, the ${match[1]} is not on the ${match[2]}.`,
    };
  }
  if ((match = new RegExp(`is the ${NAME} open`, "i").exec(question))) {
    const place = ctx.detections.places.find((x) => x.name === match![1]);
    return {
      question: question,
      answer: place ? `The ${match[1]} is ${place.state}.` : `I do not see the ${match[1]}.`,
    };
  }
  return { question: question, answer: "I cannot tell from the image." };
}

const overlap = (first: SceneDetections["detections"][0]["box"], second: SceneDetections["detections"][0]["box"]) =>
  Math.max(0, Math.min(first.x + first.w, second.x + second.w) - Math.max(first.x, second.x)) *
  Math.max(0, Math.min(first.y + first.h, second.y + second.h) - Math.max(first.y, second.y));
const gap = (first: SceneDetections["detections"][0]["box"], second: SceneDetections["detections"][0]["box"]) =>
  Math.hypot(
    Math.max(0, first.x - (second.x + second.w), second.x - (first.x + first.w)),
    Math.max(0, first.y - (second.y + second.h), second.y - (first.y + first.h)),
  );

/**
 * Why could the robot not do `action`? Looks for what stands in the way of the thing acted on: something resting on
 * it, or something whose box covers its handle or its front. With nothing in the way, something beside it that has
 * its own joint or is a fixed surface may be what keeps it shut.
 */
export function diagnose(
  ctx: { action: string; world: WorldDescription; detections: SceneDetections; phrasing: string },
  noise: NoiseKnobs,
  rng: Draw,
): Diagnosis {
  const names = vocabulary(ctx.world);
  // A target point stands for the place it is in: "move X to target_position" acts on the cabinet around it.
  const inAction = mentioned(ctx.action, names).map(
    (n) => (ctx.world.targets ?? []).find((t) => t.name === n)?.place ?? n,
  );
  const target = [...inAction].reverse().find((n) => ctx.world.labels.includes(n)) ?? inAction.at(-1);
  const moved = inAction.filter((n) => n !== target);
  const dets = ctx.detections.detections;
  const parts = new Set([target, ...(ctx.world.joints ?? []).filter((j) => j.object === target).map((j) => j.handle)]);
  const targetBoxes = dets.filter((d) => d.label && parts.has(d.label));
  const handles = new Set((ctx.world.joints ?? []).map((j) => j.handle));
  const fixtures = new Set([...ctx.world.places.map((p) => p.name), ...(ctx.world.joints ?? []).map((j) => j.object)]);
  const candidates = dets.filter((d) => !parts.has(d.label) && !moved.includes(d.label) && !handles.has(d.label));
  // What can stand in the way is a loose thing; fixtures and their handles stay where they are built.
  // What is inside the target is its contents (seen through a door ajar), not something in front of it.
  const loose = candidates.filter(
    (d) => !fixtures.has(d.label) && !(d.location.relation === "in" && d.location.place === target),
  );
  // Faults belong to the view and the thing failed on, not to the phrasing or the controller's words: a view asked
  // about again answers as before, as a model at temperature 0 would.
  const seen = perceived(rng, meaningHash(ctx.detections), `diagnosis:${target}`);
  const missDraw = seen.next();
  const hallucinateDraw = seen.next();
  const misnameDraw = seen.next();
  const say = (n: string) => (misnameDraw < noise.misname ? alias(n) : n);
  if (missDraw < noise.missDetection * 1.5) return { explanation: "Nothing in the scene seems to prevent it." };
  if (hallucinateDraw < noise.hallucinate && loose.length) {
    const wrong = loose[Math.floor(seen.next() * loose.length)].label;
    return { explanation: `The ${say(wrong)} is blocking the ${target}.` };
  }
  // Something resting on the target holds its room; a thing inside a container with a door is its contents, not in the way.
  const resting = loose.find((d) => d.location.place === target && d.location.relation === "on");
  if (resting)
    return { explanation: `The ${say(resting.label)} is already on the ${target}, and it holds one thing at a time.` };
  const tBox = targetBoxes.find((t) => t.label === target)?.box;
  // In front of it: on the floor nearer the camera than its front, so its box reaches lower in the image than the
  // target's (a thing set down beside or behind it covers its box too, but stands in no door's way).
  const inFront = (b: SceneDetections["detections"][0]["box"]) => !tBox || b.y + b.h > tBox.y + tBox.h;
  const scored = loose
    .map((detection) => ({
      d: detection,
      handle: targetBoxes.filter((t) => t.label !== target).reduce((s, t) => s + overlap(detection.box, t.box), 0),
      body: targetBoxes.filter((t) => t.label === target).reduce((s, t) => s + overlap(detection.box, t.box), 0),
    }))
    .filter((x) => x.handle > 0 || (x.body > 0.15 * x.d.box.w * x.d.box.h && inFront(x.d.box)))
    .sort((a, b) => b.handle - a.handle || b.body - a.body);
  if (scored.length) return { explanation: `The ${say(scored[0].d.label)} is blocking the ${target}.` };
  const near = candidates
    // What could hold a door shut from beside it: a thing that moves on a joint of its own (a lever), or a fixed
    // surface something could be set on (a plate, a pad).
    .filter(
      (detection) =>
        (ctx.world.joints ?? []).some((j) => j.object === detection.label) ||
        ctx.world.places.some((p) => p.name === detection.label && p.kind === "surface"),
    )
    .sort((a, b) => (tBox ? gap(a.box, tBox) - gap(b.box, tBox) : 0));
  // Only something with a door can be locked.
  const lockable = !!target && (ctx.world.joints ?? []).some((j) => j.object === target);
  if (near.length && lockable)
    return {
      explanation: `Nothing stands in front of the ${target}, so the ${target} is locked; the ${say(near[0].label)} beside it may unlock it.`,
    };
  const place = target && ctx.detections.places.find((p) => p.name === target);
  if (place && place.state === "closed" && isContainer(ctx.world, target!))
    return { explanation: `The ${target} is closed.` };
  return { explanation: "Nothing in the scene seems to prevent it." };
}

// ---- verifier: names, plans, terms ---------------------------------------------------------------------------------

/** Replaces every snake_case word that is not a scene name but is close to one. */
function remapNames(text: string, names: string[]): { text: string; changed: boolean; unknown: string[] } {
  let changed = false;
  const unknown: string[] = [];
  const out = text.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+s?\b|\b[a-z]+s\b/g, (word) => {
    if (names.includes(word)) return word;
    const closest = closestName(word, names);
    if (closest && closest !== word) {
      changed = true;
      return closest;
    }
    if (word.includes("_")) unknown.push(word);
    return word;
  });
  return { text: out, changed, unknown };
}

export function checkNames(ctx: { sentence: string; world: WorldDescription }): NameCheck {
  const remapped = remapNames(ctx.sentence, vocabulary(ctx.world));
  return { wrongNames: remapped.changed || remapped.unknown.length > 0, rewritten: remapped.text };
}

export function verifyPlan(ctx: { steps: PlanStep[]; world: WorldDescription }): PlanCheck {
  const names = vocabulary(ctx.world);
  return {
    steps: ctx.steps.map((step) => {
      const remapped = remapNames(step.action, names);
      if (remapped.unknown.length)
        return { status: "rejected" as const, step, note: `no ${remapped.unknown.join(", ")} in this scene` };
      const missing = missingArgument(remapped.text, names);
      if (missing) return { status: "rejected" as const, step, note: missing };
      return remapped.changed
        ? {
            status: "remapped" as const,
            step: { ...step, action: remapped.text },
            note: "renamed to the scene's names",
          }
        : { status: "ok" as const, step, note: "" };
    }),
  };
}

/**
 * RePLan's two verifier checks on a motion: a term stays only if the motion-plan line it claims to serve names what
 * the term acts on (B.7), and the primary term is the one serving the line after which the action is done (B.8).
 */
export function checkTerms(ctx: { step: string; draft: MotionDraft; world: WorldDescription }): TermCheck {
  const names = vocabulary(ctx.world);
  const lineNames = ctx.draft.description.map((line) => {
    const named = new Set(["palm", ...mentioned(line, names)]);
    for (const n of [...named])
      for (const j of ctx.world.joints ?? [])
        if (j.object === n || j.name === n) [j.name, j.handle].forEach((x) => named.add(x));
    return named;
  });
  const terms = ctx.draft.terms.map((t) => t.term as RewardTermInput);
  const approached = new Set(
    terms.flatMap((term) =>
      term.kind === "minimize_l2_distance" && (term.a === "palm" || term.b === "palm")
        ? [term.a === "palm" ? term.b : term.a]
        : [],
    ),
  );
  const keep = ctx.draft.terms
    .map((t, index) => ({ index, line: t.line, t: t.term as RewardTermInput }))
    .filter(({ t, line }) => line >= 0 && line < lineNames.length && termNames(t).every((n) => lineNames[line].has(n)))
    // Pushing the palm away from what it must grasp serves no line of a plan that grasps it.
    .filter(
      ({ t: term }) =>
        !(
          term.kind === "maximize_l2_distance" &&
          (term.a === "palm" || term.b === "palm") &&
          approached.has(term.a === "palm" ? term.b : term.a)
        ),
    );
  const last = Math.max(-1, ...keep.map((k) => k.line));
  const onLast = keep.filter((k) => k.line === last);
  const primary = (onLast.find(({ t }) => !termNames(t).includes("palm")) ?? onLast.at(-1))?.index ?? 0;
  return { keep: keep.map(({ index, line }) => ({ index, line })), primary };
}

// ---- planner: high level, questions, step check, low level, reasons -------------------------------------------------

export interface Goal {
  kind: "find" | "place" | "open" | "match_colour";
  object?: string;
  place?: string;
  /** For "open … unlocked by putting X on it": what the instruction says to put … */
  key?: string;
  /** … and where: the surface it names for it ("on the weight sensor", or "on it" after naming one). */
  keyPlace?: string;
}

/**
 * What a RePLan instruction asks, read in the scene's names: phrases reach names through the world description's
 * display names and aliases, then word overlap ("the yellow block" → yellow_cube; "the wooden cupboard" →
 * wooden_cabinet), and verbs reach the reader's own (move, place, bring → put; locate, look for → find). A container
 * with a target point inside stands for that point. Undefined, with the message to give, when it names no goal.
 */
export function readTabletopGoal(goal: string, world: WorldDescription): { goal?: Goal; message?: string } {
  const lex = lexicon(world);
  const read = canonicalText(goal, lex);
  const names = vocabulary(world);
  const isLabel = (n?: string) => !!n && world.labels.includes(n);
  const isName = (n?: string) => !!n && (names.includes(n) || world.places.some((p) => p.name === n));
  // `asWritten`: the instruction as written, where a restatement may have dropped the key's clause ("… which unlocks when …").
  const goalIn = (sentence: string, asWritten = sentence): Goal | undefined => {
    let match: RegExpExecArray | null;
    // The place whose colour is to be matched: the first of these ways of saying it that names one.
    const colour = [
      /(?:same colou?r as|colou?r of|colou?r is the same as|matching|match(?:es)?) (?:that of )?(?:the )?([a-z][a-z0-9_]*)/,
      /the ([a-z][a-z0-9_]*)'s colou?r/,
      /\bmatching (?:cube|block|one) (?:on|onto|in|into|to) (?:the )?([a-z][a-z0-9_]*)/,
      /\b(?:cube|block|one) of the same colou?r (?:on|onto|in|into|to) (?:the )?([a-z][a-z0-9_]*)/,
    ]
      // Every place each way says it, not only the first ("colour-matching trial: … the same colour as the crate").
      .flatMap((r) => [...sentence.matchAll(new RegExp(r.source, "g"))]);
    if (colour.length) {
      const named = colour.find((x) => isName(x[1]));
      return named ? { kind: "match_colour" as const, place: named[1] } : undefined;
    }
    if ((match = new RegExp(`\\bfind ${ARTICLE}${NAME}`).exec(sentence)) && isLabel(match[1]))
      return { kind: "find" as const, object: match[1] };
    if (
      (match = new RegExp(`\\bopen ${ARTICLE}${NAME}`).exec(sentence)) &&
      (world.joints ?? []).some((j) => j.object === match![1])
    ) {
      // The key, said actively ("by putting the red cube on the sensor") or passively ("when the red cube is placed on
      // the sensor"): the thing, then the surface.
      const hintIn = (said: string) =>
        new RegExp(
          `(?:putting|placing|setting|resting|puts|places|put|place|set|rest|rests|lay|laying) (?:something (?:heavy )?(?:like|such as) )?(?:the )?${NAME} (?:on|onto) (?:the )?${NAME}`,
        ).exec(said) ??
        new RegExp(
          `(?:the )?${NAME} (?:is|are|gets|get|has been|have been|was|were|be|being) (?:put|placed|set|rested|laid|left) (?:on|onto|on top of) (?:the )?${NAME}`,
        ).exec(said) ??
        new RegExp(
          `(?:the )?${NAME} (?:on|onto|on top of) (?:the )?${NAME} (?:unlocks|opens|will unlock|will open|should unlock|would unlock)`,
        ).exec(said) ??
        new RegExp(
          `(?:the )?${NAME},? (?:rests|sits|lies|is resting|is sitting|is lying|resting|sitting|lying|weighs down|presses|pushes down) (?:on|onto|on top of) (?:the )?${NAME}`,
        ).exec(said) ??
        // "Its lock releases when the red cube is on the sensor": the condition, said of the thing where it sits.
        new RegExp(
          `(?:when|once|if|after) (?:the )?${NAME} (?:is|are|sits|rests|lies|gets put|is put|is placed) (?:on|onto|on top of) (?:the )?${NAME}`,
        ).exec(said);
      const hint = hintIn(sentence) ?? hintIn(asWritten);
      const key = isLabel(hint?.[1]) ? hint![1] : undefined;
      // "… on it": the surface the instruction named for it (the only one it names besides the goal's own place).
      const surfaces = world.places.filter((p) => p.kind === "surface" && p.name !== match![1]).map((p) => p.name);
      const named = mentioned(hint && !hintIn(sentence) ? asWritten : sentence, surfaces);
      const keyPlace = key
        ? surfaces.includes(hint![2])
          ? hint![2]
          : named.length === 1
            ? named[0]
            : undefined
        : undefined;
      return { kind: "open" as const, place: match[1], ...(key ? { key } : {}), ...(keyPlace ? { keyPlace } : {}) };
    }
    if (
      (match = new RegExp(
        `\\b(?:move|place|put|bring) (?:the )?(?:${NAME} )?${NAME}(?: cube)? (?:to|on|onto|in|into|inside|at) ${ARTICLE}${NAME}`,
      ).exec(sentence))
    ) {
      // "place the red cube on the crate": adjective + noun joined to the scene's name when there is one.
      const joined = match[1] ? `${match[1]}_${match[2]}` : match[2];
      const object = names.includes(joined)
        ? joined
        : names.includes(`${match[2]}_cube`)
          ? `${match[2]}_cube`
          : match[2];
      // "into the cabinet" means the target point inside it, where the scene has one.
      const place = (world.targets ?? []).find((t) => t.place === match![3])?.name ?? match[3];
      return isLabel(object) && isName(place) ? { kind: "place" as const, object, place } : undefined;
    }
    return undefined;
  };
  // As written first; then as the NLP library parses the sentence (passives, polite frames, "it" for the thing named).
  const plain = restate(goal, namesThing(lex));
  const restated = plain !== goal && plain ? canonicalText(plain, lex).text.toLowerCase() : undefined;
  let found = (restated ? goalIn(restated, read.text.toLowerCase()) : undefined) ?? goalIn(read.text.toLowerCase());
  // "Open the cabinet and put the cube inside it": opening is the way in; putting the cube there is the goal.
  if (found?.kind === "open") {
    const after = restated ?? read.text.toLowerCase();
    const rest = goalIn(after.replace(new RegExp(`\\bopen (?:the )?${found.place}\\b`, "g"), ""));
    if (
      rest?.kind === "place" &&
      ((world.targets ?? []).find((t) => t.name === rest.place)?.place ?? rest.place) === found.place
    )
      found = rest;
  }
  if (found) return { goal: found };
  // Every word placed and still no goal: say what a goal here looks like ("place the red_cube on the" names no place).
  const missing = read.unplaced.length
    ? []
    : [
        {
          words: goal.trim(),
          closest: [],
          why: "no goal I can read in it: find X, open X, put X on/in P, or put the cube of P's colour on P, with X and P from this scene",
        },
      ];
  return {
    message: notUnderstoodMessage({ notUnderstood: [goal.trim()], unplaced: [...read.unplaced, ...missing] }, lex),
  };
}

/** A reading as the goal literals a tabletop scene is checked by (none for a colour match: the colour is to be seen). */
export function goalLiterals(goal: Goal, world: WorldDescription): string[] {
  const container = (place: string) =>
    (world.targets ?? []).find((t) => t.name === place)?.place ?? (isContainer(world, place) ? place : undefined);
  switch (goal.kind) {
    case "find":
      return [`in_view(${goal.object})`];
    case "open":
      return [`open(${goal.place})`];
    case "place": {
      const holder = container(goal.place!);
      return [holder ? `inside(${goal.object}, ${holder})` : `on(${goal.object}, ${goal.place})`];
    }
    case "match_colour":
      return [];
  }
}

/** The step that brings `object` to `place`: a target point, a surface or a container. */
const placeStep = (object: string, place: string, world: WorldDescription): PlanStep =>
  (world.targets ?? []).some((t) => t.name === place)
    ? { kind: "motion", action: `move the ${object} to the ${place}` }
    : { kind: "motion", action: `place the ${object} on the ${place}` };

/** What a reason asks to be done first: clear something out of the way, or unlock. */
function prerequisite(reason: string, goal: Goal, world: WorldDescription): PlanStep | undefined {
  let match: RegExpExecArray | null;
  if ((match = new RegExp(`the ${NAME} is (?:blocking|already on) the ${NAME}`, "i").exec(reason)))
    return { kind: "motion", action: `move the ${match[1]} away from the ${match[2]}` };
  if ((match = new RegExp(`the ${NAME} is locked; the ${NAME} beside it`, "i").exec(reason))) {
    const opener = match[2];
    if ((world.joints ?? []).some((j) => j.object === opener)) return { kind: "motion", action: `pull the ${opener}` };
    // Something to rest on it: only what the instruction names can be the key; with none named there is nothing to try.
    return goal.key ? { kind: "motion", action: `place the ${goal.key} on the ${goal.keyPlace ?? opener}` } : undefined;
  }
  if ((match = new RegExp(`the ${NAME} is closed`, "i").exec(reason)))
    return { kind: "motion", action: `open the ${match[1]}` };
  return undefined;
}

export interface HighLevelContext {
  goal: string;
  world: WorldDescription;
  scene: string[];
  facts: string[];
  /** Reasons diagnosed for failed steps of this procedure (B.13). */
  reasons: { step: string; reason: string }[];
  /** Procedures that ended without the goal (B.18). */
  failedAttempts: { thought: string; steps: PlanStep[]; failedStep: string | null; reason: string }[];
  replansSoFar: number;
  proceduresSoFar: number;
}

export function highLevelPlan(ctx: HighLevelContext, noise: NoiseKnobs, rng: Draw): HighLevelPlan {
  const read = readTabletopGoal(ctx.goal, ctx.world);
  // No steps for an instruction it cannot read: the message says which words, and what it knows.
  if (!read.goal) return { thought: read.message!, steps: [] };
  const goal = read.goal;
  const { thought, steps: planned } = baseSteps(goal, ctx);
  let steps = planned;
  for (const c of steps.flatMap((s) => /^open the ([a-z][a-z0-9_]*)$/.exec(s.action)?.[1] ?? []))
    steps = mechanismFirst(c, steps, ctx);
  // Each diagnosed reason puts what it calls for before the step it stopped.
  for (const r of ctx.reasons) {
    const pre = prerequisite(r.reason, goal, ctx.world);
    if (!pre || steps.some((s) => s.action === pre.action)) continue;
    const at = steps.findIndex((s) => s.action === r.step);
    steps.splice(at < 0 ? 0 : at, 0, pre);
  }
  return { thought, steps: corruptPlan(steps, ctx, noise, rng) };
}

function baseSteps(goal: Goal, ctx: HighLevelContext): HighLevelPlan {
  const isOpen = (c: string) => ctx.facts.includes(`the ${c} is open`);
  const world = ctx.world;
  switch (goal.kind) {
    case "find": {
      const x = goal.object!;
      if (seenIn(x, ctx.scene, ctx.facts))
        return {
          thought: `The ${x} is already in view.`,
          steps: [{ kind: "vision", action: `check that the ${x} is in view` }],
        };
      const containers = world.places.filter((p) => p.kind === "container").map((p) => p.name);
      const searched = new Set(
        ctx.facts.flatMap((f) => new RegExp(`the ${x} is not inside the ${NAME}`).exec(f)?.[1] ?? []),
      );
      // A container whose opening failed with no known cause is tried last.
      const stuck = new Set(
        ctx.failedAttempts.flatMap((a) => a.failedStep?.match(/^open the ([a-z][a-z0-9_]*)/)?.[1] ?? []),
      );
      const order = containers
        .filter((c) => !searched.has(c))
        .sort((a, b) => Number(stuck.has(a)) - Number(stuck.has(b)));
      const lookIn = order[0] ?? containers[0];
      if (!lookIn) return { thought: `There is nowhere to look for the ${x}.`, steps: [] };
      const steps: PlanStep[] = isOpen(lookIn) ? [] : [{ kind: "motion", action: `open the ${lookIn}` }];
      steps.push({ kind: "vision", action: `look inside the ${lookIn} for the ${x}` });
      return { thought: `The ${x} is not in view; it may be inside the ${lookIn}.`, steps };
    }
    case "open": {
      // The instruction's hint is worth following once the plain way has failed.
      if (goal.key && goal.keyPlace && ctx.failedAttempts.length) {
        return {
          thought: `Opening it directly failed; unlock it as the instruction says first.`,
          steps: [
            { kind: "motion", action: `place the ${goal.key} on the ${goal.keyPlace}` },
            { kind: "motion", action: `open the ${goal.place}` },
          ],
        };
      }
      return {
        thought: `Open the ${goal.place} by its handle.`,
        steps: [{ kind: "motion", action: `open the ${goal.place}` }],
      };
    }
    case "match_colour": {
      const colour = colourOf(goal.place!, ctx.facts);
      const thing = thingOfColour(colour, world, ctx.facts);
      if (thing)
        return {
          thought: `The ${goal.place} is ${colour}, and so is the ${thing}: it goes on it.`,
          steps: [placeStep(thing, goal.place!, world)],
        };
      return {
        thought: `First see what colour the ${goal.place} is, then move the cube of that colour.`,
        steps: [
          { kind: "vision", action: `check the colour of the ${goal.place}` },
          { kind: "motion", action: `place the cube with the same colour as the ${goal.place} on the ${goal.place}` },
        ],
      };
    }
    case "place": {
      const x = goal.object ?? "";
      const place = goal.place ?? "";
      const container =
        (world.targets ?? []).find((t) => t.name === place)?.place ?? (isContainer(world, place) ? place : undefined);
      const steps: PlanStep[] =
        container && !isOpen(container) ? [{ kind: "motion", action: `open the ${container}` }] : [];
      steps.push(placeStep(x, place, world));
      return {
        thought:
          container && !isOpen(container)
            ? `The ${container} is closed: open it, then move the ${x}.`
            : `Move the ${x}.`,
        steps,
      };
    }
  }
}

/**
 * Whether `x` has been seen: a look that found it (in view, or inside something) settles it; otherwise the scan's list
 * does, unless a look asked about it directly and did not find it.
 */
function seenIn(x: string, scene: string[], facts: string[]): boolean {
  if (facts.includes(`the ${x} is in view`) || facts.some((f) => f.startsWith(`the ${x} is inside `))) return true;
  return scene.includes(x) && !facts.includes(`the ${x} is not in view`);
}

/**
 * A door that would not open although the perceiver saw nothing in its way may be held by a mechanism: a thing that
 * moves on a joint of its own and is no container (a lever). After a procedure failed opening `container` and the
 * perceiver's looks at that failure saw no cause — or named a lock whose key the plan could not work — the next
 * procedure works the first such mechanism not yet worked, before opening it again.
 *
 * Neither half alone is evidence of a lock. That the world description lists a lever says nothing: levers stand
 * beside doors they do not lock (the generator's decoys, the `lever_decoy` twin), and a description lists every one
 * the same way. A failed opening alone says nothing either: a bar across the handles, a kettle in the door's swing and
 * a lock give the controller the same report (the hinge's residual not met). So without a perceiver — nothing looked
 * at, the cause unknown — no mechanism is worked: the no-perceiver ablation does not find a lock it cannot see.
 */
function mechanismFirst(container: string, steps: PlanStep[], ctx: HighLevelContext): PlanStep[] {
  const lockedHere = ctx.failedAttempts.some(
    (a) => a.failedStep === `open the ${container}` && seenLocked(a.reason, container),
  );
  if (!lockedHere) return steps;
  const worked = new Set(
    ctx.failedAttempts.flatMap((a) => a.steps.flatMap((s) => /^pull the ([a-z][a-z0-9_]*)/.exec(s.action)?.[1] ?? [])),
  );
  const mechanism = (ctx.world.joints ?? [])
    .map((j) => j.object)
    .find((o) => o !== container && !isContainer(ctx.world, o) && !worked.has(o));
  if (!mechanism || steps.some((s) => s.action === `pull the ${mechanism}`)) return steps;
  const at = steps.findIndex((s) => s.action === `open the ${container}`);
  return at < 0
    ? steps
    : [...steps.slice(0, at), { kind: "motion", action: `pull the ${mechanism}` }, ...steps.slice(at)];
}

/** Whether a failed procedure's reason says the perceiver looked at the failure and saw nothing in the way, or a lock. */
const seenLocked = (reason: string, container: string) =>
  reason.includes(NO_CAUSE_SEEN) || reason.includes(`the ${container} is locked`);

/** Planner noise: a step left out, or an object called by another wording. */
function corruptPlan(steps: PlanStep[], ctx: HighLevelContext, noise: NoiseKnobs, rng: Draw): PlanStep[] {
  const out = [...steps];
  if (out.length > 1 && rng.next() < noise.skipStep) out.splice(Math.floor(rng.next() * (out.length - 1)), 1);
  if (out.length && rng.next() < noise.wrongArgument) {
    const i = Math.floor(rng.next() * out.length);
    const names = mentioned(out[i].action, ctx.world.labels);
    if (names.length) {
      const name = names[Math.floor(rng.next() * names.length)];
      out[i] = { ...out[i], action: out[i].action.replace(new RegExp(`\\b${name}\\b`), alias(name)) };
    }
  }
  return out;
}

export function visionQuestions(ctx: { step: string; facts: string[] }): VisionQuestions {
  let match: RegExpExecArray | null;
  if ((match = new RegExp(`look inside the ${NAME} for the ${NAME}`).exec(ctx.step)))
    return { questions: [`Is the ${match[2]} inside the ${match[1]}?`] };
  if ((match = new RegExp(`colou?r of the ${NAME}`).exec(ctx.step)))
    return ctx.facts.some((f) => f.startsWith(`the ${match![1]} is `) && !/open|closed/.test(f))
      ? { questions: [] }
      : { questions: [`What colour is the ${match[1]}?`] };
  if ((match = new RegExp(`the ${NAME} is in view`).exec(ctx.step)))
    return { questions: [`Is the ${match[1]} in view?`] };
  return { questions: [`What is in front of the robot?`] };
}

export function stepCheck(ctx: { step: string; answers: VisionAnswer[] }): StepCheck {
  const facts: string[] = [];
  let done = true;
  let remaining: string | null = null;
  for (const a of ctx.answers) {
    let match: RegExpExecArray | null;
    if ((match = new RegExp(`^yes, the ${NAME} is inside the ${NAME}`, "i").exec(a.answer)))
      facts.push(`the ${match[1]} is inside the ${match[2]}`);
    else if ((match = new RegExp(`^no, the ${NAME} is not inside the ${NAME}`, "i").exec(a.answer)))
      facts.push(`the ${match[1]} is not inside the ${match[2]}`);
    else if ((match = new RegExp(`^the inside of the ${NAME} is not in view`, "i").exec(a.answer))) {
      done = false;
      remaining = `open the ${match[1]}`;
    } else if ((match = new RegExp(`^the ${NAME} is ([a-z]+)\\.$`, "i").exec(a.answer)))
      facts.push(`the ${match[1]} is ${match[2]}`);
    else if ((match = new RegExp(`^yes, the ${NAME} is in view`, "i").exec(a.answer)))
      facts.push(`the ${match[1]} is in view`);
    // A direct look that does not find it outweighs the scan's list: the search goes on.
    else if ((match = new RegExp(`^no, the ${NAME} is not in view`, "i").exec(a.answer)))
      facts.push(`the ${match[1]} is not in view`);
  }
  return { done, remaining, facts };
}

export function motionDraft(
  ctx: { step: string; world: WorldDescription; facts: string[] },
  noise: NoiseKnobs,
  rng: Draw,
): MotionDraft {
  const world = ctx.world;
  const step = ctx.step.toLowerCase();
  const lines: string[] = [];
  const terms: MotionDraft["terms"] = [];
  const add = (line: string, term: RewardTermInput) => {
    let i = lines.indexOf(line);
    if (i < 0) i = lines.push(line) - 1;
    terms.push({ line: i, term: { weight: 1, primary: false, ...term } as MotionDraft["terms"][0]["term"] });
  };
  const approach = (x: string) =>
    add(`The palm should move close to ${x}.`, { kind: "minimize_l2_distance", a: "palm", b: x });
  let match: RegExpExecArray | null;
  let duration = 5;
  if (
    (match = new RegExp(`^(?:open|pull|push|turn|activate) the ${NAME}`).exec(step)) ||
    (match = new RegExp(`^find the ${NAME}`).exec(step))
  ) {
    let thing = match[1];
    // "find X" as one motion (the one-shot baseline): the best guess is to open the first container.
    if (step.startsWith("find")) thing = world.places.find((p) => p.kind === "container")?.name ?? thing;
    const j = jointOf(world, thing);
    approach(j?.handle ?? `${thing}_handle`);
    add(`The joint ${j?.name ?? thing} should be fully open.`, {
      kind: "set_joint_fraction",
      joint: j?.name ?? thing,
      fraction: 1,
    });
  } else if ((match = new RegExp(`^(?:move|take|remove) the ${NAME} away from the ${NAME}`).exec(step))) {
    const [, blocker, target] = match;
    const j = isContainer(world, target) ? jointOf(world, target) : undefined;
    approach(blocker);
    add(`${blocker} should be far from ${j?.handle ?? target}.`, {
      kind: "maximize_l2_distance",
      a: blocker,
      b: j?.handle ?? target,
      distance: 0.35,
    });
    duration = 4;
  } else if (
    (match = new RegExp(`^place the cube with the same colou?r as the ${NAME} on the ${NAME}`).exec(
      step.replace(/^.*?(place the cube)/, "$1"),
    ))
  ) {
    const loose = looseThings(world);
    // Without knowing both colours, any loose thing is a guess.
    const cube =
      thingOfColour(colourOf(match[1], ctx.facts), world, ctx.facts) ?? loose[Math.floor(rng.next() * loose.length)];
    approach(cube);
    add(`${cube} should be close to ${match[2]}.`, { kind: "minimize_l2_distance", a: cube, b: match[2] });
    duration = 8;
  } else if (
    (match = new RegExp(
      `^(?:move|place|put|bring) the (?:([a-z]+) )?${NAME}(?: cube)? (?:to|on|onto|in|into|inside) (?:the )?${NAME}`,
    ).exec(step))
  ) {
    const names = vocabulary(world);
    const joined = match[1] ? `${match[1]}_${match[2]}` : match[2];
    const x = names.includes(joined) ? joined : names.includes(`${match[2]}_cube`) ? `${match[2]}_cube` : match[2];
    approach(x);
    add(`${x} should be close to ${match[3]}.`, { kind: "minimize_l2_distance", a: x, b: match[3] });
    duration = 8;
  } else {
    const names = mentioned(
      step,
      vocabulary(world).filter((n) => n !== "palm"),
    );
    if (names[0]) approach(names[0]);
    if (names[1])
      add(`${names[0]} should be close to ${names[1]}.`, { kind: "minimize_l2_distance", a: names[0], b: names[1] });
  }
  if (!terms.length) add("The palm should stay where it is.", { kind: "set_obj_z_position", obj: "palm", z: 0.45 });
  // The last term is what the step is for.
  (terms.at(-1)!.term as { primary: boolean }).primary = true;
  // Low-level noise: a term no line asked for (pushing the palm off what it must grasp), or the wrong primary.
  const grasped = terms.find((t) => t.term.kind === "minimize_l2_distance" && t.term.a === "palm");
  if (grasped && rng.next() < noise.wrongArgument) {
    terms.push({
      line: lines.length,
      term: {
        kind: "maximize_l2_distance",
        a: "palm",
        b: (grasped.term as { b: string }).b,
        distance: 0.3,
        weight: 1,
        primary: false,
      },
    });
  }
  if (terms.length > 1 && rng.next() < noise.skipStep / 2) {
    for (const t of terms) (t.term as { primary: boolean }).primary = false;
    (terms[0].term as { primary: boolean }).primary = true;
  }
  return { description: lines, terms, duration };
}

/** Up to two reasons, by how many explanations agree on them; none when most saw nothing in the way. */
export function consolidate(ctx: { explanations: string[] }): FailureReasons {
  const votes = new Map<string, number>();
  let nothing = 0;
  for (const e of ctx.explanations) {
    const match =
      new RegExp(`the ${NAME} is (blocking|already on) the ${NAME}`, "i").exec(e) ??
      new RegExp(`so the ${NAME} is locked; the ${NAME} beside it`, "i").exec(e) ??
      new RegExp(`the ${NAME} is closed`, "i").exec(e);
    if (!match) {
      nothing++;
      continue;
    }
    const reason =
      match.length === 4
        ? `the ${match[1]} is ${match[2]} the ${match[3]}`
        : match.length === 3
          ? `the ${match[1]} is locked; the ${match[2]} beside it may unlock it`
          : `the ${match[1]} is closed`;
    votes.set(reason, (votes.get(reason) ?? 0) + 1);
  }
  const ranked = [...votes].sort((a, b) => b[1] - a[1]);
  if (!ranked.length || nothing > ctx.explanations.length / 2) return { reasons: [] };
  return {
    reasons: ranked
      .filter(([, n], i) => i === 0 || n >= 2)
      .slice(0, 2)
      .map(([r]) => r),
  };
}

/** Is the task done, from what the perceiver sees now and what vision steps established? */
export function taskDone(ctx: {
  goal: string;
  world: WorldDescription;
  scene: string[];
  facts: string[];
  looked: boolean;
  motionsOk: boolean;
}): GoalCheck {
  // Without a perceiver there is nothing to look with: a plan whose motions all succeeded is taken as done.
  if (!ctx.looked) return { achieved: ctx.motionsOk, remaining: ctx.motionsOk ? [] : ["a motion failed"] };
  const read = readTabletopGoal(ctx.goal, ctx.world);
  if (!read.goal) return { achieved: false, remaining: [read.message!] };
  const goal = read.goal;
  const has = (f: string) => ctx.facts.includes(f);
  switch (goal.kind) {
    case "find":
      return seenIn(goal.object!, ctx.scene, ctx.facts)
        ? { achieved: true, remaining: [] }
        : { achieved: false, remaining: [`the ${goal.object} has not been seen`] };
    case "open":
      return has(`the ${goal.place} is open`)
        ? { achieved: true, remaining: [] }
        : { achieved: false, remaining: [`the ${goal.place} is not open`] };
    case "match_colour":
    case "place": {
      const object =
        goal.kind === "match_colour"
          ? (thingOfColour(colourOf(goal.place!, ctx.facts), ctx.world, ctx.facts) ?? "thing of its colour")
          : goal.object;
      const place = (ctx.world.targets ?? []).find((t) => t.name === goal.place)?.place ?? goal.place;
      return has(`the ${object} is in the ${place}`) || has(`the ${object} is on the ${place}`)
        ? { achieved: true, remaining: [] }
        : { achieved: false, remaining: [`the ${object} is not in or on the ${place}`] };
    }
  }
}

/** RePLan's tasks, by the name each node's context block carries. */
export const TASKS: Record<string, Task> = {
  scan,
  high_level_plan: highLevelPlan,
  verify_plan: verifyPlan,
  vision_questions: visionQuestions,
  vision_answer: answer,
  step_check: stepCheck,
  motion_draft: motionDraft,
  check_terms: checkTerms,
  diagnose,
  check_names: checkNames,
  consolidate,
  task_done: taskDone,
};
