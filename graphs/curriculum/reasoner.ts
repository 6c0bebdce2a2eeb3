/**
 * The offline reasoner for Game On's curriculum. Like the VLM it stands in for, it is given only what the prompts
 * carry: the detector's blocks (colour, image position, height), the library's captions, the record of tasks that
 * succeeded and failed, and — for the analyst — the learning-curve plot itself, whose pixels it reads. It never sees
 * the simulator's state or the curve's numbers.
 *
 * - propose: of the tasks it can pose over the blocks the image shows, one of a kind not yet done (a kind is done once
 *   a task of it, or one whose plan contains it, succeeds reliably) whose plan over the library lacks the fewest
 *   skills, then has the fewest steps — skipping kinds whose plans were discarded for a skill still lacking — preferring
 *   what was not tried yet; with nothing new, it practises what was done least. No table of difficulty: the order
 *   comes from what each plan needs (the decomposer's knowledge of what each skill brings about), the library and the
 *   record of successes and failures — a designed curriculum, so the order it climbs in is not a finding;
 *   Never a task the image already shows done (the detector says what rests on what);
 * - decompose: a plan over the skills' effects (what each caption's skill brings about) from the scene as seen: the
 *   highest-level library skill that achieves a sub-goal, else the sub-goal broken down further, else the step named
 *   plainly (not in the library: retrieval will not find it); a block with another on it is cleared first (the one on
 *   top unstacked), and what the scene already shows needs no step;
 * - retrieve: exact match of the step to a caption (case and spacing aside), else a caption that asks for the same
 *   structure on the same blocks in other words;
 * - analyse: reads the curve back from the PNG (frame and curve found by colour) and applies a plateau test on the
 *   last part of the curve: a flat curve well above zero counts as converged — so an early plateau fools it, as it
 *   fooled the paper's model.
 * Seeded faults: a wrong retrieval (the same verb, another block), a dropped step, a misjudged curve.
 */
import sharp from "sharp";
import {
  PLOT_STYLE,
  type AnalyseContext,
  type ConvergenceVerdict,
  type DecomposeContext,
  type ProposeContext,
  type RetrieveContext,
  type SeenBlock,
  type SkillRetrieval,
  type TaskDecomposition,
  type TaskProposal,
} from "./schemas";
import type { Draw, NoiseKnobs, Task } from "../../models/symbolic/noise";

export const COLOURS = ["red", "green", "blue"] as const;

// ---- the language of tasks and skills ------------------------------------------------------------------------------

/** A structure (or motion) a task asks for, as the reasoner understands a caption or a free-text task. */
export type Goal =
  | { kind: "open" }
  | { kind: "close" }
  | { kind: "grasp" }
  | { kind: "reach"; x: string }
  | { kind: "lift"; x: string }
  | { kind: "above"; x: string }
  | { kind: "hold_above"; x: string; y: string }
  | { kind: "next_to"; x: string; y: string }
  | { kind: "place"; x: string; y: string }
  | { kind: "on"; x: string; y: string }
  | { kind: "tower"; x: string; y: string; z: string }
  | { kind: "pyramid"; x: string; y: string; z: string }
  | { kind: "inverted_pyramid"; x: string; y: string; z: string }
  | { kind: "unstack"; x: string; y: string };

const COLOUR_GROUP = "(red|green|blue)";
const BLOCK_PHRASE = `(?:the )?${COLOUR_GROUP}(?: block| one| cube| object)?`;
const inOrder = (first: string, second: string) =>
  [first, second].sort((p, q) => COLOURS.indexOf(p as never) - COLOURS.indexOf(q as never));
const PATTERNS: [RegExp, (m: RegExpExecArray) => Goal][] = [
  [/^(?:open(?: the)? gripper|release)$/, () => ({ kind: "open" })],
  [/^close(?: the)? gripper$/, () => ({ kind: "close" })],
  [/^grasp(?: anything)?$/, () => ({ kind: "grasp" })],
  [
    new RegExp(
      `^(?:build a )?(?:three-level |triple )?(?:tower|stack)(?: with)? ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE}$`,
    ),
    (m) => ({ kind: "tower", x: m[1], y: m[2], z: m[3] }),
  ],
  [
    new RegExp(`^triple stack ${COLOUR_GROUP} ${COLOUR_GROUP} ${COLOUR_GROUP}$`),
    (m) => ({ kind: "tower", x: m[1], y: m[2], z: m[3] }),
  ],
  // A pyramid's pair is unordered: named in colour order (red, green, blue), as the captions name it.
  [
    new RegExp(
      `^(?:build an )?inverted pyramid(?: with)? ${BLOCK_PHRASE} (?:and|on) ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE}$`,
    ),
    (match) => {
      const [x, z] = inOrder(match[1], match[2]);
      return { kind: "inverted_pyramid", x, y: match[3], z };
    },
  ],
  [
    new RegExp(`^(?:build a )?pyramid(?: with)? ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE} and ${BLOCK_PHRASE}$`),
    (match) => {
      const [y, z] = inOrder(match[2], match[3]);
      return { kind: "pyramid", x: match[1], y, z };
    },
  ],
  // Placing leaves the block held on the other; stacking (putting) lets go of it.
  [new RegExp(`^place ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE}$`), (m) => ({ kind: "place", x: m[1], y: m[2] })],
  [
    new RegExp(`^(?:stack|put) ${BLOCK_PHRASE} on(?: top of)? ${BLOCK_PHRASE}$`),
    (m) => ({ kind: "on", x: m[1], y: m[2] }),
  ],
  [
    new RegExp(`^(?:put|place|move) ${BLOCK_PHRASE} next to ${BLOCK_PHRASE}$`),
    (m) => ({ kind: "next_to", x: m[1], y: m[2] }),
  ],
  [
    new RegExp(`^(?:unstack|take|lift) ${BLOCK_PHRASE} (?:off|from)(?: the top of)? ${BLOCK_PHRASE}$`),
    (m) => ({ kind: "unstack", x: m[1], y: m[2] }),
  ],
  [new RegExp(`^hold ${BLOCK_PHRASE} above ${BLOCK_PHRASE}$`), (m) => ({ kind: "hold_above", x: m[1], y: m[2] })],
  [new RegExp(`^(?:move |go )?above ${BLOCK_PHRASE}$`), (m) => ({ kind: "above", x: m[1] })],
  [new RegExp(`^(?:lift|pick up|grasp and lift) ${BLOCK_PHRASE}(?: up)?$`), (m) => ({ kind: "lift", x: m[1] })],
  [new RegExp(`^(?:reach|touch|go to) ${BLOCK_PHRASE}$`), (m) => ({ kind: "reach", x: m[1] })],
];

const normal = (words: string) =>
  words
    .toLowerCase()
    .replace(/[.,;:!]+$/g, "")
    .replace(/[_\s]+/g, " ")
    .trim();

/** What a caption or a task asks for, or undefined when the reasoner does not understand it. */
export function understand(text: string): Goal | undefined {
  const said = normal(text);
  for (const [re, make] of PATTERNS) {
    const match = re.exec(said);
    if (match) return make(match);
  }
  return undefined;
}

/** A goal in the words a step (and a skill caption) uses. */
export function stepText(goal: Goal): string {
  switch (goal.kind) {
    case "open":
      return "open gripper";
    case "close":
      return "close gripper";
    case "grasp":
      return "grasp anything";
    case "reach":
      return `reach ${goal.x}`;
    case "lift":
      return `lift ${goal.x}`;
    case "above":
      return `above ${goal.x}`;
    case "hold_above":
      return `hold ${goal.x} above ${goal.y}`;
    case "next_to":
      return `put ${goal.x} next to ${goal.y}`;
    case "place":
      return `place ${goal.x} on ${goal.y}`;
    case "on":
      return `stack ${goal.x} on ${goal.y}`;
    case "tower":
      return `tower ${goal.x} on ${goal.y} on ${goal.z}`;
    case "pyramid":
      return `pyramid ${goal.x} on ${goal.y} and ${goal.z}`;
    case "inverted_pyramid":
      return `inverted pyramid ${goal.x} and ${goal.z} on ${goal.y}`;
    case "unstack":
      return `unstack ${goal.x} from ${goal.y}`;
  }
}

/** A goal as a task for the robot, in free text (the proposer's wording). */
export function taskText(goal: Goal): string {
  switch (goal.kind) {
    case "reach":
      return `reach the ${goal.x} block`;
    case "lift":
      return `pick up the ${goal.x} block`;
    case "hold_above":
      return `hold the ${goal.x} block above the ${goal.y} block`;
    case "on":
      return `put the ${goal.x} block on top of the ${goal.y} block`;
    case "tower":
      return `build a tower with the ${goal.x} block on top of the ${goal.y} block on top of the ${goal.z} block`;
    case "pyramid":
      return `build a pyramid with the ${goal.x} block on top of the ${goal.y} block and the ${goal.z} block`;
    case "unstack":
      return `take the ${goal.x} block off the ${goal.y} block`;
    default:
      return stepText(goal);
  }
}

const key = (g: Goal) => stepText(g);

// ---- what rests on what ---------------------------------------------------------------------------------------------

/** What each block rests on as the image shows it: "basket", another block's colour, or "gripper". */
type Support = Map<string, string>;

const supportOf = (blocks: SeenBlock[]): Support => new Map(blocks.map((b) => [b.label, b.on ?? "basket"]));

/** The block resting on `b`, if the image shows one. */
const onTopOf = (sup: Support, b: string) => [...sup].find(([, under]) => under === b)?.[0];

/** Whether the scene already shows what a goal asks for (only what support can tell: stacks, held, taken off). */
function holds(goal: Goal, sup: Support): boolean {
  switch (goal.kind) {
    case "on":
    case "place":
      return sup.get(goal.x) === goal.y;
    case "tower":
      return sup.get(goal.x) === goal.y && sup.get(goal.y) === goal.z;
    case "lift":
      return sup.get(goal.x) === "gripper";
    case "unstack":
      return sup.has(goal.x) && sup.get(goal.x) !== goal.y;
    default:
      return false;
  }
}

// ---- propose --------------------------------------------------------------------------------------------------------

/** Every task the proposer poses, over the blocks seen, in a fixed order: taking off what rests on a block first. */
function candidates(seen: string[], sup: Support = new Map()): Goal[] {
  const xs = COLOURS.filter((c) => seen.includes(c));
  const out: Goal[] = [];
  for (const x of xs) {
    const under = sup.get(x);
    if (under && (COLOURS as readonly string[]).includes(under)) out.push({ kind: "unstack", x, y: under });
  }
  for (const x of xs) out.push({ kind: "reach", x }, { kind: "lift", x });
  for (const x of xs) for (const y of xs) if (y !== x) out.push({ kind: "hold_above", x, y }, { kind: "on", x, y });
  for (const x of xs)
    for (const y of xs)
      for (const z of xs) {
        if (new Set([x, y, z]).size < 3) continue;
        out.push({ kind: "tower", x, y, z });
        if (COLOURS.indexOf(y) < COLOURS.indexOf(z)) out.push({ kind: "pyramid", x, y, z });
      }
  return out;
}

/** A failed trial as the record lists it: the task, and the skills it lacked when its plan was discarded. */
function failedTrial(trial: string): { task: string; missing: string[] } {
  const match = /^(.*?)\s*\(no skill for: (.*)\)$/.exec(trial.trim());
  return match ? { task: match[1], missing: match[2].split(/,\s*/) } : { task: trial, missing: [] };
}

/** Failures of one task before it counts as too hard for now (the record lists every failed episode). */
const TOO_HARD = 12;

export function proposeTask(ctx: ProposeContext, noise: NoiseKnobs, rng: Draw): TaskProposal {
  const seen = ctx.blocks.map((b) => b.label).filter((l) => (COLOURS as readonly string[]).includes(l));
  if (!seen.length)
    return {
      reasoning: "I see no blocks in the basket, so the only thing to practise is the gripper itself.",
      task: "open gripper",
    };
  const lib = new Set(ctx.library.map(normal));
  const sup = supportOf(ctx.blocks);
  const count = (ts: string[]) => {
    const tally = new Map<string, number>();
    for (const t of ts) {
      const understood = understand(failedTrial(t).task);
      if (understood) tally.set(key(understood), (tally.get(key(understood)) ?? 0) + 1);
    }
    return tally;
  };
  const won = count(ctx.succeeded);
  const lost = count(ctx.failed);
  // Kinds of task whose plans were discarded for a skill the library still lacks: not worth proposing again yet.
  const blocked = new Set<string>();
  for (const t of ctx.failed) {
    const trial = failedTrial(t);
    const understood = understand(trial.task);
    if (understood && trial.missing.some((m) => !lib.has(normal(m)))) blocked.add(understood.kind);
  }
  const tried = new Set(
    ctx.proposedBefore
      .map((t) => understand(t))
      .filter((g): g is Goal => !!g)
      .map(key),
  );
  // A task counts as done once it succeeds at least as often as it fails (one lucky episode is not mastery) …
  const mastered = [...won.keys()].filter((k) => won.get(k)! >= (lost.get(k) ?? 0));
  // … and so does every kind of thing its plan is made of: a stack that worked shows the reach, grasp, lift and hold
  // above in it work. (Its parts: every sub-goal the decomposition considers on the way down to base skills.)
  const steps = (g: Goal) => planFor(g, () => false);
  const parts = (task: Goal) => {
    const considered: string[] = [];
    planFor(task, (k) => (considered.push(k), false));
    return [...steps(task), ...considered.map(understand).filter((x): x is Goal => !!x)];
  };
  const doneKinds = new Set(mastered.flatMap((k) => [understand(k)!, ...parts(understand(k)!)].map((g) => g.kind)));
  /** The steps of a task's plan over the library, from the scene as seen, that no library skill does. */
  const lacking = (task: Goal) =>
    planFor(task, (s) => lib.has(s), sup)
      .map(stepText)
      .filter((s) => !lib.has(normal(s)));
  // Never what the image already shows done; a block may be built on wherever it rests, but not while it is held.
  const placeable = (g: Goal) => !holds(g, sup) && (g.kind !== "on" || sup.get(g.y) !== "gripper");
  const pool = candidates(seen, sup)
    .filter((g) => placeable(g) && !doneKinds.has(g.kind) && !blocked.has(g.kind) && (lost.get(key(g)) ?? 0) < TOO_HARD)
    .map((g) => ({ g, missing: lacking(g) }));
  const pick = <T extends { g: Goal }>(xs: T[], rank: (x: T) => number) => {
    const lowest = Math.min(...xs.map(rank));
    const ties = xs.filter((x) => rank(x) === lowest);
    // The seed's draw breaks ties (a model's sampling).
    return ties[Math.min(ties.length - 1, Math.floor(rng.next() * ties.length))];
  };
  let goal: Goal | undefined;
  let why = "";
  if (pool.length) {
    // What it lacks least for; then the task of fewest steps; then what it tried least and failed least.
    const chosen = pick(
      pool,
      (x) =>
        1000 * x.missing.length +
        10 * planFor(x.g, () => false, sup).length +
        (tried.has(key(x.g)) ? 5 : 0) +
        Math.min(4, lost.get(key(x.g)) ?? 0),
    );
    goal = chosen.g;
    why = chosen.missing.length
      ? `new, and nearest to what the robot can do: its plan lacks only ${chosen.missing.map((m) => `"${m}"`).join(", ")}`
      : "new and within reach: every step of its plan is a skill the robot has";
  } else {
    // Nothing new to try: practise, of what every skill is there for, what was done least.
    const doable = candidates(seen, sup).filter((g) => placeable(g) && !lacking(g).length);
    if (doable.length) {
      goal = pick(
        doable.map((g) => ({ g })),
        (x) => (won.get(key(x.g)) ?? 0) + (lost.get(key(x.g)) ?? 0),
      ).g;
      why = "practice: nothing new can be planned with the skills available now, and this has been tried least";
    }
  }
  if (!goal)
    return {
      reasoning: "Every task I can think of here needs skills the robot lacks; practising the gripper.",
      task: "close gripper",
    };
  // A seeded fault: the model names another block than it meant to.
  if (rng.next() < noise.wrongArgument && "x" in goal) {
    const picked = goal;
    const other = seen.filter((c) => !Object.values(picked).includes(c));
    if (other.length) goal = { ...picked, x: other[0] } as Goal;
  }
  // The task done reliably whose plan takes the most skills: what the robot can do so far, in the proposer's words.
  const longest = [...mastered].sort(
    (left, right) =>
      planFor(understand(right)!, (s) => lib.has(s)).length - planFor(understand(left)!, (s) => lib.has(s)).length ||
      left.localeCompare(right),
  )[0];
  const achieved = longest
    ? `The most the robot has done reliably so far is "${longest}".`
    : "The robot has not completed any task yet.";
  const stacked = ctx.blocks
    .filter((b) => b.on && b.on !== "basket")
    .map((b) => (b.on === "gripper" ? `${b.label} in the gripper` : `${b.label} on ${b.on}`));
  return {
    reasoning: `I see the ${seen.join(", ")} blocks${stacked.length ? ` (${stacked.join(", ")})` : ""}. ${achieved} This task is ${why}.`,
    task: taskText(goal),
  };
}

// ---- decompose ------------------------------------------------------------------------------------------------------

/**
 * The steps that achieve `goal` with the library's skills from the scene `sup` shows, breaking a sub-goal down where no
 * skill does it whole. What the scene already shows needs no step (a tower on a pair already stacked is one stacking);
 * a block with another resting on it is cleared first — the one on top taken off — before it is grasped or built on.
 */
function planFor(goal: Goal, has: (s: string) => boolean, sup: Support = new Map()): Goal[] {
  return stepsFor(goal, has, new Map(sup));
}

/** planFor's work, on a copy of the scene it updates as each step would change it. */
function stepsFor(goal: Goal, has: (s: string) => boolean, sup: Support): Goal[] {
  if (holds(goal, sup)) return [];
  const clear = (block: string, except?: string): Goal[] => {
    const top = onTopOf(sup, block);
    return top && top !== except ? stepsFor({ kind: "unstack", x: top, y: block }, has, sup) : [];
  };
  const before: Goal[] = [];
  if (goal.kind === "lift" || goal.kind === "hold_above" || goal.kind === "unstack") before.push(...clear(goal.x));
  if (goal.kind === "on" || goal.kind === "place") before.push(...clear(goal.x), ...clear(goal.y, goal.x));
  const steps = [...before, ...(has(key(goal)) ? [goal] : breakDown(goal, has, sup))];
  if (goal.kind === "unstack") sup.set(goal.x, "basket");
  if (goal.kind === "on" || goal.kind === "place") sup.set(goal.x, goal.y);
  if (goal.kind === "lift" || goal.kind === "hold_above") sup.set(goal.x, "gripper");
  return steps;
}

function breakDown(goal: Goal, has: (s: string) => boolean, sup: Support): Goal[] {
  const grasp: Goal = has("grasp anything") ? { kind: "grasp" } : { kind: "close" };
  switch (goal.kind) {
    case "lift":
      return [{ kind: "reach", x: goal.x }, grasp, goal];
    case "hold_above":
      return [...stepsFor({ kind: "lift", x: goal.x }, has, sup), { kind: "above", x: goal.y }];
    case "place":
      return stepsFor({ kind: "hold_above", x: goal.x, y: goal.y }, has, sup);
    case "on":
      return [
        ...(has(key({ kind: "place", x: goal.x, y: goal.y }))
          ? [{ kind: "place", x: goal.x, y: goal.y } as Goal]
          : stepsFor({ kind: "hold_above", x: goal.x, y: goal.y }, has, sup)),
        { kind: "open" },
      ];
    case "tower":
      return [
        ...stepsFor({ kind: "on", x: goal.y, y: goal.z }, has, sup),
        ...stepsFor({ kind: "on", x: goal.x, y: goal.y }, has, sup),
      ];
    case "pyramid":
      // The two bases side by side, then the top block across them.
      return [
        ...stepsFor({ kind: "next_to", x: goal.y, y: goal.z }, has, sup),
        ...stepsFor({ kind: "on", x: goal.x, y: goal.y }, has, sup),
      ];
    case "unstack": {
      // Stacking it on the third block, free, takes it off the one beneath.
      const z = COLOURS.find(
        (c) => c !== goal.x && c !== goal.y && sup.has(c) && sup.get(c) !== "gripper" && !onTopOf(sup, c),
      );
      return z && has(key({ kind: "on", x: goal.x, y: z })) ? [{ kind: "on", x: goal.x, y: z }] : [goal];
    }
    default:
      return [goal];
  }
}

export function decomposeTask(ctx: DecomposeContext, noise: NoiseKnobs, rng: Draw): TaskDecomposition {
  const goal = understand(ctx.proposal);
  if (!goal)
    return {
      reasoning: `I do not know how to break down "${ctx.proposal}"; trying it as one step.`,
      steps: [ctx.proposal],
    };
  const lib = new Set(ctx.library.map(normal));
  let steps = planFor(goal, (s) => lib.has(s), supportOf(ctx.blocks)).map(stepText);
  // A seeded fault: one step of a longer plan left out.
  if (steps.length > 1 && rng.next() < noise.skipStep)
    steps = steps.filter((_, i) => i !== Math.floor(rng.next() * steps.length));
  const missing = steps.filter((s) => !lib.has(s));
  const direct = steps.length === 1 && lib.has(steps[0]);
  return {
    reasoning: direct
      ? `The library has a skill that does "${ctx.proposal}" in one go.`
      : `No single skill does "${ctx.proposal}", so it goes step by step through what each skill brings about${missing.length ? `; ${missing.map((m) => `"${m}"`).join(", ")} ${missing.length === 1 ? "is" : "are"} needed but not among the available skills` : ""}.`,
    steps,
  };
}

// ---- retrieve -------------------------------------------------------------------------------------------------------

export function retrieveSkill(ctx: RetrieveContext, noise: NoiseKnobs, rng: Draw): SkillRetrieval {
  const want = normal(ctx.step);
  // The step's words first; failing that, a caption that asks for the same thing in other words ("put the red block on
  // top of the green one" is "stack red on green") — what a language model reads as the same.
  const meant = understand(ctx.step);
  const exact =
    ctx.library.find((s) => normal(s) === want) ??
    (meant ? ctx.library.find((s) => understand(s) && key(understand(s)!) === key(meant)) : undefined);
  if (!exact) return { reasoning: `No skill in the library does "${ctx.step}".`, skill: null };
  // A seeded fault: the same kind of skill, on another block.
  if (rng.next() < noise.wrongRetrieval) {
    const exactGoal = understand(exact);
    const similar = ctx.library.filter((s) => s !== exact && exactGoal && understand(s)?.kind === exactGoal.kind);
    if (similar.length) return { reasoning: `"${similar[0]}" does what the step asks.`, skill: similar[0] };
  }
  return { reasoning: `"${exact}" is the step itself.`, skill: exact };
}

// ---- analyse: read the plot ----------------------------------------------------------------------------------------

const hex = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const near = (pixel: number[], reference: number[], tol: number) =>
  Math.abs(pixel[0] - reference[0]) + Math.abs(pixel[1] - reference[1]) + Math.abs(pixel[2] - reference[2]) <= tol;

/** The curve as read off the image: values in [0, 1] of the y axis at evenly spaced x, and how far along x it reaches. */
export interface ReadCurve {
  /** Curve height (fraction of the y axis) per pixel column from its first to its last. */
  values: number[];
  /** Where the curve starts and ends, as fractions of the x axis. */
  from: number;
  to: number;
}

/** Finds the plot's frame (the long dark lines) and the curve (the curve colour) in a PNG and reads the curve back. */
export async function readCurvePng(png: Buffer): Promise<ReadCurve> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const width = info.width,
    height = info.height,
    ch = info.channels;
  const px = (x: number, y: number) => [
    data[(y * width + x) * ch],
    data[(y * width + x) * ch + 1],
    data[(y * width + x) * ch + 2],
  ];
  const curve = hex(PLOT_STYLE.curve);
  // The frame is dark grey: dark and colourless (the curve is a saturated colour, the grid light, the text short).
  const dark = (p: number[]) => Math.max(...p) < 110 && Math.max(...p) - Math.min(...p) < 30;
  // Frame lines: rows and columns mostly in the frame colour.
  const rows: number[] = [],
    cols: number[] = [];
  for (let y = 0; y < height; y++) {
    let darkCount = 0;
    for (let x = 0; x < width; x++) if (dark(px(x, y))) darkCount++;
    // (The curve may lie along a frame line and cover part of it.)
    if (darkCount > width * 0.3) rows.push(y);
  }
  for (let x = 0; x < width; x++) {
    let darkCount = 0;
    for (let y = 0; y < height; y++) if (dark(px(x, y))) darkCount++;
    if (darkCount > height * 0.3) cols.push(x);
  }
  if (rows.length < 2 || cols.length < 2) throw new Error("no plot frame found in the image");
  // The data's 0 and maximum are drawn a few pixels inside the frame (the plots' convention, like a chart's margins).
  const inset = PLOT_STYLE.inset;
  const top = rows[0] + inset,
    bottom = rows[rows.length - 1] - inset,
    left = cols[0] + inset,
    right = cols[cols.length - 1] - inset;
  const values: number[] = [];
  let first = -1,
    last = -1;
  for (let x = left - inset + 2; x <= right + inset - 2; x++) {
    const ys: number[] = [];
    for (let y = top - inset + 1; y < bottom + inset; y++) if (near(px(x, y), curve, 120)) ys.push(y);
    if (!ys.length) continue;
    if (first < 0) first = x;
    last = x;
    const yMid = ys.reduce((a, b) => a + b, 0) / ys.length;
    values.push(Math.max(0, Math.min(1, (bottom - yMid) / (bottom - top))));
  }
  if (first < 0) return { values: [], from: 0, to: 0 };
  const along = (x: number) => Math.max(0, Math.min(1, (x - left) / (right - left)));
  return { values, from: along(first), to: along(last) };
}

/** The plateau test on a read curve: rising → no; flat above zero → yes; peaked and falling → yes (already converged). */
export function judgeCurve(curve: ReadCurve): ConvergenceVerdict {
  if (curve.values.length < 3 || curve.to - curve.from < 0.45)
    return { reasoning: "There is no full learning curve yet: too few iterations to tell.", converged: false };
  const count = curve.values.length;
  const tail = curve.values.slice(Math.floor(count * 0.6));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const third = Math.max(1, Math.floor(tail.length / 3));
  const rise = mean(tail.slice(-third)) - mean(tail.slice(0, third));
  const spread = Math.max(...tail) - Math.min(...tail);
  const level = mean(tail.slice(-third));
  const peak = Math.max(...curve.values);
  if (rise > 0.05) {
    const dipped = peak - Math.min(...curve.values.slice(curve.values.indexOf(peak))) > 0.15;
    return {
      reasoning: dipped
        ? "The curve had degenerated after an earlier peak but is going up again: not converged yet."
        : "The curve is still going up: not converged yet.",
      converged: false,
    };
  }
  // Flat from its first point: nothing has been learned (yet), which is not convergence (a curve that rose and then
  // levelled off early is, to this reader: the early plateau that fools it).
  const start = mean(curve.values.slice(0, Math.max(1, Math.floor(count * 0.05))));
  if (peak - start < 0.08)
    return {
      reasoning:
        level < 0.05
          ? "The curve stays at the bottom: nothing has been learned yet."
          : "The curve has not moved from where it started: no learning progress to judge yet.",
      converged: false,
    };
  if (rise < -0.05 && peak - level > 0.1)
    return {
      reasoning: "The curve has peaked and is degenerating again: the training had converged already.",
      converged: true,
    };
  if (spread < 0.12)
    return {
      reasoning: "The curve has reached a plateau and the performance has stabilised: converged.",
      converged: true,
    };
  return { reasoning: "The curve is too irregular at its end to call a plateau: not converged yet.", converged: false };
}

export async function analyseCurve(ctx: AnalyseContext, noise: NoiseKnobs, rng: Draw): Promise<ConvergenceVerdict> {
  if (!ctx.plotPng) throw new Error("the offline analyst reads the plot's pixels: the prompt carries no plot image");
  const verdict = judgeCurve(await readCurvePng(Buffer.from(ctx.plotPng, "base64")));
  // A seeded fault: the opposite call on an ambiguous-looking plot.
  if (rng.next() < noise.misjudgeCurve)
    return { reasoning: `${verdict.reasoning} (on a second look, the opposite.)`, converged: !verdict.converged };
  return verdict;
}

export const TASKS: Record<string, Task> = {
  propose_task: proposeTask,
  decompose_task: decomposeTask,
  retrieve_skill: retrieveSkill,
  analyse_curve: analyseCurve,
};
