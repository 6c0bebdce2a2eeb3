/**
 * The workbench's front camera: a ray-cast RGB-D camera with known extrinsics, and the detector on its segmentation.
 * Each detection carries its box, where the thing is (in/on a place, or in the palm), the colour of its own pixels,
 * and what the depth pixels measure: their median back-projected to world coordinates and their lowest and highest
 * z — computed from the image and the camera pose alone, never read from the true state. Where it is comes from the
 * same points, against the places seen in the same frame and the palm as the palm knows itself (robots/sim/locate.ts);
 * whether a drawer is open, from the drawer's own pixels against where it lies shut.
 */
import { RayCamera, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import { NO_CLOUD, entityClouds, heldBy, locateCloud, shareInside, type Hand } from "../locate";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../../random";
import { colorName } from "../palm/perception";
import type { Stamp } from "../../msgs/detections";
import type { LocatedDetection, RolloutDetections } from "../../msgs/rollout";

export const CAMERA = { eye: [0, -0.6, 0.5] as Vec3, target: [0, 0.1, 0.06] as Vec3, fovDeg: 66 };

export function workbenchCameraPose(): CameraPose {
  return lookAt(CAMERA.eye, CAMERA.target);
}

/** What the detector knows besides the image: what the scene's things are for, the palm, the clock. */
export interface WorkbenchView {
  /** The palm as it knows itself: its grasp point, and whether its fingers closed on something. */
  hand(): Hand;
  /** What rests in or on each thing that holds others: "in" (a drawer, a bowl, a cup) or "on" (a plate, a tray). */
  holds(): ReadonlyMap<string, "in" | "on">;
  /** A handle is part of what it opens: it is on it. */
  partOf(): ReadonlyMap<string, string>;
  /** Each door or drawer of the scene: its parts' geoms and where they lie when shut, by the place it opens. */
  doors(): ReadonlyMap<string, { geoms: ReadonlySet<number>; shut: { min: Vec3; max: Vec3 } }>;
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

export function buildDetectorIndex(
  mj: Mujoco,
  model: MjModel,
  entities: string[],
  labels: string[],
  places: string[],
  insideGeoms: Set<string>,
): DetectorIndex {
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

  constructor(mj: Mujoco, opts: { seed?: number; noise?: Partial<DetectorNoise>; width?: number; height?: number }) {
    this.rng = new Rng(opts.seed ?? 0);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.camera = new RayCamera(mj, opts.width ?? 320, opts.height ?? 240, CAMERA.fovDeg);
    this.small = new RayCamera(
      mj,
      Math.round(this.camera.width / 2),
      Math.round(this.camera.height / 2),
      CAMERA.fovDeg,
    );
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
    const raw = detectObjects(
      frame,
      index.geomToEntity,
      index.entities,
      index.entities,
      this.noise,
      this.rng,
      Math.max(3, Math.round(12 / (scale * scale))),
    );
    const entityCount = index.entities.length;
    const pose = workbenchCameraPose();
    const counts = new Int32Array(entityCount);
    const rgb = new Float64Array(3 * entityCount);
    const placePx = new Int32Array(index.places.length),
      insidePx = new Int32Array(index.places.length);
    for (let i = 0; i < frame.geom.length; i++) {
      const geom = frame.geom[i];
      if (geom < 0) continue;
      const place = index.geomToPlace[geom];
      if (place >= 0) {
        placePx[place]++;
        if (index.geomInside[geom]) insidePx[place]++;
      }
      const entity = index.geomToEntity[geom];
      if (entity < 0) continue;
      counts[entity]++;
      rgb[3 * entity] += frame.rgb[3 * i];
      rgb[3 * entity + 1] += frame.rgb[3 * i + 1];
      rgb[3 * entity + 2] += frame.rgb[3 * i + 2];
    }
    // Each thing's pixels back through their depth and the camera's pose: the points its detection reports.
    const clouds = entityClouds(frame, pose, CAMERA.fovDeg, index.geomToEntity, entityCount);
    const holds = view.holds();
    const partOf = view.partOf();
    // What holds others, as seen in this frame: containers and bowls first, then what things rest on.
    const supports = raw
      .filter((o) => holds.has(o.label))
      .sort((a, b) => Number(holds.get(b.label) === "in") - Number(holds.get(a.label) === "in"))
      .map((detection) => ({
        entity: detection.entity,
        name: index.labels[index.entities.indexOf(detection.label)],
        relation: holds.get(detection.label)!,
        cloud: clouds[detection.entity],
      }));
    // The palm holds one thing: of what the detections say is loose (or a handle), the nearest its grasp point reaches.
    const held = heldBy(
      [view.hand()],
      raw.map((d) => (index.places.includes(d.label) || d.label === ROBOT_SELF ? NO_CLOUD : clouds[d.entity])),
    );
    const detections: LocatedDetection[] = raw.map((detection, k) => {
      const entity = detection.entity;
      const pixelCount = counts[entity];
      const cl = clouds[entity];
      // A mislabel names another entity of the scene; report that entity's label (any bead is "bead").
      const label = index.labels[index.entities.indexOf(detection.label)];
      // What the detection says it is decides how it is located, its own points where: a handle is on what it opens
      // (or in the palm); a loose thing in the palm, in or on what is under it, or on the table.
      const part = partOf.get(detection.label);
      const location = part
        ? locateCloud(clouds[entity], { heldBy: held[k], fallback: { relation: "on", place: part } })
        : index.places.includes(detection.label) || detection.label === ROBOT_SELF
          ? { relation: "on" as const, place: "table" } // the scene's places, and the robot's own hand, stand on the table
          : locateCloud(clouds[entity], {
              heldBy: held[k],
              supports: supports.filter((x) => x.entity !== entity),
              fallback: { relation: "on", place: "table" },
            });
      return {
        label,
        score: detection.score,
        box:
          scale === 1
            ? detection.box
            : {
                x: Math.round(detection.box.x * scale),
                y: Math.round(detection.box.y * scale),
                w: Math.round(detection.box.w * scale),
                h: Math.round(detection.box.h * scale),
              },
        location,
        color: colorName(
          rgb[3 * entity] / pixelCount,
          rgb[3 * entity + 1] / pixelCount,
          rgb[3 * entity + 2] / pixelCount,
        ),
        position: [round(cl.median[0]), round(cl.median[1]), round(cl.median[2])],
        zRange: [round(cl.min[2]), round(cl.max[2])],
        // The footprint of what the depth pixels show.
        xRange: [round(cl.min[0]), round(cl.max[0])],
        yRange: [round(cl.min[1]), round(cl.max[1])],
      };
    });
    const doors = view.doors();
    const state = (name: string): "open" | "closed" => {
      const door = doors.get(name);
      if (!door) return "open";
      const seen = shareInside(frame, pose, CAMERA.fovDeg, (g) => door.geoms.has(g), door.shut);
      return seen.n > 0 && seen.inside < 0.5 * seen.n ? "open" : "closed";
    };
    const places = index.places
      .map((name, i) => ({
        name,
        state: state(name),
        pixels: Math.round(placePx[i] * scale * scale),
        insidePixels: Math.round(insidePx[i] * scale * scale),
      }))
      .filter((p) => p.pixels >= 50);
    return { ...detectionsHeader("palm", "front_camera", this.camera, view.stamp()), detections, places };
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** The robot's own hand as the camera sees it (an entity of the detector's, as a segmenter knows the robot's parts). */
const ROBOT_SELF = "palm";
