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

const cloneState = (s: WorldState): WorldState => ({
  held: s.held,
  prev: [...s.prev],
  holdQuat: [...s.holdQuat],
  released: [...s.released],
  gripMax: s.gripMax,
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
function massOn(m: Mechanics, data: MjData, s: SceneSpec["surfaces"][number], st: WorldState): number {
  const site = m.points.get(s.name)!;
  const c = pointPosition(data, site);
  let mass = 0;
  for (let i = 0; i < m.things.length; i++) {
    const t = m.things[i];
    if (!t.free || i === st.held) continue;
    const p = pointPosition(data, t.point);
    const dz = p[2] - s.top;
    if (Math.abs(p[0] - c[0]) <= s.half[0] && Math.abs(p[1] - c[1]) <= s.half[1] && dz > 0 && dz < 0.08) mass += t.mass;
  }
  return mass;
}

export function lockEngaged(m: Mechanics, data: MjData, st: WorldState, i: number): boolean {
  const l = m.locks[i];
  if (l.lever) return !st.released[i];
  if (l.sensor) return massOn(m, data, l.sensor.surface, st) < l.sensor.minMass;
  return false;
}

/**
 * One physics step with the world's own mechanics: the grasp spring, locks and the sensor, then mj_step, then the
 * grasp/slip/lock-release rules. The real world and every MPC rollout step through this same function.
 */
export function stepWorld(m: Mechanics, data: MjData, st: WorldState, grabbable: number[], log: Logger): void {
  const v = views(data);
  const xfrc = v.xfrc_applied;
  xfrc.fill(0);
  const qfrc = v.qfrc_applied;
  const dt = modelViews(m.model).timestep;
  if (st.held >= 0) {
    const t = m.things[st.held];
    const pp = pointPosition(data, { kind: "body", id: m.palmBody });
    const gp = pointPosition(data, t.point);
    const dx = pp[0] - gp[0],
      dy = pp[1] - gp[1],
      dz = pp[2] - gp[2];
    const stretch = Math.hypot(dx, dy, dz);
    if (stretch > SLIP_STRETCH) {
      st.held = -1;
      log?.({
        kind: "released",
        robot: "palm",
        object: t.name,
        detail: `grasp slipped: ${t.name} pulled ${(stretch * 100).toFixed(1)} cm from the palm`,
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
      const b = t.body;
      const com = v.xipos.subarray(3 * b, 3 * b + 3);
      const rx = gp[0] - com[0],
        ry = gp[1] - com[1],
        rz = gp[2] - com[2];
      xfrc[6 * b] += fx;
      xfrc[6 * b + 1] += fy;
      xfrc[6 * b + 2] += fz;
      xfrc[6 * b + 3] += ry * fz - rz * fy;
      xfrc[6 * b + 4] += rz * fx - rx * fz;
      xfrc[6 * b + 5] += rx * fy - ry * fx;
      const pb = m.palmBody;
      xfrc[6 * pb] -= fx;
      xfrc[6 * pb + 1] -= fy;
      xfrc[6 * pb + 2] -= fz;
      if (t.free) holdOrientation(m, data, st, t, xfrc);
    }
  }
  for (let i = 0; i < m.locks.length; i++) {
    const j = m.locks[i].joint;
    const q = v.qpos[j.qpos];
    qfrc[j.dof] = q < LOCK_LATCH && lockEngaged(m, data, st, i) ? -LOCK_K * q - LOCK_C * v.qvel[j.dof] : 0;
  }
  m.mj.mj_step(m.model, data);
  if (st.held < 0 && grabbable.length > 0) {
    const pp = pointPosition(data, { kind: "body", id: m.palmBody });
    for (const i of grabbable) {
      const gp = pointPosition(data, m.things[i].point);
      if (Math.hypot(pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]) < GRASP_RADIUS) {
        attach(m, data, st, i);
        log?.({
          kind: "picked",
          robot: "palm",
          object: m.things[i].name,
          detail: `palm grasped the ${m.things[i].name}`,
        });
        break;
      }
    }
  }
  for (let i = 0; i < m.locks.length; i++) {
    const l = m.locks[i];
    if (l.lever && !st.released[i] && jointFraction(data, l.lever.joint) > l.lever.threshold) {
      st.released[i] = true;
      log?.({ kind: "opened", place: l.place, detail: `lock released: the ${l.name} lock opened` });
    }
  }
}

/** Closes the spring grasp on thing `i` (holding a free object upright, as a gripper squares it up). */
export function attach(m: Mechanics, data: MjData, st: WorldState, i: number): void {
  st.held = i;
  const pp = pointPosition(data, { kind: "body", id: m.palmBody });
  const gp = pointPosition(data, m.things[i].point);
  st.prev = [pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]];
  const b = m.things[i].body;
  const q = (data.xquat as Float64Array).subarray(4 * b, 4 * b + 4);
  st.holdQuat = [q[0], q[1], q[2], q[3]];
  if (!m.things[i].free) return;
  // A gripper closing on two faces squares the object up: hold it with its most upward axis turned to vertical, so
  // a cube that fell over is carried (and set down) upright instead of tilted against a rim.
  const mat = (data.xmat as Float64Array).subarray(9 * b, 9 * b + 9);
  let k = 0;
  for (let j = 1; j < 3; j++) if (Math.abs(mat[6 + j]) > Math.abs(mat[6 + k])) k = j;
  const sgn = Math.sign(mat[6 + k]) || 1;
  const u = [sgn * mat[k], sgn * mat[3 + k], sgn * mat[6 + k]];
  const angle = Math.acos(Math.min(1, u[2]));
  const n = Math.hypot(u[1], u[0]);
  if (angle < 1e-3 || n < 1e-9) return;
  const c = Math.cos(angle / 2),
    sn = Math.sin(angle / 2) / n;
  const a = [c, u[1] * sn, -u[0] * sn, 0]; // rotation about u × z taking u to vertical
  st.holdQuat = [
    a[0] * q[0] - a[1] * q[1] - a[2] * q[2] - a[3] * q[3],
    a[0] * q[1] + a[1] * q[0] + a[2] * q[3] - a[3] * q[2],
    a[0] * q[2] - a[1] * q[3] + a[2] * q[0] + a[3] * q[1],
    a[0] * q[3] + a[1] * q[2] - a[2] * q[1] + a[3] * q[0],
  ];
}

/** A gripper holds what it grasps rigidly: a critically damped rotational spring back to the grasp orientation. */
function holdOrientation(m: Mechanics, data: MjData, st: WorldState, t: Thing, xfrc: Float64Array): void {
  const b = t.body;
  const dv = views(data);
  const q = dv.xquat.subarray(4 * b, 4 * b + 4);
  const h = st.holdQuat;
  // e = q ⊗ conj(h): the world-frame rotation from the held orientation to the current one.
  const w = q[0] * h[0] + q[1] * h[1] + q[2] * h[2] + q[3] * h[3];
  let x = -q[0] * h[1] + q[1] * h[0] - q[2] * h[3] + q[3] * h[2];
  let y = -q[0] * h[2] + q[1] * h[3] + q[2] * h[0] - q[3] * h[1];
  let z = -q[0] * h[3] - q[1] * h[2] + q[2] * h[1] + q[3] * h[0];
  const s = w < 0 ? -2 : 2; // small-angle rotation vector ≈ 2·(x, y, z), on the short way round
  x *= s;
  y *= s;
  z *= s;
  // Free-joint angular velocity is in the body frame; rotate it to the world frame.
  const v = dv.qvel;
  const mat = dv.xmat.subarray(9 * b, 9 * b + 9);
  const a0 = v[t.dof + 3],
    a1 = v[t.dof + 4],
    a2 = v[t.dof + 5];
  const wx = mat[0] * a0 + mat[1] * a1 + mat[2] * a2,
    wy = mat[3] * a0 + mat[4] * a1 + mat[5] * a2,
    wz = mat[6] * a0 + mat[7] * a1 + mat[8] * a2;
  // Gains per principal axis (a long thin bar is ~200x easier to roll than to yaw); explicit torques with one
  // gain for all axes would be unstable about the light one.
  const R = dv.ximat.subarray(9 * b, 9 * b + 9);
  const I = modelViews(m.model).body_inertia.subarray(3 * b, 3 * b + 3);
  for (let k = 0; k < 3; k++) {
    const r = R[k] * x + R[3 + k] * y + R[6 + k] * z; // rotation error along principal axis k
    const w = R[k] * wx + R[3 + k] * wy + R[6 + k] * wz;
    const tau = -I[k] * HOLD_OMEGA * HOLD_OMEGA * r - 2 * I[k] * HOLD_OMEGA * w;
    xfrc[6 * b + 3] += R[k] * tau;
    xfrc[6 * b + 4] += R[3 + k] * tau;
    xfrc[6 * b + 5] += R[6 + k] * tau;
  }
}

/** Palm position targets into the actuators' controls. */
export function setControl(data: MjData, target: number[]): void {
  const c = views(data).ctrl;
  c[0] = target[0];
  c[1] = target[1];
  c[2] = target[2];
}

function copyState(m: Mechanics, from: MjData, to: MjData): void {
  const f = views(from),
    t = views(to);
  for (const k of STATE_FIELDS) t[k].set(f[k]);
  to.time = from.time;
  m.mj.mj_forward(m.model, to);
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
  return compiled.terms.map((t) => {
    const residual = t.residual(data);
    return {
      term: t.text,
      residual: Math.round(residual * 1000) / 1000,
      tolerance: t.tolerance,
      met: residual <= t.tolerance,
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
  const palmTargets = program.terms.flatMap((t) =>
    t.kind === "minimize_l2_distance" && (t.a === "palm" || t.b === "palm") ? [t.a === "palm" ? t.b : t.a] : [],
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
  let t = 0,
    metFor = 0,
    nextPlan = 0,
    nextFeedback = 0,
    nextCheck = 0;
  // A "grab X" step keeps hold of X; any other motion lets go at its end.
  const p = program.terms.find((x) => x.primary)!;
  const grabStep = p.kind === "minimize_l2_distance" && (p.a === "palm" || p.b === "palm");
  let residual = primary.residual(body.data);
  while (t < program.duration - 1e-9) {
    if (t >= nextPlan - 1e-9) {
      nominal = planOnce(model, nominal.shifted(body.data.time as number), rng, body.mpc).best;
      body.plan = nominal;
      nextPlan += PLAN_EVERY;
    }
    yield;
    t += TICK;
    residual = primary.residual(body.data);
    metFor = residual <= primary.tolerance ? metFor + TICK : 0;
    if (t >= nextFeedback) {
      ctx.feedback({
        t: Math.round(t * 100) / 100,
        primaryResidual: Math.round(residual * 1000) / 1000,
        holding: body.heldName(),
      });
      nextFeedback += 0.25;
    }
    // Stop once the primary term has held for a while and would still hold after letting go (checked by
    // simulating the release and settling on a copy — a dropped bar may roll back, a flung door bounce).
    if (metFor >= MET_HOLD - 1e-9 && t >= nextCheck - 1e-9) {
      nextCheck = t + PLAN_EVERY;
      if (holdsAfterRelease(body, compiled, grabStep)) break;
    }
  }
  const duration = t;
  if (!grabStep) release(body, "motion ended");
  body.grabbable = [];
  body.plan = Spline.constant(body.palmPosition(), body.mpc.knots, body.data.time as number, body.mpc.horizon);
  for (let s = 0; s < SETTLE - 1e-9; s += TICK) yield;
  const terms = termReports(body.data, compiled);
  const prim = terms[compiled.terms.indexOf(primary)];
  // Bringing a thing to a surface means it ends up resting there (inside a crate's rim, upright, still); a cube
  // perched on another or tilted on the rim is near, but not placed.
  const pair = p.kind === "minimize_l2_distance" && ![p.a, p.b].includes("palm") ? [p.a, p.b] : [];
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
    .map((x) => `${x.term.replace(/  #.*$/, "")} residual ${x.residual.toFixed(2)} > ${x.tolerance.toFixed(2)}`);
  out.message = prim.met
    ? `primary term ${prim.term.replace(/  #.*$/, "")} met: residual ${prim.residual.toFixed(3)} <= ${prim.tolerance.toFixed(2)} after ${duration.toFixed(2)} s${report.holding ? `; holding ${report.holding}` : ""}`
    : `primary term ${prim.term.replace(/  #.*$/, "")} not met: residual ${prim.residual.toFixed(2)} > ${prim.tolerance.toFixed(2)} after ${duration.toFixed(1)} s; unmet: ${unmet.join("; ")}`;
  body.log({
    kind: "moved",
    robot: "palm",
    detail: `motion ${index} ended: ${terms.map((x) => `${x.term.replace(/  #.*$/, "")} = ${x.residual.toFixed(3)}`).join("; ")}`,
  });
}

/** Simulates the end of the motion (release unless a grab step, palm still, settle) on the scratch copy. */
function holdsAfterRelease(body: PalmBody, compiled: CompiledProgram, grabStep: boolean): boolean {
  copyState(body, body.data, body.scratch);
  const st = cloneState(body.st);
  if (!grabStep) st.held = -1;
  const still = body.palmPosition();
  const n = Math.round(SETTLE / modelViews(body.model).timestep);
  for (let i = 0; i < n; i++) {
    setControl(body.scratch, still);
    stepWorld(body, body.scratch, st, [], null);
  }
  return compiled.primary.residual(body.scratch) <= compiled.primary.tolerance;
}
