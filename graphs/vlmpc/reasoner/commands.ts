/**
 * The commands the planner writes (part of planning) and a decision (a plan of them, and why): how far a command
 * carries the body, walks and backward steps sized to the room there is, turns sized to an angle — written the wrong
 * way now and then, with the wrongTurn noise — and the room ahead up to the first thing not walked over.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { CourseCommand, CourseSkill, Magnitude } from "../schemas";
import { CLIMB, SECONDS, SPEED } from "./robot";
import { plainWay } from "./judging";
import { inPath, obstaclesOf } from "./geometry";
import type { Scene } from "./scene";

export interface Decision {
  plan: CourseCommand[];
  why: string;
  reached?: boolean;
  /** What this frame shows that the previous plan could not have known (it replaces a plan that says otherwise). */
  news?: string;
}

export const cmd = (skill: CourseSkill, magnitude: Magnitude): CourseCommand => ({ skill, magnitude });
export const distanceOf = (command: CourseCommand) =>
  command.skill === "climb"
    ? CLIMB[command.magnitude]
    : SECONDS[command.magnitude] * (SPEED[command.skill as keyof typeof SPEED] ?? 0);

/** The longest walk that stays within `room` metres (a small step at least). */
export function walkFor(room: number): CourseCommand {
  const magnitude = (["large", "medium", "small"] as const).find((g) => SECONDS[g] * SPEED.walk <= room) ?? "small";
  return cmd("walk", magnitude);
}

/** Backward skills that cover `distance` metres (at most two). */
export function backwardFor(distance: number): CourseCommand[] {
  const step = (metres: number) =>
    (["small", "medium", "large"] as const).find((g) => SECONDS[g] * SPEED.backward >= metres) ?? "large";
  const first = step(distance);
  const rest = distance - SECONDS[first] * SPEED.backward;
  return rest > 0.05 ? [cmd("backward", first), cmd("backward", step(rest))] : [cmd("backward", first)];
}

export function turnMagnitude(angle: number): Magnitude {
  return angle < 22.5 ? "small" : angle < 45 ? "medium" : "large";
}

/**
 * One turn the model means to make, written as one or more turn skills; with wrongTurn it writes all of them the other
 * way. One draw per turn meant, not per skill written: a whole turn flipped a piece at a time would be a plan that
 * undoes itself, which is not a side mistaken, and would make a turn's noise grow with how many skills it takes.
 */
export function turns(scene: Scene, side: "left" | "right", magnitudes: Magnitude[]): CourseCommand[] {
  const flip = scene.rng.next() < scene.noise.wrongTurn;
  const way = flip ? (side === "left" ? "right" : "left") : side;
  return magnitudes.map((m) => cmd(way === "left" ? "turn_left" : "turn_right", m));
}

export const turn = (scene: Scene, side: "left" | "right", magnitude: Magnitude): CourseCommand =>
  turns(scene, side, [magnitude])[0];

export const turnToward = (scene: Scene, bearing: number) =>
  turn(scene, bearing > 0 ? "left" : "right", turnMagnitude(Math.abs(bearing)));

/** Room to walk straight on: up to the first thing in the way that is not walked over. */
export function freeAhead(dets: RangedDetection[]): number {
  const blocking = obstaclesOf(dets).filter((d) => inPath(d, 3) && plainWay(d) !== "walk");
  return Math.min(3, ...blocking.map((d) => d.distance)) - 0.4;
}
