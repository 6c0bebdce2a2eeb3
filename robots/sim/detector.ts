/**
 * The simulated object detector: reads the camera's per-pixel segmentation, as a segmentation network would give,
 * and reports each object that shows enough pixels with its bounding box. Seeded noise knobs reproduce a real
 * detector's two commonest faults: missing an object, and giving it the wrong name.
 */
import type { Frame } from "./camera";
import type { Rng } from "../random";
export type { DetectionsMessage } from "../msgs/detections";

export interface DetectorNoise {
  /** Probability that a visible object is not reported. */
  missRate: number;
  /** Probability that a reported object carries another label from the detector's vocabulary. */
  mislabelRate: number;
}

export interface BoundingBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface RawDetection {
  /** What the detector says it is (possibly wrong under noise). */
  label: string;
  /** What it is; kept by the simulator for its event log, never published. */
  truth: string;
  /** Its index in `entities` (the simulator's own bookkeeping, never published). */
  entity: number;
  score: number;
  box: BoundingBox;
  pixels: number;
}

/**
 * @param geomToEntity for each geom id, the index of the object it belongs to, or -1
 * @param entities object names by index
 */
export function detectObjects(
  frame: Frame,
  geomToEntity: Int32Array,
  entities: readonly string[],
  vocabulary: readonly string[],
  noise: DetectorNoise,
  rng: Rng,
  minPixels = 12,
): RawDetection[] {
  const entityCount = entities.length;
  const minX = new Int32Array(entityCount).fill(frame.width);
  const minY = new Int32Array(entityCount).fill(frame.height);
  const maxX = new Int32Array(entityCount).fill(-1);
  const maxY = new Int32Array(entityCount).fill(-1);
  const count = new Int32Array(entityCount);
  for (let i = 0; i < frame.geom.length; i++) {
    const geomId = frame.geom[i];
    if (geomId < 0) continue;
    const entity = geomToEntity[geomId];
    if (entity < 0) continue;
    const x = i % frame.width;
    const y = (i - x) / frame.width;
    count[entity]++;
    if (x < minX[entity]) minX[entity] = x;
    if (x > maxX[entity]) maxX[entity] = x;
    if (y < minY[entity]) minY[entity] = y;
    if (y > maxY[entity]) maxY[entity] = y;
  }
  const out: RawDetection[] = [];
  for (let e = 0; e < entityCount; e++) {
    if (count[e] < minPixels) continue;
    // Draw both numbers for every visible object so one knob does not shift the other's random stream.
    const missDraw = rng.next();
    const labelDraw = rng.next();
    if (missDraw < noise.missRate) continue;
    let label = entities[e];
    if (labelDraw < noise.mislabelRate) {
      const others = vocabulary.filter((v) => v !== label);
      if (others.length) label = rng.pick(others);
    }
    const area = (maxX[e] - minX[e] + 1) * (maxY[e] - minY[e] + 1);
    out.push({
      label,
      truth: entities[e],
      entity: e,
      // Fuller, larger blobs score higher, as a detector is surer of what it sees well.
      score: Math.round(Math.min(0.99, 0.5 + 0.3 * (count[e] / area) + Math.min(0.19, count[e] / 5000)) * 100) / 100,
      box: { x: minX[e], y: minY[e], w: maxX[e] - minX[e] + 1, h: maxY[e] - minY[e] + 1 },
      pixels: count[e],
    });
  }
  return out;
}

/** What every detections message opens with: the frame's stamp and camera, the robot, the image size. */
export function detectionsHeader(
  robot: string,
  camera: string,
  frame: Pick<Frame, "width" | "height">,
  stamp: { sec: number; nanosec: number },
) {
  return { header: { stamp, frame_id: camera }, robot, width: frame.width, height: frame.height };
}
