/**
 * Where a detected thing is, worked out the way a robot with an RGB-D camera would: the detection's own pixels (the
 * segmentation mask the detector gives) back-projected through their depth and the camera's pose (which the robot
 * knows from its kinematics) into a cloud of world points; then that cloud set against what the robot's map holds —
 * the volumes where each place keeps its contents, fixed furniture known before the episode — against the clouds of
 * other things seen in the same frame (a block on a block, an apple on a plate), and against its own hands: where each
 * is and whether it is closed. Nothing here reads the simulator's state of the thing itself, so a detection with the
 * wrong label is located where its pixels are, and a thing moved without anyone's bookkeeping is reported where seen.
 */
import type { CameraPose, Frame, Vec3 } from "./camera";
import type { Mujoco, MjModel, MjData } from "./mujoco";

/** What the depth pixels of one thing show: how many, the median point and the extent, world frame (metres). */
export interface Cloud {
  n: number;
  median: Vec3;
  min: Vec3;
  max: Vec3;
}

/** A cloud of no points: what is not to be located (nothing reaches it). */
export const NO_CLOUD: Cloud = { n: 0, median: [0, 0, 0], min: [0, 0, 0], max: [0, 0, 0] };

/** A place's content volume: a thing whose median point lies inside is `relation` the place. */
export interface PlaceVolume {
  name: string;
  relation: "in" | "on";
  min: Vec3;
  max: Vec3;
}

/** A robot's hand as the robot itself knows it: where its grasp point is and whether its fingers are closed. */
export interface Hand {
  /** What a thing it holds is reported `held_by`. */
  name: string;
  at: Vec3;
  closed: boolean;
  /** How far from the grasp point a held thing's points can reach (its size and how it hangs). */
  reach: number;
}

export type Location = { relation: "in" | "on" | "held_by"; place: string };

/**
 * The point cloud of every entity in a frame: `entityOf(geom)` is the entity a pixel's geom belongs to (-1: none) —
 * the segmentation — and the rays are the camera's own, so a pixel and its depth give back the point it saw.
 */
export function entityClouds(frame: Frame, pose: CameraPose, fovDeg: number, entityOf: Int32Array, n: number): Cloud[] {
  const counts = new Int32Array(n);
  for (let i = 0; i < frame.geom.length; i++) {
    const g = frame.geom[i];
    if (g >= 0 && entityOf[g] >= 0 && frame.depth[i] > 0) counts[entityOf[g]]++;
  }
  const xs = Array.from(counts, (c) => new Float64Array(c));
  const ys = Array.from(counts, (c) => new Float64Array(c));
  const zs = Array.from(counts, (c) => new Float64Array(c));
  const filled = new Int32Array(n);
  const point = backProjector(frame, pose, fovDeg);
  const p: Vec3 = [0, 0, 0];
  for (let i = 0; i < frame.geom.length; i++) {
    const g = frame.geom[i];
    if (g < 0) continue;
    const e = entityOf[g];
    if (e < 0 || frame.depth[i] <= 0) continue;
    point(i, p);
    const k = filled[e]++;
    xs[e][k] = p[0];
    ys[e][k] = p[1];
    zs[e][k] = p[2];
  }
  return Array.from(counts, (c, e) => {
    if (c === 0) return NO_CLOUD;
    const sx = xs[e].sort(),
      sy = ys[e].sort(),
      sz = zs[e].sort();
    return {
      n: c,
      median: [median(sx), median(sy), median(sz)],
      min: [sx[0], sy[0], sz[0]],
      max: [sx[c - 1], sy[c - 1], sz[c - 1]],
    };
  });
}

/** The share of a cloud's pixels whose points fall inside a box (how much of a door lies where the closed door is). */
export function shareInside(
  frame: Frame,
  pose: CameraPose,
  fovDeg: number,
  isPart: (geom: number) => boolean,
  box: { min: Vec3; max: Vec3 },
): { n: number; inside: number } {
  const point = backProjector(frame, pose, fovDeg);
  const p: Vec3 = [0, 0, 0];
  let n = 0,
    inside = 0;
  for (let i = 0; i < frame.geom.length; i++) {
    const g = frame.geom[i];
    if (g < 0 || frame.depth[i] <= 0 || !isPart(g)) continue;
    point(i, p);
    n++;
    if (
      p[0] >= box.min[0] &&
      p[0] <= box.max[0] &&
      p[1] >= box.min[1] &&
      p[1] <= box.max[1] &&
      p[2] >= box.min[2] &&
      p[2] <= box.max[2]
    )
      inside++;
  }
  return { n, inside };
}

/** Pixel i and its depth back to the world point it saw: the camera's rays, as RayCamera casts them. */
function backProjector(frame: Frame, pose: CameraPose, fovDeg: number): (i: number, out: Vec3) => void {
  const W = frame.width,
    H = frame.height;
  const f = unit(pose.forward);
  const r = unit(cross(f, pose.up));
  const u = cross(r, f);
  const fpx = W / 2 / Math.tan((fovDeg * Math.PI) / 360);
  return (i, out) => {
    const px = i % W,
      py = (i - px) / W;
    const a = px + 0.5 - W / 2,
      b = H / 2 - (py + 0.5);
    const d = frame.depth[i] / Math.hypot(a, b, fpx);
    for (let k = 0; k < 3; k++) out[k] = pose.position[k] + (a * r[k] + b * u[k] + fpx * f[k]) * d;
  };
}

/**
 * Which detection each closed hand holds: of the clouds its grasp point reaches, the nearest — a hand holds one thing,
 * and what it carries past (a laptop it passes over) is only near it. Returns the holding hand's name by index.
 */
export function heldBy(hands: readonly Hand[], clouds: readonly Cloud[]): (string | undefined)[] {
  const out: (string | undefined)[] = clouds.map(() => undefined);
  for (const h of hands) {
    if (!h.closed) continue;
    let best = -1,
      d = Infinity;
    clouds.forEach((c, i) => {
      const e = boxDistance(h.at, c);
      if (e <= h.reach && e < d) ((best = i), (d = e));
    });
    if (best >= 0) out[best] = h.name;
  }
  return out;
}

/**
 * Where a thing whose pixels make `cloud` is: in the hand that holds it (`heldBy`); else inside the first place volume
 * that holds its median point (`places` most specific first); else resting on a thing seen in the same frame
 * (`supports`: its bottom at that thing's top, its middle over that thing's footprint); else `fallback`.
 */
export function locateCloud(
  cloud: Cloud,
  o: {
    heldBy?: string;
    places?: readonly PlaceVolume[];
    supports?: readonly { name: string; relation?: "in" | "on"; cloud: Cloud }[];
    fallback: Location;
  },
): Location {
  if (o.heldBy) return { relation: "held_by", place: o.heldBy };
  for (const p of o.places ?? [])
    if (cloud.median.every((v, k) => v >= p.min[k] && v <= p.max[k])) return { relation: p.relation, place: p.name };
  for (const s of o.supports ?? []) {
    const c = s.cloud;
    if (c.n === 0) continue;
    const over =
      cloud.median[0] >= c.min[0] - 0.01 &&
      cloud.median[0] <= c.max[0] + 0.01 &&
      cloud.median[1] >= c.min[1] - 0.01 &&
      cloud.median[1] <= c.max[1] + 0.01;
    // "In" something with sides (a bowl, a cup): its middle below the rim; "on" it: its bottom at the top.
    if (over && s.relation === "in" && cloud.median[2] >= c.min[2] - 0.01 && cloud.median[2] <= c.max[2] + 0.01)
      return { relation: "in", place: s.name };
    if (over && cloud.min[2] >= c.max[2] - 0.025 && cloud.min[2] <= c.max[2] + 0.03)
      return { relation: s.relation ?? "on", place: s.name };
  }
  return o.fallback;
}

/**
 * The box around some geoms as they are posed in `data` (call mj_kinematics first), grown by `margin`: where a door
 * lies when shut, made once from the model's own geometry (boxes by their half sizes, spheres and cylinders by their
 * radius and half height).
 */
export function geomsBox(
  mj: Mujoco,
  model: MjModel,
  data: MjData,
  geoms: number[],
  margin = 0,
): { min: Vec3; max: Vec3 } | undefined {
  const type = model.geom_type as Int32Array;
  const size = model.geom_size as Float64Array;
  const xpos = data.geom_xpos as Float64Array;
  const xmat = data.geom_xmat as Float64Array;
  let min: Vec3 | undefined, max: Vec3 | undefined;
  for (const g of geoms) {
    const t = type[g];
    const half =
      t === mj.mjtGeom.mjGEOM_BOX.value
        ? [size[3 * g], size[3 * g + 1], size[3 * g + 2]]
        : t === mj.mjtGeom.mjGEOM_SPHERE.value
          ? [size[3 * g], size[3 * g], size[3 * g]]
          : [size[3 * g], size[3 * g], size[3 * g + 1] + (t === mj.mjtGeom.mjGEOM_CAPSULE.value ? size[3 * g] : 0)];
    const m = xmat.subarray(9 * g, 9 * g + 9);
    for (const sx of [-1, 1])
      for (const sy of [-1, 1])
        for (const sz of [-1, 1]) {
          const l = [sx * half[0], sy * half[1], sz * half[2]];
          const c = [0, 1, 2].map(
            (k) => xpos[3 * g + k] + m[3 * k] * l[0] + m[3 * k + 1] * l[1] + m[3 * k + 2] * l[2],
          ) as Vec3;
          min = min ? (min.map((v, k) => Math.min(v, c[k])) as Vec3) : c;
          max = max ? (max.map((v, k) => Math.max(v, c[k])) as Vec3) : c;
        }
  }
  return min && max ? { min: min.map((v) => v - margin) as Vec3, max: max.map((v) => v + margin) as Vec3 } : undefined;
}

/** Distance from a point to a cloud's bounding box (0 inside it). */
function boxDistance(p: Vec3, c: Cloud): number {
  if (c.n === 0) return Infinity;
  const d = [0, 1, 2].map((k) => Math.max(c.min[k] - p[k], 0, p[k] - c.max[k]));
  return Math.hypot(d[0], d[1], d[2]);
}

const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const unit = (a: Vec3): Vec3 => {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};
function median(sorted: Float64Array): number {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}
