/**
 * The workbench palm's controllers: no MPC here — a real arm's Cartesian controller follows straight-line waypoints at
 * the commanded speed (trapezoidal velocity, fixed ramp time, so a fast move is also a hard start and stop), through
 * the palm's position actuators. Grasping is the tabletop's force-limited virtual spring (tabletop/controllers.ts),
 * with the program's grip force as the spring's limit. `runPrimitives` interprets a PrimitiveProgram step by step as a
 * Motion the world's clock advances, and narrates what each step did — the robot's own account, not the event log.
 */
import type { Motion } from "../clock";
import type { SimEvent } from "../events";
import { attach } from "../palm/controllers";
import type { Primitive, PrimitiveProgram } from "../../msgs/primitives";
import type { NarrationStep } from "../../msgs/rollout";
import type { EventMonitor } from "./monitor";
import { FINGER } from "./scenes";
import { TICK, type Stage } from "./stage";

/** Seconds to reach the commanded speed (and to stop from it). */
export const RAMP = 0.12;
export const DEFAULT_SPEED = 0.2;
/** A move counts as arrived within this of its goal after settling. */
const REACH = 0.02;
/** The palm must be this close to a thing's grasp point to hold it. */
export const GRASP_RADIUS = 0.04;
const FINGER_TIME = 0.24;
const JOINT_TOLERANCE = 0.1;
/** Bread-like things flatten to this share of their height at most (and to at least this much of it). */
const CRUSH = { min: 0.4, max: 0.85 };

/** A polyline the palm follows at `speed` with a trapezoidal velocity profile over its arc length. */
export class Path {
  private cum: number[] = [0];
  readonly length: number;
  readonly duration: number;
  private v: number;

  constructor(
    private readonly points: number[][],
    speed: number,
    readonly t0: number,
  ) {
    for (let k = 1; k < points.length; k++) this.cum.push(this.cum[k - 1] + dist(points[k - 1], points[k]));
    this.length = this.cum[this.cum.length - 1];
    // A short move never reaches full speed: it accelerates for RAMP, then stops.
    this.v = this.length > 0 ? Math.min(speed, this.length / RAMP) : speed;
    this.duration = this.length > 0 ? this.length / this.v + RAMP : 0;
  }

  get end(): number {
    return this.t0 + this.duration;
  }

  /** Arc length covered at time `time`. */
  private s(time: number): number {
    const total = this.duration,
      accel = this.v / RAMP;
    const elapsed = Math.max(0, Math.min(total, time - this.t0));
    if (total === 0) return 0;
    if (elapsed < RAMP) return 0.5 * accel * elapsed * elapsed;
    if (elapsed < total - RAMP) return 0.5 * accel * RAMP * RAMP + this.v * (elapsed - RAMP);
    return this.length - 0.5 * accel * (total - elapsed) * (total - elapsed);
  }

  at(time: number, out: number[] = [0, 0, 0]): number[] {
    const arc = this.s(time);
    let k = 1;
    while (k < this.cum.length - 1 && this.cum[k] < arc) k++;
    const seg = this.cum[k] - this.cum[k - 1];
    const blend = seg > 0 ? (arc - this.cum[k - 1]) / seg : 1;
    const segStart = this.points[k - 1],
      segEnd = this.points[Math.min(k, this.points.length - 1)];
    for (let d = 0; d < 3; d++) out[d] = segStart[d] + blend * (segEnd[d] - segStart[d]);
    return out;
  }
}

/** What the interpreter drives: the world's current stage, the palm's commanded position and path, the monitor. */
export interface WorkbenchBody {
  readonly stage: Stage;
  readonly monitor: EventMonitor;
  /** Simulated seconds of the episode (the physics time). */
  time(): number;
  /** The palm's commanded position (the last waypoint reached, or where the path is now). */
  cmd: number[];
  path: Path | null;
  log(e: Omit<SimEvent, "t" | "step">): void;
  /**
   * Where a move_to goes for a named thing or point, as the robot knows it: a loose thing the camera has not shown
   * since the scene was set is nowhere (undefined), and one out of view goes where it was last shown (world.ts).
   */
  whereIs(name: string): number[] | undefined;
}

export interface ProgramOutcome {
  narration: NarrationStep[];
  completed: boolean;
  failed?: { index: number; op: string; reason: string };
}

const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const cm = (m: number) => `${(m * 100).toFixed(1)} cm`;

/** Runs a validated program (names already checked). Writes the narration and outcome into `out`. */
export function* runPrimitives(
  body: WorkbenchBody,
  program: PrimitiveProgram,
  out: ProgramOutcome,
  t0: number,
  feedback: (f: unknown) => void,
): Motion {
  let speed = DEFAULT_SPEED;
  for (let index = 0; index < program.steps.length; index++) {
    const step = program.steps[index];
    const from = body.time() - t0;
    feedback({ step: index, op: step.op, t: Math.round(from * 100) / 100 });
    const result: { ok: boolean; text: string } = { ok: true, text: "" };
    switch (step.op) {
      case "speed":
        speed = step.value;
        result.text = `speed: palm speed set to ${step.value} m/s`;
        break;
      case "pause":
        yield* wait(body, step.seconds);
        result.text = `pause ${step.seconds} s`;
        break;
      case "move_to": {
        const target = body.whereIs(step.target);
        if (!target) {
          Object.assign(result, {
            ok: false,
            text: `move_to ${step.target}: the camera has not shown the ${step.target} since the scene was set; the palm stayed where it was`,
          });
          break;
        }
        const goal = [0, 1, 2].map((d) => target[d] + step.offset[d]);
        const moveSpeed = step.speed ?? speed;
        const off = step.offset.some((x) => x !== 0) ? ` + [${step.offset.map((x) => x.toFixed(2)).join(", ")}]` : "";
        Object.assign(result, yield* moveTo(body, goal, moveSpeed, `move_to ${step.target}${off} at ${moveSpeed} m/s`));
        break;
      }
      case "lift": {
        const goal = [body.cmd[0], body.cmd[1], body.cmd[2] + step.height];
        const moveSpeed = step.speed ?? speed;
        Object.assign(result, yield* moveTo(body, goal, moveSpeed, `lift ${cm(step.height)} at ${moveSpeed} m/s`));
        break;
      }
      case "grasp":
        Object.assign(result, yield* grasp(body, step));
        break;
      case "release":
        Object.assign(result, yield* release(body));
        break;
      case "set_joint":
        Object.assign(result, yield* setJoint(body, step, speed));
        break;
    }
    const to = body.time() - t0;
    out.narration.push({ index, from: round2(from), to: round2(to), text: result.text, ok: result.ok });
    if (!result.ok) {
      out.failed = { index, op: step.op, reason: result.text };
      out.completed = false;
      return;
    }
  }
  out.completed = true;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

function* wait(body: WorkbenchBody, seconds: number): Generator<void, void, void> {
  const end = body.time() + seconds - 1e-9;
  while (body.time() < end) yield;
}

function* follow(body: WorkbenchBody, points: number[][], speed: number): Generator<void, Path, void> {
  const path = new Path(points, speed, body.time());
  body.path = path;
  while (body.time() < path.end - 1e-9) yield;
  body.path = null;
  body.cmd = [...points[points.length - 1]];
  return path;
}

/** Settles until the palm is still at its command (at most `max` seconds); returns how far off it stays. */
function* settle(body: WorkbenchBody, max: number): Generator<void, number, void> {
  for (let t = 0; t < max; t += TICK) {
    const off = dist(body.stage.palm(), body.cmd);
    if (off < 0.005 && Math.hypot(...body.stage.palmVelocity()) < 0.02) return off;
    yield;
  }
  return dist(body.stage.palm(), body.cmd);
}

function* moveTo(
  body: WorkbenchBody,
  goal: number[],
  speed: number,
  what: string,
): Generator<void, { ok: boolean; text: string }, void> {
  const start = body.stage.palm();
  const path = yield* follow(body, [[...body.cmd], goal], speed);
  const off = yield* settle(body, 0.5);
  const held = body.stage.heldName();
  const carrying = held ? ` carrying the ${held}` : "";
  if (off > REACH)
    return { ok: false, text: `${what}: the palm stopped ${cm(off)} short of the goal — something is in the way` };
  return {
    ok: true,
    text: `${what}: the palm moved ${cm(dist(start, body.stage.palm()))}${carrying} in ${path.duration.toFixed(1)} s`,
  };
}

function* fingersTo(body: WorkbenchBody, opening: number): Generator<void, void, void> {
  const from = body.stage.fingerOpening;
  const steps = Math.max(1, Math.round(FINGER_TIME / TICK));
  for (let k = 1; k <= steps; k++) {
    body.stage.setFingers(from + ((opening - from) * k) / steps);
    yield;
  }
}

function* grasp(
  body: WorkbenchBody,
  step: Extract<Primitive, { op: "grasp" }>,
): Generator<void, { ok: boolean; text: string }, void> {
  const stage = body.stage;
  const what = `grasp ${step.object} with ${step.force} N, fingers to ${cm(step.width)}`;
  const i = stage.thingIndex(step.object)!;
  const held = stage.heldName();
  if (held === step.object) {
    stage.st.gripMax = step.force;
    return { ok: true, text: `${what}: already holding the ${held}; grip set to ${step.force} N` };
  }
  if (held) return { ok: false, text: `${what}: already holding the ${held}; release it first` };
  const gap = dist(stage.palm(), stage.thingPosition(i));
  if (gap > GRASP_RADIUS) {
    // Out of the fingers' reach, which the hand feels; how far it is, the robot knows only from what the camera showed.
    const seen = body.whereIs(step.object);
    const far = seen
      ? `the palm is ${cm(dist(stage.palm(), seen))} from the ${step.object}'s grasp point (it must be within ${cm(GRASP_RADIUS)})`
      : `the ${step.object} is not within ${cm(GRASP_RADIUS)} of the palm's grasp point, and the camera has not shown it since the scene was set`;
    return { ok: false, text: `${what}: ${far}` };
  }
  const props = stage.props[i];
  if (step.width > props.width + 0.01) {
    yield* fingersTo(body, Math.min(FINGER.open, step.width));
    return {
      ok: false,
      text: `${what}: the fingers stopped ${cm(step.width)} apart, wider than the ${step.object} (${cm(props.width)}): nothing held`,
    };
  }
  // The fingers wrap what they close on: the palm stops colliding with it before they move in.
  const thing = stage.parts.things[i];
  stage.exclude(thing.body, true);
  yield* fingersTo(body, Math.max(step.width, Math.min(props.width, FINGER.open)));
  attach(stage.mech, stage.data, stage.st, i);
  stage.st.gripMax = step.force;
  const crushed =
    props.crushable && step.force > props.maxGrip
      ? stage.crush(i, Math.max(CRUSH.min, Math.min(CRUSH.max, (1.5 * props.maxGrip) / step.force)))
      : undefined;
  body.monitor.onGrasp(i, step.force, crushed);
  body.log({
    kind: "picked",
    robot: "palm",
    object: step.object,
    detail: `palm closed on the ${step.object} with ${step.force} N`,
  });
  return { ok: true, text: `${what}: holding the ${step.object}` };
}

function* release(body: WorkbenchBody): Generator<void, { ok: boolean; text: string }, void> {
  const stage = body.stage;
  const held = stage.st.held;
  if (held < 0) {
    yield* fingersTo(body, FINGER.open);
    return { ok: true, text: "release: the hand was empty; fingers opened" };
  }
  const name = stage.parts.things[held].name;
  stage.st.held = -1;
  stage.st.gripMax = undefined;
  body.log({ kind: "released", robot: "palm", object: name, detail: "palm opened" });
  body.monitor.onRelease(held);
  yield* fingersTo(body, FINGER.open);
  return { ok: true, text: `release: let go of the ${name}` };
}

function* setJoint(
  body: WorkbenchBody,
  step: Extract<Primitive, { op: "set_joint" }>,
  speed: number,
): Generator<void, { ok: boolean; text: string }, void> {
  const stage = body.stage;
  const spec = stage.scene.joints.find((j) => j.name === step.joint)!;
  const what = `set_joint ${step.joint} to ${Math.round(step.fraction * 100)}%`;
  if (stage.heldName() !== spec.handle)
    return { ok: false, text: `${what}: the palm must hold the ${spec.handle} (grasp it first)` };
  const from = stage.jointFraction(step.joint);
  const handle = stage.point(spec.handle)!;
  const palm = stage.palm();
  const offset = [palm[0] - handle[0], palm[1] - handle[1], palm[2] - handle[2]];
  const segments = Math.max(1, Math.ceil(Math.abs(step.fraction - from) * 12));
  const waypoints = stage
    .handlePath(step.joint, from, step.fraction, segments)
    .map((p) => [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]]);
  waypoints[0] = [...body.cmd];
  yield* follow(body, waypoints, speed);
  yield* settle(body, 0.4);
  const now = stage.jointFraction(step.joint);
  if (Math.abs(now - step.fraction) > JOINT_TOLERANCE)
    return { ok: false, text: `${what}: the ${spec.object} stopped at ${Math.round(now * 100)}%` };
  return {
    ok: true,
    text: `${what}: the ${spec.object} went from ${Math.round(from * 100)}% to ${Math.round(now * 100)}% open`,
  };
}
