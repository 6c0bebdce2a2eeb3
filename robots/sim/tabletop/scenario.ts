/**
 * The tabletop scenes as scenarios: their vocabulary (what the world tells clients: places, labels, joints, targets —
 * structure only, never hidden state such as a lock), their goals, and motion programs that solve each one through
 * `execute_motion` alone (used by tests and the benchmark, never by agents).
 *
 * The vocabulary is what a person would write down before the task, the same way for every scene: every lever is
 * listed with its joint and every weight plate as a surface, whether it locks a door or not (a scene's `locks` are
 * never read here), and no text says what is locked or blocked.
 */
import type { WorldDescription } from "../../manifests";
import { moveAway, openDoor, place, pullLever, type MotionInput } from "./motions";
import {
  buildScene,
  isHandMadeScene,
  SCENE_NAMES,
  TWIN_SCENE_NAMES,
  type HandMadeScene,
  type SceneName,
  type SceneSpec,
} from "./scenes";
import { generateTabletop } from "./generate";
import { generatedSeed } from "../generated";

export {
  SCENE_NAMES,
  TWIN_SCENE_NAMES,
  type SceneName,
  type HandMadeScene,
  isSceneName,
  isHandMadeScene,
} from "./scenes";
export type { MotionInput } from "./motions";

/** RePLan's eight scenes, then their hidden-state twins. */
export function listScenes(): string[] {
  return [...SCENE_NAMES, ...TWIN_SCENE_NAMES];
}

/** Whether a name is a tabletop scene: one of the hand-made eight or their twins, or generated_<seed>. */
export function isTabletopScene(name: string): boolean {
  return isHandMadeScene(name) || generatedSeed(name) !== undefined;
}

/** A tabletop scene by name: a hand-made one, or a generated one (generate.ts) by its seed. */
export function sceneOf(name: string): SceneSpec {
  const seed = generatedSeed(name);
  if (seed !== undefined) return generateTabletop(seed).spec;
  if (!isHandMadeScene(name))
    throw new Error(`unknown tabletop scene ${name}; known: ${listScenes().join(", ")}, or generated_<seed>`);
  return buildScene(name);
}

/**
 * What people call the things of RePLan's scenes: display names and other wordings (the world description's `names`,
 * the detector's display labels). A scene describes only the names it has.
 */
export const NAMES: Record<string, { display: string; aliases: string[] }> = {
  yellow_cube: { display: "yellow cube", aliases: ["yellow block", "yellow box"] },
  red_cube: { display: "red cube", aliases: ["red block", "red box"] },
  blue_cube: { display: "blue cube", aliases: ["blue block", "blue box"] },
  red_bar: { display: "red bar", aliases: ["bar", "red rod", "red stick", "red plank"] },
  wooden_cabinet: { display: "wooden cabinet", aliases: ["wood cabinet", "wooden cupboard", "cupboard"] },
  cabinet: { display: "cabinet", aliases: ["cupboard"] },
  stone_cabinet: { display: "stone cabinet", aliases: ["stone cupboard", "grey cabinet"] },
  microwave: { display: "microwave", aliases: ["microwave oven"] },
  kettle: { display: "kettle", aliases: ["teakettle", "water kettle"] },
  green_apple: { display: "green apple", aliases: ["apple"] },
  crate: { display: "crate", aliases: ["red crate", "basket"] },
  weight_sensor: { display: "weight sensor", aliases: ["scale", "weighing plate", "pressure plate", "sensor plate"] },
  lever: { display: "lever", aliases: ["floor lever"] },
  target_position: { display: "target position", aliases: ["target", "marked spot", "goal position"] },
  floor: { display: "floor", aliases: ["ground"] },
  left_door: { display: "left door", aliases: [] },
  right_door: { display: "right door", aliases: [] },
  left_door_handle: { display: "left door handle", aliases: [] },
  right_door_handle: { display: "right door handle", aliases: [] },
  cabinet_left_door: { display: "left cabinet door", aliases: [] },
  cabinet_right_door: { display: "right cabinet door", aliases: [] },
  cabinet_left_handle: { display: "left cabinet handle", aliases: [] },
  cabinet_right_handle: { display: "right cabinet handle", aliases: [] },
  cabinet_door: { display: "cabinet door", aliases: [] },
  cabinet_handle: { display: "cabinet handle", aliases: [] },
  microwave_door: { display: "microwave door", aliases: [] },
  microwave_handle: { display: "microwave handle", aliases: [] },
  lever_handle: { display: "lever handle", aliases: ["lever grip"] },
  stone_cabinet_door: { display: "stone cabinet door", aliases: [] },
  stone_cabinet_handle: { display: "stone cabinet handle", aliases: [] },
};

/** What the world tells clients of a scene: its structure, the same way whatever locks what (it never reads `locks`). */
export function describeScene(
  scene: Omit<SceneSpec, "name" | "locks" | "instruction" | "goal" | "xml" | "initialJoints">,
): WorldDescription {
  const handles = scene.joints.map((j) => j.handle);
  const labels = [
    ...scene.objects,
    ...scene.containers.map((c) => c.name),
    ...scene.surfaces.map((s) => s.name),
    ...scene.fixtures.map((f) => f.name),
    ...handles,
  ];
  const joints = scene.joints.flatMap((j) => [j.name, j.object, j.handle]);
  const named = new Set([
    ...labels,
    ...scene.containers.map((c) => c.name),
    ...scene.surfaces.map((x) => x.name),
    "floor",
    ...joints,
    ...scene.targets.map((t) => t.name),
  ]);
  return {
    name: "tabletop",
    // No capacities: that the crate holds one cube at a time is task 7's premise, to be found out, not told.
    places: [
      ...scene.containers.map((c) => ({ name: c.name, kind: "container" as const, openable: c.doors.length > 0 })),
      ...scene.surfaces.map((s) => ({ name: s.name, kind: "surface" as const, openable: false })),
      { name: "floor", kind: "surface" as const, openable: false },
    ],
    navigationPoints: [],
    labels: [...new Set(labels)],
    joints: scene.joints.map((j) => ({ ...j })),
    targets: scene.targets.map((t) => ({ ...t })),
    names: Object.fromEntries([...named].filter((n) => NAMES[n]).map((n) => [n, structuredClone(NAMES[n])])),
  };
}

/** RePLan's four controller checks (appendix C.1), each with the scene it runs in. */
export const CONTROLLER_MOTIONS: { name: string; scene: SceneName; motion: MotionInput }[] = [
  { name: "open door", scene: "cabinet_closed", motion: openDoor("left_door_handle", "left_door") },
  { name: "remove bar", scene: "cabinet_barred", motion: moveAway("red_bar", "left_door_handle", 0.35) },
  { name: "remove kettle", scene: "kitchen", motion: moveAway("kettle", "microwave_handle", 0.4) },
  { name: "pull lever", scene: "lever", motion: pullLever("lever_handle", "lever") },
];

/** Motion sequences that reach each scene's goal (a twin's decoy needs no working). */
export const SCRIPTED_SOLUTIONS: Record<HandMadeScene, MotionInput[]> = {
  cabinet_open: [place("yellow_cube", "target_position")],
  cabinet_closed: [openDoor("left_door_handle", "left_door"), place("yellow_cube", "target_position")],
  cabinet_barred: [
    moveAway("red_bar", "left_door_handle", 0.35),
    openDoor("left_door_handle", "left_door"),
    place("yellow_cube", "target_position"),
  ],
  kitchen: [moveAway("kettle", "microwave_handle", 0.4), openDoor("microwave_handle", "microwave_door")],
  lever: [CONTROLLER_MOTIONS[3].motion, openDoor("cabinet_handle", "cabinet_door")],
  color: [place("red_cube", "crate")],
  block: [moveAway("yellow_cube", "crate", 0.2), place("red_cube", "crate")],
  sensor: [place("red_cube", "weight_sensor"), openDoor("stone_cabinet_handle", "stone_cabinet_door")],
  lever_decoy: [openDoor("cabinet_handle", "cabinet_door")],
  sensor_decoy: [openDoor("stone_cabinet_handle", "stone_cabinet_door")],
};
