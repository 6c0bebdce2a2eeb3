/**
 * The kitchen's fixed geometry (metres; x east, y north, z up), after CLEA's small open kitchen:
 * refrigerator, oven and two drawers are closed containers; table, sink and garbage can are open places.
 * The mobile manipulator reaches a place only from its navigation point; the stationary arm beside the table
 * reaches the table, the drawers and the garbage can, which the mobile robot cannot get to.
 */
import type { Vec3 } from "../camera";
import type { WorldDescription } from "../../manifests/schema";

export type PlaceName = "table" | "refrigerator" | "oven" | "sink" | "drawer_top" | "drawer_middle" | "trash_can";

export interface PlaceSpec {
  name: PlaceName;
  kind: "container" | "surface";
  openable: boolean;
  /** The MuJoCo body whose frame the slots are given in (a drawer's own sliding body, so contents move with it). */
  body: string;
  /** Joint and actuator of the door or drawer, for openable places. */
  joint?: string;
  /** Joint position when fully open (closed is 0). */
  openPosition?: number;
  /** Where objects rest, in the body's frame (z is the resting surface). */
  slots: Vec3[];
  /** World position used for reach checks. */
  center: Vec3;
  /** The geom objects rest on: seeing it means seeing what is there. */
  floor: string;
}

export const PLACES: PlaceSpec[] = [
  {
    name: "table",
    floor: "table_top",
    kind: "surface",
    openable: false,
    body: "table",
    center: [0, 0, 0.75],
    slots: [
      [-0.4, 0.17, 0.75],
      [0, 0.17, 0.75],
      [0.4, 0.17, 0.75],
      [-0.4, -0.15, 0.75],
      [0, -0.15, 0.75],
      [0.4, -0.15, 0.75],
    ],
  },
  {
    name: "refrigerator",
    floor: "refrigerator_shelf",
    kind: "container",
    openable: true,
    body: "refrigerator",
    joint: "refrigerator_hinge",
    openPosition: -1.6,
    center: [-1.9, 1.0, 0.9],
    slots: [
      [0, -0.21, 0.9],
      [0, -0.07, 0.9],
      [0, 0.07, 0.9],
      [0, 0.21, 0.9],
    ],
  },
  {
    name: "oven",
    floor: "oven_floor",
    kind: "container",
    openable: true,
    body: "oven",
    joint: "oven_hinge",
    openPosition: 1.5,
    center: [-0.6, 2.0, 0.55],
    slots: [[0, 0.02, 0.52]],
  },
  {
    name: "sink",
    floor: "sink_bottom",
    kind: "surface",
    openable: false,
    body: "sink",
    center: [1.9, 1.0, 0.72],
    slots: [
      [0, -0.12, 0.72],
      [0, 0.12, 0.72],
    ],
  },
  {
    name: "drawer_top",
    floor: "drawer_top_bottom",
    kind: "container",
    openable: true,
    body: "drawer_top",
    joint: "drawer_top_slide",
    openPosition: 0.3,
    center: [-0.7, -1.5, 0.56],
    slots: [
      [-0.14, 0.08, 0.012],
      [0, 0.08, 0.012],
      [0.14, 0.08, 0.012],
    ],
  },
  {
    name: "drawer_middle",
    floor: "drawer_middle_bottom",
    kind: "container",
    openable: true,
    body: "drawer_middle",
    joint: "drawer_middle_slide",
    openPosition: 0.46,
    // The lower drawer pulls out further, so its front half clears an open drawer above it.
    center: [-0.7, -1.5, 0.31],
    slots: [
      [-0.14, 0.12, 0.012],
      [0, 0.12, 0.012],
      [0.14, 0.12, 0.012],
    ],
  },
  {
    name: "trash_can",
    floor: "trash_can_bottom",
    kind: "container",
    openable: false,
    body: "trash_can",
    center: [0.8, -1.55, 0.03],
    slots: [
      [-0.08, -0.08, 0.03],
      [0.08, -0.08, 0.03],
      [-0.08, 0.08, 0.03],
      [0.08, 0.08, 0.03],
    ],
  },
];

export interface NavigationPoint {
  name: string;
  position: [number, number];
  /** Heading, radians from +x. */
  yaw: number;
  serves: PlaceName;
}

export const NAVIGATION_POINTS: NavigationPoint[] = [
  { name: "in_front_of_table", position: [0, 1.0], yaw: -Math.PI / 2, serves: "table" },
  { name: "in_front_of_refrigerator", position: [-0.8, 1.0], yaw: Math.PI, serves: "refrigerator" },
  { name: "in_front_of_oven", position: [-0.6, 1.1], yaw: Math.PI / 2, serves: "oven" },
  { name: "in_front_of_sink", position: [0.8, 1.0], yaw: 0, serves: "sink" },
];

export type ObjectShape =
  | { type: "box"; size: Vec3 }
  | { type: "cylinder"; radius: number; halfHeight: number }
  | { type: "sphere"; radius: number };

export interface ObjectSpec {
  name: string;
  shape: ObjectShape;
  rgba: [number, number, number, number];
}

export const OBJECTS: ObjectSpec[] = [
  { name: "bottle_of_tea", shape: { type: "cylinder", radius: 0.035, halfHeight: 0.1 }, rgba: [0.6, 0.35, 0.1, 1] },
  { name: "hamburger", shape: { type: "cylinder", radius: 0.06, halfHeight: 0.03 }, rgba: [0.75, 0.5, 0.25, 1] },
  { name: "apple", shape: { type: "sphere", radius: 0.04 }, rgba: [0.85, 0.1, 0.1, 1] },
  { name: "orange", shape: { type: "sphere", radius: 0.04 }, rgba: [1, 0.55, 0, 1] },
  { name: "vitamin_pills", shape: { type: "box", size: [0.03, 0.03, 0.05] }, rgba: [0.95, 0.9, 0.3, 1] },
  { name: "green_medication", shape: { type: "box", size: [0.035, 0.025, 0.04] }, rgba: [0.1, 0.7, 0.2, 1] },
  { name: "milk", shape: { type: "box", size: [0.035, 0.035, 0.09] }, rgba: [0.97, 0.97, 0.97, 1] },
  { name: "bread", shape: { type: "box", size: [0.08, 0.04, 0.04] }, rgba: [0.8, 0.62, 0.38, 1] },
  { name: "cup", shape: { type: "cylinder", radius: 0.04, halfHeight: 0.05 }, rgba: [0.2, 0.4, 0.9, 1] },
  { name: "sponge", shape: { type: "box", size: [0.05, 0.03, 0.02] }, rgba: [0.3, 0.85, 0.85, 1] },
];

export function objectHalfHeight(spec: ObjectSpec): number {
  const shape = spec.shape;
  return shape.type === "box" ? shape.size[2] : shape.type === "cylinder" ? shape.halfHeight : shape.radius;
}

export const ARM_BASE: Vec3 = [0, -0.75, 0.8];
export const ARM_REACH = 1.2;
export const ARM_REST: Vec3 = [0, -0.62, 1.15];
/** The arm's camera hangs above its workspace looking straight down. */
export const ARM_CAMERA: Vec3 = [0, -0.6, 2.4];
export const MOBILE_CAMERA_HEIGHT = 1.45;
export const MOBILE_CAMERA_PITCH = (-35 * Math.PI) / 180;
/** Resting gripper position in the mobile robot's frame (forward, left, up). */
export const MOBILE_GRIPPER_REST: Vec3 = [0.3, 0, 1.0];

export function place(name: string): PlaceSpec {
  const spec = PLACES.find((q) => q.name === name);
  if (!spec) throw new Error(`unknown place ${name}`);
  return spec;
}
export function navigationPoint(name: string): NavigationPoint {
  const point = NAVIGATION_POINTS.find((q) => q.name === name);
  if (!point) throw new Error(`unknown navigation point ${name}`);
  return point;
}
export function objectSpec(name: string): ObjectSpec {
  const spec = OBJECTS.find((q) => q.name === name);
  if (!spec) throw new Error(`unknown object ${name}`);
  return spec;
}

/**
 * What people call each thing, place and navigation point: the world description's `names` (how a model shows them,
 * and the wordings the offline reasoner maps an instruction's phrases through) and the detector's display labels.
 */
export const NAMES: Record<string, { display: string; aliases: string[] }> = {
  bottle_of_tea: { display: "bottle of tea", aliases: ["tea bottle", "tea", "iced tea", "bottled tea"] },
  hamburger: { display: "hamburger", aliases: ["burger", "cheeseburger"] },
  apple: { display: "apple", aliases: ["red apple"] },
  orange: { display: "orange", aliases: ["tangerine", "mandarin"] },
  vitamin_pills: {
    display: "vitamin pills",
    aliases: ["vitamins", "pills", "vitamin tablets", "pill bottle", "supplements"],
  },
  green_medication: { display: "green medication", aliases: ["medication", "medicine", "green medicine", "meds"] },
  milk: { display: "milk", aliases: ["milk carton", "carton of milk"] },
  bread: { display: "bread", aliases: ["loaf", "loaf of bread", "bread loaf"] },
  cup: { display: "cup", aliases: ["mug", "blue cup", "coffee cup", "blue mug"] },
  sponge: { display: "sponge", aliases: ["dish sponge", "kitchen sponge", "scrubber"] },
  table: { display: "table", aliases: ["kitchen table", "dining table"] },
  refrigerator: { display: "refrigerator", aliases: ["fridge", "icebox"] },
  oven: { display: "oven", aliases: ["cooker"] },
  sink: { display: "sink", aliases: ["kitchen sink", "basin"] },
  drawer_top: { display: "top drawer", aliases: ["upper drawer", "first drawer", "higher drawer"] },
  drawer_middle: { display: "middle drawer", aliases: ["lower drawer", "bottom drawer", "second drawer"] },
  trash_can: {
    display: "trash can",
    aliases: [
      "garbage",
      "garbage can",
      "trash",
      "bin",
      "trash bin",
      "rubbish bin",
      "rubbish",
      "waste bin",
      "wastebasket",
      "dustbin",
      "garbage bin",
    ],
  },
  in_front_of_table: { display: "in front of the table", aliases: [] },
  in_front_of_refrigerator: { display: "in front of the refrigerator", aliases: ["in front of the fridge"] },
  in_front_of_oven: { display: "in front of the oven", aliases: [] },
  in_front_of_sink: { display: "in front of the sink", aliases: [] },
};

/** The kitchen as its simulator publishes it to agents (its places, navigation points, labels and their wordings). */
export function describeKitchen(): WorldDescription {
  return {
    name: "kitchen",
    places: PLACES.map((p) => ({ name: p.name, kind: p.kind, openable: p.openable, capacity: p.slots.length })),
    navigationPoints: NAVIGATION_POINTS.map((n) => n.name),
    labels: OBJECTS.map((o) => o.name),
    names: structuredClone(NAMES),
  };
}
