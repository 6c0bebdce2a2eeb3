/**
 * Motion programs written from a scene's true state, as `execute_motion` takes them: reach a thing, open a door by its
 * handle, put a thing somewhere, take a thing away from another. The hand-made scenes' scripted solutions and the
 * generated scenes' solvability check are made of them; agents write their own.
 */
import type { RewardTermInput } from "../../msgs/motion";

export interface MotionInput {
  terms: RewardTermInput[];
  duration?: number;
}

export const grab = (thing: string): RewardTermInput => ({ kind: "minimize_l2_distance", a: "palm", b: thing });
export const openDoor = (handle: string, joint: string, duration = 5): MotionInput => ({
  terms: [grab(handle), { kind: "set_joint_fraction", joint, fraction: 1, primary: true }],
  duration,
});
export const place = (obj: string, at: string, duration = 6): MotionInput => ({
  terms: [grab(obj), { kind: "minimize_l2_distance", a: obj, b: at, primary: true }],
  duration,
});
export const moveAway = (obj: string, from: string, distance: number, duration = 5): MotionInput => ({
  terms: [grab(obj), { kind: "maximize_l2_distance", a: obj, b: from, distance, primary: true }],
  duration,
});
export const pullLever = (handle: string, joint: string, duration = 4): MotionInput => ({
  terms: [grab(handle), { kind: "set_joint_fraction", joint, fraction: 1, primary: true }],
  duration,
});
