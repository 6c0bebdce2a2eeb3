/**
 * The palm's controllers: the mechanics every physics step runs (the virtual spring gripper and its release, locks,
 * the weight sensor) and `execute_motion`, the predictive-sampling MPC (mpc.ts) driving the palm over a program's
 * reward terms (rewards.ts). They act on the world only through `Mechanics` and `PalmBody`.
 */
import type { Motion } from "../clock";
import type { SimEvent } from "../events";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../../random";
import type { ActionContext } from "../../bridge/server";
import type { MotionProgram } from "../../msgs/motion";
import type { SceneSpec } from "./scene";
import { jointFraction, pointPosition, type CompiledProgram, type Point } from "./rewards";
import type { Lock, Thing } from "./bodies";
import { planOnce, Spline, type MpcOptions, type RolloutModel } from "./mpc";
import { modelViews, STATE_FIELDS, views } from "./views";

export const TICK = 0.02;
const PLAN_EVERY = 0.1; // s between planning iterations
const GRASP_RADIUS = 0.04; // the palm attaches within this of a thing's grasp point
const GRASP_K = 2000; // N/m: a 3 kg kettle sags 1.5 cm
const GRASP_C = 25; // N·s/m
const GRIP_MAX = 60; // N
const SLIP_STRETCH = 0.08; // m
const HOLD_OMEGA = 40; // rad/s natural frequency of the orientation hold on grasped free objects
const LOCK_K = 300; // N·m/rad: stiffer than the palm can overcome at a handle
const LOCK_C = 3;
const LOCK_LATCH = 0.25; // rad: a latch only acts on a door that is (nearly) shut
const MET_HOLD = 0.2; // s the primary term must stay met to stop early
const SETTLE = 0.5; // s after release before judging

/** Per-step world state beyond MjData; copied into rollouts with the physics. */
export interface WorldState {
  held: number;
  /** Palm-minus-grasp-point offset at the previous step (spring damping by finite difference). */
  prev: [number, number, number];
  /** World orientation to hold a grasped free object at. */
  holdQuat: [number, number, number, number];
  /** Per lock: released for good (lever locks). */
  released: boolean[];
  /** Grip force limit of the spring, N (default GRIP_MAX): a gripper told to hold gently holds with less. */
  gripMax?: number;
}

const cloneState = (state: WorldState): WorldState => ({
  held: state.held,
  prev: [...state.prev],
  holdQuat: [...state.holdQuat],
  released: [...state.released],
  gripMax: state.gripMax,
});

type Logger = ((e: Omit<SimEvent, "t" | "step">) => void) | null;

/** The parts the mechanics act on, indexed once from the model; the same for the real world and every rollout. */
export interface Mechanics {
  readonly mj: Mujoco;
  readonly model: MjModel;
  readonly palmBody: number;
  readonly things: readonly Thing[];
  readonly locks: readonly Lock[];
  /** Named points (a weight sensor's surface is read at its site). */
  readonly points: ReadonlyMap<string, Point>;
}

/**
 * What `execute_motion` needs of a palm world beyond its mechanics: the real and scratch physics, the grasp and
 * lock state, the plan the world's clock follows, and the queries a motion's report uses. The world hands the
 * controller this view rather than itself, so the controller cannot touch its bookkeeping (skill count, busy flag).
 */
export interface PalmBody extends Mechanics {
  readonly data: MjData;
  /** Physics copy for rollouts and what-if checks. */
  readonly scratch: MjData;
  /** The real world's grasp and lock state. */
  readonly st: WorldState;
  readonly mpc: MpcOptions;
  readonly seed: number;
  readonly surfaces: SceneSpec["surfaces"];
  readonly stats: { rolloutSteps: number };
  /** The palm trajectory the world's clock follows. */
  plan: Spline;
  /** Things the palm may grasp on contact. */
  grabbable: number[];
  thingIndex(name: string): number | undefined;
  heldName(): string | null;
  restsOn(name: string, surface: string): boolean;
  palmPosition(): number[];
  clamp(p: number[]): void;
  log(e: Omit<SimEvent, "t" | "step">): void;
}

export interface TermReport {
  term: string;
  residual: number;
  tolerance: number;
  met: boolean;
}

// ---- mechanics ------------------------------------------------------------------------------------------------------

/** Total mass of free objects resting on a surface (not held). */
function massOn(mech: Mechanics, data: MjData, surface: SceneSpec["surfaces"][number], st: WorldState): number {
  const site = mech.points.get(surface.name)!;
  const centre = pointPosition(data, site);
  let mass = 0;
  for (let i = 0; i < mech.things.length; i++) {
    const thing = mech.things[i];
    if (!thing.free || i === st.held) continue;
    const position = pointPosition(data, thing.point);
    const dz = position[2] - surface.top;
    if (
      Math.abs(position[0] - centre[0]) <= surface.half[0] &&
      Math.abs(position[1] - centre[1]) <= surface.half[1] &&
      dz > 0 &&
      dz < 0.08
    )
      mass += thing.mass;
  }
  return mass;
}

export function lockEngaged(mech: Mechanics, data: MjData, st: WorldState, i: number): boolean {
  const lock = mech.locks[i];
  if (lock.lever) return !st.released[i];
  if (lock.sensor) return massOn(mech, data, lock.sensor.surface, st) < lock.sensor.minMass;
  return false;
}

/**
 * One physics step with the world's own mechanics: the grasp spring, locks and the sensor, then mj_step, then the
 * grasp/slip/lock-release rules. The real world and every MPC rollout step through this same function.
 */
export function stepWorld(mech: Mechanics, data: MjData, st: WorldState, grabbable: number[], log: Logger): void {
  const dataViews = views(data);
  const xfrc = dataViews.xfrc_applied;
  xfrc.fill(0);
  const qfrc = dataViews.qfrc_applied;
  const dt = modelViews(mech.model).timestep;
  if (st.held >= 0) {
    const thing = mech.things[st.held];
    const pp = pointPosition(data, { kind: "body", id: mech.palmBody });
    const gp = pointPosition(data, thing.point);
    const dx = pp[0] - gp[0],
      dy = pp[1] - gp[1],
      dz = pp[2] - gp[2];
    const stretch = Math.hypot(dx, dy, dz);
    if (stretch > SLIP_STRETCH) {
      st.held = -1;
      log?.({
        kind: "released",
        robot: "palm",
        object: thing.name,
        detail: `grasp slipped: ${thing.name} pulled ${(stretch * 100).toFixed(1)} cm from the palm`,
      });
    } else {
      let fx = GRASP_K * dx + (GRASP_C * (dx - st.prev[0])) / dt;
      let fy = GRASP_K * dy + (GRASP_C * (dy - st.prev[1])) / dt;
      let fz = GRASP_K * dz + (GRASP_C * (dz - st.prev[2])) / dt;
      st.prev[0] = dx;
      st.prev[1] = dy;
      st.prev[2] = dz;
      const fn = Math.hypot(fx, fy, fz);
      const limit = st.gripMax ?? GRIP_MAX;
      if (fn > limit) {
        fx *= limit / fn;
        fy *= limit / fn;
        fz *= limit / fn;
      }
      const bodyId = thing.body;
      const com = dataViews.xipos.subarray(3 * bodyId, 3 * bodyId + 3);
      const rx = gp[0] - com[0],
        ry = gp[1] - com[1],
        rz = gp[2] - com[2];
      xfrc[6 * bodyId] += fx;
      xfrc[6 * bodyId + 1] += fy;
      xfrc[6 * bodyId + 2] += fz;
      xfrc[6 * bodyId + 3] += ry * fz - rz * fy;
      xfrc[6 * bodyId + 4] += rz * fx - rx * fz;
      xfrc[6 * bodyId + 5] += rx * fy - ry * fx;
      const pb = mech.palmBody;
      xfrc[6 * pb] -= fx;
      xfrc[6 * pb + 1] -= fy;
      xfrc[6 * pb + 2] -= fz;
      if (thing.free) holdOrientation(mech, data, st, thing, xfrc);
    }
  }
  for (let i = 0; i < mech.locks.length; i++) {
    const j = mech.locks[i].joint;
    const jointPos = dataViews.qpos[j.qpos];
    qfrc[j.dof] =
      jointPos < LOCK_LATCH && lockEngaged(mech, data, st, i) ? -LOCK_K * jointPos - LOCK_C * dataViews.qvel[j.dof] : 0;
  }
  mech.mj.mj_step(mech.model, data);
  if (st.held < 0 && grabbable.length > 0) {
    const pp = pointPosition(data, { kind: "body", id: mech.palmBody });
    for (const i of grabbable) {
      const gp = pointPosition(data, mech.things[i].point);
      if (Math.hypot(pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]) < GRASP_RADIUS) {
        attach(mech, data, st, i);
        log?.({
          kind: "picked",
          robot: "palm",
          object: mech.things[i].name,
          detail: `palm grasped the ${mech.things[i].name}`,
        });
        break;
      }
    }
  }
  for (let i = 0; i < mech.locks.length; i++) {
    const lock = mech.locks[i];
    if (lock.lever && !st.released[i] && jointFraction(data, lock.lever.joint) > lock.lever.threshold) {
      st.released[i] = true;
      log?.({ kind: "opened", place: lock.place, detail: `lock released: the ${lock.name} lock opened` });
    }
  }
}

/** Closes the spring grasp on thing `i` (holding a free object upright, as a gripper squares it up). */
export function attach(mech: Mechanics, data: MjData, st: WorldState, i: number): void {
  st.held = i;
  const pp = pointPosition(data, { kind: "body", id: mech.palmBody });
  const gp = pointPosition(data, mech.things[i].point);
  st.prev = [pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]];
  const bodyId = mech.things[i].body;
  const quat = (data.xquat as Float64Array).subarray(4 * bodyId, 4 * bodyId + 4);
  st.holdQuat = [quat[0], quat[1], quat[2], quat[3]];
  if (!mech.things[i].free) return;
  // A gripper closing on two faces squares the object up: hold it with its most upward axis turned to vertical, so
  // a cube that fell over is carried (and set down) upright instead of tilted against a rim.
  const mat = (data.xmat as Float64Array).subarray(9 * bodyId, 9 * bodyId + 9);
  let k = 0;
  for (let j = 1; j < 3; j++) if (Math.abs(mat[6 + j]) > Math.abs(mat[6 + k])) k = j;
  const sgn = Math.sign(mat[6 + k]) || 1;
  const axis = [sgn * mat[k], sgn * mat[3 + k], sgn * mat[6 + k]];
  const angle = Math.acos(Math.min(1, axis[2]));
  const tiltNorm = Math.hypot(axis[1], axis[0]);
  if (angle < 1e-3 || tiltNorm < 1e-9) return;
  const cosHalf = Math.cos(angle / 2),
    sn = Math.sin(angle / 2) / tiltNorm;
  const turn = [cosHalf, axis[1] * sn, -axis[0] * sn, 0]; // rotation about axis × z taking axis to vertical
  st.holdQuat = [
    turn[0] * quat[0] - turn[1] * quat[1] - turn[2] * quat[2] - turn[3] * quat[3],
    turn[0] * quat[1] + turn[1] * quat[0] + turn[2] * quat[3] - turn[3] * quat[2],
    turn[0] * quat[2] - turn[1] * quat[3] + turn[2] * quat[0] + turn[3] * quat[1],
    turn[0] * quat[3] + turn[1] * quat[2] - turn[2] * quat[1] + turn[3] * quat[0],
  ];
}

/** A gripper holds what it grasps rigidly: a critically damped rotational spring back to the grasp orientation. */
function holdOrientation(mech: Mechanics, data: MjData, st: WorldState, thing: Thing, xfrc: Float64Array): void {
  const bodyId = thing.body;
  const dv = views(data);
  const quat = dv.xquat.subarray(4 * bodyId, 4 * bodyId + 4);
  const hold = st.holdQuat;
  // (errorW, x, y, z) = quat ⊗ conj(hold): the world-frame rotation from the held orientation to the current one.
  const errorW = quat[0] * hold[0] + quat[1] * hold[1] + quat[2] * hold[2] + quat[3] * hold[3];
  let x = -quat[0] * hold[1] + quat[1] * hold[0] - quat[2] * hold[3] + quat[3] * hold[2];
  let y = -quat[0] * hold[2] + quat[1] * hold[3] + quat[2] * hold[0] - quat[3] * hold[1];
  let z = -quat[0] * hold[3] - quat[1] * hold[2] + quat[2] * hold[1] + quat[3] * hold[0];
  const scale = errorW < 0 ? -2 : 2; // small-angle rotation vector ≈ 2·(x, y, z), on the short way round
  x *= scale;
  y *= scale;
  z *= scale;
  // Free-joint angular velocity is in the body frame; rotate it to the world frame.
  const qvel = dv.qvel;
  const mat = dv.xmat.subarray(9 * bodyId, 9 * bodyId + 9);
  const a0 = qvel[thing.dof + 3],
    a1 = qvel[thing.dof + 4],
    a2 = qvel[thing.dof + 5];
  const wx = mat[0] * a0 + mat[1] * a1 + mat[2] * a2,
    wy = mat[3] * a0 + mat[4] * a1 + mat[5] * a2,
    wz = mat[6] * a0 + mat[7] * a1 + mat[8] * a2;
  // Gains per principal axis (a long thin bar is ~200x easier to roll than to yaw); explicit torques with one
  // gain for all axes would be unstable about the light one.
  const axes = dv.ximat.subarray(9 * bodyId, 9 * bodyId + 9);
  const inertia = modelViews(mech.model).body_inertia.subarray(3 * bodyId, 3 * bodyId + 3);
  for (let k = 0; k < 3; k++) {
    const angleError = axes[k] * x + axes[3 + k] * y + axes[6 + k] * z; // rotation error along principal axis k
    const rate = axes[k] * wx + axes[3 + k] * wy + axes[6 + k] * wz;
    const tau = -inertia[k] * HOLD_OMEGA * HOLD_OMEGA * angleError - 2 * inertia[k] * HOLD_OMEGA * rate;
    xfrc[6 * bodyId + 3] += axes[k] * tau;
    xfrc[6 * bodyId + 4] += axes[3 + k] * tau;
    xfrc[6 * bodyId + 5] += axes[6 + k] * tau;
  }
}

/** Palm position targets into the actuators' controls. */
export function setControl(data: MjData, target: number[]): void {
  const ctrl = views(data).ctrl;
  ctrl[0] = target[0];
  ctrl[1] = target[1];
  ctrl[2] = target[2];
}

function copyState(mech: Mechanics, from: MjData, to: MjData): void {
  const fromViews = views(from),
    toViews = views(to);
  for (const k of STATE_FIELDS) toViews[k].set(fromViews[k]);
  to.time = from.time;
  mech.mj.mj_forward(mech.model, to);
}

/** Opens the palm, if it holds anything. */
function release(body: PalmBody, reason: string): void {
  if (body.st.held < 0) return;
  const name = body.things[body.st.held].name;
  body.st.held = -1;
  body.log({ kind: "released", robot: "palm", object: name, detail: reason });
}

// ---- execute_motion -------------------------------------------------------------------------------------------------

function termReports(data: MjData, compiled: CompiledProgram): TermReport[] {
  return compiled.terms.map((term) => {
    const residual = term.residual(data);
    return {
      term: term.text,
      residual: Math.round(residual * 1000) / 1000,
      tolerance: term.tolerance,
      met: residual <= term.tolerance,
    };
  });
}

/**
 * Runs one motion program: the MPC replans the palm's path over the program's terms every PLAN_EVERY, the world's
 * clock follows it, and the motion ends early once the primary term holds. Writes its report into `out`.
 */
export function* executeMotion(
  body: PalmBody,
  program: MotionProgram,
  compiled: CompiledProgram,
  index: number,
  ctx: ActionContext,
  out: { report?: Record<string, unknown>; message?: string; ok?: boolean },
): Motion {
  const rng = new Rng((body.seed * 1_000_003 + index * 7919 + 1) >>> 0);
  // Which things the palm may grasp during this motion: those a term brings the palm to.
  const palmTargets = program.terms.flatMap((term) =>
    term.kind === "minimize_l2_distance" && (term.a === "palm" || term.b === "palm")
      ? [term.a === "palm" ? term.b : term.a]
      : [],
  );
  const held = body.heldName();
  if (held && palmTargets.length > 0 && !palmTargets.includes(held))
    release(body, `released the ${held} to reach for ${palmTargets.join(", ")}`);
  body.grabbable = palmTargets.map((n) => body.thingIndex(n)).filter((i): i is number => i !== undefined);
  body.mj.mj_forward(body.model, body.data);

  const rolloutState = { st: cloneState(body.st) };
  const model: RolloutModel = {
    dt: modelViews(body.model).timestep,
    reset: () => {
      copyState(body, body.data, body.scratch);
      rolloutState.st = cloneState(body.st);
    },
    step: (target) => {
      setControl(body.scratch, target);
      stepWorld(body, body.scratch, rolloutState.st, body.grabbable, null);
      body.stats.rolloutSteps++;
    },
    cost: () => compiled.cost(body.scratch),
    clamp: (p) => body.clamp(p),
  };

  const primary = compiled.primary;
  let nominal = Spline.constant(body.palmPosition(), body.mpc.knots, body.data.time as number, body.mpc.horizon);
  let elapsed = 0,
    metFor = 0,
    nextPlan = 0,
    nextFeedback = 0,
    nextCheck = 0;
  // A "grab X" step keeps hold of X; any other motion lets go at its end.
  const primaryTerm = program.terms.find((x) => x.primary)!;
  const grabStep =
    primaryTerm.kind === "minimize_l2_distance" && (primaryTerm.a === "palm" || primaryTerm.b === "palm");
  while (elapsed < program.duration - 1e-9) {
    if (elapsed >= nextPlan - 1e-9) {
      nominal = planOnce(model, nominal.shifted(body.data.time as number), rng, body.mpc).best;
      body.plan = nominal;
      nextPlan += PLAN_EVERY;
    }
    yield;
    elapsed += TICK;
    const residual = primary.residual(body.data);
    metFor = residual <= primary.tolerance ? metFor + TICK : 0;
    if (elapsed >= nextFeedback) {
      ctx.feedback({
        t: Math.round(elapsed * 100) / 100,
        primaryResidual: Math.round(residual * 1000) / 1000,
        holding: body.heldName(),
      });
      nextFeedback += 0.25;
    }
    // Stop once the primary term has held for a while and would still hold after letting go (checked by
    // simulating the release and settling on a copy — a dropped bar may roll back, a flung door bounce).
    if (metFor >= MET_HOLD - 1e-9 && elapsed >= nextCheck - 1e-9) {
      nextCheck = elapsed + PLAN_EVERY;
      if (holdsAfterRelease(body, compiled, grabStep)) break;
    }
  }
  const duration = elapsed;
  if (!grabStep) release(body, "motion ended");
  body.grabbable = [];
  body.plan = Spline.constant(body.palmPosition(), body.mpc.knots, body.data.time as number, body.mpc.horizon);
  for (let s = 0; s < SETTLE - 1e-9; s += TICK) yield;
  const terms = termReports(body.data, compiled);
  const prim = terms[compiled.terms.indexOf(primary)];
  // Bringing a thing to a surface means it ends up resting there (inside a crate's rim, upright, still); a cube
  // perched on another or tilted on the rim is near, but not placed.
  const pair =
    primaryTerm.kind === "minimize_l2_distance" && ![primaryTerm.a, primaryTerm.b].includes("palm")
      ? [primaryTerm.a, primaryTerm.b]
      : [];
  const onto = body.surfaces.find((x) => pair.includes(x.name));
  const placed = onto && pair.find((n) => n !== onto.name);
  if (onto && placed && prim.met && !body.restsOn(placed, onto.name)) {
    prim.met = false;
    prim.term = `${prim.term} (the ${placed} does not rest on the ${onto.name})`;
  }
  const report = { duration_sec: Math.round(duration * 100) / 100, primary: prim, terms, holding: body.heldName() };
  out.report = report;
  out.ok = prim.met;
  const unmet = terms
    .filter((x) => !x.met)
    .map((x) => `${x.term.replace(/ {2}#.*$/, "")} residual ${x.residual.toFixed(2)} > ${x.tolerance.toFixed(2)}`);
  out.message = prim.met
    ? `primary term ${prim.term.replace(/ {2}#.*$/, "")} met: residual ${prim.residual.toFixed(3)} <= ${prim.tolerance.toFixed(2)} after ${duration.toFixed(2)} s${report.holding ? `; holding ${report.holding}` : ""}`
    : `primary term ${prim.term.replace(/ {2}#.*$/, "")} not met: residual ${prim.residual.toFixed(2)} > ${prim.tolerance.toFixed(2)} after ${duration.toFixed(1)} s; unmet: ${unmet.join("; ")}`;
  body.log({
    kind: "moved",
    robot: "palm",
    detail: `motion ${index} ended: ${terms.map((x) => `${x.term.replace(/ {2}#.*$/, "")} = ${x.residual.toFixed(3)}`).join("; ")}`,
  });
}

/** Simulates the end of the motion (release unless a grab step, palm still, settle) on the scratch copy. */
function holdsAfterRelease(body: PalmBody, compiled: CompiledProgram, grabStep: boolean): boolean {
  copyState(body, body.data, body.scratch);
  const st = cloneState(body.st);
  if (!grabStep) st.held = -1;
  const still = body.palmPosition();
  const steps = Math.round(SETTLE / modelViews(body.model).timestep);
  for (let i = 0; i < steps; i++) {
    setControl(body.scratch, still);
    stepWorld(body, body.scratch, st, [], null);
  }
  return compiled.primary.residual(body.scratch) <= compiled.primary.tolerance;
}
