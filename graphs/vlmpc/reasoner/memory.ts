/**
 * The reasoner's memory, from the history it is shown (frames with its own answers and the skills' odometry, or a
 * condensed summary of older steps): dead reckoning of its pose from its own moves, where the toy was last seen
 * relative to it now, what each stall happened at (and whether walls were close), which skills are ruled out where,
 * the side it last went around things on, and how far it is beneath (or out from beneath) furniture it crawled under.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { CourseContext, CoursePlan, CourseResult, CourseSkill, ToySighting } from "../schemas";
import { KINDS, NEAR_AROUND, RECENT_STEPS, ROBOT, WALL_NEAR, type Way } from "./robot";
import { plainWay } from "./judging";
import { deg, firstInPath, rad, toyOf, wrap } from "./geometry";

export interface Pose {
  x: number;
  y: number;
  /** Heading, degrees left of the first remembered heading. */
  th: number;
}

export interface Past {
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
  /** The heading it came at the thing from (degrees, in the frame it started in). */
  toward: number;
}

export interface Memory {
  past: Past[];
  pose: Pose;
  toy?: ToySighting & { stepsAgo: number };
  stalls: Stall[];
}

/** Odometry: half the turn, the move, the other half — skills turn or move, and this is exact for either. */
function advance(pose: Pose, result: CourseResult): Pose {
  const mid = pose.th + result.turned / 2;
  return {
    x: pose.x + result.moved * Math.cos(rad(mid)),
    y: pose.y + result.moved * Math.sin(rad(mid)),
    th: pose.th + result.turned,
  };
}

function worldPoint(pose: Pose, sighting: ToySighting): { x: number; y: number } {
  const heading = rad(pose.th + sighting.bearing);
  return { x: pose.x + sighting.distance * Math.cos(heading), y: pose.y + sighting.distance * Math.sin(heading) };
}

export function relative(pose: Pose, point: { x: number; y: number }): ToySighting {
  const dx = point.x - pose.x;
  const dy = point.y - pose.y;
  return { distance: Math.hypot(dx, dy), bearing: wrap(deg(Math.atan2(dy, dx)) - pose.th) };
}

/** Older condensed steps, then the frames shown, in step order (a step shown in full wins over its summary). */
function pastSteps(ctx: CourseContext): Omit<Past, "pose">[] {
  const shown = new Set(ctx.history.map((h) => h.step));
  const older = (ctx.summary ?? [])
    .filter((s) => !shown.has(s.step))
    .map((s) => ({ step: s.step, toy: s.toy, result: s }));
  const recent = ctx.history.map((entry) => {
    const toy = toyOf(entry.detections);
    return {
      step: entry.step,
      detections: entry.detections,
      toy: toy && { distance: toy.distance, bearing: toy.bearing },
      result: entry.result,
      answer: entry.answer,
    };
  });
  return [...older, ...recent].sort((a, b) => a.step - b.step);
}

export function remember(ctx: CourseContext): Memory {
  let pose: Pose = { x: 0, y: 0, th: 0 };
  const past: Past[] = [];
  for (const s of pastSteps(ctx)) {
    past.push({ ...s, pose });
    pose = advance(pose, s.result);
  }
  const lastSeen = past
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.toy)
    .at(-1);
  const toy = lastSeen && {
    ...relative(pose, worldPoint(lastSeen.p.pose, lastSeen.p.toy!)),
    stepsAgo: past.length - lastSeen.i,
  };
  const stalls = past.flatMap((p, i) => (p.result.stalled ? [stallAt(past, i, ctx.frame.detections)] : []));
  return { past, pose, toy, stalls };
}

export const FORWARD: CourseSkill[] = ["walk", "crawl", "climb"];
const framesAround = (past: Past[], i: number, now: RangedDetection[]) => [
  past[i].detections,
  i + 1 < past.length ? past[i + 1].detections : now,
];

/** What a stall happened at: what the crawl was aimed at, else what was in the way before, else what is in view after. */
function stallAt(past: Past[], i: number, now: RangedDetection[]): Stall {
  const { skill } = past[i].result;
  const [before, after] = framesAround(past, i, now);
  const aimed = skill === "crawl" ? crawlRun(past, i)?.target : undefined;
  const thing = aimed ?? (before && firstInPath(before, NEAR_AROUND)) ?? (after && firstInPath(after, NEAR_AROUND));
  const walls = [before, after].some((f) => f?.some((d) => d.label === "wall" && d.distance <= WALL_NEAR) ?? false);
  return { index: i, skill, label: thing?.label ?? NOTHING_NAMED, walls, toward: approach(past[i].pose, thing) };
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

/** The heading it comes at a thing from, standing at `pose` (straight on when there is nothing named ahead). */
export const approach = (pose: { th: number }, d?: { bearing: number }): number => pose.th + (d?.bearing ?? 0);

/** What a stall is put down to when no frame named anything in the way. */
export const NOTHING_NAMED = "something";

/** Within this distance (m) and turn (degrees) of where a stalled skill began, the body is at the same spot. */
const SAME_SPOT = { metres: 0.2, degrees: 20 };
const atSpot = (mem: Memory, pose: Pose) =>
  Math.hypot(pose.x - mem.pose.x, pose.y - mem.pose.y) <= SAME_SPOT.metres &&
  Math.abs(wrap(pose.th - mem.pose.th)) <= SAME_SPOT.degrees;

/** Approaches this many degrees apart are different ways at a thing: a crawl that caught at a slant may go squarely. */
const SAME_APPROACH = 35;

/**
 * A skill that stalled twice at the same kind of thing, or a crawl that stalled with walls close (a dead end), is out —
 * coming at it the same way (`toward`: the heading it would come at it from; without one, any way).
 * Climbing a slippery thing fails by chance (the feet slip 3 times in 10): only four slips in a row rule it out.
 */
export function banned(mem: Memory, skill: CourseSkill, label: string, toward?: number): boolean {
  // With nothing named in the way, a stall says something only about the spot it happened at.
  const here = mem.stalls.filter(
    (stall) =>
      stall.skill === skill &&
      stall.label === label &&
      (toward === undefined || Math.abs(wrap(stall.toward - toward)) <= SAME_APPROACH) &&
      (label !== NOTHING_NAMED || atSpot(mem, mem.past[stall.index].pose)),
  );
  return here.length >= triesAllowed(skill, label) || (skill === "crawl" && here.some((s) => s.walls));
}

/** Stalls a skill may have at a thing before it is ruled out: a slippery thing's climb fails by chance, so four. */
export const triesAllowed = (skill: CourseSkill, label: string): number =>
  skill === "climb" && KINDS[label]?.slippery ? 4 : 2;

/**
 * Stalls of this skill that began about where the body stands now, facing about the same way — whatever the frames
 * named in the way: something below the view stalls a walk while the thing named ahead changes from frame to frame.
 */
export function stalledHere(mem: Memory, skill: CourseSkill): number {
  return mem.stalls.filter((s) => s.skill === skill && atSpot(mem, mem.past[s.index].pose)).length;
}

/** The way past a thing of this kind once what already failed at it is ruled out: a walk that stalled twice is a climb. */
export function wayLeft(mem: Memory, label: string, way: Way, toward?: number): Way {
  if (way === "walk" && banned(mem, "walk", label, toward))
    way = banned(mem, "climb", label, toward) ? "around" : "climb";
  if ((way === "crawl" || way === "climb") && banned(mem, way, label, toward)) way = "around";
  return way;
}

/**
 * The side it last went around this kind of thing — or, lately, around anything (obstacles stand in clusters): keep
 * to it, or it swings back and forth between two of them.
 */
export function detourSide(mem: Memory, label: string): "left" | "right" | undefined {
  let recent: "left" | "right" | undefined;
  for (let i = mem.past.length - 1; i >= 0; i--) {
    const earlier = mem.past[i];
    const turn =
      earlier.result.skill === "turn_left" ? "left" : earlier.result.skill === "turn_right" ? "right" : undefined;
    const from = turn && earlier.detections && firstInPath(earlier.detections, NEAR_AROUND);
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
export function beneath(mem: Memory): { under: number; toClear: number } {
  let last = mem.past.length - 1;
  let backed = 0;
  for (; last >= 0 && mem.past[last].result.skill === "backward"; last--)
    backed -= Math.min(0, mem.past[last].result.moved);
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
export function roomBehind(mem: Memory): number {
  let last = mem.past.length - 1;
  let since = 0;
  for (; last >= 0 && mem.past[last].result.skill !== "crawl"; last--) {
    const result = mem.past[last].result;
    if (result.skill === "backward") return Infinity;
    since += Math.max(0, result.moved);
  }
  const run = last >= 0 ? crawlRun(mem.past, last) : undefined;
  if (!run) return Infinity;
  const depth = KINDS[run.target.label]?.depth ?? 0.8;
  return run.crawled + since - (run.target.distance + depth) - (ROBOT.length - 0.03);
}
