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
    const cos = Math.cos(yaw),
      sin = Math.sin(yaw);
    const pitch = (CAMERA_PITCH_DEG * Math.PI) / 180;
    return {
      position: [x + BODY.cameraX * cos, y + BODY.cameraX * sin, z + POSTURES[body.posture].camera],
      forward: [cos * Math.cos(pitch), sin * Math.cos(pitch), -Math.sin(pitch)],
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
    const frameWidth = frame.width;
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
    return raw.map((found) => {
      const st = stats.get(found.entity)!;
      const cx = found.box.x + found.box.w / 2 - frameWidth / 2;
      return {
        entity: found.entity,
        truth: found.truth,
        detection: {
          label: found.label,
          score: found.score,
          box: found.box,
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
    const frameWidth = frame.width,
      frameHeight = frame.height,
      focal = this.focal;
    const forward = pose.forward;
    const flatLength = Math.hypot(forward[1], forward[0]) || 1;
    // Camera axes as RayCamera builds them with up = +z: right is horizontal, up completes the frame.
    const right: Vec3 = [forward[1] / flatLength, -forward[0] / flatLength, 0];
    const up: Vec3 = [
      right[1] * forward[2] - right[2] * forward[1],
      right[2] * forward[0] - right[0] * forward[2],
      right[0] * forward[1] - right[1] * forward[0],
    ];
    const slotOf = new Int32Array(this.names.length).fill(-1);
    entities.forEach((e, i) => (slotOf[e] = i));
    const k = entities.length;
    const ranges = entities.map((e) => new Float32Array(count[e]));
    const filled = new Int32Array(k);
    const top = new Float64Array(k).fill(-Infinity);
    const latMin = new Float64Array(k).fill(Infinity),
      latMax = new Float64Array(k).fill(-Infinity);
    // Per entity and image column: the height of its lowest pixel in that column (rows run top to bottom).
    const lowest = new Float64Array(k * frameWidth).fill(NaN);
    const camZ = pose.position[2] - groundZ;
    for (let i = 0; i < frame.geom.length; i++) {
      const geomId = frame.geom[i];
      if (geomId < 0) continue;
      const entity = this.geomToEntity[geomId];
      if (entity < 0) continue;
      const slot = slotOf[entity];
      if (slot < 0) continue;
      const px = i % frameWidth,
        py = (i - px) / frameWidth;
      const offsetRight = px + 0.5 - frameWidth / 2,
        offsetUp = frameHeight / 2 - (py + 0.5);
      // Hit point relative to the camera: the depth along the pixel's unit ray.
      const scale = frame.depth[i] / Math.sqrt(offsetRight * offsetRight + offsetUp * offsetUp + focal * focal);
      const hx = (offsetRight * right[0] + offsetUp * up[0] + focal * forward[0]) * scale;
      const hy = (offsetRight * right[1] + offsetUp * up[1] + focal * forward[1]) * scale;
      const z = camZ + (offsetUp * up[2] + focal * forward[2]) * scale;
      ranges[slot][filled[slot]++] = frame.depth[i];
      if (z > top[slot]) top[slot] = z;
      const lat = hx * right[0] + hy * right[1];
      if (lat < latMin[slot]) latMin[slot] = lat;
      if (lat > latMax[slot]) latMax[slot] = lat;
      lowest[slot * frameWidth + px] = z;
    }
    const result = new Map<number, { distance: number; top: number; underside: number; width: number }>();
    entities.forEach((entity, slot) => {
      // The room beneath: the median over columns of the lowest visible point, so thin legs do not hide it.
      const cols = lowest.subarray(slot * frameWidth, (slot + 1) * frameWidth).filter((v) => !Number.isNaN(v));
      result.set(entity, {
        distance: median(ranges[slot]),
        top: top[slot],
        underside: Math.max(0, median(cols)),
        width: latMax[slot] - latMin[slot],
      });
    });
    return result;
  }
}

function median(values: Float32Array | Float64Array): number {
  if (!values.length) return 0;
  const sorted = values.slice().sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
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
