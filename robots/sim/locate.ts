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
export function entityClouds(
  frame: Frame,
  pose: CameraPose,
  fovDeg: number,
  entityOf: Int32Array,
  entityCount: number,
): Cloud[] {
  const counts = new Int32Array(entityCount);
  for (let i = 0; i < frame.geom.length; i++) {
    const geomId = frame.geom[i];
    if (geomId >= 0 && entityOf[geomId] >= 0 && frame.depth[i] > 0) counts[entityOf[geomId]]++;
  }
  const xs = Array.from(counts, (c) => new Float64Array(c));
  const ys = Array.from(counts, (c) => new Float64Array(c));
  const zs = Array.from(counts, (c) => new Float64Array(c));
  const filled = new Int32Array(entityCount);
  const point = backProjector(frame, pose, fovDeg);
  const hit: Vec3 = [0, 0, 0];
  for (let i = 0; i < frame.geom.length; i++) {
    const geomId = frame.geom[i];
    if (geomId < 0) continue;
    const entity = entityOf[geomId];
    if (entity < 0 || frame.depth[i] <= 0) continue;
    point(i, hit);
    const k = filled[entity]++;
    xs[entity][k] = hit[0];
    ys[entity][k] = hit[1];
    zs[entity][k] = hit[2];
  }
  return Array.from(counts, (count, entity) => {
    if (count === 0) return NO_CLOUD;
    const sx = xs[entity].sort(),
      sy = ys[entity].sort(),
      sz = zs[entity].sort();
    return {
      n: count,
      median: [median(sx), median(sy), median(sz)],
      min: [sx[0], sy[0], sz[0]],
      max: [sx[count - 1], sy[count - 1], sz[count - 1]],
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
  const hit: Vec3 = [0, 0, 0];
  let count = 0,
    inside = 0;
  for (let i = 0; i < frame.geom.length; i++) {
    const geomId = frame.geom[i];
    if (geomId < 0 || frame.depth[i] <= 0 || !isPart(geomId)) continue;
    point(i, hit);
    count++;
    if (
      hit[0] >= box.min[0] &&
      hit[0] <= box.max[0] &&
      hit[1] >= box.min[1] &&
      hit[1] <= box.max[1] &&
      hit[2] >= box.min[2] &&
      hit[2] <= box.max[2]
    )
      inside++;
  }
  return { n: count, inside };
}

/** Pixel i and its depth back to the world point it saw: the camera's rays, as RayCamera casts them. */
function backProjector(frame: Frame, pose: CameraPose, fovDeg: number): (i: number, out: Vec3) => void {
  const width = frame.width,
    height = frame.height;
  const forward = unit(pose.forward);
  const right = unit(cross(forward, pose.up));
  const up = cross(right, forward);
  const fpx = width / 2 / Math.tan((fovDeg * Math.PI) / 360);
  return (i, out) => {
    const px = i % width,
      py = (i - px) / width;
    const offsetRight = px + 0.5 - width / 2,
      offsetUp = height / 2 - (py + 0.5);
    const scale = frame.depth[i] / Math.hypot(offsetRight, offsetUp, fpx);
    for (let k = 0; k < 3; k++)
      out[k] = pose.position[k] + (offsetRight * right[k] + offsetUp * up[k] + fpx * forward[k]) * scale;
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
      bestDist = Infinity;
    clouds.forEach((cloud, i) => {
      const dist = boxDistance(h.at, cloud);
      if (dist <= h.reach && dist < bestDist) {
        best = i;
        bestDist = dist;
      }
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
  opts: {
    heldBy?: string;
    places?: readonly PlaceVolume[];
    supports?: readonly { name: string; relation?: "in" | "on"; cloud: Cloud }[];
    fallback: Location;
  },
): Location {
  if (opts.heldBy) return { relation: "held_by", place: opts.heldBy };
  for (const p of opts.places ?? [])
    if (cloud.median.every((v, k) => v >= p.min[k] && v <= p.max[k])) return { relation: p.relation, place: p.name };
  for (const s of opts.supports ?? []) {
    const supportCloud = s.cloud;
    if (supportCloud.n === 0) continue;
    const over =
      cloud.median[0] >= supportCloud.min[0] - 0.01 &&
      cloud.median[0] <= supportCloud.max[0] + 0.01 &&
      cloud.median[1] >= supportCloud.min[1] - 0.01 &&
      cloud.median[1] <= supportCloud.max[1] + 0.01;
    // "In" something with sides (a bowl, a cup): its middle below the rim; "on" it: its bottom at the top.
    if (
      over &&
      s.relation === "in" &&
      cloud.median[2] >= supportCloud.min[2] - 0.01 &&
      cloud.median[2] <= supportCloud.max[2] + 0.01
    )
      return { relation: "in", place: s.name };
    if (over && cloud.min[2] >= supportCloud.max[2] - 0.025 && cloud.min[2] <= supportCloud.max[2] + 0.03)
      return { relation: s.relation ?? "on", place: s.name };
  }
  return opts.fallback;
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
    const geomType = type[g];
    const half =
      geomType === mj.mjtGeom.mjGEOM_BOX.value
        ? [size[3 * g], size[3 * g + 1], size[3 * g + 2]]
        : geomType === mj.mjtGeom.mjGEOM_SPHERE.value
          ? [size[3 * g], size[3 * g], size[3 * g]]
          : [
              size[3 * g],
              size[3 * g],
              size[3 * g + 1] + (geomType === mj.mjtGeom.mjGEOM_CAPSULE.value ? size[3 * g] : 0),
            ];
    const rot = xmat.subarray(9 * g, 9 * g + 9);
    for (const sx of [-1, 1])
      for (const sy of [-1, 1])
        for (const sz of [-1, 1]) {
          const local = [sx * half[0], sy * half[1], sz * half[2]];
          const corner = [0, 1, 2].map(
            (k) => xpos[3 * g + k] + rot[3 * k] * local[0] + rot[3 * k + 1] * local[1] + rot[3 * k + 2] * local[2],
          ) as Vec3;
          min = min ? (min.map((v, k) => Math.min(v, corner[k])) as Vec3) : corner;
          max = max ? (max.map((v, k) => Math.max(v, corner[k])) as Vec3) : corner;
        }
  }
  return min && max ? { min: min.map((v) => v - margin) as Vec3, max: max.map((v) => v + margin) as Vec3 } : undefined;
}

/** Distance from a point to a cloud's bounding box (0 inside it). */
function boxDistance(point: Vec3, cloud: Cloud): number {
  if (cloud.n === 0) return Infinity;
  const gap = [0, 1, 2].map((k) => Math.max(cloud.min[k] - point[k], 0, point[k] - cloud.max[k]));
  return Math.hypot(gap[0], gap[1], gap[2]);
}

const cross = (first: Vec3, second: Vec3): Vec3 => [
  first[1] * second[2] - first[2] * second[1],
  first[2] * second[0] - first[0] * second[2],
  first[0] * second[1] - first[1] * second[0],
];
const unit = (vector: Vec3): Vec3 => {
  const length = Math.hypot(vector[0], vector[1], vector[2]) || 1;
  return [vector[0] / length, vector[1] / length, vector[2] / length];
};
function median(sorted: Float64Array): number {
  const count = sorted.length;
  return count % 2 ? sorted[(count - 1) / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
}
