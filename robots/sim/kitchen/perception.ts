/**
 * The kitchen robots' cameras: where each looks from, rendering, and the detector that turns a frame into the
 * detections message (objects with where they are, places with whether they are open).
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../random";
import type { DetectionsMessage, Stamp } from "../../msgs/detections";
import { ARM_CAMERA, MOBILE_CAMERA_HEIGHT, MOBILE_CAMERA_PITCH, NAMES, OBJECTS, PLACES, type PlaceSpec } from "./layout";
import type { RobotId, Where } from "./world";

export interface CameraOutput {
  robot: RobotId;
  camera: string;
  frame: Frame;
  pose: CameraPose;
  image: Buffer;
  depth: Buffer;
  detections: DetectionsMessage;
}

/** What the detector reads of the true state (to say where a seen object is), and whom it tells of a sighting. */
export interface KitchenView {
  where(object: string): Where | undefined;
  isClosed(p: PlaceSpec): boolean;
  stamp(): Stamp;
  /** A detection that names its object correctly. */
  seen(robot: RobotId, object: string, place: string): void;
}

export function cameraPose(robot: RobotId, mobile: { x: number; y: number; yaw: number }): CameraPose {
  if (robot === "arm") return lookAt(ARM_CAMERA, [ARM_CAMERA[0], ARM_CAMERA[1], 0], [0, 1, 0]);
  const c = Math.cos(mobile.yaw), s = Math.sin(mobile.yaw);
  const eye: Vec3 = [mobile.x + 0.14 * c, mobile.y + 0.14 * s, MOBILE_CAMERA_HEIGHT];
  const cp = Math.cos(MOBILE_CAMERA_PITCH), sp = Math.sin(MOBILE_CAMERA_PITCH);
  return { position: eye, forward: [c * cp, s * cp, sp], up: [0, 0, 1] };
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
    PLACES.forEach((p, i) => {
      for (const name of [p.body, `${p.body}_door`]) if (bodyId.has(name)) bodyPlace.set(bodyId.get(name)!, i);
    });
    this.geomToObject = Int32Array.from(geomBody, (b) => bodyObject.get(b) ?? -1);
    this.geomToPlace = Int32Array.from(geomBody, (b) => bodyPlace.get(b) ?? -1);
    const floors = new Map(PLACES.map((p, i) => [mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM.value, p.floor) as number, i]));
    this.geomToFloor = Int32Array.from(geomBody, (_b, g) => floors.get(g) ?? -1);
    const w = opts.width ?? 320;
    const h = opts.height ?? 240;
    this.cameras.set("mobile", new RayCamera(mj, w, h, 70));
    this.cameras.set("arm", new RayCamera(mj, w, h, 90));
  }

  dispose(): void {
    for (const c of this.cameras.values()) c.dispose();
  }

  /** Renders a robot's camera, runs the detector on it and encodes the images. */
  async render(robot: RobotId, mobile: { x: number; y: number; yaw: number }, view: KitchenView): Promise<CameraOutput> {
    this.mj.mj_forward(this.model, this.data);
    const pose = cameraPose(robot, mobile);
    const cam = this.cameras.get(robot)!;
    const frame = cam.render(this.model, this.data, pose, robot === "mobile" ? this.mobileBody : -1);
    const detections = this.detect(robot, frame, view);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { robot, camera: robot === "arm" ? "overhead" : "head", frame, pose, image, depth, detections };
  }

  private detect(robot: RobotId, frame: Frame, view: KitchenView): DetectionsMessage {
    const names = OBJECTS.map((o) => o.name);
    const raw = detectObjects(frame, this.geomToObject, names, names, this.noise, this.rng);
    const stamp = view.stamp();
    const dets = raw.map((d) => {
      const w = view.where(d.truth)!;
      const location: DetectionsMessage["detections"][number]["location"] =
        "heldBy" in w ? { relation: "held_by", place: w.heldBy } : { relation: w.place.kind === "container" ? "in" : "on", place: w.place.name };
      if (d.label === d.truth) view.seen(robot, d.truth, location.place);
      return { label: d.label, display: NAMES[d.label]?.display ?? d.label.replace(/_/g, " "), score: d.score, box: d.box, location };
    });
    const placePixels = new Int32Array(PLACES.length);
    const floorPixels = new Int32Array(PLACES.length);
    const toPlace = this.geomToPlace;
    const toFloor = this.geomToFloor;
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g < 0) continue;
      if (toPlace[g] >= 0) placePixels[toPlace[g]]++;
      if (toFloor[g] >= 0) floorPixels[toFloor[g]]++;
    }
    const places = PLACES.map((p, i) => ({ p, n: placePixels[i], inside: floorPixels[i] }))
      .filter(({ n }) => n >= 50)
      .map(({ p, n, inside }) => ({ name: p.name, state: (view.isClosed(p) ? "closed" : "open") as "open" | "closed", pixels: n, insidePixels: inside }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { ...detectionsHeader(robot, `${robot}_camera`, frame, stamp), detections: dets, places };
  }

  /** The object a pixel of a frame shows, or null where no object. */
  objectAtPixel(frame: Frame, i: number): string | null {
    const g = frame.geom[i];
    return g >= 0 && this.geomToObject[g] >= 0 ? OBJECTS[this.geomToObject[g]].name : null;
  }
}
