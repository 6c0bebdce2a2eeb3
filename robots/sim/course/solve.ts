/**
 * Whether a course can be done within its 100 s of skill time: a search over the dog's own skills in the simulator —
 * the same body, controllers and collision checks an agent's skills run on, with nominal motions (no ±10% disturbance,
 * climbs that never slip). It knows the true layout and where the toy is, so it is for building datasets and for tests
 * only; nothing of it is ever served to an agent.
 *
 * Weighted A* over (pose, posture) with the skill seconds as cost. Its guide is a distance field over a grid of the
 * course: from each cell, the walking time to the toy over cells the body fits in (on the floor, crouched under
 * something, or up on something low) where neighbouring heights differ by no more than a climb.
 */
import { Controllers, TICK, type Magnitude, type Pose, type Skill, type SkillReport } from "./controllers";
import { findCourse, type Course, type Step } from "./scenarios";
import { POSTURES, type Posture } from "./scene";
import { CourseWorld, SUCCESS_RADIUS } from "./world";
import { Heap } from "heap-js";

export interface Solution {
  steps: Step[];
  /** Skill seconds until the toy was reached (mid-skill when it is reached mid-skill). */
  seconds: number;
  expanded: number;
}

export interface SolveOptions {
  /** Skill seconds a solution may take (the trial's 100 s). */
  budget?: number;
  /** Give up (and answer null) after expanding this many states. */
  maxExpansions?: number;
  /** Weight on the guide (1: optimal A*; more: faster, solutions a little longer). */
  weight?: number;
}

const ACTIONS: Step[] = [
  ["walk", "medium"],
  ["walk", "large"],
  ["crawl", "medium"],
  ["crawl", "large"],
  ["climb", "medium"],
  ["climb", "large"],
  ["backward", "medium"],
  ["backward", "large"],
  ["turn_left", "medium"],
  ["turn_left", "large"],
  ["turn_right", "medium"],
  ["turn_right", "large"],
];
const CELL = 0.1;
const WALK = 0.3;
const CLIMB_STEP = POSTURES.climb.step;

interface Node {
  pose: Pose;
  posture: Posture;
  g: number;
  f: number;
  steps: Step[];
}

/** Searches `course` (a name or a course) for a skill sequence that reaches the toy within the budget; null if none found. */
export async function solveCourse(course: string | Course, opts: SolveOptions = {}): Promise<Solution | null> {
  const resolved = typeof course === "string" ? findCourse(course) : course;
  const budget = opts.budget ?? 100;
  const world = await CourseWorld.create({ scenario: resolved.name, course: resolved, width: 8, height: 6 });
  try {
    const body = world.body;
    const toyZ = resolved.toy.z ?? 0;
    const reached = () => world.toyDistance() <= SUCCESS_RADIUS && Math.abs(toyZ - body.pose.z) < 0.3;
    let reachedAt = -1;
    let ticks = 0;
    const nominal = { next: () => 0.5 } as never; // factor 1, and every climb's feet hold
    const controllers = new Controllers(body, resolved.things, nominal, {
      event() {},
      tick() {
        ticks++;
        if (reachedAt < 0 && reached()) reachedAt = ticks * TICK;
      },
    });
    const guide = distanceField(world, resolved);
    const heuristic = (p: Pose) => guide.at(p.x + 0.15 * Math.cos(p.yaw), p.y + 0.15 * Math.sin(p.yaw));
    const weight = opts.weight ?? 2;
    const key = (pose: Pose, posture: Posture) =>
      `${Math.round(pose.x / 0.12)},${Math.round(pose.y / 0.12)},${Math.round((pose.yaw * 180) / Math.PI / 15)},${Math.round(pose.z / 0.05)},${posture}`;
    const start: Node = { pose: { ...body.pose }, posture: body.posture, g: 0, f: 0, steps: [] };
    start.f = weight * heuristic(start.pose);
    const open = new Heap<Node>((a, b) => a.f - b.f);
    open.push(start);
    const best = new Map<string, number>([[key(start.pose, start.posture), 0]]);
    let expanded = 0;
    const max = opts.maxExpansions ?? 4000;
    while (open.length && expanded < max) {
      const node = open.pop()!;
      if (node.g > (best.get(key(node.pose, node.posture)) ?? Infinity)) continue;
      expanded++;
      for (const [skill, magnitude] of ACTIONS) {
        body.pose = { ...node.pose };
        body.posture = node.posture;
        body.apply(body.pose, body.posture);
        ticks = 0;
        reachedAt = -1;
        const report: SkillReport = { moved: 0, turned: 0, stalled: false, seconds: 0, message: "" };
        for (const _ of controllers.run(skill as Skill, magnitude as Magnitude, report));
        const steps: Step[] = [...node.steps, [skill, magnitude]];
        if (reachedAt >= 0) {
          const seconds = node.g + reachedAt;
          if (seconds <= budget) return { steps, seconds: Math.round(seconds * 100) / 100, expanded };
          continue;
        }
        if (report.moved === 0 && report.turned === 0 && body.posture === node.posture) continue;
        const cost = node.g + report.seconds;
        const k = key(body.pose, body.posture);
        const rest = heuristic(body.pose);
        if (cost + rest > budget || cost >= (best.get(k) ?? Infinity)) continue;
        best.set(k, cost);
        open.push({ pose: { ...body.pose }, posture: body.posture, g: cost, f: cost + weight * rest, steps });
      }
    }
    return null;
  } finally {
    await world.close();
  }
}

/**
 * Walking seconds from each grid cell to the toy. A cell is free when the crouched body fits there on the floor (in
 * the open or under furniture), or when the climbing body fits up on whatever is under it; its height is that of what
 * it stands on. Moves between neighbours are allowed when the heights differ by no more than a climb.
 */
function distanceField(world: CourseWorld, course: Course): { at(x: number, y: number): number } {
  const xs = [...course.things.map((t) => t.x), course.toy.x, 0];
  const ys = [...course.things.map((t) => t.y), course.toy.y, 0];
  const x0 = Math.min(...xs) - 1,
    x1 = Math.max(...xs) + 1,
    y0 = Math.min(...ys) - 1,
    y1 = Math.max(...ys) + 1;
  const nx = Math.ceil((x1 - x0) / CELL),
    ny = Math.ceil((y1 - y0) / CELL);
  const height = new Float64Array(nx * ny).fill(NaN);
  const body = world.body;
  const saved = { pose: { ...body.pose }, posture: body.posture };
  for (let i = 0; i < nx; i++) {
    for (let j = 0; j < ny; j++) {
      const x = x0 + (i + 0.5) * CELL,
        y = y0 + (j + 0.5) * CELL;
      for (const yaw of [0, Math.PI / 2]) {
        const pose = { x, y, yaw, z: 0 };
        const floor = body.support(pose, "crawl", 0);
        if (floor.inside === undefined && floor.z <= 0.005 && !body.contact({ ...pose, z: floor.z }, "crawl")) {
          height[i * ny + j] = 0;
          break;
        }
        const top = body.support(pose, "stand", 2);
        if (top.inside === undefined && top.z <= 0.6 && !body.contact({ ...pose, z: top.z }, "climb")) {
          height[i * ny + j] = Math.min(Number.isNaN(height[i * ny + j]) ? Infinity : height[i * ny + j], top.z);
        }
      }
    }
  }
  body.pose = saved.pose;
  body.posture = saved.posture;
  body.apply(body.pose, body.posture);

  // Dijkstra from the cells within reach of the toy.
  const dist = new Float64Array(nx * ny).fill(Infinity);
  const heap = new Heap<[number, number]>((a, b) => a[0] - b[0]);
  for (let i = 0; i < nx; i++) {
    for (let j = 0; j < ny; j++) {
      const x = x0 + (i + 0.5) * CELL,
        y = y0 + (j + 0.5) * CELL;
      if (!Number.isNaN(height[i * ny + j]) && Math.hypot(x - course.toy.x, y - course.toy.y) <= SUCCESS_RADIUS) {
        dist[i * ny + j] = 0;
        heap.push([0, i * ny + j]);
      }
    }
  }
  while (heap.length) {
    const [distance, k] = heap.pop()!;
    if (distance > dist[k]) continue;
    const i = Math.floor(k / ny),
      j = k % ny;
    for (let di = -1; di <= 1; di++) {
      for (let dj = -1; dj <= 1; dj++) {
        const ni = i + di,
          nj = j + dj;
        if ((!di && !dj) || ni < 0 || nj < 0 || ni >= nx || nj >= ny) continue;
        const neighbour = ni * ny + nj;
        if (Number.isNaN(height[neighbour]) || Math.abs(height[neighbour] - height[k]) > CLIMB_STEP) continue;
        const nd = distance + (Math.hypot(di, dj) * CELL) / WALK;
        if (nd < dist[neighbour]) {
          dist[neighbour] = nd;
          heap.push([nd, neighbour]);
        }
      }
    }
  }
  return {
    at(x: number, y: number) {
      const i = Math.floor((x - x0) / CELL),
        j = Math.floor((y - y0) / CELL);
      if (i < 0 || j < 0 || i >= nx || j >= ny) return Infinity;
      // A pose whose own cell is not free (the body half in a doorway, pressed to a wall): the best free neighbour.
      let distance = dist[i * ny + j];
      if (distance === Infinity) {
        for (let di = -2; di <= 2; di++)
          for (let dj = -2; dj <= 2; dj++) {
            const ni = i + di,
              nj = j + dj;
            if (ni >= 0 && nj >= 0 && ni < nx && nj < ny)
              distance = Math.min(distance, dist[ni * ny + nj] + (Math.hypot(di, dj) * CELL) / WALK);
          }
      }
      return distance;
    },
  };
}
