/**
 * The legged robot's picture of the place from its own frames, as a person keeps one while searching a room: where it
 * has been, which ground it has seen clear, and where it saw things it cannot get past — all dead-reckoned from its
 * own moves, in the frame it started in. Nothing here comes from the simulator but the detections the camera gave.
 *
 * It answers two questions: which way leads to a place not yet seen (where to look next when the toy has not been
 * seen), and which way leads around what is in the way to a place remembered (the toy seen earlier, now behind a wall).
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import { Heap } from "heap-js";

export interface MapPose {
  x: number;
  y: number;
  /** Heading, degrees left of the first remembered heading. */
  th: number;
}

export interface Look {
  pose: MapPose;
  detections: RangedDetection[];
  /** The camera: horizontal field of view (degrees) and pixels across the image (what boxes are measured in). */
  fov: number;
  imageWidth: number;
}

const CELL = 0.25;
const SIZE = 96; // ±12 m
/**
 * How far ahead a frame shows the ground well enough to call it seen: the detector names the toy out to 4-5 m
 * (first sightings in the tuning runs reach 4.4 m), so ground within 3.5 m that a frame showed need not be looked at again.
 */
const SEEN_RANGE = 3.5;
/** Metres of path a quarter turn is worth, when choosing where to look next. */
const TURN_COST = 1;
/** The half-width of the strip the body needs, for a straight leg to be clear. */
const HALF_BODY = 0.22;

/** How far ahead of the camera a walk that stalled stopped against something. */
const BUMP_AHEAD = 0.3;

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;
const wrap = (a: number) => ((((a + 180) % 360) + 360) % 360) - 180;

/** The bearings (degrees, + left) of a box's left and right edges: the camera is a pinhole of the look's field of view. */
function edges(d: RangedDetection, l: Look): { left: number; right: number } {
  const focal = l.imageWidth / 2 / Math.tan(rad(l.fov / 2));
  const at = (px: number) => -deg(Math.atan2(px - l.imageWidth / 2, focal));
  return { left: at(d.box.x), right: at(d.box.x + d.box.w) };
}

export class CourseMap {
  private readonly seen = new Uint8Array(SIZE * SIZE);
  private readonly blocked = new Uint8Array(SIZE * SIZE);
  private readonly visited = new Uint8Array(SIZE * SIZE);

  /**
   * `blocks`: whether a detection is something the body cannot walk over, crawl under or climb (the reasoner's own
   * judgement of it). `bumps`: where a walk stalled against something no frame showed in the way (below the view),
   * the pose it stopped at.
   */
  constructor(
    looks: Look[],
    places: MapPose[],
    blocks: (d: RangedDetection, from: MapPose) => boolean,
    bumps: MapPose[] = [],
  ) {
    for (const l of looks) this.add(l, blocks);
    for (const p of places) this.mark(this.visited, p.x, p.y);
    // What stopped the body is just ahead of the camera, about as wide as the body.
    for (const b of bumps) {
      const a = rad(b.th);
      for (const t of [-0.2, 0, 0.2])
        this.mark(
          this.blocked,
          b.x + BUMP_AHEAD * Math.cos(a) - t * Math.sin(a),
          b.y + BUMP_AHEAD * Math.sin(a) + t * Math.cos(a),
        );
    }
  }

  private index(x: number, y: number): number {
    const i = Math.floor(x / CELL) + SIZE / 2,
      j = Math.floor(y / CELL) + SIZE / 2;
    return i < 0 || j < 0 || i >= SIZE || j >= SIZE ? -1 : i * SIZE + j;
  }

  private mark(grid: Uint8Array, x: number, y: number): void {
    const k = this.index(x, y);
    if (k >= 0) grid[k] = 1;
  }

  private centre(k: number): { x: number; y: number } {
    return { x: (Math.floor(k / SIZE) - SIZE / 2 + 0.5) * CELL, y: ((k % SIZE) - SIZE / 2 + 0.5) * CELL };
  }

  private add(l: Look, blocks: (d: RangedDetection, from: MapPose) => boolean): void {
    const walls = l.detections.filter((d) => blocks(d, l.pose)).map((d) => ({ d, ...edges(d, l) }));
    // What it cannot pass: each such thing as a segment across the line of sight, as wide as it measured — but only
    // over the bearings its box spans: a wall seen slantwise measures wider than it looks, and square to the line of
    // sight it would cover the opening beside it too.
    for (const { d, left, right } of walls) {
      const a = rad(l.pose.th + d.bearing);
      const cx = l.pose.x + d.distance * Math.cos(a),
        cy = l.pose.y + d.distance * Math.sin(a);
      const ux = -Math.sin(a),
        uy = Math.cos(a);
      for (let t = -d.width / 2; t <= d.width / 2 + 1e-9; t += CELL / 2) {
        const x = cx + ux * t,
          y = cy + uy * t;
        const b = wrap(deg(Math.atan2(y - l.pose.y, x - l.pose.x)) - l.pose.th);
        if (b <= left + 1 && b >= right - 1) this.mark(this.blocked, x, y);
      }
    }
    // The ground it saw clear: along each bearing of the view, up to the first thing it cannot pass.
    for (let b = -l.fov / 2 + 2; b <= l.fov / 2 - 2; b += 4) {
      const range = Math.min(
        SEEN_RANGE,
        ...walls.filter((w) => b <= w.left + 1 && b >= w.right - 1).map((w) => w.d.distance - 0.15),
      );
      const a = rad(l.pose.th + b);
      for (let r = 0.3; r <= range; r += CELL / 2)
        this.mark(this.seen, l.pose.x + r * Math.cos(a), l.pose.y + r * Math.sin(a));
    }
  }

  /** Path costs from `from` over cells not seen blocked (unknown ground costs a little more than ground seen clear). */
  private costs(from: MapPose): { cost: Float64Array; parent: Int32Array } {
    const cost = new Float64Array(SIZE * SIZE).fill(Infinity);
    const parent = new Int32Array(SIZE * SIZE).fill(-1);
    const start = this.index(from.x, from.y);
    if (start < 0) return { cost, parent };
    const near = new Uint8Array(SIZE * SIZE);
    for (let k = 0; k < SIZE * SIZE; k++) {
      if (!this.blocked[k]) continue;
      for (let di = -1; di <= 1; di++)
        for (let dj = -1; dj <= 1; dj++) {
          const m = k + di * SIZE + dj;
          if (m >= 0 && m < SIZE * SIZE) near[m] = 1;
        }
    }
    cost[start] = 0;
    const queue = new Heap<[number, number]>((a, b) => a[0] - b[0]);
    queue.push([0, start]);
    while (queue.length) {
      const [c, k] = queue.pop()!;
      if (c > cost[k]) continue;
      const i = Math.floor(k / SIZE),
        j = k % SIZE;
      for (let di = -1; di <= 1; di++)
        for (let dj = -1; dj <= 1; dj++) {
          const a = i + di,
            b = j + dj;
          if ((!di && !dj) || a < 0 || b < 0 || a >= SIZE || b >= SIZE) continue;
          const m = a * SIZE + b;
          if (this.blocked[m] && m !== start) continue;
          const step = Math.hypot(di, dj) * CELL * (this.seen[m] || this.visited[m] ? 1 : 1.3) * (near[m] ? 3 : 1);
          if (cost[k] + step < cost[m]) {
            cost[m] = cost[k] + step;
            parent[m] = k;
            queue.push([cost[m], m]);
          }
        }
    }
    return { cost, parent };
  }

  /** Whether a frame showed the ground at `p` clear. */
  hasSeen(p: { x: number; y: number }): boolean {
    const k = this.index(p.x, p.y);
    return k >= 0 && this.seen[k] === 1;
  }

  /** Whether the straight strip from `a` to `b` crosses nothing seen blocked. */
  clear(a: { x: number; y: number }, b: { x: number; y: number }): boolean {
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const ux = (b.x - a.x) / Math.max(1e-9, len),
      uy = (b.y - a.y) / Math.max(1e-9, len);
    for (let t = 0.3; t <= len; t += CELL / 2) {
      for (const side of [-HALF_BODY, 0, HALF_BODY]) {
        const k = this.index(a.x + ux * t - uy * side, a.y + uy * t + ux * side);
        if (k >= 0 && this.blocked[k]) return false;
      }
    }
    return true;
  }

  /** The farthest point along the cheapest path (up to 2.5 m away) that a straight leg reaches clear. */
  private waypoint(from: MapPose, goal: number, parent: Int32Array): { x: number; y: number } {
    const path: number[] = [];
    for (let k = goal; k >= 0 && path.length < SIZE * SIZE; k = parent[k]) path.unshift(k);
    let best = this.centre(path[Math.min(1, path.length - 1)]);
    for (const k of path.slice(1)) {
      const c = this.centre(k);
      if (Math.hypot(c.x - from.x, c.y - from.y) > 2.5 || !this.clear(from, c)) break;
      best = c;
    }
    return best;
  }

  /**
   * Where to look next: the cheapest way to ground not yet seen, at least `away` metres from everywhere it has been
   * (ground just beside the body is always unseen: the camera looks ahead). Undefined when nothing is left to see.
   */
  toUnseen(from: MapPose, away = 1.5): { x: number; y: number } | undefined {
    const { cost, parent } = this.costs(from);
    const places: { x: number; y: number }[] = [];
    for (let k = 0; k < SIZE * SIZE; k++) if (this.visited[k]) places.push(this.centre(k));
    places.push(from);
    let goal = -1;
    let best = Infinity;
    for (let k = 0; k < SIZE * SIZE; k++) {
      if (this.seen[k] || this.blocked[k] || cost[k] === Infinity || cost[k] >= best) continue;
      const c = this.centre(k);
      if (places.some((p) => Math.hypot(p.x - c.x, p.y - c.y) < away)) continue;
      // Unseen ground next to ground seen clear (the edge of what it knows); any unseen ground only when there is none.
      const i = Math.floor(k / SIZE),
        j = k % SIZE;
      const edge = [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ].some(([di, dj]) => {
        const a = i + di,
          b = j + dj;
        return a >= 0 && b >= 0 && a < SIZE && b < SIZE && this.seen[a * SIZE + b] === 1;
      });
      // Turning costs time too: of two places about as far, the one nearer the way it faces (and no flip-flopping
      // between sides as each look shows a little more).
      const turnBy = Math.abs(wrap(deg(Math.atan2(c.y - from.y, c.x - from.x)) - from.th));
      const score = cost[k] + (edge ? 0 : 1000) + TURN_COST * (turnBy / 90);
      if (score < best) {
        best = score;
        goal = k;
      }
    }
    return goal < 0 ? undefined : this.waypoint(from, goal, parent);
  }

  /** The way to a remembered place around what was seen in between; undefined when it cannot be reached on the map. */
  toward(from: MapPose, place: { x: number; y: number }): { x: number; y: number } | undefined {
    if (this.clear(from, place)) return place;
    const { cost, parent } = this.costs(from);
    const goal = this.index(place.x, place.y);
    if (goal < 0 || cost[goal] === Infinity) return undefined;
    return this.waypoint(from, goal, parent);
  }
}
