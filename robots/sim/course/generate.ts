/**
 * Procedurally generated obstacle courses: rooms (indoors) and yards (outdoors) of varied size, split into parts by
 * walls or hedges that have one way through — an opening, or something in it to climb, crawl under or walk over —
 * or by something across the whole width; with things to go around, sometimes a dead-end corridor the dog starts
 * in, and the toy anywhere in them (behind the start too). The same obstacle kinds as the six hand-made courses.
 *
 * A course is a pure function of its seed, named `generated_<seed>` (tuning and scored ranges: ../generated.ts).
 * Whether a course can be solved is not decided here: solve.ts searches it (test and dataset building only).
 */
import { generatedName } from "../generated";
import { Rng } from "../../random";
import {
  bamboo,
  bench,
  bush,
  couch,
  curb,
  cushion,
  hedge,
  hill,
  log,
  plank,
  room,
  stool,
  wall,
  type Thing,
} from "./scene";
import type { Course } from "./types";

export { FIRST_SCORED_SEED, generatedName, generatedSeed } from "../generated";

/** An axis-aligned rectangle some thing covers on the ground, to keep things apart. */
interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}
const grow = (b: Box, m: number): Box => ({ x0: b.x0 - m, x1: b.x1 + m, y0: b.y0 - m, y1: b.y1 + m });
const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** How a barrier lets the dog through. */
type Passage = "opening" | "climb" | "crawl" | "walk-over";

const uniform = (rng: Rng, a: number, b: number) => a + (b - a) * rng.next();
const r2 = (v: number) => Math.round(v * 100) / 100;

export function generateCourse(seed: number): Course {
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`a generated course's seed is a whole number >= 0, got ${seed}`);
  const rng = new Rng(seed * 2654435761 + 12345);
  const ground: Course["ground"] = rng.next() < 0.5 ? "indoor" : "outdoor";
  const indoor = ground === "indoor";
  const things: Thing[] = [];
  const taken: Box[] = [];
  const summary: string[] = [];

  // The enclosure: room behind the start, to the sides, and parts ahead split by barriers.
  const back = r2(uniform(rng, 0.9, 2.6));
  const left = r2(uniform(rng, 1.1, 2.6));
  const right = r2(uniform(rng, 1.1, 2.6));
  const barriers = rng.pick([0, 1, 1, 2, 2]);
  const deadEnd = rng.next() < 0.25 && back >= 1.5;
  // One open part is made longer: the toy is never within 2 m of the start.
  const lengths = Array.from({ length: barriers + 1 }, (_, i) =>
    r2(barriers === 0 ? uniform(rng, 2.8, 4.2) : uniform(rng, i === 0 && deadEnd ? 2.6 : 1.7, 3.0)),
  );
  const front = r2(lengths.reduce((a, b) => a + b, 0));
  summary.push(
    `${indoor ? "a room" : "a yard"} ${r2(back + front)} m × ${r2(left + right)} m, the dog ${back} m from its back${indoor ? " wall" : " hedge"}`,
  );
  if (indoor) things.push(...room(-back, front, -right, left));
  else {
    const radius = 0.3;
    things.push(
      ...hedge(-back, left + radius, front, left + radius, radius),
      ...hedge(-back, -right - radius, front, -right - radius, radius),
    );
    things.push(
      ...hedge(-back - radius, -right, -back - radius, left, radius),
      ...hedge(front + radius, -right, front + radius, left, radius),
    );
  }

  // A dead-end corridor the dog starts in, facing its closed end.
  let corridor: Course["deadEnd"];
  if (deadEnd) {
    const end = r2(uniform(rng, 1.1, 1.7));
    corridor = { x0: -0.6, x1: end, y0: -0.35, y1: 0.35 };
    things.push(wall(-0.6, 0.35, end, 0.35), wall(-0.6, -0.35, end, -0.35), wall(end, -0.4, end, 0.4));
    taken.push({ x0: -0.7, x1: end + 0.1, y0: -0.45, y1: 0.45 });
    summary.push(`the dog starts in a dead-end corridor ${r2(end + 0.6)} m long`);
  }
  taken.push({ x0: -0.45, x1: 0.45, y0: -0.3, y1: 0.3 });

  // The barriers across the width, each with its one way through.
  const kinds: Passage[] = ["opening", "climb", "crawl", "walk-over"];
  let x = 0;
  const partStarts = [-back];
  for (let i = 0; i < barriers; i++) {
    x = r2(x + lengths[i]);
    partStarts.push(x);
    const kind = indoor ? rng.pick<Passage>(["opening", "climb", "crawl", "opening"]) : rng.pick(kinds);
    const across = rng.next() < 0.3 && kind !== "opening";
    const width = across ? left + right : r2(kind === "crawl" ? uniform(rng, 1.2, 1.8) : uniform(rng, 0.8, 1.3));
    const mid = across ? (left - right) / 2 : r2(uniform(rng, -right + width / 2, left - width / 2));
    const lo = mid - width / 2,
      hi = mid + width / 2;
    if (!across) {
      // The barrier on either side of the way through.
      if (indoor) {
        if (lo > -right + 0.05) things.push(wall(x, -right, x, lo));
        if (hi < left - 0.05) things.push(wall(x, hi, x, left));
      } else {
        const radius = 0.25;
        if (lo + right > 2 * radius) things.push(...hedge(x, -right + radius, x, lo - radius, radius));
        if (left - hi > 2 * radius) things.push(...hedge(x, hi + radius, x, left - radius, radius));
      }
    }
    const at = { x, y: r2(mid) };
    const thing = passageThing(kind, indoor, at, width, rng);
    if (thing) things.push(thing);
    taken.push({ x0: x - 0.6, x1: x + 0.6, y0: -right, y1: left });
    summary.push(
      `${across ? "across the whole width" : `a ${indoor ? "wall" : "hedge"} at ${x} m whose way through (${r2(width)} m at y ${r2(mid)})`} ${describe(kind, thing)}`,
    );
  }

  // Things to go around, in the open.
  const extras = rng.pick([0, 1, 2, 2, 3]);
  for (let k = 0, tries = 0; k < extras && tries < 40; tries++) {
    const px = r2(uniform(rng, -back + 0.5, front - 0.5));
    const py = r2(uniform(rng, -right + 0.5, left - 0.5));
    const cluster = aroundThing(indoor, px, py, rng);
    const box = footprint(cluster);
    if (taken.some((b) => overlaps(grow(box, 0.55), b))) continue;
    things.push(...cluster);
    taken.push(box);
    summary.push(
      `${cluster.length > 1 ? `${cluster.length} ${cluster[0].label}s` : `a ${cluster[0].label}`} to go around at (${px}, ${py})`,
    );
    k++;
  }

  // The toy: beyond the last barrier most often, else past another barrier, else behind the start; never within 2 m.
  const parts = partStarts.map((x0, i) => ({
    x0: i === 0 ? 0.6 : x0 + 0.5,
    x1: i + 1 < partStarts.length ? partStarts[i + 1] - 0.5 : front,
  }));
  const ahead = parts.length > 1 ? parts.slice(1) : parts;
  const roll = rng.next();
  const part = roll < 0.2 && back >= 1.6 ? { x0: -back, x1: -0.6 } : roll < 0.75 ? ahead.at(-1)! : rng.pick(ahead);
  const fits = (spot: { x: number; y: number }) => {
    const here = { x0: spot.x - 0.1, x1: spot.x + 0.1, y0: spot.y - 0.1, y1: spot.y + 0.1 };
    return (
      Math.hypot(spot.x, spot.y) >= 2 &&
      !taken.some((b) => overlaps(grow(here, 0.25), b)) &&
      !things.some((o) => overlaps(grow(here, 0.2), footprint([o])))
    );
  };
  // No room in the part drawn (small parts crowded with things): the others, farthest first; failing all, the far end.
  let toy: { x: number; y: number } | undefined;
  for (const where of [part, ...[...ahead].reverse()]) {
    for (let tries = 0; tries < 200 && !toy; tries++) {
      const candidate = {
        x: r2(uniform(rng, where.x0 + 0.35, where.x1 - 0.35)),
        y: r2(uniform(rng, -right + 0.35, left - 0.35)),
      };
      if (fits(candidate)) toy = candidate;
    }
    if (toy) break;
  }
  toy ??= { x: r2(front - 0.4), y: r2(left - 0.4) };
  summary.push(`the toy at (${toy.x}, ${toy.y})`);
  return {
    name: generatedName(seed),
    summary: `Generated (seed ${seed}): ${summary.join("; ")}.`,
    ground,
    start: { x: 0, y: 0, yawDeg: 0 },
    things,
    toy,
    solution: [],
    ...(corridor ? { deadEnd: corridor } : {}),
  };
}

/** What fills a barrier's way through (nothing for an opening); its local +x runs along the course. */
function passageThing(
  kind: Passage,
  indoor: boolean,
  at: { x: number; y: number },
  width: number,
  rng: Rng,
): Thing | undefined {
  const length = width + 0.02;
  if (kind === "opening") return undefined;
  if (kind === "crawl") {
    return indoor
      ? couch({ ...at, length, depth: r2(uniform(rng, 0.7, 0.9)), clearance: r2(uniform(rng, 0.2, 0.24)) })
      : bench({ ...at, length, depth: r2(uniform(rng, 0.4, 0.55)), clearance: r2(uniform(rng, 0.2, 0.24)) });
  }
  if (kind === "walk-over")
    return hill({
      ...at,
      height: r2(uniform(rng, 0.2, 0.32)),
      halfDepth: r2(uniform(rng, 0.7, 1.0)),
      halfLength: width / 2 + 0.05,
    });
  if (indoor)
    return cushion({ ...at, length, depth: r2(uniform(rng, 0.4, 0.6)), height: r2(uniform(rng, 0.12, 0.17)) });
  const which = rng.pick(["log", "curb", "plank"] as const);
  if (which === "log") return log({ ...at, length, radius: r2(uniform(rng, 0.06, 0.08)) });
  if (which === "curb") return curb({ ...at, length, depth: 0.3, height: r2(uniform(rng, 0.1, 0.14)) });
  return plank({ ...at, length, depth: 0.25, height: r2(uniform(rng, 0.08, 0.12)) });
}

function describe(kind: Passage, thing: Thing | undefined): string {
  if (!thing) return "is open";
  const verb = kind === "crawl" ? "to crawl under" : kind === "walk-over" ? "to walk over" : "to climb";
  return `has a ${thing.label} ${verb}`;
}

/** Something to go around: stools side by side, a tall cushion, a bush or a stand of bamboo. */
function aroundThing(indoor: boolean, x: number, y: number, rng: Rng): Thing[] {
  if (indoor) {
    const k = rng.pick(["stools", "stool", "cushion"] as const);
    if (k === "stool") return [stool({ x, y })];
    if (k === "cushion") return [cushion({ x, y, length: r2(uniform(rng, 0.6, 1.2)), depth: 0.5, height: 0.3 })];
    return [stool({ x, y: y - 0.29 }), stool({ x, y: y + 0.29 })];
  }
  return rng.next() < 0.6
    ? [bush({ x, y, rx: r2(uniform(rng, 0.3, 0.5)) })]
    : [bamboo({ x, y, rows: 2, columns: rng.pick([3, 4, 5]), spacing: 0.2 })];
}

/** The rectangle a few things cover on the ground (their positions and largest parts; generous). */
function footprint(ts: Thing[]): Box {
  let box: Box = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
  for (const t of ts) {
    let rx = 0.2;
    let ry = 0.2;
    for (const p of t.parts) {
      const [sx, sy] =
        p.type === "cylinder" && p.euler
          ? [p.size[0], p.size[1]]
          : p.type === "box" || p.type === "ellipsoid"
            ? [p.size[0], p.size[1]]
            : [p.size[0], p.size[0]];
      rx = Math.max(rx, Math.abs(p.pos[0]) + sx);
      ry = Math.max(ry, Math.abs(p.pos[1]) + sy);
    }
    // Turned a right angle: swap the extents; turned otherwise: the larger both ways.
    const sine = Math.abs(Math.sin((t.yaw * Math.PI) / 180));
    const [hx, hy] = sine > 0.99 ? [ry, rx] : sine > 0.01 ? [Math.max(rx, ry), Math.max(rx, ry)] : [rx, ry];
    box = {
      x0: Math.min(box.x0, t.x - hx),
      x1: Math.max(box.x1, t.x + hx),
      y0: Math.min(box.y0, t.y - hy),
      y1: Math.max(box.y1, t.y + hy),
    };
  }
  return box;
}
