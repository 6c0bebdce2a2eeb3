/**
 * The palm's scenes, in the parts every palm world builds from (tabletop, blocks, workbench): what a scene is to the
 * palm's controllers, bodies and camera — its things, containers, surfaces, doors and locks — and the MJCF helpers and
 * colours they share, with the palm's own actuators.
 */

export type Vec3 = [number, number, number];

export interface DoorSpec {
  joint: string;
  handle: string;
  /** Hinge on the container's left (x−) or right (x+) outer edge. */
  side: "left" | "right";
  description: string;
}

export interface ContainerSpec {
  name: string;
  doors: DoorSpec[];
  /** Interior box in world coordinates (what counts as "in" it). */
  min: Vec3;
  max: Vec3;
  /** Geoms things rest on inside (for "contents in view"). */
  interior: string[];
}

export interface SurfaceSpec {
  name: string;
  /** Site at the centre of the surface things rest on. */
  site: string;
  /** Half extents (x, y) of the area inside which a thing rests on it. */
  half: [number, number];
  /** Height of the surface things rest on. */
  top: number;
  capacity: number;
}

export interface LockSpec {
  /** The hinge that is held shut. */
  joint: string;
  /** Released for good once this joint's fraction exceeds `threshold`... */
  lever?: { joint: string; threshold: number };
  /** ...or released while at least `minMass` kg rests on this surface. */
  sensor?: { surface: string; minMass: number };
}

export interface SceneSpec {
  name: string;
  /** RePLan's instruction for this scene (appendix A); `npm start -- --world tabletop` gives it to the agent. */
  instruction: string;
  xml: string;
  /** Free bodies (body, freejoint and main geom share the name). */
  objects: string[];
  containers: ContainerSpec[];
  surfaces: SurfaceSpec[];
  /** Non-container fixtures a motion may refer to (a site of the same name is their point). */
  fixtures: { name: string; description: string }[];
  joints: { name: string; object: string; handle: string; description: string }[];
  targets: { name: string; place: string }[];
  locks: LockSpec[];
  /** Initial joint positions (radians) other than 0. */
  initialJoints: Record<string, number>;
  goal: string[];
}

/** MJCF helpers shared by the MuJoCo scenes: numbers as an attribute value, and a box geom. */
export const attributeNumbers = (...n: number[]) => n.map((v) => +v.toFixed(4)).join(" ");
export const box = (name: string, pos: number[], size: number[], rgba: string, extra = "") =>
  `<geom name="${name}" type="box" pos="${attributeNumbers(...pos)}" size="${attributeNumbers(...size)}" rgba="${rgba}" ${extra}/>`;

// Saturated, well separated colours, so the colour namer (perception.ts) names them without ambiguity.
export const RGBA = {
  wood: "0.55 0.33 0.16 1",
  stone: "0.56 0.56 0.56 1",
  red: "0.86 0.08 0.08 1",
  yellow: "0.95 0.82 0.08 1",
  blue: "0.1 0.25 0.9 1",
  green: "0.15 0.75 0.15 1",
  handle: "0.16 0.16 0.16 1",
  white: "0.9 0.9 0.9 1",
  dark: "0.22 0.22 0.24 1",
  kettle: "0.12 0.3 0.75 1",
  floor: "0.86 0.84 0.8 1",
};

/** Door hinge range: closed at 0, fully open at 90°. */
export const DOOR_OPEN = 1.57;

/** The palm's position actuators on its three slides, with the world's gain and force limit. */
export function palmActuators(kp: number, force: number): string {
  const slide = (axis: string) =>
    `    <position name="palm_${axis}" joint="palm_${axis}" kp="${kp}" dampratio="1" forcerange="-${force} ${force}"/>`;
  return `<actuator>\n${["x", "y", "z"].map(slide).join("\n")}\n  </actuator>`;
}
