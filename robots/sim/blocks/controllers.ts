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

export function readParams(p: readonly number[]): ControllerParams {
  const src = COLORS[argmax(p.slice(0, 3))];
  const d = argmax(p.slice(3, 7));
  const dst = d === 3 || COLORS[d] === src ? null : COLORS[d];
  return {
    src,
    dst,
    close: p[7] >= 0.5,
    idleOpening: p[8],
    reachOffset: [p[9], p[10], p[11]],
    graspDz: p[12],
    carryZ: p[13],
    placeDz: p[14],
    release: p[15] >= 0.5,
    speed: p[16],
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

  act(s: BlockState): ControlOutput {
    const p = this.p;
    const src = s.blocks[p.src];
    if (!p.close) return { target: add(src, p.reachOffset), opening: p.idleOpening };
    if (this.released) return { target: [s.tcp[0], s.tcp[1], Math.max(s.tcp[2], src[2] + RETREAT)], opening: 1 };
    if (s.held !== p.src) return this.grasp(s, src);
    // Holding the source: targets are for the block's centre, mapped to the TCP by the grip's offset.
    const grip = sub(s.tcp, src);
    const toTcp = (c: readonly number[]) => add(c, grip);
    this.closing = false;
    if (!p.dst) return { target: toTcp([src[0], src[1], p.carryZ]), opening: 0 };
    const goal = add(s.blocks[p.dst], [0, 0, p.placeDz]);
    const carry = Math.max(p.carryZ, goal[2] + 0.01);
    if (hdist(src, goal) > ALIGNED) {
      // Rise before travelling so the held block does not plough through the others.
      if (src[2] < carry - 0.01 && hdist(src, goal) > 3 * ALIGNED)
        return { target: toTcp([src[0], src[1], carry]), opening: 0 };
      return { target: toTcp([goal[0], goal[1], Math.max(src[2], goal[2])]), opening: 0 };
    }
    if (p.release && Math.hypot(...sub(src, goal)) < ARRIVED) {
      this.released = true;
      return { target: s.tcp, opening: 1 };
    }
    return { target: toTcp(goal), opening: 0 };
  }

  private grasp(s: BlockState, src: V3): ControlOutput {
    // Holding another block: let it go first.
    if (s.grasped) return { target: [s.tcp[0], s.tcp[1], s.tcp[2] + 0.03], opening: 1 };
    const at = add(src, [0, 0, this.p.graspDz]);
    if (this.closing) {
      // Shut on nothing: open again and retry.
      if (s.opening < (BLOCK_SIZE - 0.006) / FINGER_MAX) this.closing = false;
      return { target: at, opening: this.closing ? 0 : 1 };
    }
    if (hdist(s.tcp, src) > ALIGNED)
      return { target: [src[0], src[1], Math.max(s.tcp[2], at[2], src[2] + BLOCK_SIZE)], opening: 1 };
    if (Math.hypot(...sub(s.tcp, at)) < ARRIVED && s.opening * FINGER_MAX > BLOCK_SIZE + 0.004) this.closing = true;
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
  const d = sub(target, cmd);
  const n = Math.hypot(...d);
  const step = speed * CONTROL_TICK;
  const k = n > step ? step / n : 1;
  for (let i = 0; i < 3; i++) cmd[i] = Math.min(max[i], Math.max(min[i], cmd[i] + k * d[i]));
}

/** Finger speed, m/s: a full close takes 0.4 s. */
export const FINGER_SPEED = 0.2;
/** How close the TCP must be to a block's centre, per axis, for closing fingers to take it. */
export const GRASP_WINDOW = 0.016;
