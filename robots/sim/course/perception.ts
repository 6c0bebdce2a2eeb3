/**
 * The dog's head camera: a narrow (60°) ray-cast depth camera at the front of the head, pitched down, and the detector
 * on its segmentation. Each detection carries what a depth camera measures of the object's own pixels — median range,
 * bearing, the heights of its highest point and of the room beneath it, its visible width — computed from the rays'
 * hit points. Only what is in the image is reported: no map, no pose, nothing behind the camera.
 */
import { RayCamera, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import type { Rng } from "../../random";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import type { RangedDetection, RangedDetectionsMessage, Stamp } from "../../msgs/detections";
import { BODY, CAMERA_FOV_DEG, CAMERA_PITCH_DEG, LABELS, POSTURES } from "./scene";
import type { DogBody } from "./controllers";

/** Fewer pixels than this and the detector does not report an object. */
const MIN_PIXELS = 12;

export interface Detected {
  detection: RangedDetection;
  /** Index of the entity (thing, or the toy as the last), for the simulator's own event log. */
  entity: number;
  truth: string;
}

export class HeadCamera {
  readonly camera: RayCamera;
  private readonly focal: number;

  constructor(
    mj: Mujoco,
    readonly width: number,
    readonly height: number,
    /** Entity index of each geom (-1: the ground or the dog). */
    private readonly geomToEntity: Int32Array,
    /** The detector's name of each entity. */
    private readonly names: readonly string[],
  ) {
    // Groups 0–2: the course and the toy; the dog's own geoms (group 3) are also excluded by body.
    this.camera = new RayCamera(mj, width, height, CAMERA_FOV_DEG, [1, 1, 1, 0, 0, 0]);
    this.focal = width / 2 / Math.tan((CAMERA_FOV_DEG * Math.PI) / 360);
  }

  /** Where the head camera is: at the front of the head, its height set by the posture, looking down CAMERA_PITCH_DEG. */
  pose(body: DogBody): CameraPose {
    const { x, y, yaw, z } = body.pose;
    const c = Math.cos(yaw),
      s = Math.sin(yaw);
    const p = (CAMERA_PITCH_DEG * Math.PI) / 180;
    return {
      position: [x + BODY.cameraX * c, y + BODY.cameraX * s, z + POSTURES[body.posture].camera],
      forward: [c * Math.cos(p), s * Math.cos(p), -Math.sin(p)],
      up: [0, 0, 1],
    };
  }

  render(model: MjModel, data: MjData, body: DogBody): { frame: Frame; pose: CameraPose } {
    const pose = this.pose(body);
    return { frame: this.camera.render(model, data, pose, body.dogBodyId), pose };
  }

  /**
   * Detections of a frame. `groundZ` is the height of the ground the dog stands on (heights are above it, as the
   * robot knows its own camera height). Noise draws come from `rng`.
   */
  detect(frame: Frame, pose: CameraPose, groundZ: number, noise: DetectorNoise, rng: Rng): Detected[] {
    const W = frame.width;
    const raw = detectObjects(frame, this.geomToEntity, this.names, LABELS, noise, rng, MIN_PIXELS);
    // The ranged statistics are computed for exactly what the detector reported.
    const count = new Int32Array(this.names.length);
    for (const r of raw) count[r.entity] = r.pixels;
    const stats = this.measure(
      frame,
      pose,
      groundZ,
      raw.map((r) => r.entity),
      count,
    );
    return raw.map((r) => {
      const st = stats.get(r.entity)!;
      const cx = r.box.x + r.box.w / 2 - W / 2;
      return {
        entity: r.entity,
        truth: r.truth,
        detection: {
          label: r.label,
          score: r.score,
          box: r.box,
          distance: round(st.distance),
          bearing: round((-Math.atan2(cx, this.focal) * 180) / Math.PI, 1),
          top: round(st.top),
          underside: round(st.underside),
          width: round(st.width),
        },
      };
    });
  }

  /** Range, heights and width of each entity's pixels, from the rays' hit points. */
  private measure(
    frame: Frame,
    pose: CameraPose,
    groundZ: number,
    entities: number[],
    count: Int32Array,
  ): Map<number, { distance: number; top: number; underside: number; width: number }> {
    const W = frame.width,
      H = frame.height,
      f = this.focal;
    const F = pose.forward;
    const Rl = Math.hypot(F[1], F[0]) || 1;
    // Camera axes as RayCamera builds them with up = +z: right is horizontal, up completes the frame.
    const R: Vec3 = [F[1] / Rl, -F[0] / Rl, 0];
    const U: Vec3 = [R[1] * F[2] - R[2] * F[1], R[2] * F[0] - R[0] * F[2], R[0] * F[1] - R[1] * F[0]];
    const slotOf = new Int32Array(this.names.length).fill(-1);
    entities.forEach((e, i) => (slotOf[e] = i));
    const k = entities.length;
    const ranges = entities.map((e) => new Float32Array(count[e]));
    const filled = new Int32Array(k);
    const top = new Float64Array(k).fill(-Infinity);
    const latMin = new Float64Array(k).fill(Infinity),
      latMax = new Float64Array(k).fill(-Infinity);
    // Per entity and image column: the height of its lowest pixel in that column (rows run top to bottom).
    const lowest = new Float64Array(k * W).fill(NaN);
    const camZ = pose.position[2] - groundZ;
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g < 0) continue;
      const e = this.geomToEntity[g];
      if (e < 0) continue;
      const s = slotOf[e];
      if (s < 0) continue;
      const px = i % W,
        py = (i - px) / W;
      const r = px + 0.5 - W / 2,
        u = H / 2 - (py + 0.5);
      // Hit point relative to the camera: the depth along the pixel's unit ray.
      const d = frame.depth[i] / Math.sqrt(r * r + u * u + f * f);
      const hx = (r * R[0] + u * U[0] + f * F[0]) * d;
      const hy = (r * R[1] + u * U[1] + f * F[1]) * d;
      const z = camZ + (u * U[2] + f * F[2]) * d;
      ranges[s][filled[s]++] = frame.depth[i];
      if (z > top[s]) top[s] = z;
      const lat = hx * R[0] + hy * R[1];
      if (lat < latMin[s]) latMin[s] = lat;
      if (lat > latMax[s]) latMax[s] = lat;
      lowest[s * W + px] = z;
    }
    const result = new Map<number, { distance: number; top: number; underside: number; width: number }>();
    entities.forEach((e, s) => {
      // The room beneath: the median over columns of the lowest visible point, so thin legs do not hide it.
      const cols = lowest.subarray(s * W, (s + 1) * W).filter((v) => !Number.isNaN(v));
      result.set(e, {
        distance: median(ranges[s]),
        top: top[s],
        underside: Math.max(0, median(cols)),
        width: latMax[s] - latMin[s],
      });
    });
    return result;
  }
}

function median(v: Float32Array | Float64Array): number {
  if (!v.length) return 0;
  const a = v.slice().sort();
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

export function detectionsMessage(
  robot: string,
  frame: Frame,
  stamp: Stamp,
  detected: Detected[],
): RangedDetectionsMessage {
  return {
    ...detectionsHeader(robot, `${robot}_head_camera`, frame, stamp),
    fov: CAMERA_FOV_DEG,
    detections: detected.map((d) => d.detection),
  };
}
