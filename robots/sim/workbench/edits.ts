/**
 * The generated critic benchmark's grammar of program edits: each case takes the careful program of a workbench task
 * (./behaviours.ts) and changes one or two things about how it is done — the carry's speed, a detour, back-and-forth
 * motions, a pause, the grip's force, how low the hand comes in, how high it lets go, a sweep through a neighbour,
 * a carry too low past something standing, a carry straight over something to keep clear, a drawer not shut, and the
 * six families added later (a crawl, a regrasp, a shake, a slam down, an approach from the far side, an overshoot).
 * What an edit did — its family and size — is a generated rollout's truth; no monitor labels it. An edit applies only
 * where the scene gives it something to act on (a crushable thing to grip, a thing standing on the way…), read from the
 * scene's layout and its things' physical properties, as a person scripting the robot would.
 */
import type { z } from "zod";
import type { Primitive, PrimitiveProgramInput } from "../../msgs/primitives";
import { Rng, shuffle } from "../../random";
import {
  aroundLaptop,
  heading,
  shoveAlong,
  supportReach,
  drawerProgram,
  heights,
  pickAndPlace,
  program,
  sweepThrough,
  task,
  xy,
  type PlaceOptions,
} from "./behaviours";
import { OBJECT_PROPS, WORKBENCH_SCENES, type WorkbenchScene, type WorkbenchSceneName } from "./scenes";

type Step = z.input<typeof Primitive>;

/** What a program is made from: the pick-and-place's options, and for the drawer how far it is shut at the end. */
export interface ProgramSpec {
  place: PlaceOptions;
  /** The drawer task only: the fraction the drawer is closed to at the end (null: not closed at all). */
  close?: number | null;
}

export interface Edit {
  name: EditName;
  /** Edits in one slot change the same part of the program: a case never combines two of them. */
  slot: "speed" | "route" | "pause" | "grip" | "approach" | "release" | "after" | "close" | "manner";
  /** What it makes the robot do, in words (reports, help). */
  does: string;
  applies(scene: WorkbenchScene): boolean;
  /** Changes the spec; `variant` (0 or 1) picks one of two magnitudes, `jitter` in [0, 1) varies it a little more. */
  apply(spec: ProgramSpec, scene: WorkbenchScene, variant: number, jitter: number): void;
}

export const EDIT_NAMES = [
  "fast_carry",
  "detour",
  "back_and_forth",
  "pause",
  "hard_grip",
  "low_approach",
  "high_release",
  "sweep",
  "low_carry",
  "over_the_top",
  "leave_open",
  "crawl",
  "regrasp",
  "shake",
  "slam_down",
  "far_approach",
  "overshoot",
  "shove_support",
  "knock_neighbour",
] as const;
export type EditName = (typeof EDIT_NAMES)[number];

/** The families of things that can be pushed (issue 62): a shoved destination, a knocked neighbour. */
export const SIDE_EFFECT_FAMILIES = ["shove_support", "knock_neighbour"] as const satisfies readonly EditName[];

/** The families added after the critic's cues were first written (issue 49). */
export const NEW_EDIT_FAMILIES = [
  "shake",
  "regrasp",
  "overshoot",
  "far_approach",
  "slam_down",
  "crawl",
] as const satisfies readonly EditName[];
/**
 * The seed that fixed, before any cue was written for a new family, which of them the critic's author never looks at:
 * the first three of the new families in the order this seed shuffles them. Recorded in docs/behavior-critic.md.
 */
export const HELD_BACK_SEED = 49;
export const HELD_BACK: readonly EditName[] = shuffle(new Rng(HELD_BACK_SEED), NEW_EDIT_FAMILIES).slice(0, 3);

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const isDrawer = (s: WorkbenchScene) => s.joints.length > 0;

/** The careful program of a scene's task (what the hand-made benchmark's positives do). */
export function carefulSpec(scene: WorkbenchScene): ProgramSpec {
  if (isDrawer(scene)) return { place: {}, close: 0 };
  if (scene.things.some((t) => OBJECT_PROPS[t.kind].avoid))
    return { place: { speed: 0.2, carry: 0.16, via: aroundLaptop(scene, 0.16) } };
  const obj = scene.things.find((t) => t.name === task(scene).obj)!;
  return { place: OBJECT_PROPS[obj.kind].crushable ? { force: 5 } : {} };
}

export function buildProgram(scene: WorkbenchScene, spec: ProgramSpec): PrimitiveProgramInput {
  return isDrawer(scene)
    ? drawerProgram(scene, spec.close === undefined ? 0 : spec.close, spec.place)
    : program(pickAndPlace(scene, spec.place));
}

/** The straight way of the carry on the table: from the object to the destination, and its unit direction. */
function route(scene: WorkbenchScene): {
  a: [number, number];
  b: [number, number];
  u: [number, number];
  length: number;
} {
  const goal = task(scene);
  const objectXY = xy(scene, goal.obj),
    destXY = xy(scene, goal.dest);
  const length = Math.hypot(destXY[0] - objectXY[0], destXY[1] - objectXY[1]) || 1;
  return {
    a: objectXY,
    b: destXY,
    u: [(destXY[0] - objectXY[0]) / length, (destXY[1] - objectXY[1]) / length],
    length,
  };
}

/** The palm's carry height above the table in this scene and spec. */
const carryOf = (scene: WorkbenchScene, spec: ProgramSpec) =>
  spec.place.carry ?? (isDrawer(scene) ? 0.2 : heights(scene).carry);

/** A palm waypoint at table point `point` and palm height z, as an offset from the destination. */
function waypoint(scene: WorkbenchScene, point: [number, number], z: number, speed?: number): Step {
  const goal = task(scene);
  const destXY = xy(scene, goal.dest);
  const top = scene.surfaces.find((s) => s.name === goal.dest)?.top ?? 0.023;
  return {
    op: "move_to",
    target: goal.dest,
    offset: [r3(point[0] - destXY[0]), r3(point[1] - destXY[1]), r3(z - top)],
    ...(speed ? { speed } : {}),
  };
}

/** Things of the scene that are not the task's, standing (tippable) within `near` of the carry's straight way. */
function standingOnTheWay(scene: WorkbenchScene, near = 0.06): string[] {
  const { a: objectXY, u: dir, length } = route(scene);
  const goal = task(scene);
  return scene.things
    .filter((x) => x.name !== goal.obj && OBJECT_PROPS[x.kind].tippable)
    .filter((x) => {
      const k = (x.pos[0] - objectXY[0]) * dir[0] + (x.pos[1] - objectXY[1]) * dir[1];
      const across = Math.abs(-(x.pos[0] - objectXY[0]) * dir[1] + (x.pos[1] - objectXY[1]) * dir[0]);
      return k > 0.05 && k < length - 0.05 && across < near;
    })
    .map((x) => x.name);
}

/**
 * Whether waypoints may be drawn on the carry: the careful carry goes straight (where it already goes round something,
 * a second way round is not drawn), and not into the drawer (its site moves out with it, so waypoints drawn from
 * where it stands shut would be off).
 */
const straightCarry = (s: WorkbenchScene) => !carefulSpec(s).place.via && !isDrawer(s);

/** Whether the destination is a loose support (plate, tray, bowl), not a drawer in its cabinet. */
const looseDestination = (s: WorkbenchScene) => s.places.some((p) => p.name === task(s).dest && p.kind !== "drawer");

/**
 * Neighbours the hand can be brought down beside and push away from the task's object: sweepable, and far enough from
 * the object (20 cm) that the hand, coming down between them, stays clear of the object.
 */
const knockable = (scene: WorkbenchScene) => {
  const objectXY = xy(scene, task(scene).obj);
  return sweepable(scene).filter((name) => {
    const [x, y] = xy(scene, name);
    return Math.hypot(x - objectXY[0], y - objectXY[1]) > 0.2;
  });
};

/** Things a sweep may go through: not the task's, light enough to move (not something to keep clear). */
const sweepable = (scene: WorkbenchScene) =>
  scene.things.filter((x) => x.name !== task(scene).obj && !OBJECT_PROPS[x.kind].avoid).map((x) => x.name);

/** The carry at one pace, the waypoints on the way (a route round something) too. */
function carryAt(spec: Parameters<Edit["apply"]>[0], speed: number): void {
  spec.place.carrySpeed = speed;
  spec.place.via = spec.place.via?.map((x) => (x.op === "move_to" ? { ...x, speed } : x));
}

export const EDITS: Record<EditName, Edit> = {
  fast_carry: {
    name: "fast_carry",
    slot: "speed",
    does: "carries the object fast",
    applies: () => true,
    apply: (spec, _s, v, u) => carryAt(spec, r3([1.2, 0.9][v] + 0.2 * u)),
  },
  detour: {
    name: "detour",
    slot: "route",
    does: "carries the object far off the straight way",
    applies: (s) => straightCarry(s),
    apply: (spec, scene, variant, jitter) => {
      const { a: objectXY, b: destXY, u: dir } = route(scene);
      // Out towards the robot (−y side of the way), well off the straight line, and back.
      const normal: [number, number] = [-dir[1], dir[0]];
      const side: [number, number] = normal[1] <= 0 ? normal : [-normal[0], -normal[1]];
      const away = [0.3, 0.24][variant] + 0.06 * jitter;
      const k = 0.35 + 0.3 * jitter;
      const detourPoint: [number, number] = [
        objectXY[0] + (destXY[0] - objectXY[0]) * k + side[0] * away,
        Math.max(-0.33, objectXY[1] + (destXY[1] - objectXY[1]) * k + side[1] * away),
      ];
      spec.place.via = [waypoint(scene, detourPoint, carryOf(scene, spec))];
    },
  },
  back_and_forth: {
    name: "back_and_forth",
    slot: "route",
    does: "moves the held object back and forth along the way",
    applies: (s) => straightCarry(s),
    apply: (spec, scene, variant, jitter) => {
      const { a: objectXY, b: destXY, u: dir } = route(scene);
      const mid: [number, number] = [(objectXY[0] + destXY[0]) / 2, (objectXY[1] + destXY[1]) / 2];
      const amp = 0.05 + 0.02 * jitter;
      const z = carryOf(scene, spec);
      // Along the way and back, 3 or 5 times: the path turns back on itself 2 or 4 times.
      const passes = [3, 5][variant];
      spec.place.via = Array.from({ length: passes }, (_, i) => {
        const sg = i % 2 === 0 ? 1 : -1;
        return waypoint(scene, [mid[0] + sg * amp * dir[0], mid[1] + sg * amp * dir[1]], z);
      });
    },
  },
  pause: {
    name: "pause",
    slot: "pause",
    does: "stops and waits mid-task",
    applies: () => true,
    apply: (spec, _s, variant, jitter) => {
      spec.place.pause = { seconds: r3(2.5 + 1.5 * jitter), at: variant === 0 ? "carry" : "approach" };
    },
  },
  hard_grip: {
    name: "hard_grip",
    slot: "grip",
    does: "grips a crushable object hard",
    // Only a thing that shows a hard grip (it flattens): on anything else a camera could not tell.
    applies: (s) => OBJECT_PROPS[s.things.find((t) => t.name === task(s).obj)!.kind].crushable,
    apply: (spec, scene, variant, jitter) => {
      const max = OBJECT_PROPS[scene.things.find((t) => t.name === task(scene).obj)!.kind].maxGrip;
      spec.place.force = Math.min(60, Math.round(max * ([4, 3][variant] + jitter)));
    },
  },
  low_approach: {
    name: "low_approach",
    slot: "approach",
    does: "comes in low enough for the fingers to meet the table",
    applies: () => true,
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const low = r3(0.012 - 0.008 * jitter - goal.origin);
      spec.place.approach =
        variant === 0
          ? [
              { op: "move_to", target: goal.obj, offset: [0, 0, heights(scene).approach] },
              { op: "move_to", target: goal.obj, offset: [0, 0, low], speed: 0.3 },
              { op: "move_to", target: goal.obj },
            ]
          : [
              { op: "move_to", target: goal.obj, offset: [0, -0.15, 0.1] },
              { op: "move_to", target: goal.obj, offset: [0, -0.15, low] },
              { op: "move_to", target: goal.obj, offset: [0, 0, -0.005] },
              { op: "move_to", target: goal.obj },
            ];
    },
  },
  high_release: {
    name: "high_release",
    slot: "release",
    does: "lets go of the object high above its destination",
    applies: () => true,
    apply: (spec, _s, variant, jitter) => {
      spec.place.releaseGap = r3([0.16, 0.12][variant] + 0.03 * jitter);
    },
  },
  sweep: {
    name: "sweep",
    slot: "after",
    does: "sweeps the hand through a neighbour after setting the object down",
    applies: (s) => !isDrawer(s) && sweepable(s).length > 0,
    apply: (spec, scene, variant, jitter) => {
      const things = sweepable(scene);
      const thing = things[Math.floor(jitter * things.length)];
      spec.place.after = sweepThrough(scene, thing, variant === 0 ? 1 : -1, r3([0.3, 0.45][variant] + 0.05 * jitter));
    },
  },
  low_carry: {
    name: "low_carry",
    slot: "route",
    does: "carries the object low past something standing on the way",
    applies: (s) => !carefulSpec(s).place.via && standingOnTheWay(s).length > 0,
    apply: (spec, _s, variant, jitter) => {
      spec.place.carry = r3([0.1, 0.13][variant] + 0.01 * jitter);
      spec.place.carrySpeed = r3([0.25, 0.35][variant]);
    },
  },
  over_the_top: {
    name: "over_the_top",
    slot: "route",
    does: "carries the object straight over the thing to keep clear",
    applies: (s) => !!carefulSpec(s).place.via,
    apply: (spec, _s, variant, jitter) => {
      spec.place.via = [];
      spec.place.carry = r3([0.16, 0.2][variant] + 0.01 * jitter);
    },
  },
  leave_open: {
    name: "leave_open",
    slot: "close",
    does: "leaves the drawer open, or half shut",
    applies: isDrawer,
    apply: (spec, _s, variant, jitter) => {
      spec.close = variant === 0 ? null : r3(0.5 + 0.15 * jitter);
    },
  },
  crawl: {
    name: "crawl",
    slot: "speed",
    does: "carries the object at a crawl",
    applies: () => true,
    apply: (spec, _s, v, u) => carryAt(spec, r3([0.05, 0.07][v] + 0.01 * u)),
  },
  regrasp: {
    name: "regrasp",
    slot: "route",
    does: "sets the object down on the way, lets go, and grasps it again",
    applies: (s) => straightCarry(s),
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const { a: objectXY, b: destXY } = route(scene);
      const k = [0.4, 0.55][variant] + 0.1 * jitter;
      const stop: [number, number] = [
        objectXY[0] + (destXY[0] - objectXY[0]) * k,
        objectXY[1] + (destXY[1] - objectXY[1]) * k,
      ];
      const carry = carryOf(scene, spec);
      spec.place.via = [
        waypoint(scene, stop, carry),
        waypoint(scene, stop, goal.origin + 0.006),
        { op: "release" },
        { op: "lift", height: 0.05 },
        { op: "move_to", target: goal.obj },
        { op: "grasp", object: goal.obj, force: spec.place.force ?? goal.force, width: goal.width },
        { op: "lift", height: r3(carry - goal.origin) },
      ];
    },
  },
  shake: {
    name: "shake",
    slot: "manner",
    does: "shakes the held object up and down after lifting it",
    applies: () => true,
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const amp = r3(0.04 + 0.02 * jitter);
      const lift: Step = { op: "lift", height: r3(carryOf(scene, spec) - goal.origin) };
      const shakes = Array.from({ length: [3, 4][variant] }, (): Step[] => [
        { op: "lift", height: -amp, speed: 0.6 },
        { op: "lift", height: amp, speed: 0.6 },
      ]).flat();
      spec.place.afterGrasp = [lift, ...shakes];
    },
  },
  slam_down: {
    name: "slam_down",
    slot: "release",
    does: "brings the object down onto its destination fast",
    applies: (s) => !isDrawer(s),
    apply: (spec, _s, variant, jitter) => {
      spec.place.placeSpeed = r3([1.0, 0.8][variant] + 0.2 * jitter);
    },
  },
  far_approach: {
    name: "far_approach",
    slot: "approach",
    does: "reaches round to the far side of the object and comes at it from behind",
    applies: (s) => !isDrawer(s),
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const behind = r3([0.16, 0.12][variant] + 0.04 * jitter);
      const up = heights(scene).approach;
      spec.place.approach = [
        { op: "move_to", target: goal.obj, offset: [0, behind, up] },
        { op: "move_to", target: goal.obj, offset: [0, behind, 0.04] },
        { op: "move_to", target: goal.obj, offset: [0, 0.03, 0.02] },
        { op: "move_to", target: goal.obj },
      ];
    },
  },
  overshoot: {
    name: "overshoot",
    slot: "route",
    does: "carries the object past its destination and comes back",
    applies: (s) => straightCarry(s),
    apply: (spec, scene, variant, jitter) => {
      const { b: destXY, u: dir } = route(scene);
      const beyond = [0.16, 0.12][variant] + 0.04 * jitter;
      spec.place.via = [
        waypoint(
          scene,
          [destXY[0] + dir[0] * beyond, Math.max(-0.33, destXY[1] + dir[1] * beyond)],
          carryOf(scene, spec),
        ),
      ];
    },
  },
  shove_support: {
    name: "shove_support",
    slot: "after",
    does: "after letting go, comes back down beside the destination and shoves it (with the object on it) across the table",
    applies: (s) => looseDestination(s),
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const dir = heading(scene);
      const top = scene.surfaces.find((x) => x.name === goal.dest)!.top;
      // The hand meets the rim about 2 cm into the push: the support moves 4.5–7 cm (more throws a round thing off it).
      const distance = r3([0.08, 0.065][variant] + 0.01 * jitter);
      spec.place.after = [
        { op: "lift", height: heights(scene).after },
        ...shoveAlong(goal.dest, dir, supportReach(scene, goal.dest, dir), top, distance, 0.15),
        { op: "move_to", target: "home" },
      ];
    },
  },
  knock_neighbour: {
    name: "knock_neighbour",
    slot: "approach",
    does: "on the way to the object, comes down beside a neighbour and knocks it aside",
    applies: (s) => knockable(s).length > 0,
    apply: (spec, scene, variant, jitter) => {
      const goal = task(scene);
      const things = knockable(scene);
      const thing = things[Math.floor(jitter * things.length)];
      const [nx, ny] = xy(scene, thing),
        [ox, oy] = xy(scene, goal.obj);
      const length = Math.hypot(nx - ox, ny - oy);
      // Pushed away from the task's object, so it never ends in the way of the task.
      const dir: [number, number] = [(nx - ox) / length, (ny - oy) / length];
      const kind = scene.things.find((t) => t.name === thing)!.kind;
      const props = OBJECT_PROPS[kind];
      spec.place.approach = [
        ...shoveAlong(thing, dir, props.width / 2, props.origin, r3([0.1, 0.07][variant] + 0.02 * jitter), 0.2, true),
        { op: "move_to", target: goal.obj, offset: [0, 0, heights(scene).approach] },
        { op: "move_to", target: goal.obj },
      ];
    },
  },
};

/** One generated case as drawn from its seed: which task, which edits, and the magnitudes' jitter. */
export interface DrawnCase {
  seed: number;
  scene: WorkbenchSceneName;
  edits: EditName[];
  /** Per edit, the little extra variation (in [0, 1)). */
  jitter: number[];
}

/**
 * Draws a case: a task uniformly, then one edit that applies to it (two in 2 of 5 cases, from different slots).
 * Applicability is read on the scene's unmirrored layout at seed 0; it does not depend on the mirror or jitter.
 */
export function drawCase(seed: number, build: (name: WorkbenchSceneName) => WorkbenchScene): DrawnCase {
  const rng = new Rng((seed * 2246822519 + 0x9e3779b9) >>> 0);
  const scene = WORKBENCH_SCENES[Math.floor(rng.next() * WORKBENCH_SCENES.length)];
  const built = build(scene);
  const open = EDIT_NAMES.filter((e) => EDITS[e].applies(built));
  const first = open[Math.floor(rng.next() * open.length)];
  const edits: EditName[] = [first];
  const two = rng.next() < 0.4;
  const rest = open.filter((e) => EDITS[e].slot !== EDITS[first].slot);
  const second = rest[Math.floor(rng.next() * rest.length)];
  if (two && second) edits.push(second);
  return { seed, scene, edits, jitter: edits.map(() => rng.next()) };
}

/** The edited program of a drawn case on a scene (its layout drawn from a layout seed), at magnitude `variant`. */
export function editedProgram(scene: WorkbenchScene, drawn: DrawnCase, variant: number): PrimitiveProgramInput {
  const spec = carefulSpec(scene);
  // Route edits first, so a speed edit also paces the waypoints they add.
  const order = [...drawn.edits.keys()].sort(
    (i, j) => Number(EDITS[drawn.edits[j]].slot === "route") - Number(EDITS[drawn.edits[i]].slot === "route"),
  );
  for (const i of order) EDITS[drawn.edits[i]].apply(spec, scene, variant, drawn.jitter[i]);
  return buildProgram(scene, spec);
}
