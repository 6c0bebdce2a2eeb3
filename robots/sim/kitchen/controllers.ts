/**
 * The kitchen robots' skills as controllers: what each skill checks on the true state before it starts, and the
 * motion that carries it out, one control tick per `yield`. They act on the world only through `KitchenBody`.
 *
 * What a skill's answer may say is what the robot senses (DESIGN.md: nothing hidden reaches the agent). Every robot
 * knows its own commands: where it moved, whether it last closed or opened its fingers. A gripper with grasp sensing
 * (`senses_grasp` in its manifest: finger width or force) also feels whether something is between its fingers; as it
 * felt its grasp close on the thing it reached for, it knows which thing it holds, so its answers may name it. A
 * gripper without it feels nothing: its answers say what it did with its hand, never what is in it, and its motions
 * are the same whatever is there, so that neither the words, nor the feedback, nor the time a skill takes tell a
 * grasp on a thing from a grasp on nothing. Such a robot opens its closed hand before a skill that needs it open (it
 * cannot know whether that lets something go), as its pick and the arm's door handling do.
 */
import type { Vec3 } from "../camera";
import type { Motion, SimClock } from "../clock";
import type { SimEvent } from "../events";
import {
  ARM_BASE,
  ARM_REACH,
  ARM_REST,
  NAVIGATION_POINTS,
  navigationPoint,
  objectHalfHeight,
  objectSpec,
  place,
  type PlaceSpec,
} from "./layout";
import type { RobotId, Where } from "./types";

export const TICK = 0.02;
const BASE_SPEED = 0.6; // m/s
const TURN_SPEED = 1.6; // rad/s
const GRIPPER_SPEED = 0.5; // m/s
const DOOR_TIME = 1.2; // s

/**
 * What the controllers may read and drive of the kitchen world: the true state, the mobile base's pose, the grippers'
 * mocap bodies and the door actuators. The world hands them this view rather than itself, so a controller cannot
 * touch its bookkeeping (busy robots, skill count, cameras).
 */
export interface KitchenBody {
  readonly clock: SimClock;
  readonly graspSensing: boolean;
  /** The mobile base's pose; `goTo` moves it in place. */
  readonly mobile: { x: number; y: number; yaw: number };
  where(object: string): Where | undefined;
  setWhere(object: string, w: Where): void;
  heldBy(robot: RobotId): string | undefined;
  /** The robot closed (a pick) or opened (a release) its fingers: its own command, known to it with or without sensing. */
  setGripper(robot: RobotId, closed: boolean): void;
  /** Whether the robot last closed its fingers: its own command, which says nothing of what is between them. */
  handClosed(robot: RobotId): boolean;
  /** A thing let go of where no place catches it: it falls to the floor, out of the kitchen's places. */
  dropToFloor(object: string): void;
  mobileNavPoint(): string | undefined;
  freeSlot(p: PlaceSpec): number;
  slotWorld(p: PlaceSpec, slot: number, lift?: number): Vec3;
  isClosed(p: PlaceSpec): boolean;
  openFraction(p: PlaceSpec): number;
  /** The door or drawer joint's position. */
  jointPosition(p: PlaceSpec): number;
  /** Sets the door or drawer actuator's target. */
  setJoint(p: PlaceSpec, value: number): void;
  handlePosition(p: PlaceSpec): Vec3;
  setMocap(bodyName: string, pos: Vec3): void;
  mocapPos(bodyName: string): Vec3;
  mobileGripperRest(): Vec3;
  log(e: Omit<SimEvent, "t" | "step">): void;
}

export type Feedback = (phase: string, progress: number) => void;

/**
 * Why this skill cannot run now, or undefined. Checks the true state, as the physical robot would find it, and says
 * only what the robot can tell: what a gripper holds only when it senses its grasp.
 */
export function skillFailure(
  body: KitchenBody,
  robot: RobotId,
  skill: string,
  args: Record<string, string>,
): string | undefined {
  // The grasp sensor's word (a thing between the fingers; the robot knows which, from the sensed grasp that took it).
  // Without one the robot does not refuse for what its hand may hold: it opens the hand first (see the motions).
  const holding = body.graspSensing ? body.heldBy(robot) : undefined;
  const reach = (placeSpec: PlaceSpec): string | undefined => {
    if (robot === "arm") {
      const distance = Math.hypot(placeSpec.center[0] - ARM_BASE[0], placeSpec.center[1] - ARM_BASE[1]);
      return distance <= ARM_REACH
        ? undefined
        : `the ${placeSpec.name} is out of the arm's reach (${distance.toFixed(2)} m away, reach ${ARM_REACH} m)`;
    }
    const here = body.mobileNavPoint();
    const nav = NAVIGATION_POINTS.find((n) => n.serves === placeSpec.name);
    if (!nav) return `the mobile robot cannot get to the ${placeSpec.name}`;
    return here === nav.name
      ? undefined
      : `the mobile robot is ${here ? `at ${here}` : "between navigation points"}, not at ${nav.name}`;
  };
  switch (skill) {
    case "go_to":
      return robot === "mobile" ? undefined : "the arm cannot move its base";
    case "open":
    case "close": {
      const placeSpec = place(args.target);
      if (!placeSpec.openable) return `the ${placeSpec.name} cannot be opened or closed`;
      const refusal = reach(placeSpec);
      if (refusal) return refusal;
      if (robot === "arm" && holding)
        return `the arm needs its hand free to ${skill} the ${placeSpec.name} but holds the ${holding}`;
      if (skill === "open" && !body.isClosed(placeSpec)) return `the ${placeSpec.name} is already open`;
      if (skill === "close" && body.isClosed(placeSpec)) return `the ${placeSpec.name} is already closed`;
      return undefined;
    }
    case "pick_from": {
      const placeSpec = place(args.place);
      const refusal = reach(placeSpec);
      if (refusal) return refusal;
      if (holding) return `already holding the ${holding}; release it before picking another object`;
      if (body.isClosed(placeSpec)) return `cannot pick from the ${placeSpec.name}: it is closed`;
      const where = body.where(args.object);
      if (!where || !("place" in where) || where.place !== placeSpec) {
        // Without grasp sensing the robot goes through the motion and closes on nothing, none the wiser.
        return body.graspSensing
          ? `there is no ${args.object} ${placeSpec.kind === "container" ? "in" : "on"} the ${placeSpec.name}`
          : undefined;
      }
      return undefined;
    }
    case "release_to": {
      const placeSpec = place(args.place);
      if (holding !== args.object && body.graspSensing)
        return holding ? `holding the ${holding}, not the ${args.object}` : `not holding the ${args.object}`;
      const refusal = reach(placeSpec);
      if (refusal) return refusal;
      if (body.isClosed(placeSpec)) return `cannot put anything in the ${placeSpec.name}: it is closed`;
      if (body.freeSlot(placeSpec) < 0)
        return `the ${placeSpec.name} is full (${placeSpec.slots.length} of ${placeSpec.slots.length} places taken)`;
      return undefined;
    }
  }
  return `unknown skill ${skill}`;
}

/**
 * A finished skill in the robot's words. With grasp sensing a pick or release says what the sensor confirmed (the
 * thing is held; the hand let it go there); without it, only what the robot did with its hand — the same words
 * whether anything was in it.
 */
export function describeSuccess(
  robot: RobotId,
  skill: string,
  args: Record<string, string>,
  graspSensing = true,
): string {
  const rel = (p: string) => (place(p).kind === "container" ? "in" : "on");
  switch (skill) {
    case "go_to":
      return `${robot} is at ${args.navigation_point}`;
    case "open":
      return `the ${args.target} is open`;
    case "close":
      return `the ${args.target} is closed`;
    case "pick_from":
      return graspSensing
        ? `${robot} holds the ${args.object}`
        : `${robot} closed its hand at the ${args.place}; without grasp sensing it cannot tell whether anything is in it`;
    case "release_to":
      return graspSensing
        ? `the ${args.object} is ${rel(args.place)} the ${args.place}`
        : `${robot} opened its hand ${rel(args.place)} the ${args.place}; without grasp sensing it cannot tell whether anything was in it`;
  }
  return "done";
}

/** The motion that carries out a skill whose preconditions hold. */
export function skillMotion(
  body: KitchenBody,
  robot: RobotId,
  skill: string,
  args: Record<string, string>,
  feedback: Feedback,
): Motion {
  switch (skill) {
    case "go_to":
      return goTo(body, args.navigation_point, feedback);
    case "open":
      return operate(body, robot, place(args.target), true, feedback);
    case "close":
      return operate(body, robot, place(args.target), false, feedback);
    case "pick_from":
      return pick(body, robot, args.object, place(args.place), feedback);
    case "release_to":
      return release(body, robot, args.object, place(args.place), feedback);
  }
  throw new Error(`unknown skill ${skill}`);
}

function* goTo(body: KitchenBody, target: string, feedback: Feedback): Motion {
  const mobile = body.mobile;
  const nav = navigationPoint(target);
  const [tx, ty] = nav.position;
  const total = Math.hypot(tx - mobile.x, ty - mobile.y);
  // Turn towards the goal, drive, then turn to face the place.
  if (total > 0.01) yield* turnTo(body, Math.atan2(ty - mobile.y, tx - mobile.x));
  let last = -1;
  while (Math.hypot(tx - mobile.x, ty - mobile.y) > 1e-6) {
    const dx = tx - mobile.x,
      dy = ty - mobile.y;
    const distance = Math.hypot(dx, dy);
    const fraction = Math.min(1, (BASE_SPEED * TICK) / distance);
    mobile.x += dx * fraction;
    mobile.y += dy * fraction;
    body.setMocap("mobile_gripper", body.mobileGripperRest());
    const progress = total > 0 ? 1 - Math.hypot(tx - mobile.x, ty - mobile.y) / total : 1;
    if (Math.floor(progress * 4) !== last) {
      last = Math.floor(progress * 4);
      feedback("driving", progress);
    }
    yield;
  }
  yield* turnTo(body, nav.yaw);
  feedback("arrived", 1);
}

function* turnTo(body: KitchenBody, yaw: number): Motion {
  const mobile = body.mobile;
  while (Math.abs(angleDiff(yaw, mobile.yaw)) > 1e-6) {
    const diff = angleDiff(yaw, mobile.yaw);
    mobile.yaw += Math.sign(diff) * Math.min(Math.abs(diff), TURN_SPEED * TICK);
    body.setMocap("mobile_gripper", body.mobileGripperRest());
    yield;
  }
}

function* moveGripper(body: KitchenBody, robot: RobotId, to: Vec3): Motion {
  const name = `${robot}_gripper`;
  for (;;) {
    const current = body.mocapPos(name);
    const distance = Math.hypot(to[0] - current[0], to[1] - current[1], to[2] - current[2]);
    if (distance < 1e-6) return;
    const fraction = Math.min(1, (GRIPPER_SPEED * TICK) / distance);
    body.setMocap(name, [
      current[0] + (to[0] - current[0]) * fraction,
      current[1] + (to[1] - current[1]) * fraction,
      current[2] + (to[2] - current[2]) * fraction,
    ]);
    yield;
  }
}

function restPose(body: KitchenBody, robot: RobotId): Vec3 {
  return robot === "arm" ? ARM_REST : body.mobileGripperRest();
}

/**
 * Opens the robot's closed hand where it is now (only without grasp sensing: with it a hand that holds something is
 * refused before the skill starts, and a closed hand always holds something). What was in it goes into `into` when
 * that place has room, or else falls to the floor. The same motion whatever was in it.
 */
function* openHand(body: KitchenBody, robot: RobotId, into: PlaceSpec | undefined): Motion {
  yield* body.clock.wait(0.2);
  body.setGripper(robot, false);
  const held = body.heldBy(robot);
  if (!held) {
    body.log({ kind: "released", robot, place: into?.name, detail: "opened an empty hand before the skill" });
    return;
  }
  const slot = into && !body.isClosed(into) ? body.freeSlot(into) : -1;
  if (into && slot >= 0) {
    body.setWhere(held, { place: into, slot });
    body.log({
      kind: "released",
      robot,
      object: held,
      place: into.name,
      detail: `opened its hand before the skill: the ${held} fell ${into.kind === "container" ? "into" : "onto"} the ${into.name}`,
    });
  } else {
    body.dropToFloor(held);
    body.log({
      kind: "dropped",
      robot,
      object: held,
      detail: `opened its hand before the skill: the ${held} fell to the floor`,
    });
  }
}

/** Opens or closes a door or drawer by its handle. */
function* operate(body: KitchenBody, robot: RobotId, placeSpec: PlaceSpec, open: boolean, feedback: Feedback): Motion {
  feedback("reaching for the handle", 0);
  yield* moveGripper(body, robot, body.handlePosition(placeSpec));
  // The arm grasps the handle with its one hand (the mobile robot uses its other arm): a hand it closed in a pick opens
  // first, at the handle — only without grasp sensing can it be closed here.
  if (robot === "arm" && body.handClosed(robot)) yield* openHand(body, robot, undefined);
  body.log({ kind: "contact", robot, place: placeSpec.name, detail: `gripper grasped the ${placeSpec.name} handle` });
  const from = body.jointPosition(placeSpec);
  const to = open ? placeSpec.openPosition! : 0;
  const ticks = Math.ceil(DOOR_TIME / TICK);
  for (let i = 1; i <= ticks; i++) {
    // The gripper drives the actuator target along a smooth ramp and rides along with the handle.
    const fraction = i / ticks;
    body.setJoint(placeSpec, from + (to - from) * (3 * fraction * fraction - 2 * fraction * fraction * fraction));
    if (i % 5 === 0) body.setMocap(`${robot}_gripper`, body.handlePosition(placeSpec));
    if (i % Math.ceil(ticks / 3) === 0) feedback(open ? "opening" : "closing", fraction);
    yield;
  }
  // Let the joint settle on its target before judging the result.
  for (let i = 0; i < 40 && Math.abs(body.openFraction(placeSpec) - (open ? 1 : 0)) > 0.05; i++) yield;
  if (open ? body.openFraction(placeSpec) < 0.8 : body.openFraction(placeSpec) > 0.2) {
    throw new Error(
      `the ${placeSpec.name} did not ${open ? "open" : "close"} (stuck at ${Math.round(body.openFraction(placeSpec) * 100)}% open)`,
    );
  }
  body.log({ kind: open ? "opened" : "closed", robot, place: placeSpec.name });
  yield* moveGripper(body, robot, restPose(body, robot));
  feedback("done", 1);
}

const at = (where: Where | undefined, placeSpec: PlaceSpec): where is { place: PlaceSpec; slot: number } =>
  !!where && "place" in where && where.place === placeSpec;

function* pick(body: KitchenBody, robot: RobotId, object: string, placeSpec: PlaceSpec, feedback: Feedback): Motion {
  // The hand goes to the thing's own spot; to a thing that is not there (only without grasp sensing: with it that is
  // refused) it goes where such a thing would stand, the place's first free spot, with the same motion — so neither
  // the feedback nor the time taken tells the agent whether anything was there.
  const where = body.where(object);
  const slot = at(where, placeSpec) ? where.slot : Math.max(0, body.freeSlot(placeSpec));
  const top = body.slotWorld(placeSpec, slot, 2 * objectHalfHeight(objectSpec(object)) + 0.035);
  feedback("approaching", 0);
  yield* moveGripper(body, robot, [top[0], top[1], top[2] + 0.15]);
  // A hand closed in an earlier pick opens over the place first (only without grasp sensing).
  if (body.handClosed(robot)) yield* openHand(body, robot, placeSpec);
  yield* moveGripper(body, robot, top);
  feedback("grasping", 0.5);
  const there = at(body.where(object), placeSpec);
  if (there) body.log({ kind: "contact", robot, object, detail: `gripper closed on the ${object}` });
  yield* body.clock.wait(0.3);
  body.setGripper(robot, true);
  if (there) {
    body.setWhere(object, { heldBy: robot });
    body.log({ kind: "picked", robot, object, place: placeSpec.name });
  } else {
    body.log({
      kind: "picked",
      robot,
      place: placeSpec.name,
      detail: `gripper closed on nothing (no ${object} there)`,
    });
  }
  yield* moveGripper(body, robot, [top[0], top[1], top[2] + 0.15]);
  yield* moveGripper(body, robot, restPose(body, robot));
  feedback("lifted", 1);
}

function* release(
  body: KitchenBody,
  robot: RobotId,
  requested: string,
  placeSpec: PlaceSpec,
  feedback: Feedback,
): Motion {
  // Opening the hand lets go of whatever it holds, which without grasp sensing may not be what was asked for, or
  // nothing. The motion is planned for the thing asked for — what the robot takes itself to hold — so it is the same
  // whatever is in the hand.
  const slot = body.freeSlot(placeSpec);
  const top = body.slotWorld(placeSpec, slot, 2 * objectHalfHeight(objectSpec(requested)) + 0.035);
  feedback("carrying", 0);
  yield* moveGripper(body, robot, [top[0], top[1], top[2] + 0.15]);
  yield* moveGripper(body, robot, top);
  yield* body.clock.wait(0.2);
  body.setGripper(robot, false);
  const object = body.heldBy(robot);
  if (object) {
    body.setWhere(object, { place: placeSpec, slot });
    body.log({ kind: "released", robot, object, place: placeSpec.name });
  } else {
    body.log({
      kind: "released",
      robot,
      place: placeSpec.name,
      detail: `opened an empty hand (no ${requested} in it)`,
    });
  }
  feedback("released", 0.7);
  yield* moveGripper(body, robot, [top[0], top[1], top[2] + 0.15]);
  yield* moveGripper(body, robot, restPose(body, robot));
  feedback("done", 1);
}

export function angleDiff(angle: number, reference: number): number {
  let diff = angle - reference;
  while (diff > Math.PI) diff -= 2 * Math.PI;
  while (diff < -Math.PI) diff += 2 * Math.PI;
  return diff;
}
