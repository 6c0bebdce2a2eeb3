/**
 * The symbolic reasoner for VLM-PC (legged robot on obstacle courses). Like a VLM it is given the current frame's
 * detections, the earlier frames with its own earlier answers and the skills' odometry results (or a condensed summary
 * of older steps), the rest of its last plan, and optionally labelled examples — never a pose, a map or where the toy
 * is. From that it reasons as a VLM would: commonsense about what a quadruped can crawl under or climb over, dead
 * reckoning of where the toy was last seen from its own moves, and what already failed where. What it cannot know
 * (an empty history hides that the last skill stalled) it does not know: no branch asks which variant is running.
 */
import type { RangedDetection } from "../../robots/msgs/detections";
import type { CourseCommand, CoursePlan, CourseSkill, Magnitude } from "../schemas";
import type { Draw, NoiseKnobs } from "./noise";

export interface CourseResult {
  skill: CourseSkill;
  magnitude: Magnitude;
  /** Metres along the heading (negative backward), by odometry. */
  moved: number;
  /** Degrees, positive to the left. */
  turned: number;
  stalled: boolean;
}

export interface ToySighting {
  distance: number;
  bearing: number;
}

export interface CourseContext {
  frame: { fov: number; detections: RangedDetection[] };
  history: { step: number; detections: RangedDetection[]; answer: CoursePlan; result: CourseResult }[];
  summary?: (CourseResult & { step: number; toy?: ToySighting })[];
  previousPlan?: CourseCommand[];
  multiStep: boolean;
  examples?: { detections: RangedDetection[]; best: CourseCommand; note: string }[];
}

// ---- what the prompt tells the model about the robot ---------------------------------------------------------------

export const ROBOT = { length: 0.6, width: 0.25, height: 0.3, crawlHeight: 0.14, climbHeight: 0.2 } as const;
/** The toy this close to the camera counts as reached. */
export const REACH_DISTANCE = 0.35;
export const TOY = "toy";
const SECONDS: Record<Magnitude, number> = { small: 1, medium: 2, large: 4 };
const SPEED = { walk: 0.3, crawl: 0.15, climb: 0.2, backward: 0.2 };
const TURN_DEG: Record<Magnitude, number> = { small: 15, medium: 30, large: 60 };
/** Half-width of the strip the body sweeps walking straight, with a margin for the gait's sway. */
const CORRIDOR = ROBOT.width / 2 + 0.08;
/** Something this close in the way is dealt with now. */
const NEAR = 1.0;
/** Things to go around are turned from earlier: turning costs the same near or far. */
const NEAR_AROUND = 1.5;
const WALL_NEAR = 1.5;
/** How many steps back a detour still counts as the current one. */
const RECENT_STEPS = 6;

type Way = "walk" | "crawl" | "climb" | "around";
interface Kind {
  top: number;
  underside: number;
  /** Typical depth front to back, to know when the body is out from beneath. */
  depth: number;
  /** Whether there is open room beneath it (a couch's skirt-less frame; not a stool's legs or a bush's stems). */
  roomBeneath: boolean;
  slope?: true;
  steps?: true;
}

/** Commonsense about the course's things: how they usually look, used when the model misreads what it sees. */
const KINDS: Record<string, Kind> = {
  couch: { top: 0.8, underside: 0.2, depth: 0.9, roomBeneath: true },
  bench: { top: 0.45, underside: 0.25, depth: 0.5, roomBeneath: true },
  cushion: { top: 0.18, underside: 0, depth: 0.5, roomBeneath: false },
  log: { top: 0.15, underside: 0, depth: 0.3, roomBeneath: false },
  curb: { top: 0.12, underside: 0, depth: 0.3, roomBeneath: false },
  plank: { top: 0.1, underside: 0, depth: 0.3, roomBeneath: false },
  stairs: { top: 0.6, underside: 0, depth: 1.2, roomBeneath: false, steps: true },
  hill: { top: 0.5, underside: 0, depth: 2, roomBeneath: false, slope: true },
  stool: { top: 0.5, underside: 0, depth: 0.4, roomBeneath: false },
  bush: { top: 0.8, underside: 0, depth: 0.8, roomBeneath: false },
  bamboo: { top: 2, underside: 0, depth: 0.5, roomBeneath: false },
  wall: { top: 1.5, underside: 0, depth: 0.2, roomBeneath: false },
};
const OBSTACLE_LABELS = Object.keys(KINDS);

// ---- geometry of one frame -----------------------------------------------------------------------------------------

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;
const wrap = (a: number) => ((((a + 180) % 360) + 360) % 360) - 180;

/** Forward and lateral (+ left) offsets of a detection, for a robot facing `heading` degrees left of the camera axis. */
function offsets(d: RangedDetection, heading = 0): { x: number; y: number } {
  const b = rad(d.bearing - heading);
  return { x: d.distance * Math.cos(b), y: d.distance * Math.sin(b) };
}

function inPath(d: RangedDetection, reach: number, heading = 0): boolean {
  const { x, y } = offsets(d, heading);
  // x = 0: the camera is already at (or beneath) it.
  return x >= 0 && x <= reach && Math.abs(y) - d.width / 2 < CORRIDOR;
}

const obstaclesOf = (dets: RangedDetection[]) => dets.filter((d) => d.label !== TOY);
const toyOf = (dets: RangedDetection[]) => dets.filter((d) => d.label === TOY).sort((a, b) => b.score - a.score)[0];

function firstInPath(dets: RangedDetection[], reach: number, heading = 0): RangedDetection | undefined {
  return obstaclesOf(dets)
    .filter((d) => inPath(d, reach, heading))
    .sort((a, b) => a.distance - b.distance)[0];
}

// ---- judging an obstacle -------------------------------------------------------------------------------------------

function wayOf(label: string, top: number, underside: number): Way {
  const k = KINDS[label];
  if (k?.slope) return "walk";
  // A flight of stairs is tall overall but each step is low.
  if (k?.steps) return "climb";
  if (top < ROBOT.climbHeight) return "climb";
  // Unknown things: trust the depth reading of the room beneath.
  const room = k?.roomBeneath ?? true;
  if (room && underside > ROBOT.height + 0.04) return "walk";
  if (room && underside > ROBOT.crawlHeight) return "crawl";
  return "around";
}

/** A misjudged height lands on the other side of the threshold — but only for heights near it (no one takes a 2 m bamboo for a step). */
function misjudged(value: number, threshold: number): number {
  if (Math.abs(value - threshold) > 0.15) return value;
  return value > threshold ? threshold - 0.03 : threshold + 0.03;
}

interface Judged {
  d: RangedDetection;
  /** What the model takes it for (a misread changes it). */
  label: string;
  way: Way;
  slip?: string;
}

/** One look at the obstacle in the way: three draws always, so later draws do not depend on which slips happened. */
function judge(d: RangedDetection, noise: NoiseKnobs, rng: Draw): Judged {
  const misread = rng.next() < noise.misreadObstacle;
  const pick = rng.next();
  const misjudge = rng.next() < noise.misjudgeClearance;
  let { label, top, underside } = d;
  if (misread) {
    const others = OBSTACLE_LABELS.filter((l) => l !== d.label);
    label = others[Math.floor(pick * others.length)];
    ({ top, underside } = KINDS[label]);
  }
  if (misjudge) {
    top = misjudged(top, ROBOT.climbHeight);
    underside = misjudged(underside, ROBOT.crawlHeight);
  }
  return { d, label, way: wayOf(label, top, underside), slip: misread || misjudge ? "uncertain reading" : undefined };
}

const plainWay = (d: RangedDetection) => wayOf(d.label, d.top, d.underside);

// ---- memory: dead reckoning, toy sightings, failures ---------------------------------------------------------------

interface Pose {
  x: number;
  y: number;
  /** Heading, degrees left of the first remembered heading. */
  th: number;
}

interface Past {
  step: number;
  detections?: RangedDetection[];
  toy?: ToySighting;
  result: CourseResult;
  answer?: CoursePlan;
  /** Pose when its frame was taken, before its skill ran. */
  pose: Pose;
}

interface Stall {
  index: number;
  skill: CourseSkill;
  label: string;
  walls: boolean;
}

interface Memory {
  past: Past[];
  pose: Pose;
  toy?: ToySighting & { stepsAgo: number };
  stalls: Stall[];
}

/** Odometry: half the turn, the move, the other half — skills turn or move, and this is exact for either. */
function advance(p: Pose, r: CourseResult): Pose {
  const mid = p.th + r.turned / 2;
  return { x: p.x + r.moved * Math.cos(rad(mid)), y: p.y + r.moved * Math.sin(rad(mid)), th: p.th + r.turned };
}

function worldPoint(p: Pose, s: ToySighting): { x: number; y: number } {
  const a = rad(p.th + s.bearing);
  return { x: p.x + s.distance * Math.cos(a), y: p.y + s.distance * Math.sin(a) };
}

function relative(p: Pose, q: { x: number; y: number }): ToySighting {
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  return { distance: Math.hypot(dx, dy), bearing: wrap(deg(Math.atan2(dy, dx)) - p.th) };
}

/** Older condensed steps, then the frames shown, in step order (a step shown in full wins over its summary). */
function pastSteps(ctx: CourseContext): Omit<Past, "pose">[] {
  const shown = new Set(ctx.history.map((h) => h.step));
  const older = (ctx.summary ?? []).filter((s) => !shown.has(s.step)).map((s) => ({ step: s.step, toy: s.toy, result: s }));
  const recent = ctx.history.map((h) => {
    const toy = toyOf(h.detections);
    return { step: h.step, detections: h.detections, toy: toy && { distance: toy.distance, bearing: toy.bearing }, result: h.result, answer: h.answer };
  });
  return [...older, ...recent].sort((a, b) => a.step - b.step);
}

function remember(ctx: CourseContext): Memory {
  let pose: Pose = { x: 0, y: 0, th: 0 };
  const past: Past[] = [];
  for (const s of pastSteps(ctx)) {
    past.push({ ...s, pose });
    pose = advance(pose, s.result);
  }
  const lastSeen = past.map((p, i) => ({ p, i })).filter(({ p }) => p.toy).at(-1);
  const toy = lastSeen && { ...relative(pose, worldPoint(lastSeen.p.pose, lastSeen.p.toy!)), stepsAgo: past.length - lastSeen.i };
  const stalls = past.flatMap((p, i) => (p.result.stalled ? [stallAt(past, i, ctx.frame.detections)] : []));
  return { past, pose, toy, stalls };
}

const FORWARD: CourseSkill[] = ["walk", "crawl", "climb"];
const framesAround = (past: Past[], i: number, now: RangedDetection[]) => [past[i].detections, i + 1 < past.length ? past[i + 1].detections : now];

/** What a stall happened at: what the crawl was aimed at, else what was in the way before, else what is in view after. */
function stallAt(past: Past[], i: number, now: RangedDetection[]): Stall {
  const { skill } = past[i].result;
  const [before, after] = framesAround(past, i, now);
  const aimed = skill === "crawl" ? crawlRun(past, i)?.target.label : undefined;
  const label = aimed ?? (before && firstInPath(before, NEAR_AROUND)?.label) ?? (after && firstInPath(after, NEAR_AROUND)?.label) ?? "something";
  const walls = [before, after].some((f) => f?.some((d) => d.label === "wall" && d.distance <= WALL_NEAR) ?? false);
  return { index: i, skill, label, walls };
}

/** The run of crawls ending at `end`: what it was aimed at (in view before the run) and how far it got. */
function crawlRun(past: Past[], end: number): { target: RangedDetection; crawled: number } | undefined {
  let start = end;
  while (start > 0 && past[start - 1].result.skill === "crawl") start--;
  const target = past[start].detections && firstInPath(past[start].detections!, NEAR_AROUND);
  if (!target || plainWay(target) !== "crawl") return undefined;
  const crawled = past.slice(start, end + 1).reduce((s, p) => s + Math.max(0, p.result.moved), 0);
  return { target, crawled };
}

/** A skill that stalled twice at the same kind of thing, or a crawl that stalled with walls close (a dead end), is out. */
function banned(mem: Memory, skill: CourseSkill, label: string): boolean {
  const here = mem.stalls.filter((s) => s.skill === skill && s.label === label);
  return here.length >= 2 || (skill === "crawl" && here.some((s) => s.walls));
}

/**
 * The side it last went around this kind of thing — or, lately, around anything (obstacles stand in clusters): keep
 * to it, or it swings back and forth between two of them.
 */
function detourSide(mem: Memory, label: string): "left" | "right" | undefined {
  let recent: "left" | "right" | undefined;
  for (let i = mem.past.length - 1; i >= 0; i--) {
    const p = mem.past[i];
    const turn = p.result.skill === "turn_left" ? "left" : p.result.skill === "turn_right" ? "right" : undefined;
    const from = turn && p.detections && firstInPath(p.detections, NEAR_AROUND);
    if (!from) continue;
    if (from.label === label) return turn;
    if (i >= mem.past.length - RECENT_STEPS) recent ??= turn;
  }
  return recent;
}

/**
 * How far the body is beneath furniture it crawled under (0: not beneath), and how much more crawling clears it —
 * reckoned from the run of crawls (and any backing out since) and the distance the furniture was at before it, since
 * from beneath it is not seen.
 */
function beneath(mem: Memory): { under: number; toClear: number } {
  let last = mem.past.length - 1;
  let backed = 0;
  for (; last >= 0 && mem.past[last].result.skill === "backward"; last--) backed -= Math.min(0, mem.past[last].result.moved);
  const run = last >= 0 && mem.past[last].result.skill === "crawl" ? crawlRun(mem.past, last) : undefined;
  if (!run) return { under: 0, toClear: 0 };
  const depth = KINDS[run.target.label]?.depth ?? 0.8;
  const toClear = Math.max(0, run.target.distance + depth + ROBOT.length - run.crawled);
  // Crawled through and out the far side: not beneath any more, whatever it does next.
  if (toClear === 0) return { under: 0, toClear: 0 };
  return { under: Math.max(0, run.crawled - run.target.distance - backed), toClear: backed > 0 ? 0 : toClear };
}

/** Backward skills that cover `distance` metres (at most two). */
function backwardFor(distance: number): CourseCommand[] {
  const step = (m: number) => (["small", "medium", "large"] as const).find((g) => SECONDS[g] * SPEED.backward >= m) ?? "large";
  const first = step(distance);
  const rest = distance - SECONDS[first] * SPEED.backward;
  return rest > 0.05 ? [cmd("backward", first), cmd("backward", step(rest))] : [cmd("backward", first)];
}

// ---- planning ------------------------------------------------------------------------------------------------------

interface Scene {
  ctx: CourseContext;
  mem: Memory;
  noise: NoiseKnobs;
  rng: Draw;
  toy?: RangedDetection;
  target: ToySighting & { source: "view" | "memory" | "course" };
}

interface Decision {
  plan: CourseCommand[];
  why: string;
  reached?: boolean;
}

const cmd = (skill: CourseSkill, magnitude: Magnitude): CourseCommand => ({ skill, magnitude });
const distanceOf = (c: CourseCommand) => SECONDS[c.magnitude] * (SPEED[c.skill as keyof typeof SPEED] ?? 0);

/** The longest walk that stays within `room` metres (a small step at least). */
function walkFor(room: number): CourseCommand {
  const m = (["large", "medium", "small"] as const).find((g) => SECONDS[g] * SPEED.walk <= room) ?? "small";
  return cmd("walk", m);
}

function turnMagnitude(angle: number): Magnitude {
  return angle < 22.5 ? "small" : angle < 45 ? "medium" : "large";
}

/** A turn the model means to make; with wrongTurn it writes the other way. */
function turn(s: Scene, side: "left" | "right", magnitude: Magnitude): CourseCommand {
  const flip = s.rng.next() < s.noise.wrongTurn;
  const way = flip ? (side === "left" ? "right" : "left") : side;
  return cmd(way === "left" ? "turn_left" : "turn_right", magnitude);
}

const turnToward = (s: Scene, bearing: number) => turn(s, bearing > 0 ? "left" : "right", turnMagnitude(Math.abs(bearing)));

/** Room to walk straight on: up to the first thing in the way that is not walked over. */
function freeAhead(dets: RangedDetection[]): number {
  const blocking = obstaclesOf(dets).filter((d) => inPath(d, 3) && plainWay(d) !== "walk");
  return Math.min(3, ...blocking.map((d) => d.distance)) - 0.4;
}

function target(ctx: CourseContext, mem: Memory): Scene["target"] {
  const toy = toyOf(ctx.frame.detections);
  if (toy) return { distance: toy.distance, bearing: toy.bearing, source: "view" };
  if (mem.toy) return { distance: mem.toy.distance, bearing: mem.toy.bearing, source: "memory" };
  // Never seen: keep to the line it set out on, steering back to it after detours (an empty history knows no line
  // but straight on).
  const ahead = relative(mem.pose, { x: Math.max(mem.pose.x, 0) + 2.5, y: 0 });
  return { ...ahead, source: "course" };
}

/** The turn that clears one edge of an obstacle; one touching the image's edge may go on beyond it. */
function turnToClear(d: RangedDetection, side: "left" | "right", fov: number): number {
  const { x, y } = offsets(d);
  const edgeY = side === "left" ? y + d.width / 2 : y - d.width / 2;
  const edge = deg(Math.atan2(edgeY, x));
  if ((side === "left" ? edge : -edge) >= fov / 2 - 1) return fov / 2 + 30;
  const margin = deg(Math.asin(Math.min(1, (CORRIDOR + 0.1) / Math.max(0.01, Math.hypot(x, edgeY)))));
  return Math.max(0, (side === "left" ? edge : -edge) + margin);
}

/** The side with more free space: the smaller turn, fewer other blockers there, and toward the toy when it is a tie. */
function freeSide(s: Scene, d: RangedDetection): "left" | "right" {
  const others = obstaclesOf(s.ctx.frame.detections).filter((o) => o !== d && o.distance < 2 && plainWay(o) === "around");
  const score = (side: "left" | "right") => {
    const sign = side === "left" ? 1 : -1;
    const crowd = others.filter((o) => sign * (o.bearing - d.bearing) > 0).length * 20;
    const towardToy = sign * s.target.bearing > 0 ? -10 : 0;
    return turnToClear(d, side, s.ctx.frame.fov) + crowd + towardToy;
  };
  return score("left") <= score("right") ? "left" : "right";
}

function around(s: Scene, j: Judged): Decision {
  const remembered = detourSide(s.mem, j.label);
  const side = remembered ?? freeSide(s, j.d);
  const mag = turnMagnitude(turnToClear(j.d, side, s.ctx.frame.fov));
  const back = side === "left" ? "right" : "left";
  const walk = cmd("walk", j.d.width > 1 ? "large" : "medium");
  // Too close to turn past it: the body would swing into it, so step back first.
  const room = j.d.distance < 0.45 ? [cmd("backward", "medium")] : [];
  const plan = [...room, turn(s, side, mag), walk, turn(s, back, mag), cmd("walk", "medium")];
  const why = `the ${j.label} ahead is too tall to climb and has no room beneath: ${room.length ? "step back, " : ""}go around it on the ${side}${remembered ? " (the side I took before)" : " where there is more room"}, then turn back`;
  return { plan, why };
}

function approachThen(d: RangedDetection, within: number, then: CourseCommand[]): CourseCommand[] {
  return d.distance > within ? [walkFor(d.distance - 0.35), ...then] : then;
}

/** What to do about the thing in the way, given how it is judged and what already failed at it. */
function meet(s: Scene, j: Judged): Decision {
  let way = j.way;
  if (way === "walk" && banned(s.mem, "walk", j.label)) way = banned(s.mem, "climb", j.label) ? "around" : "climb";
  if ((way === "crawl" || way === "climb") && banned(s.mem, way, j.label)) way = "around";
  const changed = way !== j.way ? ` (${j.way} already failed here)` : "";
  if (way === "around") return around(s, j);
  if (way === "crawl") return { plan: approachThen(j.d, 0.7, [cmd("crawl", "large"), cmd("crawl", "large"), cmd("walk", "medium")]), why: `the ${j.label} ahead has room beneath for a crawl${changed}` };
  if (way === "climb") return { plan: approachThen(j.d, 0.6, [cmd("climb", "medium"), cmd("walk", "medium")]), why: `the ${j.label} ahead is low enough to climb over${changed}` };
  return { plan: [cmd("walk", "large"), cmd("walk", "medium")], why: `the ${j.label} ahead can be walked over or beneath${changed}` };
}

/** After a crawl that got stuck for good, the body is still beneath: back out before turning. */
function backOut(s: Scene): Decision | undefined {
  const lastSkill = s.mem.past.at(-1)?.result.skill;
  const { under } = beneath(s.mem);
  if (lastSkill === "backward" && under > 0.05) {
    return { plan: [...backwardFor(under + 0.3), turn(s, s.target.bearing < 0 ? "right" : "left", "large")], why: `by my own moves the body is still ${under.toFixed(1)} m beneath the furniture: back out further before turning` };
  }
  const last = s.mem.stalls.at(-1);
  if (!last || last.index !== s.mem.past.length - 1) return undefined;
  if (last.skill === "turn_left" || last.skill === "turn_right") return { plan: [cmd("backward", "small"), cmd(last.skill, "small")], why: "the turn hit something: step back first" };
  if (last.skill !== "crawl" || !banned(s.mem, "crawl", last.label)) return undefined;
  const side = detourSide(s.mem, last.label) ?? (s.target.bearing < 0 ? "right" : "left");
  const back = side === "left" ? "right" : "left";
  // Back out as far as it crawled in, and a little more so the turn is clear of the furniture.
  const out = backwardFor(Math.max(0.8, beneath(s.mem).under + 0.4));
  const plan = [...out, turn(s, side, "large"), cmd("walk", "large"), turn(s, back, "large")];
  const why = last.walls ? `the crawl under the ${last.label} stalled with walls close around: a dead end, so back out and go around` : `crawling under the ${last.label} stalled twice: back out and go around`;
  return { plan, why };
}

/** Labelled examples: the current frame resembles one when its nearest thing is the same kind at a similar distance. */
function fromExample(s: Scene, j: Judged | undefined): Decision | undefined {
  const nearest = (dets: RangedDetection[]) => firstInPath(dets, 3) ?? obstaclesOf(dets).sort((a, b) => a.distance - b.distance)[0];
  const here = j?.d ?? nearest(s.ctx.frame.detections);
  if (!here) return undefined;
  const label = j?.label ?? here.label;
  const ex = (s.ctx.examples ?? []).find((e) => {
    const n = nearest(e.detections);
    return n && n.label === label && Math.abs(n.distance - here.distance) <= 0.5;
  });
  if (!ex || banned(s.mem, ex.best.skill, label)) return undefined;
  return { plan: [ex.best, ...continuation(ex.best)], why: `this view resembles a labelled example (${ex.note}): its best command is ${ex.best.skill} ${ex.best.magnitude}` };
}

function continuation(c: CourseCommand): CourseCommand[] {
  if (c.skill === "turn_left" || c.skill === "turn_right") return [cmd("walk", "large"), cmd(c.skill === "turn_left" ? "turn_right" : "turn_left", c.magnitude)];
  if (c.skill === "crawl") return [cmd("crawl", "large"), cmd("walk", "medium")];
  return [cmd("walk", "medium")];
}

/** The last skill turned away from something in the way: walk on before turning back, or it would face it again. */
function midDetour(s: Scene): boolean {
  const p = s.mem.past.at(-1);
  if (!p || (p.result.skill !== "turn_left" && p.result.skill !== "turn_right") || p.result.stalled) return false;
  const blocker = p.detections && firstInPath(p.detections, NEAR_AROUND);
  const turnedFrom = blocker && (plainWay(blocker) === "around" || s.mem.stalls.some((x) => x.label === blocker.label));
  const planned = p.answer?.plan;
  const plannedDetour = planned && planned.length >= 3 && planned[1].skill === "walk" && planned[2].skill.startsWith("turn") && planned[2].skill !== planned[0].skill;
  return !!turnedFrom || !!plannedDetour;
}

/** Nothing in the way: toward the toy (seen or remembered), else on in the course's direction. */
function openWay(s: Scene): Decision {
  const room = freeAhead(s.ctx.frame.detections);
  const toyRoom = s.target.source === "course" ? room : Math.min(room, s.target.distance - 0.2);
  const where = s.target.source === "view" ? "the toy is in view" : s.target.source === "memory" ? "the toy was seen earlier" : "the toy has not been seen yet";
  if (midDetour(s)) {
    const back = s.target.bearing >= 0 ? "left" : "right";
    return { plan: [walkFor(room), turn(s, back, turnMagnitude(Math.abs(s.target.bearing))), walkFor(1.2)], why: "I just turned away from an obstacle: walk past it, then turn back" };
  }
  if (Math.abs(s.target.bearing) >= 12) {
    const t = turnToward(s, s.target.bearing);
    return { plan: [t, cmd("walk", "medium"), cmd("walk", "medium")], why: `${where}, ${Math.round(Math.abs(s.target.bearing))}° to the ${s.target.bearing > 0 ? "left" : "right"}: turn toward it, then walk` };
  }
  return { plan: [walkFor(toyRoom), walkFor(Math.max(0.3, toyRoom - distanceOf(walkFor(toyRoom))))], why: `${where}, straight ahead and the way is clear: walk` };
}

/** The toy close in view — or, just lost from view at the nose, close by my own last moves. */
function reachedToy(s: Scene): ToySighting | undefined {
  if (s.toy) return s.toy.distance <= REACH_DISTANCE ? s.toy : undefined;
  const m = s.mem.toy;
  return m && m.stepsAgo <= 2 && m.distance <= REACH_DISTANCE ? m : undefined;
}

/**
 * A skill that already stalled twice here is not tried a third time, even with nothing to name in the way: try
 * another way of moving (something low may be underfoot, something low overhead), else step back and turn.
 */
function unstick(s: Scene, d: Decision): Decision {
  const first = d.plan[0];
  if (d.reached || first.skill === "turn_left" || first.skill === "turn_right") return d;
  const label = firstInPath(s.ctx.frame.detections, NEAR_AROUND)?.label ?? "something";
  if (!banned(s.mem, first.skill, label)) return d;
  const side = s.target.bearing < 0 ? "right" : "left";
  const why = `${first.skill} already stalled twice here`;
  const next = (["climb", "crawl", "backward"] as const).find((k) => k !== first.skill && !banned(s.mem, k, label));
  if (next === "backward") return { plan: [cmd("backward", "medium"), turn(s, side, "large"), cmd("walk", "large")], why: `${why}: step back and try another heading` };
  if (next) return { plan: [cmd(next, "medium"), cmd("walk", "medium")], why: `${why}: try to ${next} instead` };
  return { plan: [turn(s, side, "large"), cmd("walk", "large")], why: `${why}, and so did the other ways forward: turn away` };
}

function decide(s: Scene): Decision {
  return unstick(s, firstIdea(s));
}

function firstIdea(s: Scene): Decision {
  const reached = reachedToy(s);
  if (reached) return { plan: [cmd("walk", "small")], why: `the toy is ${reached.distance.toFixed(2)} m away, right in front: reached`, reached: true };
  const out = backOut(s);
  if (out) return out;
  const ahead = firstInPath(s.ctx.frame.detections, NEAR_AROUND);
  const j = ahead && judge(ahead, s.noise, s.rng);
  // Beneath furniture nothing but crawling on is possible (a stall here tells the history it is a dead end).
  const still = beneath(s.mem);
  if (still.toClear > 0) return { plan: [cmd("crawl", still.toClear > 0.3 ? "large" : "medium"), cmd("walk", "medium")], why: "I am beneath the furniture I crawled under: keep crawling until the body is clear" };
  const example = fromExample(s, j);
  if (example) return example;
  // The toy in view with a clear way to it: turn to it rather than deal with what stands straight ahead.
  if (j && s.toy && Math.abs(s.toy.bearing) >= 10 && !firstInPath(s.ctx.frame.detections, Math.min(s.toy.distance, NEAR_AROUND), s.toy.bearing)) {
    return { plan: [turnToward(s, s.toy.bearing), cmd("walk", "medium")], why: "the toy is in view and the way to it is clear: turn to it" };
  }
  // Facing away from the toy, crossing what lies ahead only leads further from it.
  if (j && j.way !== "around" && s.target.source !== "course" && Math.abs(s.target.bearing) > 100) {
    return { plan: [turnToward(s, s.target.bearing), cmd("walk", "medium")], why: `the toy is behind me (${Math.round(Math.abs(s.target.bearing))}° away): turn back toward it rather than cross the ${j.label}` };
  }
  if (j && (j.way === "around" || j.d.distance <= NEAR)) return meet(s, j);
  return openWay(s);
}

// ---- comparing with the previous plan ------------------------------------------------------------------------------

const say = (plan: CourseCommand[]) => plan.map((c) => `${c.skill} ${c.magnitude}`).join(", ");

/** Why the previous plan's next skill no longer fits the newest frame, or undefined when it still does. */
function misfit(s: Scene, next: CourseCommand, fresh: Decision): string | undefined {
  if (s.toy && fresh.plan[0].skill !== next.skill) return "the toy is in view now";
  const ahead = firstInPath(s.ctx.frame.detections, NEAR_AROUND);
  if (ahead && banned(s.mem, next.skill, ahead.label)) return `${next.skill} already failed twice at the ${ahead.label}`;
  if (next.skill === "walk") {
    const blocker = obstaclesOf(s.ctx.frame.detections).find((d) => inPath(d, distanceOf(next) + 0.3) && plainWay(d) !== "walk");
    if (blocker) return `the ${blocker.label} is in the way of a ${next.magnitude} walk`;
  }
  if (next.skill === fresh.plan[0].skill) return undefined;
  const forward = (c: CourseCommand) => FORWARD.includes(c.skill);
  if (forward(next) && forward(fresh.plan[0])) return `the way ahead calls for ${fresh.plan[0].skill}, not ${next.skill}`;
  if (next.skill === "walk") return undefined;
  if (next.skill === "turn_left" || next.skill === "turn_right") {
    const facing = Math.abs(s.target.bearing) < 12 && fresh.plan[0].skill === "walk";
    return facing ? "I already face the way I want to go" : undefined;
  }
  if (next.skill === "crawl" || next.skill === "climb") {
    return ahead && plainWay(ahead) === next.skill ? undefined : `nothing ahead to ${next.skill} ${next.skill === "crawl" ? "under" : "over"}`;
  }
  return undefined;
}

function compare(s: Scene, fresh: Decision): { plan: CourseCommand[]; keepsPrevious: boolean; comparison: string } {
  const prev = s.ctx.previousPlan ?? [];
  const revise = (because: string) => ({ plan: fresh.plan, keepsPrevious: false, comparison: `${because}; new plan: ${say(fresh.plan)}, because ${fresh.why}.` });
  if (!prev.length) return revise("There is no previous plan left");
  if (fresh.reached) return revise("The toy is reached, so the previous plan is done");
  const last = s.mem.past.at(-1)?.result;
  if (last?.stalled) return revise(`The last skill (${last.skill} ${last.magnitude}) stalled, so the previous plan (${say(prev)}) is revised`);
  const why = misfit(s, prev[0], fresh);
  if (why) return revise(`The previous plan (${say(prev)}) no longer fits: ${why}`);
  return { plan: prev.slice(0, 5), keepsPrevious: true, comparison: `The previous plan (${say(prev)}) is still consistent with this image and the last skill did not stall: keep it.` };
}

// ---- progress ------------------------------------------------------------------------------------------------------

function progressText(s: Scene): string {
  const { past, stalls, toy } = s.mem;
  if (!past.length) return "No earlier steps are shown, so I only know this image.";
  const recent = past.slice(-4).map((p) => `${p.result.skill} ${p.result.magnitude} (${p.result.stalled ? "stalled" : p.result.skill.startsWith("turn") ? `turned ${Math.round(Math.abs(p.result.turned))}°` : `moved ${p.result.moved.toFixed(2)} m`})`);
  const parts = [`${past.length} skills so far; the latest: ${recent.join(", ")}.`];
  const kinds = [...new Set(stalls.map((x) => `${x.skill} at the ${x.label}`))];
  for (const k of kinds) {
    const n = stalls.filter((x) => `${x.skill} at the ${x.label}` === k).length;
    parts.push(`${k[0].toUpperCase()}${k.slice(1)} stalled ${n === 1 ? "once" : `${n} times`}${stalls.some((x) => `${x.skill} at the ${x.label}` === k && x.walls) ? ", with walls close" : ""}.`);
  }
  if (s.toy) parts.push(`The toy is in view, ${s.toy.distance.toFixed(1)} m away.`);
  else if (toy) parts.push(`The toy was last seen ${toy.stepsAgo} step${toy.stepsAgo === 1 ? "" : "s"} ago; by my own moves it is now about ${toy.distance.toFixed(1)} m away, ${Math.round(Math.abs(toy.bearing))}° to the ${toy.bearing >= 0 ? "left" : "right"}.`);
  else parts.push("The toy has not been seen yet.");
  return parts.join(" ");
}

/** VLM-PC's planner: progress, a plan of the next skills (the first is run), and whether it keeps its last plan. */
export function planCourse(ctx: CourseContext, noise: NoiseKnobs, rng: Draw): CoursePlan {
  const mem = remember(ctx);
  const s: Scene = { ctx, mem, noise, rng, toy: toyOf(ctx.frame.detections), target: target(ctx, mem) };
  const fresh = decide(s);
  const chosen = compare(s, fresh);
  const plan = chosen.plan.slice(0, ctx.multiStep ? 5 : 1);
  return { progress: progressText(s), plan, keepsPrevious: chosen.keepsPrevious, comparison: chosen.comparison, reached: !!fresh.reached };
}
