/**
 * Geometry of one frame: where a detection lies relative to the body (forward and lateral offsets for a heading),
 * whether it is in the strip the body sweeps walking straight, the obstacles and the toy in view, a corridor of
 * walls close on both sides (too narrow to turn in? its mouth ahead? a dead end?), neighbours too close together to
 * pass between, and a view cut off just above the floor.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import { CORRIDOR, ROBOT, TOY } from "./robot";
import { plainWay } from "./judging";

export const rad = (d: number) => (d * Math.PI) / 180;
export const deg = (r: number) => (r * 180) / Math.PI;
export const wrap = (a: number) => ((((a + 180) % 360) + 360) % 360) - 180;

/** Forward and lateral (+ left) offsets of a detection, for a robot facing `heading` degrees left of the camera axis. */
export function offsets(detection: RangedDetection, heading = 0): { x: number; y: number } {
  const angle = rad(detection.bearing - heading);
  return { x: detection.distance * Math.cos(angle), y: detection.distance * Math.sin(angle) };
}

export function inPath(detection: RangedDetection, reach: number, heading = 0): boolean {
  const { x, y } = offsets(detection, heading);
  // x = 0: the camera is already at (or beneath) it.
  return x >= 0 && x <= reach && Math.abs(y) - detection.width / 2 < CORRIDOR;
}

export const obstaclesOf = (dets: RangedDetection[]) => dets.filter((d) => d.label !== TOY);
export const toyOf = (dets: RangedDetection[]) =>
  dets.filter((d) => d.label === TOY).sort((a, b) => b.score - a.score)[0];

export function firstInPath(dets: RangedDetection[], reach: number, heading = 0): RangedDetection | undefined {
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
export const SIDE_LABELS = new Set(["wall", "bush", "bamboo"]);

export function corridorOf(dets: RangedDetection[]): Corridor | undefined {
  const side = obstaclesOf(dets).filter(
    (d) => SIDE_LABELS.has(d.label) && Math.abs(d.bearing) >= 8 && d.distance <= 1.3 && d.width <= 0.15,
  );
  const lateral = (d: RangedDetection) => offsets(d).y;
  const nearest = (sign: number) =>
    side.filter((d) => sign * lateral(d) > 0 && Math.abs(lateral(d)) < 0.6).sort((a, b) => a.distance - b.distance)[0];
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
export function groupOf(detection: RangedDetection, dets: RangedDetection[]): RangedDetection {
  const span = (thing: RangedDetection) => {
    const { x, y } = offsets(thing);
    return { x, lo: y - thing.width / 2, hi: y + thing.width / 2 };
  };
  const others = obstaclesOf(dets).filter(
    (o) => o !== detection && plainWay(o) === "around" && !SIDE_LABELS.has(o.label),
  );
  let { x, lo, hi } = span(detection);
  let grew = true;
  const used = new Set<RangedDetection>();
  while (grew) {
    grew = false;
    for (const o of others) {
      if (used.has(o)) continue;
      const spanned = span(o);
      if (Math.abs(spanned.x - x) > 0.6) continue;
      const gap = Math.max(spanned.lo - hi, lo - spanned.hi);
      if (gap < ROBOT.width + 0.1) {
        used.add(o);
        lo = Math.min(lo, spanned.lo);
        hi = Math.max(hi, spanned.hi);
        x = Math.min(x, spanned.x);
        grew = true;
      }
    }
  }
  if (!used.size) return detection;
  const y = (lo + hi) / 2;
  return { ...detection, distance: Math.hypot(x, y), bearing: deg(Math.atan2(y, x)), width: hi - lo };
}

/** Everything in view is seen only up to below crawling height, and what is near fills the image up to its top edge. */
export function lowView(dets: RangedDetection[]): boolean {
  const obs = obstaclesOf(dets);
  return (
    obs.length > 0 &&
    obs.every((d) => d.top < ROBOT.crawlHeight) &&
    obs.some((d) => d.distance < 1 && d.box.y <= 0 && d.box.w >= 120)
  );
}
