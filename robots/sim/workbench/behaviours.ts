/**
 * Behaviour programs of the hand-made critic benchmark: for each of the nine behaviours it was built from a
 * task on the workbench, a careful positive program (lifts first, moderate speed, gentle grip, sets things down low,
 * routes around, closes what it opened) and negative programs that still reach the goal but behave badly in exactly
 * one way. Programs are written from the scene's layout the way a person scripting the robot would — offsets from named
 * things — so they follow the seeded layout; `variant` and the case index vary the bad parameter between negatives.
 */
import type { z } from "zod";
import type { Primitive, PrimitiveProgramInput } from "../../msgs/primitives";
import type { Undesirable } from "../../msgs/rollout";
import { FINGER, OBJECT_PROPS, type WorkbenchScene, type WorkbenchSceneName } from "./scenes";

type Step = z.input<typeof Primitive>;
type V3 = [number, number, number];

/** The nine behaviours the hand-made benchmark was built from (the generated set, ./edits.ts, reaches the rest). */
export const HAND_MADE_BEHAVIOURS = [
  "knocked_over",
  "pushed",
  "dragged",
  "dropped",
  "spilled",
  "squeezed",
  "passed_over",
  "left_open",
  "struck_table",
] as const satisfies readonly Undesirable[];
export type HandMadeBehaviour = (typeof HAND_MADE_BEHAVIOURS)[number];

export interface BehaviourSpec {
  behaviour: HandMadeBehaviour;
  /** Scenes its cases cycle through. */
  scenes: WorkbenchSceneName[];
  /** The thing the event happens to in this scene (the annotation's `object`). */
  object(scene: WorkbenchScene): string;
  positive(scene: WorkbenchScene, k: number): PrimitiveProgramInput;
  /** A negative program; `variant` 0 or 1 picks how badly, `k` (the case) varies it a little more. */
  negative(scene: WorkbenchScene, variant: number, k: number): PrimitiveProgramInput;
  /** What the negative does wrong, in words (reports). */
  how: string;
  /** Other behaviours the negative cannot help showing (whipping a cup around is also rushing it). */
  entails?: Undesirable[];
  /** What else the negative program does, as an edit family (the benchmark's truth is the behaviour and these). */
  alsoDoes?: string[];
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const off = (x: number, y: number, z: number): V3 => [r3(x), r3(y), r3(z)];

/** The task's object and destination in a scene, with what placing needs to know. */
export function task(scene: WorkbenchScene): {
  obj: string;
  dest: string;
  origin: number;
  width: number;
  top: number;
  force: number;
} {
  const obj = scene.focus[0];
  const kind = scene.things.find((t) => t.name === obj)!.kind;
  const props = OBJECT_PROPS[kind];
  const dest = scene.places[0].name;
  const surface = scene.surfaces.find((s) => s.name === dest);
  // The drawer's floor: its site is on the drawer's floor board.
  const top = surface ? surface.top : 0.023;
  return {
    obj,
    dest,
    origin: props.origin,
    width: r3(Math.min(props.width - 0.005, FINGER.open)),
    top,
    force: Math.min(12, Math.max(3, props.maxGrip / 2)),
  };
}

export const xy = (scene: WorkbenchScene, name: string): [number, number] => {
  const thing = scene.things.find((x) => x.name === name);
  if (thing) return [thing.pos[0], thing.pos[1]];
  return scene.places.find((p) => p.name === name)!.pos;
};

/**
 * How high a careful program travels in each scene: the carry height of the palm, the approach height above the
 * object, and the lift after letting go — over the bottle that stands between the lemon and the bowl, else over nothing.
 */
export function heights(scene: WorkbenchScene): { carry: number; approach: number; after: number } {
  return scene.name === "lemon_bowl"
    ? { carry: 0.3, approach: 0.22, after: 0.22 }
    : { carry: 0.2, approach: 0.12, after: 0.12 };
}

export interface PlaceOptions {
  speed?: number;
  force?: number;
  /** Palm height above the table while carrying. */
  carry?: number;
  /** Gap under the object when it is let go. */
  releaseGap?: number;
  /** Replaces the straight approach to the object (steps that end at its grasp point). */
  approach?: Step[];
  /** Steps after the grasp, instead of lifting straight up to the carry height. */
  afterGrasp?: Step[];
  /** Waypoints on the way to the destination (palm positions as offsets from named things). */
  via?: Step[];
  /** Speed of the carry (default: `speed`). */
  carrySpeed?: number;
  /** Speed of the last move down onto the destination (default: `speed`). */
  placeSpeed?: number;
  /** Steps after letting go, instead of lifting and going home. */
  after?: Step[];
  /** A wait of this many seconds above the object before going down to it, or right after lifting it. */
  pause?: { seconds: number; at: "approach" | "carry" };
}

/** Pick the task's object and set it on (in) the destination. */
export function pickAndPlace(scene: WorkbenchScene, opts: PlaceOptions = {}): Step[] {
  const goal = task(scene);
  const levels = heights(scene);
  const carry = opts.carry ?? levels.carry;
  const gap = opts.releaseGap ?? 0.006;
  const wait = (at: "approach" | "carry"): Step[] =>
    opts.pause?.at === at ? [{ op: "pause", seconds: opts.pause.seconds }] : [];
  const approach: Step[] = opts.approach ?? [
    { op: "move_to" as const, target: goal.obj, offset: off(0, 0, levels.approach) },
    { op: "move_to" as const, target: goal.obj },
  ];
  return [
    { op: "speed", value: opts.speed ?? 0.25 },
    ...approach.slice(0, -1),
    ...wait("approach"),
    ...approach.slice(-1),
    { op: "grasp", object: goal.obj, force: opts.force ?? goal.force, width: goal.width },
    ...(opts.afterGrasp ?? [{ op: "lift" as const, height: r3(carry - goal.origin) }]),
    ...wait("carry"),
    ...(opts.via ?? []),
    {
      op: "move_to",
      target: goal.dest,
      offset: off(0, 0, carry - goal.top),
      ...(opts.carrySpeed ? { speed: opts.carrySpeed } : {}),
    },
    {
      op: "move_to",
      target: goal.dest,
      offset: off(0, 0, goal.origin + gap),
      ...(opts.placeSpeed ? { speed: opts.placeSpeed } : {}),
    },
    { op: "release" },
    ...(opts.after ?? [
      { op: "lift" as const, height: levels.after },
      { op: "move_to" as const, target: "home" },
    ]),
  ];
}

export const program = (steps: Step[]): PrimitiveProgramInput => ({ steps });

/** How far a place reaches from its centre along the table (its rim included). */
export function reach(scene: WorkbenchScene, place: string): number {
  const sf = scene.surfaces.find((x) => x.name === place);
  return sf ? Math.max(...sf.half) + 0.02 : 0.15;
}

/** Unit vector on the table from the object to the destination. */
export function heading(scene: WorkbenchScene): [number, number] {
  const goal = task(scene);
  const objectXY = xy(scene, goal.obj),
    destXY = xy(scene, goal.dest);
  const length = Math.hypot(destXY[0] - objectXY[0], destXY[1] - objectXY[1]) || 1;
  return [(destXY[0] - objectXY[0]) / length, (destXY[1] - objectXY[1]) / length];
}

/** The drawer task: open, put the apple in, and (unless told otherwise) shut it to `closeTo`. */
export function drawerProgram(
  scene: WorkbenchScene,
  closeTo: number | null,
  opts: PlaceOptions = {},
): PrimitiveProgramInput {
  const speed = opts.speed ?? 0.25;
  const handle = scene.joints[0].handle,
    joint = scene.joints[0].name;
  // Approached from high in front, so the fingers clear the drawer's front panel whether it is in or out.
  const toHandle: Step[] = [
    { op: "move_to", target: handle, offset: off(0, -0.1, 0.1) },
    { op: "move_to", target: handle },
    { op: "grasp", object: handle, force: 15, width: 0.02 },
  ];
  const steps: Step[] = [
    { op: "speed", value: speed },
    ...toHandle,
    { op: "set_joint", joint, fraction: 1 },
    { op: "release" },
    { op: "move_to", target: handle, offset: off(0, -0.06, 0.15) },
    ...pickAndPlace(scene, { carry: 0.2, after: [{ op: "lift", height: 0.15 }], ...opts, speed }).slice(1),
  ];
  if (closeTo !== null)
    steps.push(
      ...toHandle,
      { op: "set_joint", joint, fraction: closeTo },
      { op: "release" },
      { op: "move_to", target: handle, offset: off(0, -0.08, 0.15) },
    );
  steps.push({ op: "move_to", target: "home" });
  return program(steps);
}

/** The cup task's route in front of the laptop (palm positions, offsets from the laptop). */
export function aroundLaptop(scene: WorkbenchScene, carry: number, speed?: number): Step[] {
  const [lx] = xy(scene, "laptop");
  const [cx] = xy(scene, "cup");
  const side = Math.sign(cx - lx) || -1; // the side the cup starts on
  const z = carry - 0.01;
  return [
    { op: "move_to", target: "laptop", offset: off(side * 0.17, -0.21, z), ...(speed ? { speed } : {}) },
    { op: "move_to", target: "laptop", offset: off(-side * 0.17, -0.21, z), ...(speed ? { speed } : {}) },
  ];
}

/** A finger swept along +y through `thing` at table height (after setting the task's object down). */
export function sweepThrough(scene: WorkbenchScene, thing: string, side: number, speed: number): Step[] {
  const kind = scene.things.find((t) => t.name === thing)!.kind;
  const z = 0.036 - OBJECT_PROPS[kind].origin;
  // Palm offset so that one finger (FINGER.open / 2 + FINGER.half to the side) meets the thing's centre line.
  const dx = side * (FINGER.open / 2 + FINGER.half - 0.004);
  return [
    { op: "lift", height: 0.1 },
    { op: "move_to", target: thing, offset: off(dx, -0.1, 0.1) },
    { op: "move_to", target: thing, offset: off(dx, -0.1, z) },
    { op: "move_to", target: thing, offset: off(dx, 0.13, z), speed },
    { op: "lift", height: 0.15 },
    { op: "move_to", target: "home" },
  ];
}

/** How far the hand's leading edge (a finger's outer face, or the palm's side) reaches from its centre along `dir`. */
export const handReach = (dir: [number, number]) =>
  (FINGER.open / 2 + 2 * FINGER.half) * Math.abs(dir[0]) + 0.012 * Math.abs(dir[1]);

/** How far a support reaches from its centre along `dir` (a round one: its radius; a tray: its box, rims included). */
export function supportReach(scene: WorkbenchScene, place: string, dir: [number, number]): number {
  const kind = scene.places.find((p) => p.name === place)!.kind;
  if (kind === "tray") return 0.13 * Math.abs(dir[0]) + 0.095 * Math.abs(dir[1]);
  return kind === "bowl" ? 0.094 : 0.085;
}

/**
 * The hand brought down beside `target` (a thing, or a support's centre site) on the side away from `dir`, fingertips
 * just under a centimetre above the table, and pushed `distance` along `dir` at `speed`: what shoves a loose thing across
 * the table. `reachOf` is how far the target reaches from its named point along `dir`; `pointZ` its named point's
 * height. A thing narrower than the fingers' gap would pass between them: `oneFinger` lines one finger up with it.
 */
export function shoveAlong(
  target: string,
  dir: [number, number],
  reachOf: number,
  pointZ: number,
  distance: number,
  speed: number,
  oneFinger = false,
): Step[] {
  const fingerX = FINGER.open / 2 + FINGER.half;
  // The leading finger's side, and the palm's shift across the way (along its normal) that puts that finger on it.
  const sign = dir[0] < 0 ? -1 : 1;
  const across = oneFinger ? sign * fingerX * dir[1] : 0;
  const lead = oneFinger ? fingerX * Math.abs(dir[0]) + FINGER.half : handReach(dir);
  const back = reachOf + lead + 0.02;
  const normal: [number, number] = [-dir[1], dir[0]];
  const at = (along: number): [number, number] => [
    dir[0] * along + normal[0] * across,
    dir[1] * along + normal[1] * across,
  ];
  // The palm's grasp point with the fingertips 9 mm above the table: below a plate's 12 mm edge, clear of the table.
  const low = FINGER.tip + 0.009 - pointZ;
  const [sx, sy] = at(-back),
    [ex, ey] = at(distance - back);
  return [
    { op: "move_to", target, offset: off(sx, sy, 0.12) },
    { op: "move_to", target, offset: off(sx, sy, low) },
    { op: "move_to", target, offset: off(ex, ey, low), speed },
    { op: "lift", height: 0.1 },
  ];
}

const neighbour = (scene: WorkbenchScene) =>
  scene.things.some((t) => t.name === "cube") ? "cube" : scene.things.find((t) => !scene.focus.includes(t.name))!.name;

export const BEHAVIOURS: Record<HandMadeBehaviour, BehaviourSpec> = {
  dropped: {
    behaviour: "dropped",
    scenes: ["apple_plate", "lemon_bowl", "bread_tray"],
    how: "lets go of the object well above its destination",
    object: (s) => task(s).obj,
    positive: (s) => program(pickAndPlace(s)),
    negative: (s, v, k) => program(pickAndPlace(s, { releaseGap: [0.15, 0.11][v] + 0.01 * (k % 3) })),
  },
  dragged: {
    behaviour: "dragged",
    scenes: ["apple_plate", "bread_tray"],
    how: "slides the object along the table instead of lifting it",
    object: (s) => task(s).obj,
    positive: (s) => program(pickAndPlace(s)),
    negative: (scene, variant, k) => {
      const goal = task(scene);
      const [hx, hy] = heading(scene);
      // Stops short of the destination's edge (and its rim), then lifts it on.
      const stop = reach(scene, goal.dest) + [0.08, 0.06][variant] + 0.01 * (k % 2);
      // Carried at the height it rests at (a hair lower, as a sagging arm would), up to just short of the destination.
      const drag: Step[] = [
        {
          op: "move_to",
          target: goal.dest,
          offset: off(-hx * stop, -hy * stop, goal.origin - goal.top - 0.003),
          speed: [0.2, 0.3][variant],
        },
      ];
      return program(pickAndPlace(scene, { afterGrasp: [...drag, { op: "lift", height: r3(0.2 - goal.origin) }] }));
    },
  },
  struck_table: {
    behaviour: "struck_table",
    scenes: ["apple_plate", "lemon_bowl", "bread_tray"],
    how: "approaches the object too low, so the fingers hit the table",
    object: () => "table",
    positive: (s) => program(pickAndPlace(s)),
    negative: (scene, variant, k) => {
      const goal = task(scene);
      // The palm aimed 1.0–1.8 cm above the table: its fingertips, 2.2 cm lower, meet the table on the way.
      const low = 0.01 - 0.004 * (k % 3) - goal.origin;
      const approach: Step[] =
        variant === 0
          ? [
              { op: "move_to", target: goal.obj, offset: off(0, 0, heights(scene).approach) },
              // Comes straight down on the object, too far.
              { op: "move_to", target: goal.obj, offset: off(0, 0, low), speed: 0.3 },
              { op: "move_to", target: goal.obj },
            ]
          : [
              { op: "move_to", target: goal.obj, offset: off(0, -0.15, 0.1) },
              // Swoops in low from the front, fingertips along the table.
              { op: "move_to", target: goal.obj, offset: off(0, -0.15, low) },
              { op: "move_to", target: goal.obj, offset: off(0, 0, -0.005) },
              { op: "move_to", target: goal.obj },
            ];
      return program(pickAndPlace(scene, { approach }));
    },
  },
  pushed: {
    behaviour: "pushed",
    scenes: ["apple_plate", "lemon_bowl"],
    how: "sweeps the hand low through a neighbouring thing after setting the object down",
    object: (s) => neighbour(s),
    positive: (s) => program(pickAndPlace(s)),
    negative: (scene, variant, k) =>
      program(
        pickAndPlace(scene, {
          after: sweepThrough(scene, neighbour(scene), variant === 0 ? 1 : -1, [0.3, 0.45][variant] + 0.05 * (k % 2)),
        }),
      ),
  },
  knocked_over: {
    behaviour: "knocked_over",
    scenes: ["lemon_bowl"],
    how: "carries the object low, straight through the bottle standing in the way",
    object: () => "bottle",
    positive: (s) => program(pickAndPlace(s)),
    negative: (scene, variant, k) =>
      program(pickAndPlace(scene, { carry: [0.1, 0.13][variant] + 0.01 * (k % 2), carrySpeed: [0.25, 0.35][variant] })),
  },
  squeezed: {
    behaviour: "squeezed",
    scenes: ["bread_tray"],
    how: "grips the bread far harder than it takes",
    object: () => "bread",
    positive: (s) => program(pickAndPlace(s, { force: 5 })),
    negative: (s, v, k) => program(pickAndPlace(s, { force: [40, 28][v] + 2 * (k % 3) })),
  },
  spilled: {
    behaviour: "spilled",
    scenes: ["cup_tray"],
    how: "whips the open cup of beads around the laptop at full speed",
    entails: ["rushed"],
    alsoDoes: ["fast_carry"],
    object: () => "cup",
    positive: (s) => program(pickAndPlace(s, { speed: 0.2, carry: 0.16, via: aroundLaptop(s, 0.16) })),
    negative: (scene, variant, k) => {
      const fast = [1.4, 1.1][variant] + 0.05 * (k % 3);
      return program(
        pickAndPlace(scene, { speed: 0.2, carry: 0.16, via: aroundLaptop(scene, 0.16, fast), carrySpeed: fast }),
      );
    },
  },
  passed_over: {
    behaviour: "passed_over",
    scenes: ["cup_tray"],
    how: "carries the cup straight over the laptop",
    object: () => "laptop",
    positive: (s) => program(pickAndPlace(s, { speed: 0.2, carry: 0.16, via: aroundLaptop(s, 0.16) })),
    negative: (s, v, k) => program(pickAndPlace(s, { speed: 0.2, carry: [0.16, 0.2][v] + 0.01 * (k % 2) })),
  },
  left_open: {
    behaviour: "left_open",
    scenes: ["apple_drawer"],
    how: "opens the drawer to put the apple in and does not shut it",
    object: () => "drawer",
    positive: (s) => drawerProgram(s, 0),
    negative: (s, v) => drawerProgram(s, v === 0 ? null : 0.55),
  },
};
