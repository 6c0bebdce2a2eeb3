/**
 * The workbench's front camera: a ray-cast RGB-D camera with known extrinsics, and the detector on its segmentation.
 * Each detection carries its box, where the thing is (in/on a place, or in the palm), the colour of its own pixels,
 * and what the depth pixels measure: their median back-projected to world coordinates and their lowest and highest
 * z — computed from the image and the camera pose alone, never read from the true state.
 */
import { RayCamera, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../random";
import { colorName } from "../tabletop/perception";
import type { Stamp } from "../../msgs/detections";
import type { LocatedDetection, RolloutDetections } from "../../msgs/rollout";

export const CAMERA = { eye: [0, -0.6, 0.5] as Vec3, target: [0, 0.1, 0.06] as Vec3, fovDeg: 66 };

export function workbenchCameraPose(): CameraPose {
  return lookAt(CAMERA.eye, CAMERA.target);
}

/** What the detector asks of the world about a seen thing. */
export interface WorkbenchView {
  locate(entity: string): { relation: "in" | "on" | "held_by"; place: string };
  /** "open" or "closed" for a place with a door or drawer; "open" for the rest. */
  placeState(place: string): "open" | "closed";
  stamp(): Stamp;
}

/** Entities the detector knows in one scene: each geom's entity and label, and which geoms are a place's inside. */
export interface DetectorIndex {
  /** Entity names (a bead each: bead_1, …), reported under `labels[i]` (all beads as "bead"). */
  entities: string[];
  labels: string[];
  geomToEntity: Int32Array;
  /** Places reported in the message, and for each geom the place it belongs to (-1: none) and whether it is inside. */
  places: string[];
  geomToPlace: Int32Array;
  geomInside: Int32Array;
}

export function buildDetectorIndex(mj: Mujoco, model: MjModel, entities: string[], labels: string[], places: string[], insideGeoms: Set<string>): DetectorIndex {
  const entityIndex = new Map(entities.map((e, i) => [e, i]));
  const placeIndex = new Map(places.map((p, i) => [p, i]));
  const ng = model.ngeom as number;
  const geomToEntity = new Int32Array(ng).fill(-1);
  const geomToPlace = new Int32Array(ng).fill(-1);
  const geomInside = new Int32Array(ng);
  for (let g = 0; g < ng; g++) {
    const name = (mj.mj_id2name(model, mj.mjtObj.mjOBJ_GEOM.value, g) as string | null) ?? "";
    const owner = name.split("__")[0];
    geomToEntity[g] = entityIndex.get(owner) ?? -1;
    geomToPlace[g] = placeIndex.get(owner) ?? -1;
    if (insideGeoms.has(name)) geomInside[g] = 1;
  }
  return { entities, labels, geomToEntity, places, geomToPlace, geomInside };
}

export class WorkbenchCamera {
  readonly camera: RayCamera;
  /**
   * The same camera at half resolution: the recorder's 10 Hz detection track runs the detector on this downscaled
   * view (boxes scaled back to full-image pixels), which is four times cheaper; key frames are rendered at full size.
   */
  readonly small: RayCamera;
  private rng: Rng;
  private noise: DetectorNoise;

  constructor(
    private readonly mj: Mujoco,
    opts: { seed?: number; noise?: Partial<DetectorNoise>; width?: number; height?: number },
  ) {
    this.rng = new Rng(opts.seed ?? 0);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.camera = new RayCamera(mj, opts.width ?? 320, opts.height ?? 240, CAMERA.fovDeg);
    this.small = new RayCamera(mj, Math.round(this.camera.width / 2), Math.round(this.camera.height / 2), CAMERA.fovDeg);
  }

  /** A new episode re-seeds the detector, so a reset with the same seed sees the same noise. */
  reseed(seed: number): void {
    this.rng = new Rng(seed);
  }

  dispose(): void {
    this.camera.dispose();
    this.small.dispose();
  }

  /** Renders `data` as it is (positions must be current: call mj_forward or mj_kinematics first). */
  render(model: MjModel, data: MjData, small = false): Frame {
    return (small ? this.small : this.camera).render(model, data, workbenchCameraPose(), -1);
  }

  /** Detections in full-image pixels: a frame from the half-size camera has its boxes scaled up to match. */
  detect(frame: Frame, index: DetectorIndex, view: WorkbenchView): RolloutDetections {
    const scale = this.camera.width / frame.width;
    // The same 12-pixel floor as the full image, counted in full-image pixels.
    const raw = detectObjects(frame, index.geomToEntity, index.entities, index.entities, this.noise, this.rng, Math.max(3, Math.round(12 / (scale * scale))));
    const n = index.entities.length;
    const W = frame.width, H = frame.height;
    // The camera's axes exactly as RayCamera builds them, to turn a pixel and its depth back into a world point.
    const pose = workbenchCameraPose();
    const F = pose.forward;
    const rl = Math.hypot(F[1], F[0]) || 1;
    const R: Vec3 = [F[1] / rl, -F[0] / rl, 0];
    const U: Vec3 = [R[1] * F[2] - R[2] * F[1], R[2] * F[0] - R[0] * F[2], R[0] * F[1] - R[1] * F[0]];
    const fpx = W / 2 / Math.tan((CAMERA.fovDeg * Math.PI) / 360);
    const counts = new Int32Array(n);
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g >= 0 && index.geomToEntity[g] >= 0) counts[index.geomToEntity[g]]++;
    }
    const xs = Array.from(counts, (c) => new Float64Array(c));
    const ys = Array.from(counts, (c) => new Float64Array(c));
    const zs = Array.from(counts, (c) => new Float64Array(c));
    const filled = new Int32Array(n);
    const rgb = new Float64Array(3 * n);
    const placePx = new Int32Array(index.places.length), insidePx = new Int32Array(index.places.length);
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g < 0) continue;
      const p = index.geomToPlace[g];
      if (p >= 0) {
        placePx[p]++;
        if (index.geomInside[g]) insidePx[p]++;
      }
      const e = index.geomToEntity[g];
      if (e < 0) continue;
      const px = i % W, py = (i - px) / W;
      const r = px + 0.5 - W / 2, u = H / 2 - (py + 0.5);
      const d = frame.depth[i] / Math.sqrt(r * r + u * u + fpx * fpx);
      const k = filled[e]++;
      xs[e][k] = pose.position[0] + (r * R[0] + u * U[0] + fpx * F[0]) * d;
      ys[e][k] = pose.position[1] + (r * R[1] + u * U[1] + fpx * F[1]) * d;
      zs[e][k] = pose.position[2] + (r * R[2] + u * U[2] + fpx * F[2]) * d;
      rgb[3 * e] += frame.rgb[3 * i];
      rgb[3 * e + 1] += frame.rgb[3 * i + 1];
      rgb[3 * e + 2] += frame.rgb[3 * i + 2];
    }
    const detections: LocatedDetection[] = raw.map((d) => {
      const e = d.entity;
      const c = counts[e];
      zs[e].sort();
      // A mislabel names another entity of the scene; report that entity's label (any bead is "bead").
      const label = index.labels[d.label === d.truth ? e : index.entities.indexOf(d.label)];
      return {
        label,
        score: d.score,
        box: scale === 1 ? d.box : { x: Math.round(d.box.x * scale), y: Math.round(d.box.y * scale), w: Math.round(d.box.w * scale), h: Math.round(d.box.h * scale) },
        location: view.locate(d.truth),
        color: colorName(rgb[3 * e] / c, rgb[3 * e + 1] / c, rgb[3 * e + 2] / c),
        position: [round(median(xs[e].sort())), round(median(ys[e].sort())), round(median(zs[e]))],
        zRange: [round(zs[e][0]), round(zs[e][c - 1])],
        // Sorted just above: the footprint of what the depth pixels show.
        xRange: [round(xs[e][0]), round(xs[e][c - 1])],
        yRange: [round(ys[e][0]), round(ys[e][c - 1])],
      };
    });
    const places = index.places
      .map((name, i) => ({ name, state: view.placeState(name), pixels: Math.round(placePx[i] * scale * scale), insidePixels: Math.round(insidePx[i] * scale * scale) }))
      .filter((p) => p.pixels >= 50);
    return { ...detectionsHeader("palm", "front_camera", this.camera, view.stamp()), detections, places };
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

function median(sorted: Float64Array): number {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}
