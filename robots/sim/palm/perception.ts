/**
 * A palm world's front camera (tabletop, blocks, workbench): its pose, rendering, and the detector that turns a
 * frame into the detections message, each object with where it is and the colour of its own pixels. Where a loose thing is comes from its depth pixels
 * against the scene's fixed furniture (each container's inside, each surface's top) and the palm as the palm knows
 * itself (robots/sim/locate.ts); whether a container is open, from its doors' pixels against where they lie when shut.
 * Nothing here reads where the world keeps a thing, nor a door's joint.
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import { NO_CLOUD, entityClouds, heldBy, locateCloud, shareInside, type Hand, type PlaceVolume } from "../locate";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../../random";
import type { DetectionsMessage as BaseDetections, PlacedDetection, Stamp } from "../../msgs/detections";
import type { WorldDescription } from "../../manifests";
import type { SceneSpec } from "./scene";

/** Tabletop detections always carry a colour (task 6 is decided by it). */
export type DetectionsMessage = BaseDetections & { detections: (PlacedDetection & { color: string })[] };

const CAMERA_EYE: [number, number, number] = [0, -0.82, 0.62];
const CAMERA_TARGET: [number, number, number] = [0, 0.12, 0.08];

/** What the detector knows besides the image: the scene's furniture and the palm, the clock, whom it tells of a sighting. */
export interface TabletopView {
  /** Labels of things fixed in the scene (furniture, handles, levers): they stand where they were built. */
  fixed: ReadonlySet<string>;
  /** Each container's inside and each surface's top, as content volumes (the scene's map, fixed before the episode). */
  volumes: readonly PlaceVolume[];
  /** Where each container's doors lie when shut, by container (one box per door). */
  shut: ReadonlyMap<string, { door: string; box: { min: Vec3; max: Vec3 } }[]>;
  /** The palm as it knows itself: where it is, and whether its grasp has closed on something. */
  hand(): Hand;
  stamp(): Stamp;
  /** A detection that names its object correctly. */
  seen(object: string): void;
}

export function cameraPose(): CameraPose {
  return lookAt(CAMERA_EYE, CAMERA_TARGET);
}

/** The front camera and the seeded detector behind it. */
export class TabletopCamera {
  private camera: RayCamera;
  private rng: Rng;
  private noise: DetectorNoise;
  private labels: string[];
  /** Each label's display name, from the world description. */
  private display: Map<string, string>;
  private placeNames: string[];
  private geomToLabel: Int32Array;
  private geomToPlace: Int32Array;
  private geomInside: Int32Array;
  private geomToDoor: Int32Array;
  private doorIndex: Map<string, number>;

  constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    scene: SceneSpec,
    description: WorldDescription,
    opts: { seed?: number; noise?: Partial<DetectorNoise>; width?: number; height?: number },
  ) {
    this.rng = new Rng(opts.seed ?? 0);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.labels = description.labels;
    this.display = new Map(
      Object.entries(description.names ?? {}).flatMap(([name, entry]) =>
        entry.display ? [[name, entry.display] as [string, string]] : [],
      ),
    );
    const labelIndex = new Map(this.labels.map((l, i) => [l, i]));
    this.placeNames = description.places.map((p) => p.name);
    const placeIndex = new Map(this.placeNames.map((p, i) => [p, i]));
    const interior = new Set([
      ...scene.containers.flatMap((c) => c.interior),
      "crate__floor",
      "weight_sensor__plate",
      "floor",
    ]);
    const ng = model.ngeom as number;
    this.geomToLabel = new Int32Array(ng).fill(-1);
    this.geomToPlace = new Int32Array(ng).fill(-1);
    this.geomInside = new Int32Array(ng).fill(0);
    // A door's parts: the geoms of its own body, named <container>__<joint>.
    const doorBodies = scene.containers.flatMap((c) => c.doors.map((d) => `${c.name}__${d.joint}`));
    this.doorIndex = new Map(doorBodies.map((b, i) => [b, i]));
    this.geomToDoor = new Int32Array(ng).fill(-1);
    const geomBody = model.geom_bodyid as Int32Array;
    for (let g = 0; g < ng; g++) {
      const name = (mj.mj_id2name(model, mj.mjtObj.mjOBJ_GEOM.value, g) as string | null) ?? "";
      const label = name.split("__")[0];
      this.geomToDoor[g] =
        this.doorIndex.get((mj.mj_id2name(model, mj.mjtObj.mjOBJ_BODY.value, geomBody[g]) as string | null) ?? "") ??
        -1;
      this.geomToLabel[g] = labelIndex.get(label) ?? -1;
      this.geomToPlace[g] = placeIndex.get(label) ?? -1;
      if (interior.has(name)) this.geomInside[g] = 1;
    }
    this.camera = new RayCamera(mj, opts.width ?? 320, opts.height ?? 240, 70);
  }

  dispose(): void {
    this.camera.dispose();
  }

  renderFrame(): Frame {
    this.mj.mj_forward(this.model, this.data);
    return this.camera.render(this.model, this.data, cameraPose(), -1);
  }

  /** Pixels of each label in a frame. */
  pixelsOf(frame: Frame, label: string): number {
    const entity = this.labels.indexOf(label);
    let count = 0;
    for (let i = 0; i < frame.geom.length; i++)
      if (frame.geom[i] >= 0 && this.geomToLabel[frame.geom[i]] === entity) count++;
    return count;
  }

  async render(
    view: TabletopView,
  ): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: DetectionsMessage }> {
    const frame = this.renderFrame();
    const detections = this.detect(frame, view);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { camera: "front", frame, image, depth, detections };
  }

  detect(frame: Frame, view: TabletopView): DetectionsMessage {
    const raw = detectObjects(frame, this.geomToLabel, this.labels, this.labels, this.noise, this.rng);
    // Mean colour of each label's own pixels, as a colour classifier on the segmented image would see it.
    const labelCount = this.labels.length;
    const sum = new Float64Array(3 * labelCount),
      cnt = new Int32Array(labelCount);
    const placePx = new Int32Array(this.placeNames.length),
      insidePx = new Int32Array(this.placeNames.length);
    for (let i = 0; i < frame.geom.length; i++) {
      const geom = frame.geom[i];
      if (geom < 0) continue;
      const entity = this.geomToLabel[geom];
      if (entity >= 0) {
        cnt[entity]++;
        sum[3 * entity] += frame.rgb[3 * i];
        sum[3 * entity + 1] += frame.rgb[3 * i + 1];
        sum[3 * entity + 2] += frame.rgb[3 * i + 2];
      }
      const place = this.geomToPlace[geom];
      if (place >= 0) {
        placePx[place]++;
        if (this.geomInside[geom]) insidePx[place]++;
      }
    }
    const pose = cameraPose();
    const clouds = entityClouds(frame, pose, this.camera.fovDeg, this.geomToLabel, labelCount);
    // Only what the detection says is loose can be in the palm.
    const held = heldBy(
      [view.hand()],
      raw.map((d) => (view.fixed.has(d.label) ? NO_CLOUD : clouds[d.entity])),
    );
    const detections = raw.map((detection, k) => {
      const entity = detection.entity;
      if (detection.label === detection.truth) view.seen(detection.truth);
      // What the detection says it is decides how it is located — furniture stands on the floor — and its own pixels
      // where: a loose thing is wherever its points are, under whatever name.
      const location = view.fixed.has(detection.label)
        ? { relation: "on" as const, place: "floor" }
        : locateCloud(clouds[entity], {
            heldBy: held[k],
            places: view.volumes,
            fallback: { relation: "on", place: "floor" },
          });
      return {
        label: detection.label,
        display: this.display.get(detection.label) ?? detection.label.replace(/_/g, " "),
        score: detection.score,
        box: detection.box,
        location,
        color: colorName(
          sum[3 * entity] / cnt[entity],
          sum[3 * entity + 1] / cnt[entity],
          sum[3 * entity + 2] / cnt[entity],
        ),
      };
    });
    const places = this.placeNames
      .map((name, i) => ({
        name,
        state: this.doorState(name, frame, pose, view, insidePx[i]),
        pixels: placePx[i],
        insidePixels: insidePx[i],
      }))
      .filter((p) => p.pixels >= 50);
    return { ...detectionsHeader("palm", "front_camera", frame, view.stamp()), detections, places };
  }

  /**
   * A container is open when a door of it that is in view lies off where it lies shut; a container whose doors are
   * hardly in view is open when its inside is in view. Places without doors are open.
   */
  private doorState(
    name: string,
    frame: Frame,
    pose: CameraPose,
    view: TabletopView,
    inside: number,
  ): "open" | "closed" {
    const doors = view.shut.get(name);
    if (!doors?.length) return "open";
    let judged = false;
    for (const d of doors) {
      const id = this.doorIndex.get(d.door);
      const seen = shareInside(frame, pose, this.camera.fovDeg, (g) => this.geomToDoor[g] === id, d.box);
      if (seen.n < 20) continue;
      judged = true;
      if (seen.inside < 0.5 * seen.n) return "open";
    }
    return judged || inside === 0 ? "closed" : "open";
  }
}

/** A colour name from a mean RGB (0–255): hue for saturated colours, lightness for greys; dark oranges are brown. */
export function colorName(red: number, green: number, blue: number): string {
  const max = Math.max(red, green, blue),
    min = Math.min(red, green, blue);
  const brightness = max / 255,
    saturation = max > 0 ? (max - min) / max : 0;
  if (saturation < 0.25) return brightness > 0.75 ? "white" : brightness > 0.3 ? "grey" : "black";
  if (brightness < 0.15) return "black";
  let hue: number;
  if (max === red) hue = ((green - blue) / (max - min)) * 60;
  else if (max === green) hue = (2 + (blue - red) / (max - min)) * 60;
  else hue = (4 + (red - green) / (max - min)) * 60;
  if (hue < 0) hue += 360;
  if (hue < 15 || hue >= 340) return "red";
  if (hue < 45) return brightness < 0.7 ? "brown" : "orange";
  if (hue < 70) return "yellow";
  if (hue < 170) return "green";
  if (hue < 260) return "blue";
  if (hue < 300) return "purple";
  return "pink";
}
