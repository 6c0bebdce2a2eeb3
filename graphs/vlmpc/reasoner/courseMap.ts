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
function edges(detection: RangedDetection, look: Look): { left: number; right: number } {
  const focal = look.imageWidth / 2 / Math.tan(rad(look.fov / 2));
  const at = (px: number) => -deg(Math.atan2(px - look.imageWidth / 2, focal));
  return { left: at(detection.box.x), right: at(detection.box.x + detection.box.w) };
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
      const heading = rad(b.th);
      for (const t of [-0.2, 0, 0.2])
        this.mark(
          this.blocked,
          b.x + BUMP_AHEAD * Math.cos(heading) - t * Math.sin(heading),
          b.y + BUMP_AHEAD * Math.sin(heading) + t * Math.cos(heading),
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

  private add(look: Look, blocks: (d: RangedDetection, from: MapPose) => boolean): void {
    const walls = look.detections.filter((d) => blocks(d, look.pose)).map((d) => ({ d, ...edges(d, look) }));
    // What it cannot pass: each such thing as a segment across the line of sight, as wide as it measured — but only
    // over the bearings its box spans: a wall seen slantwise measures wider than it looks, and square to the line of
    // sight it would cover the opening beside it too.
    for (const { d, left, right } of walls) {
      const heading = rad(look.pose.th + d.bearing);
      const cx = look.pose.x + d.distance * Math.cos(heading),
        cy = look.pose.y + d.distance * Math.sin(heading);
      const ux = -Math.sin(heading),
        uy = Math.cos(heading);
      for (let t = -d.width / 2; t <= d.width / 2 + 1e-9; t += CELL / 2) {
        const x = cx + ux * t,
          y = cy + uy * t;
        const bearing = wrap(deg(Math.atan2(y - look.pose.y, x - look.pose.x)) - look.pose.th);
        if (bearing <= left + 1 && bearing >= right - 1) this.mark(this.blocked, x, y);
      }
    }
    // The ground it saw clear: along each bearing of the view, up to the first thing it cannot pass.
    for (let b = -look.fov / 2 + 2; b <= look.fov / 2 - 2; b += 4) {
      const range = Math.min(
        SEEN_RANGE,
        ...walls.filter((w) => b <= w.left + 1 && b >= w.right - 1).map((w) => w.d.distance - 0.15),
      );
      const heading = rad(look.pose.th + b);
      for (let r = 0.3; r <= range; r += CELL / 2)
        this.mark(this.seen, look.pose.x + r * Math.cos(heading), look.pose.y + r * Math.sin(heading));
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
          const neighbour = k + di * SIZE + dj;
          if (neighbour >= 0 && neighbour < SIZE * SIZE) near[neighbour] = 1;
        }
    }
    cost[start] = 0;
    const queue = new Heap<[number, number]>((a, b) => a[0] - b[0]);
    queue.push([0, start]);
    while (queue.length) {
      const [queuedCost, k] = queue.pop()!;
      if (queuedCost > cost[k]) continue;
      const i = Math.floor(k / SIZE),
        j = k % SIZE;
      for (let di = -1; di <= 1; di++)
        for (let dj = -1; dj <= 1; dj++) {
          const row = i + di,
            col = j + dj;
          if ((!di && !dj) || row < 0 || col < 0 || row >= SIZE || col >= SIZE) continue;
          const neighbour = row * SIZE + col;
          if (this.blocked[neighbour] && neighbour !== start) continue;
          const step =
            Math.hypot(di, dj) *
            CELL *
            (this.seen[neighbour] || this.visited[neighbour] ? 1 : 1.3) *
            (near[neighbour] ? 3 : 1);
          if (cost[k] + step < cost[neighbour]) {
            cost[neighbour] = cost[k] + step;
            parent[neighbour] = k;
            queue.push([cost[neighbour], neighbour]);
          }
        }
    }
    return { cost, parent };
  }

  /** Whether a frame showed the ground at `point` clear. */
  hasSeen(point: { x: number; y: number }): boolean {
    const k = this.index(point.x, point.y);
    return k >= 0 && this.seen[k] === 1;
  }

  /** Whether the straight strip from `origin` to `target` crosses nothing seen blocked. */
  clear(origin: { x: number; y: number }, target: { x: number; y: number }): boolean {
    const len = Math.hypot(target.x - origin.x, target.y - origin.y);
    const ux = (target.x - origin.x) / Math.max(1e-9, len),
      uy = (target.y - origin.y) / Math.max(1e-9, len);
    for (let t = 0.3; t <= len; t += CELL / 2) {
      for (const side of [-HALF_BODY, 0, HALF_BODY]) {
        const k = this.index(origin.x + ux * t - uy * side, origin.y + uy * t + ux * side);
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
      const point = this.centre(k);
      if (Math.hypot(point.x - from.x, point.y - from.y) > 2.5 || !this.clear(from, point)) break;
      best = point;
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
      const point = this.centre(k);
      if (places.some((p) => Math.hypot(p.x - point.x, p.y - point.y) < away)) continue;
      // Unseen ground next to ground seen clear (the edge of what it knows); any unseen ground only when there is none.
      const i = Math.floor(k / SIZE),
        j = k % SIZE;
      const edge = [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ].some(([di, dj]) => {
        const row = i + di,
          col = j + dj;
        return row >= 0 && col >= 0 && row < SIZE && col < SIZE && this.seen[row * SIZE + col] === 1;
      });
      // Turning costs time too: of two places about as far, the one nearer the way it faces (and no flip-flopping
      // between sides as each look shows a little more).
      const turnBy = Math.abs(wrap(deg(Math.atan2(point.y - from.y, point.x - from.x)) - from.th));
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
