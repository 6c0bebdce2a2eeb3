/**
 * The scene the planner reasons about (part of planning): the frame's detections less what the last turn just swung
 * clear of, where it means to go — the toy in view, the toy remembered (by a way around what its frames showed in
 * between), or, never seen, on along the course's line or to look where it has not — and the map its frames make.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { CourseContext, ToySighting } from "../schemas";
import type { Draw, NoiseKnobs } from "../../../models/symbolic/noise";
import { CourseMap } from "./courseMap";
import { NEAR, NEAR_AROUND, TOY } from "./robot";
import { plainWay } from "./judging";
import { corridorOf, firstInPath, inPath, rad, toyOf } from "./geometry";
import { approach, type Memory, type Past, type Pose, relative, wayLeft } from "./memory";

export interface Scene {
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
export function passing(mem: Memory, frame: CourseContext["frame"]): Set<RangedDetection> {
  const previous = mem.past.at(-1);
  const out = new Set<RangedDetection>();
  if (
    !previous?.detections ||
    (previous.result.skill !== "turn_left" && previous.result.skill !== "turn_right") ||
    Math.abs(previous.result.turned) < 40
  )
    return out;
  const from = previous.detections.filter((d) => inPath(d, NEAR_AROUND));
  const sign = previous.result.turned > 0 ? -1 : 1;
  for (const d of frame.detections) {
    if (d.label === TOY || sign * d.bearing < frame.fov / 2 - 10 || d.width > 0.15) continue;
    if (from.some((f) => f.label === d.label)) out.add(d);
  }
  return out;
}

export function target(ctx: CourseContext, mem: Memory, map: CourseMap): Scene["target"] {
  const toy = toyOf(ctx.frame.detections);
  if (toy) return { distance: toy.distance, bearing: toy.bearing, source: "view" };
  if (mem.toy) {
    // Seen earlier and now out of sight: the way to it goes around what was seen in between.
    const place = {
      x: mem.pose.x + mem.toy.distance * Math.cos(rad(mem.pose.th + mem.toy.bearing)),
      y: mem.pose.y + mem.toy.distance * Math.sin(rad(mem.pose.th + mem.toy.bearing)),
    };
    const way = map.toward(mem.pose, place);
    if (way && way !== place) return { ...relative(mem.pose, way), source: "memory", routed: true };
    return { distance: mem.toy.distance, bearing: mem.toy.bearing, source: "memory" };
  }
  // Never seen: keep to the line it set out on, steering back to it after detours (an empty history knows no line
  // but straight on). A line that ran into a dead end is given up: the new line is the way it turned on leaving.
  const line = courseLine(mem);
  const cosine = Math.cos(rad(line.th)),
    sn = Math.sin(rad(line.th));
  const along = Math.max(0, (mem.pose.x - line.x) * cosine + (mem.pose.y - line.y) * sn) + 2.5;
  const ahead = relative(mem.pose, { x: line.x + along * cosine, y: line.y + along * sn });
  // The line runs into something it cannot pass (a wall across the room): search — go look where it has not seen.
  const probe = {
    x: mem.pose.x + 1.5 * Math.cos(rad(mem.pose.th + ahead.bearing)),
    y: mem.pose.y + 1.5 * Math.sin(rad(mem.pose.th + ahead.bearing)),
  };
  if (mem.past.length && !map.clear(mem.pose, probe)) {
    const unseen = map.toUnseen(mem.pose);
    if (unseen) return { ...relative(mem.pose, unseen), source: "course", routed: true };
  }
  return { ...ahead, source: "course" };
}

/** The place as its frames showed it, each frame where dead reckoning puts it. */
export function mapOf(ctx: CourseContext, mem: Memory): CourseMap {
  // One camera took every frame: the current frame's says how its boxes map to bearings.
  const camera = { fov: ctx.frame.fov, imageWidth: ctx.frame.imageWidth };
  const looks = mem.past
    .filter((p) => p.detections)
    .map((p) => ({ pose: p.pose, detections: p.detections!, ...camera }));
  looks.push({ pose: mem.pose, detections: ctx.frame.detections, ...camera });
  // What already failed at a thing is out, as the planner meets it: a bench it could not crawl under blocks like a wall.
  const blocks = (detection: RangedDetection, from: Pose) =>
    detection.label !== TOY &&
    wayLeft(mem, detection.label, plainWay(detection), approach(from, detection)) === "around";
  return new CourseMap(looks, [...mem.past.map((p) => p.pose), mem.pose], blocks, bumps(mem));
}

/** Where walks stalled with nothing it could walk over, climb or crawl under named in the way: the pose each stopped at. */
function bumps(mem: Memory): Pose[] {
  return mem.stalls.flatMap((st) => {
    const step = mem.past[st.index];
    if (step.result.skill !== "walk") return [];
    const ahead = step.detections && firstInPath(step.detections, NEAR);
    if (ahead && plainWay(ahead) !== "around") return [];
    return [st.index + 1 < mem.past.length ? mem.past[st.index + 1].pose : mem.pose];
  });
}

/** The line the course is followed along: where it set out, or where it turned after backing out of a dead-end corridor. */
function courseLine(mem: Memory): Pose {
  let line: Pose = { x: 0, y: 0, th: 0 };
  mem.past.forEach((step, i) => {
    if (step.result.skill !== "backward" || !step.detections) return;
    const corridor = corridorOf(step.detections);
    if (!corridor?.narrow) return;
    const turning = (later: Past) =>
      (later.result.skill === "turn_left" || later.result.skill === "turn_right") && Math.abs(later.result.turned) > 5;
    const j = mem.past.findIndex((q, k) => k > i && turning(q));
    if (j < 0) return;
    // Across the corridor's line, a right angle to the side it turned on leaving, from where it turned.
    const th = mem.past[i].pose.th + (mem.past[j].result.turned > 0 ? 90 : -90);
    line = { ...mem.past[j].pose, th };
  });
  return line;
}
