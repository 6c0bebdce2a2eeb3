/**
 * The gripper's controllers. `SkillController` is the one parameterised controller every skill runs (its parameter
 * vector is defined in robots/msgs/blocks.ts PARAMS; the agent learns one Gaussian over it per skill): each control
 * step it reads the block state and outputs a TCP target and a finger opening (the hand's mechanics — fingers at a
 * finite speed, a grasp that engages only between closing fingers — are the world's, robots/sim/blocks/world.ts).
 */
import { BLOCK_SIZE, COLORS, CONTROL_TICK, FINGER_MAX, type BlockState, type Color } from "../../msgs/blocks";

type V3 = [number, number, number];

const ALIGNED = 0.008; // m: horizontal error under which the TCP descends onto a block / a held block onto its target
const ARRIVED = 0.008; // m: 3-D error under which the fingers close (grasp) or open (release)
const RETREAT = 0.08; // m: how far above a released block the TCP withdraws

const argmax = (v: readonly number[]) => v.reduce((best, x, i) => (x > v[best] ? i : best), 0);
const hdist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const add = (a: readonly number[], b: readonly number[]): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub = (a: readonly number[], b: readonly number[]): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];

export interface ControlOutput {
  target: V3;
  /** Commanded finger opening fraction. */
  opening: number;
}

/** The parameter vector read once (names as in PARAMS). */
export interface ControllerParams {
  src: Color;
  dst: Color | null;
  close: boolean;
  idleOpening: number;
  reachOffset: V3;
  graspDz: number;
  carryZ: number;
  placeDz: number;
  release: boolean;
  speed: number;
}

export function readParams(params: readonly number[]): ControllerParams {
  const src = COLORS[argmax(params.slice(0, 3))];
  const dstIndex = argmax(params.slice(3, 7));
  const dst = dstIndex === 3 || COLORS[dstIndex] === src ? null : COLORS[dstIndex];
  return {
    src,
    dst,
    close: params[7] >= 0.5,
    idleOpening: params[8],
    reachOffset: [params[9], params[10], params[11]],
    graspDz: params[12],
    carryZ: params[13],
    placeDz: params[14],
    release: params[15] >= 0.5,
    speed: params[16],
  };
}

/**
 * One skill's run: reactive (it reads the state each step, so it picks up from whatever the previous skill left —
 * a block already held is not grasped again) with two latches of its own: fingers closing, and having let go.
 */
export class SkillController {
  readonly p: ControllerParams;
  private closing = false;
  private released = false;

  constructor(params: readonly number[]) {
    this.p = readParams(params);
  }

  act(state: BlockState): ControlOutput {
    const params = this.p;
    const src = state.blocks[params.src];
    if (!params.close) return { target: add(src, params.reachOffset), opening: params.idleOpening };
    if (this.released)
      return { target: [state.tcp[0], state.tcp[1], Math.max(state.tcp[2], src[2] + RETREAT)], opening: 1 };
    if (state.held !== params.src) return this.grasp(state, src);
    // Holding the source: targets are for the block's centre, mapped to the TCP by the grip's offset.
    const grip = sub(state.tcp, src);
    const toTcp = (c: readonly number[]) => add(c, grip);
    this.closing = false;
    if (!params.dst) return { target: toTcp([src[0], src[1], params.carryZ]), opening: 0 };
    const goal = add(state.blocks[params.dst], [0, 0, params.placeDz]);
    const carry = Math.max(params.carryZ, goal[2] + 0.01);
    if (hdist(src, goal) > ALIGNED) {
      // Rise before travelling so the held block does not plough through the others.
      if (src[2] < carry - 0.01 && hdist(src, goal) > 3 * ALIGNED)
        return { target: toTcp([src[0], src[1], carry]), opening: 0 };
      return { target: toTcp([goal[0], goal[1], Math.max(src[2], goal[2])]), opening: 0 };
    }
    if (params.release && Math.hypot(...sub(src, goal)) < ARRIVED) {
      this.released = true;
      return { target: state.tcp, opening: 1 };
    }
    return { target: toTcp(goal), opening: 0 };
  }

  private grasp(state: BlockState, src: V3): ControlOutput {
    // Holding another block: let it go first.
    if (state.grasped) return { target: [state.tcp[0], state.tcp[1], state.tcp[2] + 0.03], opening: 1 };
    const at = add(src, [0, 0, this.p.graspDz]);
    if (this.closing) {
      // Shut on nothing: open again and retry.
      if (state.opening < (BLOCK_SIZE - 0.006) / FINGER_MAX) this.closing = false;
      return { target: at, opening: this.closing ? 0 : 1 };
    }
    if (hdist(state.tcp, src) > ALIGNED)
      return { target: [src[0], src[1], Math.max(state.tcp[2], at[2], src[2] + BLOCK_SIZE)], opening: 1 };
    if (Math.hypot(...sub(state.tcp, at)) < ARRIVED && state.opening * FINGER_MAX > BLOCK_SIZE + 0.004)
      this.closing = true;
    return { target: at, opening: this.closing ? 0 : 1 };
  }
}

/** Moves the commanded TCP towards a target at a bounded speed (the arm's Cartesian velocity limit). */
export function stepTowards(
  cmd: number[],
  target: readonly number[],
  speed: number,
  min: readonly number[],
  max: readonly number[],
): void {
  const delta = sub(target, cmd);
  const distance = Math.hypot(...delta);
  const step = speed * CONTROL_TICK;
  const k = distance > step ? step / distance : 1;
  for (let i = 0; i < 3; i++) cmd[i] = Math.min(max[i], Math.max(min[i], cmd[i] + k * delta[i]));
}

/** Finger speed, m/s: a full close takes 0.4 s. */
export const FINGER_SPEED = 0.2;
/** How close the TCP must be to a block's centre, per axis, for closing fingers to take it. */
export const GRASP_WINDOW = 0.016;
