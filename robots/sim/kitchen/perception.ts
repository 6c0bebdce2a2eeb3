/**
 * The kitchen robots' cameras: where each looks from, rendering, and the detector that turns a frame into the
 * detections message. Where a detected object is — in a place, or in a robot's hand — is worked out from its own depth
 * pixels against the robots' map of the kitchen (each place's content volume, fixed before the episode) and the robots'
 * hands as they know them (robots/sim/locate.ts); whether a door or drawer is open, from its pixels against where it
 * lies when shut. Perception never reads where the world keeps an object, nor a door's joint.
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import { entityClouds, heldBy, locateCloud, shareInside, type Hand, type Location, type PlaceVolume } from "../locate";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../../random";
import type { DetectionsMessage, Stamp } from "../../msgs/detections";
import {
  ARM_CAMERA,
  MOBILE_CAMERA_HEIGHT,
  MOBILE_CAMERA_PITCH,
  NAMES,
  OBJECTS,
  PLACES,
  type PlaceSpec,
} from "./layout";
import type { RobotId } from "./types";

export interface CameraOutput {
  robot: RobotId;
  camera: string;
  frame: Frame;
  pose: CameraPose;
  image: Buffer;
  depth: Buffer;
  detections: DetectionsMessage;
}

/** What the detector knows besides the image: the robots' map and hands, the clock, and whom it tells of a sighting. */
export interface KitchenView {
  /** Each place's content volume, most specific first (the robots' map, made before the episode). */
  volumes: readonly PlaceVolume[];
  /** Where each door or drawer lies when shut (its parts' box then). */
  shut: ReadonlyMap<string, { min: Vec3; max: Vec3 }>;
  /** The robots' hands as the robots know them: grasp point from their kinematics, fingers closed or not. */
  hands(): Hand[];
  stamp(): Stamp;
  /** A detection that names its object correctly (the world's own log of sightings, for its goal check). */
  seen(robot: RobotId, object: string, place: string): void;
}

export function cameraPose(robot: RobotId, mobile: { x: number; y: number; yaw: number }): CameraPose {
  if (robot === "arm") return lookAt(ARM_CAMERA, [ARM_CAMERA[0], ARM_CAMERA[1], 0], [0, 1, 0]);
  const cos = Math.cos(mobile.yaw),
    sin = Math.sin(mobile.yaw);
  const eye: Vec3 = [mobile.x + 0.14 * cos, mobile.y + 0.14 * sin, MOBILE_CAMERA_HEIGHT];
  const cp = Math.cos(MOBILE_CAMERA_PITCH),
    sp = Math.sin(MOBILE_CAMERA_PITCH);
  return { position: eye, forward: [cos * cp, sin * cp, sp], up: [0, 0, 1] };
}

/** Both robots' cameras and the seeded detector behind them. */
export class KitchenCameras {
  private cameras = new Map<RobotId, RayCamera>();
  private rng: Rng;
  private noise: DetectorNoise;
  private mobileBody: number;
  private geomToObject: Int32Array;
  private geomToPlace: Int32Array;
  private geomToFloor: Int32Array;
  private geomToDoor: Int32Array;

  constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    bodyId: ReadonlyMap<string, number>,
    opts: { seed?: number; noise?: Partial<DetectorNoise>; width?: number; height?: number },
  ) {
    this.rng = new Rng(opts.seed ?? 0);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.mobileBody = bodyId.get("mobile")!;
    const geomBody = model.geom_bodyid as Int32Array;
    const bodyObject = new Map(OBJECTS.map((o, i) => [bodyId.get(`obj_${o.name}`)!, i]));
    const bodyPlace = new Map<number, number>();
    PLACES.forEach((spec, i) => {
      for (const name of [spec.body, `${spec.body}_door`]) if (bodyId.has(name)) bodyPlace.set(bodyId.get(name)!, i);
    });
    this.geomToObject = Int32Array.from(geomBody, (b) => bodyObject.get(b) ?? -1);
    this.geomToPlace = Int32Array.from(geomBody, (b) => bodyPlace.get(b) ?? -1);
    // A door's parts (a hinged door's own body; a drawer is its whole sliding body), by place.
    const bodyDoor = new Map<number, number>();
    PLACES.forEach((spec, i) => {
      if (!spec.openable) return;
      const door = bodyId.get(`${spec.body}_door`) ?? bodyId.get(spec.body);
      if (door !== undefined) bodyDoor.set(door, i);
    });
    this.geomToDoor = Int32Array.from(geomBody, (b) => bodyDoor.get(b) ?? -1);
    const floors = new Map(
      PLACES.map((p, i) => [mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM.value, p.floor) as number, i]),
    );
    this.geomToFloor = Int32Array.from(geomBody, (_b, g) => floors.get(g) ?? -1);
    const width = opts.width ?? 320;
    const height = opts.height ?? 240;
    this.cameras.set("mobile", new RayCamera(mj, width, height, 70));
    this.cameras.set("arm", new RayCamera(mj, width, height, 90));
  }

  dispose(): void {
    for (const c of this.cameras.values()) c.dispose();
  }

  /** Renders a robot's camera, runs the detector on it and encodes the images. */
  async render(
    robot: RobotId,
    mobile: { x: number; y: number; yaw: number },
    view: KitchenView,
  ): Promise<CameraOutput> {
    this.mj.mj_forward(this.model, this.data);
    const pose = cameraPose(robot, mobile);
    const cam = this.cameras.get(robot)!;
    const frame = cam.render(this.model, this.data, pose, robot === "mobile" ? this.mobileBody : -1);
    const detections = this.detect(robot, frame, pose, cam.fovDeg, view);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { robot, camera: robot === "arm" ? "overhead" : "head", frame, pose, image, depth, detections };
  }

  private detect(robot: RobotId, frame: Frame, pose: CameraPose, fovDeg: number, view: KitchenView): DetectionsMessage {
    const names = OBJECTS.map((o) => o.name);
    const raw = detectObjects(frame, this.geomToObject, names, names, this.noise, this.rng);
    const stamp = view.stamp();
    const clouds = entityClouds(frame, pose, fovDeg, this.geomToObject, names.length);
    const held = heldBy(
      view.hands(),
      raw.map((d) => clouds[d.entity]),
    );
    const dets = raw.map((detected, k) => {
      // The pixels of the detection, wherever its label came from: a mislabelled object is located where it is.
      const cloud = clouds[detected.entity];
      const location = locateCloud(cloud, {
        heldBy: held[k],
        places: view.volumes,
        fallback: nearest(cloud.median, view.volumes),
      });
      if (detected.label === detected.truth) view.seen(robot, detected.truth, location.place);
      return {
        label: detected.label,
        display: NAMES[detected.label]?.display ?? detected.label.replace(/_/g, " "),
        score: detected.score,
        box: detected.box,
        location,
      };
    });
    const placePixels = new Int32Array(PLACES.length);
    const floorPixels = new Int32Array(PLACES.length);
    const toPlace = this.geomToPlace;
    const toFloor = this.geomToFloor;
    for (let i = 0; i < frame.geom.length; i++) {
      const geomId = frame.geom[i];
      if (geomId < 0) continue;
      if (toPlace[geomId] >= 0) placePixels[toPlace[geomId]]++;
      if (toFloor[geomId] >= 0) floorPixels[toFloor[geomId]]++;
    }
    const places = PLACES.map((p, i) => ({ p, i, n: placePixels[i], inside: floorPixels[i] }))
      .filter(({ n }) => n >= 50)
      .map(({ p: spec, i, n: pixelCount, inside }) => ({
        name: spec.name,
        state: this.doorState(spec, i, frame, pose, fovDeg, view, inside),
        pixels: pixelCount,
        insidePixels: inside,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { ...detectionsHeader(robot, `${robot}_camera`, frame, stamp), detections: dets, places };
  }

  /**
   * Open or closed, as the image shows it: most of the door's (or drawer's) points where it lies when shut is shut.
   * A door hardly in view says nothing by itself: then a place whose inside is in view is open, and one whose inside is
   * hidden is taken as closed (nothing in it can be seen either way).
   */
  private doorState(
    spec: PlaceSpec,
    i: number,
    frame: Frame,
    pose: CameraPose,
    fovDeg: number,
    view: KitchenView,
    inside: number,
  ): "open" | "closed" {
    const shut = view.shut.get(spec.name);
    if (!spec.openable || !shut) return "open";
    const door = shareInside(frame, pose, fovDeg, (g) => this.geomToDoor[g] === i, shut);
    if (door.n >= 20) return door.inside >= 0.5 * door.n ? "closed" : "open";
    return inside > 0 ? "open" : "closed";
  }

  /** The object a pixel of a frame shows, or null where no object. */
  objectAtPixel(frame: Frame, i: number): string | null {
    const geomId = frame.geom[i];
    return geomId >= 0 && this.geomToObject[geomId] >= 0 ? OBJECTS[this.geomToObject[geomId]].name : null;
  }
}

/** The place whose content volume is nearest a point, for a thing seen between volumes (it is in or on one of them). */
function nearest(point: Vec3, volumes: readonly PlaceVolume[]): Location {
  let best = volumes[0],
    bestDist = Infinity;
  for (const v of volumes) {
    const dist = Math.hypot(...[0, 1, 2].map((k) => Math.max(v.min[k] - point[k], 0, point[k] - v.max[k])));
    if (dist < bestDist) {
      bestDist = dist;
      best = v;
    }
  }
  return { relation: best.relation, place: best.name };
}
