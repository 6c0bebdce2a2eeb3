/**
 * The symbolic reasoner for VLM-PC (legged robot on obstacle courses). Like a VLM it is given the current frame's
 * detections, the earlier frames with its own earlier answers and the skills' odometry results (or a condensed summary
 * of older steps), the rest of its last plan, and optionally labelled examples — never a pose, a map or where the toy
 * is. From that it reasons as a VLM would: commonsense about what a quadruped can crawl under or climb over, dead
 * reckoning of where the toy was last seen from its own moves, and what already failed where. What it cannot know
 * (an empty history hides that the last skill stalled) it does not know: no branch asks which variant is running.
 */
import type { RangedDetection } from "../../robots/msgs/detections";
import type { CourseCommand, CourseContext, CoursePlan, CourseResult, CourseSkill, Magnitude, ToySighting } from "../schemas";
import type { Draw, NoiseKnobs } from "./noise";
import { CourseMap } from "./courseMap";

// ---- what the prompt tells the model about the robot ---------------------------------------------------------------

export const ROBOT = { length: 0.6, width: 0.25, height: 0.3, crawlHeight: 0.14, climbHeight: 0.2 } as const;
/** The toy this close to the camera counts as reached. */
export const REACH_DISTANCE = 0.35;
export const TOY = "toy";
const SECONDS: Record<Magnitude, number> = { small: 1, medium: 2, large: 4 };
const SPEED = { walk: 0.3, crawl: 0.15, backward: 0.2 };
/** A climb carries the body about 0.25 / 0.4 / 0.6 m forward (the manifest), not a speed times the time. */
const CLIMB: Record<Magnitude, number> = { small: 0.25, medium: 0.4, large: 0.6 };
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
  /** Rounded or slippery: a climb's feet slip now and then (the manifest: they get up 7 times in 10), so a slip is worth retrying. */
  slippery?: true;
}

/** Commonsense about the course's things: how they usually look, used when the model misreads what it sees. */
const KINDS: Record<string, Kind> = {
  couch: { top: 0.8, underside: 0.2, depth: 0.9, roomBeneath: true },
  bench: { top: 0.45, underside: 0.25, depth: 0.5, roomBeneath: true },
  cushion: { top: 0.18, underside: 0, depth: 0.5, roomBeneath: false },
  log: { top: 0.15, underside: 0, depth: 0.3, roomBeneath: false, slippery: true },
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

/**
 * Walls (or a hedge) close on both sides and running along the view (seen edge-on: next to no width across): the body
 * is in a corridor. Narrower than the room a turn in place sweeps (the body's half-diagonal on each side), it cannot
 * turn there. The camera sees the ground from some way ahead, so side walls that go on beside the body still show at
 * about that range; when their near ends show farther ahead (or their ends show as width), the corridor's mouth is in
 * front of the camera and the body behind it is out in the open.
 */
interface Corridor {
  left: RangedDetection;
  right: RangedDetection;
  /** Too narrow to turn in. */
  narrow: boolean;
  /** The corridor begins ahead of the camera: the body is out of it. */
  mouthAhead: boolean;
  /** Something across the far end that cannot be walked over: a dead end. */
  end?: RangedDetection;
}
/** Half the width a turn in place sweeps: the body's half-diagonal, with a little margin. */
const TURN_HALF_ROOM = Math.hypot(ROBOT.length / 2, ROBOT.width / 2) + 0.02;
/** How far ahead the camera first sees something standing right beside the body (its view is pitched down). */
const NEAREST_SIDE_VIEW = 0.83;
const SIDE_LABELS = new Set(["wall", "bush", "bamboo"]);

function corridorOf(dets: RangedDetection[]): Corridor | undefined {
  const side = obstaclesOf(dets).filter((d) => SIDE_LABELS.has(d.label) && Math.abs(d.bearing) >= 8 && d.distance <= 1.3 && d.width <= 0.15);
  const lateral = (d: RangedDetection) => offsets(d).y;
  const nearest = (sign: number) => side.filter((d) => sign * lateral(d) > 0 && Math.abs(lateral(d)) < 0.6).sort((a, b) => a.distance - b.distance)[0];
  const left = nearest(1);
  const right = nearest(-1);
  if (!left || !right) return undefined;
  const narrow = lateral(left) - lateral(right) < 2 * TURN_HALF_ROOM;
  const mouthAhead = [left, right].every((d) => offsets(d).x >= NEAREST_SIDE_VIEW || d.width >= 0.05);
  const end = obstaclesOf(dets)
    .filter((d) => d !== left && d !== right && inPath(d, 3) && plainWay(d) === "around" && d.width >= 0.3)
    .sort((a, b) => a.distance - b.distance)[0];
  return { left, right, narrow, mouthAhead, end };
}

/**
 * The thing ahead together with its neighbours that leave gaps narrower than the body between them (stools in a row):
 * the body cannot pass between, so they are one thing to go around. A synthetic detection spanning them all.
 */
function groupOf(d: RangedDetection, dets: RangedDetection[]): RangedDetection {
  const span = (o: RangedDetection) => {
    const { x, y } = offsets(o);
    return { x, lo: y - o.width / 2, hi: y + o.width / 2 };
  };
  const others = obstaclesOf(dets).filter((o) => o !== d && plainWay(o) === "around" && !SIDE_LABELS.has(o.label));
  let { x, lo, hi } = span(d);
  let grew = true;
  const used = new Set<RangedDetection>();
  while (grew) {
    grew = false;
    for (const o of others) {
      if (used.has(o)) continue;
      const q = span(o);
      if (Math.abs(q.x - x) > 0.6) continue;
      const gap = Math.max(q.lo - hi, lo - q.hi);
      if (gap < ROBOT.width + 0.1) {
        used.add(o);
        lo = Math.min(lo, q.lo);
        hi = Math.max(hi, q.hi);
        x = Math.min(x, q.x);
        grew = true;
      }
    }
  }
  if (!used.size) return d;
  const y = (lo + hi) / 2;
  return { ...d, distance: Math.hypot(x, y), bearing: deg(Math.atan2(y, x)), width: hi - lo };
}

/** Everything in view is seen only up to below crawling height, and what is near fills the image up to its top edge. */
function lowView(dets: RangedDetection[]): boolean {
  const obs = obstaclesOf(dets);
  return obs.length > 0 && obs.every((d) => d.top < ROBOT.crawlHeight) && obs.some((d) => d.distance < 1 && d.box.y <= 0 && d.box.w >= 120);
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

/**
 * A skill that stalled twice at the same kind of thing, or a crawl that stalled with walls close (a dead end), is out.
 * Climbing a slippery thing fails by chance (the feet slip 3 times in 10): only four slips in a row rule it out.
 */
function banned(mem: Memory, skill: CourseSkill, label: string): boolean {
  const here = mem.stalls.filter((s) => s.skill === skill && s.label === label);
  const tries = skill === "climb" && KINDS[label]?.slippery ? 4 : 2;
  return here.length >= tries || (skill === "crawl" && here.some((s) => s.walls));
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

/**
 * Room behind the hips when the body came out from beneath furniture by crawling (and has only gone on forward since):
 * the furniture's far side is where it was seen plus its depth; the hips are a body length behind the camera. Infinity
 * when nothing of the kind is remembered.
 */
function roomBehind(mem: Memory): number {
  let last = mem.past.length - 1;
  let since = 0;
  for (; last >= 0 && mem.past[last].result.skill !== "crawl"; last--) {
    const r = mem.past[last].result;
    if (r.skill === "backward") return Infinity;
    since += Math.max(0, r.moved);
  }
  const run = last >= 0 ? crawlRun(mem.past, last) : undefined;
  if (!run) return Infinity;
  const depth = KINDS[run.target.label]?.depth ?? 0.8;
  return run.crawled + since - (run.target.distance + depth) - (ROBOT.length - 0.03);
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
  /** `routed`: a leg of a way around what its frames showed in between (to a place remembered, or to look where it has not). */
  target: ToySighting & { source: "view" | "memory" | "course"; routed?: true };
  /** The frame's detections less what the last turn just swung clear of. */
  view: RangedDetection[];
  /** What its frames showed of the place so far. */
  map: CourseMap;
}

/**
 * What the last turn swung away from: a thing of the same kind was in the way before the turn, and now it shows only
 * at the edge of the image on the side turned from, a sliver of it. The turn cleared it; walking on passes it.
 */
function passing(mem: Memory, frame: CourseContext["frame"]): Set<RangedDetection> {
  const p = mem.past.at(-1);
  const out = new Set<RangedDetection>();
  if (!p?.detections || (p.result.skill !== "turn_left" && p.result.skill !== "turn_right") || Math.abs(p.result.turned) < 40) return out;
  const from = p.detections.filter((d) => inPath(d, NEAR_AROUND));
  const sign = p.result.turned > 0 ? -1 : 1;
  for (const d of frame.detections) {
    if (d.label === TOY || sign * d.bearing < frame.fov / 2 - 10 || d.width > 0.15) continue;
    if (from.some((f) => f.label === d.label)) out.add(d);
  }
  return out;
}

interface Decision {
  plan: CourseCommand[];
  why: string;
  reached?: boolean;
  /** What this frame shows that the previous plan could not have known (it replaces a plan that says otherwise). */
  news?: string;
}

const cmd = (skill: CourseSkill, magnitude: Magnitude): CourseCommand => ({ skill, magnitude });
const distanceOf = (c: CourseCommand) => (c.skill === "climb" ? CLIMB[c.magnitude] : SECONDS[c.magnitude] * (SPEED[c.skill as keyof typeof SPEED] ?? 0));

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

function target(ctx: CourseContext, mem: Memory, map: CourseMap): Scene["target"] {
  const toy = toyOf(ctx.frame.detections);
  if (toy) return { distance: toy.distance, bearing: toy.bearing, source: "view" };
  if (mem.toy) {
    // Seen earlier and now out of sight: the way to it goes around what was seen in between.
    const place = { x: mem.pose.x + mem.toy.distance * Math.cos(rad(mem.pose.th + mem.toy.bearing)), y: mem.pose.y + mem.toy.distance * Math.sin(rad(mem.pose.th + mem.toy.bearing)) };
    const way = map.toward(mem.pose, place);
    if (way && way !== place) return { ...relative(mem.pose, way), source: "memory", routed: true };
    return { distance: mem.toy.distance, bearing: mem.toy.bearing, source: "memory" };
  }
  // Never seen: keep to the line it set out on, steering back to it after detours (an empty history knows no line
  // but straight on). A line that ran into a dead end is given up: the new line is the way it turned on leaving.
  const line = courseLine(mem);
  const c = Math.cos(rad(line.th)), sn = Math.sin(rad(line.th));
  const along = Math.max(0, (mem.pose.x - line.x) * c + (mem.pose.y - line.y) * sn) + 2.5;
  const ahead = relative(mem.pose, { x: line.x + along * c, y: line.y + along * sn });
  // The line runs into something it cannot pass (a wall across the room): search — go look where it has not seen.
  const probe = { x: mem.pose.x + 1.5 * Math.cos(rad(mem.pose.th + ahead.bearing)), y: mem.pose.y + 1.5 * Math.sin(rad(mem.pose.th + ahead.bearing)) };
  if (mem.past.length && !map.clear(mem.pose, probe)) {
    const unseen = map.toUnseen(mem.pose);
    if (unseen) return { ...relative(mem.pose, unseen), source: "course", routed: true };
  }
  return { ...ahead, source: "course" };
}

/** The place as its frames showed it, each frame where dead reckoning puts it. */
function mapOf(ctx: CourseContext, mem: Memory): CourseMap {
  const looks = mem.past.filter((p) => p.detections).map((p) => ({ pose: p.pose, detections: p.detections!, fov: ctx.frame.fov }));
  looks.push({ pose: mem.pose, detections: ctx.frame.detections, fov: ctx.frame.fov });
  return new CourseMap(looks, [...mem.past.map((p) => p.pose), mem.pose], (d) => d.label !== TOY && plainWay(d) === "around");
}

/** The line the course is followed along: where it set out, or where it turned after backing out of a dead-end corridor. */
function courseLine(mem: Memory): Pose {
  let line: Pose = { x: 0, y: 0, th: 0 };
  mem.past.forEach((p, i) => {
    if (p.result.skill !== "backward" || !p.detections) return;
    const c = corridorOf(p.detections);
    if (!c?.narrow) return;
    const turning = (q: Past) => (q.result.skill === "turn_left" || q.result.skill === "turn_right") && Math.abs(q.result.turned) > 5;
    const j = mem.past.findIndex((q, k) => k > i && turning(q));
    if (j < 0) return;
    // Across the corridor's line, a right angle to the side it turned on leaving, from where it turned.
    const th = mem.past[i].pose.th + (mem.past[j].result.turned > 0 ? 90 : -90);
    line = { ...mem.past[j].pose, th };
  });
  return line;
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
  const inside = (o: RangedDetection) => {
    const a = offsets(o).y, c = offsets(d).y;
    return Math.abs(a - c) <= d.width / 2 + 0.05 && Math.abs(offsets(o).x - offsets(d).x) < 0.7;
  };
  const others = obstaclesOf(s.ctx.frame.detections).filter((o) => o !== d && o.distance < 2 && plainWay(o) === "around" && !inside(o));
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
  // Things with gaps narrower than the body between them are gone around as one.
  const group = groupOf(j.d, s.ctx.frame.detections);
  const side = remembered ?? freeSide(s, group);
  const mag = turnMagnitude(turnToClear(group, side, s.ctx.frame.fov));
  const back = side === "left" ? "right" : "left";
  // Walk far enough to take the whole body past its edge: a thing cut off at the image's edge goes on beyond it.
  const sign = side === "left" ? 1 : -1;
  const cut = (o: RangedDetection) => (Math.abs(o.bearing) > s.ctx.frame.fov / 2 - 10 ? KINDS[o.label]?.depth ?? 0.4 : 0);
  const members = obstaclesOf(s.ctx.frame.detections).filter((o) => o === j.d || (Math.abs(offsets(o).y - offsets(group).y) <= group.width / 2 + 0.01 && plainWay(o) === "around" && !SIDE_LABELS.has(o.label)));
  const edge = Math.max(...members.map((o) => sign * offsets(o).y + o.width / 2 + cut(o)));
  const need = (Math.max(0, edge) + ROBOT.width / 2 + 0.15) / Math.sin(rad(TURN_DEG[mag]));
  const walks = group.width > 1 || need > 1.0 ? [cmd("walk", "large")] : need > 0.65 ? [cmd("walk", "medium"), cmd("walk", "small")] : [cmd("walk", "medium")];
  // Too close to turn past it: the body would swing into it, so step back first — unless, by my own moves, the
  // furniture I just crawled out from under is right behind the hips (backing would run into it; a turn in place fits).
  const room = j.d.distance < 0.45 && roomBehind(s.mem) > 0.45 ? [cmd("backward", "medium")] : [];
  const plan = [...room, turn(s, side, mag), ...walks, turn(s, back, mag), cmd("walk", "medium")];
  const gap = group !== j.d ? ` (with the ${j.label}s beside it the gaps are narrower than my body)` : "";
  const why = `the ${j.label} ahead is too tall to climb and has no room beneath${gap}: ${room.length ? "step back, " : ""}go around it on the ${side}${remembered ? " (the side I took before)" : " where there is more room"}, then turn back`;
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
  if (last.skill === "turn_left" || last.skill === "turn_right") {
    // Backed up against something a moment ago: the room to turn is ahead, not behind.
    const behind = s.mem.stalls.some((x) => x.skill === "backward" && x.index >= s.mem.past.length - 4);
    if (behind) return { plan: [cmd("walk", "small"), cmd(last.skill, "large")], why: "the turn hit something, and backing up stalled against something behind just before: step forward first" };
    return { plan: [cmd("backward", "small"), cmd(last.skill, "small")], why: "the turn hit something: step back first" };
  }
  if (last.skill !== "crawl" || !banned(s.mem, "crawl", last.label)) return undefined;
  const side = detourSide(s.mem, last.label) ?? (s.target.bearing < 0 ? "right" : "left");
  const back = side === "left" ? "right" : "left";
  // Back out as far as it crawled in, and a little more so the turn is clear of the furniture.
  const out = backwardFor(Math.max(0.8, beneath(s.mem).under + 0.4));
  const plan = [...out, turn(s, side, "large"), cmd("walk", "large"), turn(s, back, "large")];
  const why = last.walls ? `the crawl under the ${last.label} stalled with walls close around: a dead end, so back out and go around` : `crawling under the ${last.label} stalled twice: back out and go around`;
  return { plan, why };
}

/**
 * In a corridor too narrow to turn in, with its end blocked: back straight out (a turn there only wedges the body)
 * until the corridor's mouth shows ahead of the camera; then the body is out, and it turns toward the side that looks
 * more open (the farther things beyond the corridor's walls), away from the dead end.
 */
function deadEndCorridor(s: Scene): Decision | undefined {
  const c = corridorOf(s.ctx.frame.detections);
  if (!c || !c.narrow || s.toy) return undefined;
  const last = s.mem.past.at(-1)?.result;
  const stuckAhead = last && FORWARD.includes(last.skill) && last.stalled;
  if (!c.end && !stuckAhead) return undefined;
  const backedStuck = last?.skill === "backward" && last.stalled;
  if (c.mouthAhead || backedStuck) {
    const beyond = (sign: number) => Math.max(0, ...obstaclesOf(s.ctx.frame.detections).filter((d) => d !== c.left && d !== c.right && sign * d.bearing > 12).map((d) => d.distance));
    const l = beyond(1), r = beyond(-1);
    const side = l === r ? (s.target.bearing < -12 ? "right" : "left") : l > r ? "left" : "right";
    const why = c.mouthAhead
      ? `the walls close on both sides now begin ahead of me: I am out of the dead-end corridor, so turn a right angle ${side}, where it looks more open`
      : `backing out stalled against something behind: turn ${side} here`;
    // The way on is across the corridor's line, not back into it: a right angle.
    return { plan: [turn(s, side, "large"), turn(s, side, "medium"), cmd("walk", "medium")], why, news: "the body is out of the corridor now" };
  }
  const why = `walls close on both sides (${(offsets(c.left).y - offsets(c.right).y).toFixed(2)} m apart, too narrow to turn in) and ${c.end ? `a ${c.end.label} across the end` : "the way ahead stalled"}: a dead end, so back straight out`;
  return { plan: [cmd("backward", "large"), cmd("backward", "large")], why };
}

/** Within this range a thing counts as part of what a view shows (farther things are background). */
const SALIENT = 2.5;

/** Two detections that look like the same thing at about the same place in the image. */
function alike(a: RangedDetection, b: RangedDetection): boolean {
  return a.label === b.label && Math.abs(a.distance - b.distance) <= Math.max(0.12, 0.1 * a.distance) && Math.abs(a.bearing - b.bearing) <= 6;
}

/** Every salient thing of each view has its like in the other: the same scene, seen from about the same place. */
function sameView(here: RangedDetection[], there: RangedDetection[]): boolean {
  const salient = (dets: RangedDetection[]) => dets.filter((d) => d.distance <= SALIENT);
  const a = salient(here);
  const b = salient(there);
  if (!a.length || !b.length) return false;
  return a.every((d) => there.some((e) => alike(d, e))) && b.every((e) => here.some((d) => alike(d, e)));
}

/**
 * Labelled examples: followed only when the current frame really matches one — every salient thing in it matches one
 * in the example (same kind, similar range and bearing) and the other way round. A view that merely shares its
 * nearest thing is not the same situation. A labelled command that already stalled here is not followed.
 */
function fromExample(s: Scene): Decision | undefined {
  const here = s.ctx.frame.detections;
  const ex = (s.ctx.examples ?? []).find((e) => sameView(here, e.detections));
  if (!ex) return undefined;
  const label = firstInPath(here, NEAR_AROUND)?.label ?? "something";
  if (banned(s.mem, ex.best.skill, label)) return undefined;
  // The model writes the labelled turn itself, so it can slip the same way as any turn it writes.
  const best = ex.best.skill === "turn_left" || ex.best.skill === "turn_right" ? turn(s, ex.best.skill === "turn_left" ? "left" : "right", ex.best.magnitude) : ex.best;
  return { plan: [best], why: `this view matches a labelled example (${ex.note}): its best command is ${ex.best.skill} ${ex.best.magnitude}`, news: "this view matches a labelled example" };
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
  const room = freeAhead(s.view);
  const toyRoom = s.target.source === "course" ? room : Math.min(room, s.target.distance - 0.2);
  const where = s.target.source === "view" ? "the toy is in view" : s.target.source === "memory" ? "the toy was seen earlier" : "the toy has not been seen yet";
  if (s.target.routed) return routedLeg(s, where);
  // With the toy in view, go to it: a detour half done no longer matters.
  if (!s.toy && midDetour(s)) {
    const back = s.target.bearing >= 0 ? "left" : "right";
    return { plan: [walkFor(room), turn(s, back, turnMagnitude(Math.abs(s.target.bearing))), walkFor(1.2)], why: "I just turned away from an obstacle: walk past it, then turn back" };
  }
  if (Math.abs(s.target.bearing) >= 12) {
    const t = turnToward(s, s.target.bearing);
    return { plan: [t, cmd("walk", "medium"), cmd("walk", "medium")], why: `${where}, ${Math.round(Math.abs(s.target.bearing))}° to the ${s.target.bearing > 0 ? "left" : "right"}: turn toward it, then walk` };
  }
  return { plan: [walkFor(toyRoom), walkFor(Math.max(0.3, toyRoom - distanceOf(walkFor(toyRoom))))], why: `${where}, straight ahead and the way is clear: walk` };
}

/**
 * A leg of a way its frames showed (around a wall to a place remembered, or to ground not seen yet). Searching, it
 * turns to look first and lets the next frame decide where to walk; going to the toy, it turns and walks.
 */
function routedLeg(s: Scene, where: string): Decision {
  const side = `${Math.round(Math.abs(s.target.bearing))}° to the ${s.target.bearing > 0 ? "left" : "right"}`;
  if (Math.abs(s.target.bearing) < 12) return { plan: [walkFor(Math.min(freeAhead(s.view), s.target.distance)), cmd("walk", "medium")], why: `${where}; what I have seen shows a clear way straight ahead: walk` };
  const t = turnToward(s, s.target.bearing);
  if (s.target.source === "course") return { plan: [t], why: `the toy has not been seen yet and I have not looked ${side}: turn to look there first` };
  return { plan: [t, cmd("walk", "medium"), cmd("walk", "medium")], why: `${where}; what I have seen shows a way around what is in between, ${side}: turn to it, then walk` };
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
  const label = firstInPath(s.view, NEAR_AROUND)?.label ?? "something";
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
  const example = fromExample(s);
  const own = ownIdea(s);
  if (!example) return own;
  // The example labels the next command only; what follows is my own plan when it starts the same way, else nothing
  // more (the next view decides).
  const first = example.plan[0];
  const rest = own.plan[0].skill === first.skill ? own.plan.slice(1) : [];
  return { ...example, plan: [first, ...rest] };
}

function ownIdea(s: Scene): Decision {
  const corridor = deadEndCorridor(s);
  if (corridor) return corridor;
  // Something beyond the toy is not in the way to it.
  const reach = s.toy && Math.abs(s.toy.bearing) < 12 ? Math.min(NEAR_AROUND, s.toy.distance - 0.1) : NEAR_AROUND;
  const ahead = firstInPath(s.view, reach);
  const j = ahead && judge(ahead, s.noise, s.rng);
  // Beneath furniture nothing but crawling on is possible (a stall here tells the history it is a dead end).
  const still = beneath(s.mem);
  if (still.toClear > 0) return { plan: [cmd("crawl", still.toClear > 0.3 ? "large" : "medium"), cmd("walk", "medium")], why: "I am beneath the furniture I crawled under: keep crawling until the body is clear" };
  // The view itself says the head is low: what fills it up to the image's top edge shows only its lowest few
  // centimetres. Crouched beneath something, crawling on is the only move — unless the history shows a crawl stalled.
  if (lowView(s.ctx.frame.detections) && !s.mem.stalls.some((x) => x.skill === "crawl")) {
    return { plan: [cmd("crawl", "medium"), cmd("walk", "medium")], why: "the view is cut off just above the floor: I am crouched beneath something, so crawl on" };
  }
  // The toy in view with a clear way to it: turn to it rather than deal with what stands straight ahead.
  if (j && s.toy && Math.abs(s.toy.bearing) >= 10 && !firstInPath(s.view, Math.min(s.toy.distance, NEAR_AROUND), s.toy.bearing)) {
    return { plan: [turnToward(s, s.toy.bearing), cmd("walk", "medium")], why: "the toy is in view and the way to it is clear: turn to it" };
  }
  // Facing away from the toy, crossing what lies ahead only leads further from it.
  if (j && j.way !== "around" && s.target.source !== "course" && Math.abs(s.target.bearing) > 100) {
    return { plan: [turnToward(s, s.target.bearing), cmd("walk", "medium")], why: `the toy is behind me (${Math.round(Math.abs(s.target.bearing))}° away): turn back toward it rather than cross the ${j.label}` };
  }
  // Searching, and a wall or hedge is in the way: edging along it finds an opening only by luck; look where the
  // frames have not shown yet instead. (The scene's target changes with it, so the comparison with the previous plan
  // judges against where it now means to go.)
  if (j && j.way === "around" && s.target.source === "course" && !s.target.routed && SIDE_LABELS.has(j.label) && s.mem.past.length) {
    const unseen = s.map.toUnseen(s.mem.pose);
    if (unseen) s.target = { ...relative(s.mem.pose, unseen), source: "course", routed: true };
  }
  // Something it cannot pass across the way, and its frames show a way around it that the body can take straight:
  // take that leg rather than edge along it.
  if (j && j.way === "around" && s.target.routed && Math.abs(s.target.bearing) >= 12) {
    const leg = routedLeg(s, "");
    return { ...leg, why: `the ${j.label} ahead cannot be passed: ${leg.why.replace(/^; /, "")}` };
  }
  if (j && (j.way === "around" || j.d.distance <= NEAR)) return meet(s, j);
  return openWay(s);
}

// ---- comparing with the previous plan ------------------------------------------------------------------------------

const say = (plan: CourseCommand[]) => plan.map((c) => `${c.skill} ${c.magnitude}`).join(", ");

/** Why the previous plan's next skill no longer fits the newest frame, or undefined when it still does. */
function misfit(s: Scene, next: CourseCommand, fresh: Decision): string | undefined {
  if (s.toy && fresh.plan[0].skill !== next.skill) return "the toy is in view now";
  const ahead = firstInPath(s.view, NEAR_AROUND);
  if (ahead && banned(s.mem, next.skill, ahead.label)) return `${next.skill} already failed twice at the ${ahead.label}`;
  if (next.skill === "walk") {
    const blocker = obstaclesOf(s.view).find((d) => inPath(d, distanceOf(next) + 0.3) && plainWay(d) !== "walk");
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
  if (fresh.news && prev[0].skill !== fresh.plan[0].skill) return revise(`The previous plan (${say(prev)}) no longer fits: ${fresh.news}`);
  const why = misfit(s, prev[0], fresh);
  // Mid-detour the leg past the obstacle is cut short by something new in the way: turn back now, as planned next.
  const turnNext = prev[1] && (prev[1].skill === "turn_left" || prev[1].skill === "turn_right");
  if (why && prev[0].skill === "walk" && turnNext && !s.toy && /in the way of/.test(why)) {
    const room = Math.min(...obstaclesOf(s.view).filter((d) => inPath(d, 3) && plainWay(d) !== "walk").map((d) => d.distance)) - 0.3;
    const plan = room >= 0.25 ? [walkFor(room), ...prev.slice(1, 5)] : prev.slice(1, 6);
    return { plan, keepsPrevious: true, comparison: `The previous plan (${say(prev)}) still holds but ${why}: ${room >= 0.25 ? "walk only as far as there is room" : "skip that walk"}, then turn back as planned.` };
  }
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
  const passed = passing(mem, ctx.frame);
  const view = ctx.frame.detections.filter((d) => !passed.has(d));
  const map = mapOf(ctx, mem);
  const s: Scene = { ctx, mem, noise, rng, toy: toyOf(ctx.frame.detections), target: target(ctx, mem, map), view, map };
  const fresh = decide(s);
  const chosen = compare(s, fresh);
  const plan = chosen.plan.slice(0, ctx.multiStep ? 5 : 1);
  return { progress: progressText(s), plan, keepsPrevious: chosen.keepsPrevious, comparison: chosen.comparison, reached: !!fresh.reached };
}
