/**
 * The tabletop world (RePLan's scenes): MuJoCo physics, a floating palm with a virtual spring gripper, locks, a weight
 * sensor, the `execute_motion` skill run by a predictive-sampling MPC over reward terms, a front camera with a
 * detector, an event log and the goal check. Agents never import this: they reach it over the bridge.
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame } from "../camera";
import { type DetectionsMessage as BaseDetections, detectObjects, type DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { SimClock, type Motion } from "../clock";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import { Rng } from "../random";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, parseLiteral, type RobotManifest, type WorldDescription } from "../../manifests";
import { MotionProgram, termText } from "../../msgs/motion";
import { buildScene, type SceneName, type SceneSpec } from "./scenes";
import { compileProgram, jointFraction, pointPosition, unknownNames, type CompiledProgram, type JointRef, type Point, type Resolver } from "./rewards";
import { DEFAULT_MPC, planOnce, Spline, type MpcOptions, type RolloutModel } from "./mpc";
import { describeScene } from "./scenario";

export interface TabletopOptions {
  scene: SceneName;
  seed?: number;
  noise?: Partial<DetectorNoise>;
  width?: number;
  height?: number;
  /** Simulated seconds per wall second (Infinity: as fast as possible). */
  speed?: number;
  mpc?: Partial<MpcOptions>;
}

/** Tabletop detections always carry a colour (task 6 is decided by it). */
export type DetectionsMessage = BaseDetections & { detections: (BaseDetections["detections"][number] & { color: string })[] };

export interface TermReport {
  term: string;
  residual: number;
  tolerance: number;
  met: boolean;
}

// ---- constants (why: see the spec of the palm in the manifest) ----------------------------------------------------
export const PALM_REST = [0, -0.35, 0.45];
const WORKSPACE = { min: [-0.6, -0.6, 0.02], max: [0.6, 0.6, 0.7] };
const TICK = 0.02;
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
const CAMERA_EYE: [number, number, number] = [0, -0.82, 0.62];
const CAMERA_TARGET: [number, number, number] = [0, 0.12, 0.08];

interface Thing {
  name: string;
  kind: "object" | "handle";
  body: number;
  point: Point;
  free: boolean;
  /** qvel address of a free joint. */
  dof: number;
  /** Largest principal inertia (orientation hold gains). */
  inertia: number;
  mass: number;
  /** Height of the body origin when resting upright on the floor. */
  restHeight: number;
}

/** Per-step world state beyond MjData; copied into rollouts with the physics. */
interface WorldState {
  held: number;
  /** Palm-minus-grasp-point offset at the previous step (spring damping by finite difference). */
  prev: [number, number, number];
  /** World orientation to hold a grasped free object at. */
  holdQuat: [number, number, number, number];
  /** Per lock: released for good (lever locks). */
  released: boolean[];
}

const cloneState = (s: WorldState): WorldState => ({ held: s.held, prev: [...s.prev], holdQuat: [...s.holdQuat], released: [...s.released] });

type Logger = ((e: Omit<SimEvent, "t" | "step">) => void) | null;

export class TabletopWorld implements Resolver {
  readonly name = "tabletop";
  readonly manifests: RobotManifest[] = bundledManifests("tabletop");
  readonly events = new EventLog();
  readonly clock: SimClock;
  readonly description: WorldDescription;
  readonly mpc: MpcOptions;
  private readonly scratch: MjData;
  private st: WorldState;
  private things: Thing[] = [];
  private thingIndex = new Map<string, number>();
  private points = new Map<string, Point>();
  private joints = new Map<string, JointRef>();
  private labels: string[];
  private geomToLabel: Int32Array;
  private geomToPlace: Int32Array;
  private geomInside: Int32Array;
  private placeNames: string[];
  private palmBody: number;
  private palmQpos: number[];
  private plan: Spline;
  private grabbable: number[] = [];
  private locks: { joint: JointRef; lever?: { joint: JointRef; threshold: number }; sensor?: { surface: SceneSpec["surfaces"][number]; minMass: number }; name: string; place: string }[];
  private camera: RayCamera;
  private rng: Rng;
  private noise: DetectorNoise;
  private busy = false;
  private motions = 0;
  private skillsEnded = 0;
  private seed: number;
  private detected = new Set<string>();
  private upright = new Map<string, boolean>();
  private sensorEngaged: boolean[] = [];
  /** Wall and simulated seconds spent in motions (for the benchmark). */
  readonly stats = { wall: 0, simulated: 0, rolloutSteps: 0 };

  private constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly scene: SceneSpec,
    opts: TabletopOptions,
  ) {
    this.seed = opts.seed ?? 0;
    this.rng = new Rng(this.seed);
    this.mpc = { ...DEFAULT_MPC, ...opts.mpc };
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.scratch = new mj.MjData(model);
    this.clock = new SimClock(TICK, () => this.stepTick(), opts.speed ?? Infinity);
    const id = (type: string, name: string) => mj.mj_name2id(model, mj.mjtObj[type].value, name) as number;
    const must = (type: string, name: string) => {
      const i = id(type, name);
      if (i < 0) throw new Error(`scene ${scene.name}: no ${type} ${name}`);
      return i;
    };
    this.palmBody = must("mjOBJ_BODY", "palm");
    this.points.set("palm", { kind: "body", id: this.palmBody });
    const jntQpos = model.jnt_qposadr as Int32Array, jntDof = model.jnt_dofadr as Int32Array, range = model.jnt_range as Float64Array;
    this.palmQpos = ["palm_x", "palm_y", "palm_z"].map((j) => jntQpos[must("mjOBJ_JOINT", j)]);
    const bodyMass = model.body_mass as Float64Array, bodyInertia = model.body_inertia as Float64Array;
    const geomBody = model.geom_bodyid as Int32Array;
    for (const o of scene.objects) {
      const b = must("mjOBJ_BODY", o);
      const j = must("mjOBJ_JOINT", o);
      // Lowest point of the body's geoms below its origin (geoms are authored upright: boxes, cylinders, spheres).
      let bottom = 0;
      for (let g = 0; g < (model.ngeom as number); g++) {
        if (geomBody[g] !== b) continue;
        const type = (model.geom_type as Int32Array)[g];
        const size = (model.geom_size as Float64Array).subarray(3 * g, 3 * g + 3);
        const half = type === mj.mjtGeom.mjGEOM_BOX.value ? size[2] : type === mj.mjtGeom.mjGEOM_SPHERE.value ? size[0] : size[1];
        bottom = Math.max(bottom, half - (model.geom_pos as Float64Array)[3 * g + 2]);
      }
      this.addThing({ name: o, kind: "object", body: b, point: { kind: "body", id: b }, free: true, dof: jntDof[j], inertia: Math.max(bodyInertia[3 * b], bodyInertia[3 * b + 1], bodyInertia[3 * b + 2]), mass: bodyMass[b], restHeight: bottom });
    }
    for (const j of scene.joints) {
      const g = must("mjOBJ_GEOM", j.handle);
      this.addThing({ name: j.handle, kind: "handle", body: geomBody[g], point: { kind: "geom", id: g }, free: false, dof: -1, inertia: 0, mass: bodyMass[geomBody[g]], restHeight: 0 });
      const ji = must("mjOBJ_JOINT", j.name);
      this.joints.set(j.name, { qpos: jntQpos[ji], dof: jntDof[ji], closed: range[2 * ji], open: range[2 * ji + 1] });
    }
    for (const c of scene.containers) this.points.set(c.name, { kind: "site", id: must("mjOBJ_SITE", c.name) });
    for (const s of scene.surfaces) this.points.set(s.name, { kind: "site", id: must("mjOBJ_SITE", s.site) });
    for (const fx of scene.fixtures) this.points.set(fx.name, { kind: "site", id: must("mjOBJ_SITE", fx.name) });
    for (const t of scene.targets) this.points.set(t.name, { kind: "site", id: must("mjOBJ_SITE", t.name) });
    this.locks = scene.locks.map((l) => {
      const owner = scene.joints.find((j) => j.name === l.joint)!;
      return {
        name: l.joint,
        place: owner.object,
        joint: this.joints.get(l.joint)!,
        lever: l.lever ? { joint: this.joints.get(l.lever.joint)!, threshold: l.lever.threshold } : undefined,
        sensor: l.sensor ? { surface: scene.surfaces.find((s) => s.name === l.sensor!.surface)!, minMass: l.sensor.minMass } : undefined,
      };
    });

    this.description = describeScene(scene);
    this.labels = this.description.labels;
    const labelIndex = new Map(this.labels.map((l, i) => [l, i]));
    this.placeNames = this.description.places.map((p) => p.name);
    const placeIndex = new Map(this.placeNames.map((p, i) => [p, i]));
    const interior = new Set([...scene.containers.flatMap((c) => c.interior), "crate__floor", "weight_sensor__plate", "floor"]);
    const ng = model.ngeom as number;
    this.geomToLabel = new Int32Array(ng).fill(-1);
    this.geomToPlace = new Int32Array(ng).fill(-1);
    this.geomInside = new Int32Array(ng).fill(0);
    for (let g = 0; g < ng; g++) {
      const name = (mj.mj_id2name(model, mj.mjtObj.mjOBJ_GEOM.value, g) as string | null) ?? "";
      const label = name.split("__")[0];
      this.geomToLabel[g] = labelIndex.get(label) ?? -1;
      this.geomToPlace[g] = placeIndex.get(label) ?? -1;
      if (interior.has(name)) this.geomInside[g] = 1;
    }
    this.camera = new RayCamera(mj, opts.width ?? 320, opts.height ?? 240, 70);
    this.st = { held: -1, prev: [0, 0, 0], holdQuat: [1, 0, 0, 0], released: this.locks.map(() => false) };
    this.plan = Spline.constant(PALM_REST, this.mpc.knots, 0, this.mpc.horizon);
    this.reset();
  }

  static async create(opts: TabletopOptions): Promise<TabletopWorld> {
    const mj = await mujoco();
    const spec = buildScene(opts.scene);
    const model = mj.MjModel.from_xml_string(spec.xml);
    const data = new mj.MjData(model);
    return new TabletopWorld(mj, model, data, spec, opts);
  }

  private addThing(t: Thing): void {
    this.thingIndex.set(t.name, this.things.length);
    this.things.push(t);
    this.points.set(t.name, t.point);
  }

  // ---- Resolver (reward terms) ----------------------------------------------------------------------------------
  point(name: string): Point | undefined {
    return this.points.get(name);
  }
  joint(name: string): JointRef | undefined {
    return this.joints.get(name);
  }
  body(name: string): number | undefined {
    const i = this.thingIndex.get(name);
    return i !== undefined && this.things[i].free ? this.things[i].body : undefined;
  }
  restHeight(name: string): number | undefined {
    const i = this.thingIndex.get(name);
    return i !== undefined && this.things[i].free ? this.things[i].restHeight : undefined;
  }
  /** Every name a term may use. */
  validNames(): { things: string[]; joints: string[] } {
    return { things: [...this.points.keys()], joints: [...this.joints.keys()] };
  }

  async close(): Promise<void> {
    await this.clock.stop();
    this.camera.dispose();
    this.scratch.delete();
    this.data.delete();
    this.model.delete();
  }

  // ---- state and physics ----------------------------------------------------------------------------------------

  private reset(): void {
    const q = this.data.qpos as Float64Array;
    this.palmQpos.forEach((a, i) => (q[a] = PALM_REST[i]));
    (this.data.ctrl as Float64Array).set(PALM_REST);
    for (const [j, v] of Object.entries(this.scene.initialJoints)) q[this.joints.get(j)!.qpos] = v;
    this.mj.mj_forward(this.model, this.data);
    // Let contacts settle (objects were placed by hand), so the episode starts at rest.
    for (let i = 0; i < 150; i++) this.stepWorld(this.data, this.st, [], null);
    (this.data.qvel as Float64Array).fill(0);
    this.data.time = 0;
    this.mj.mj_forward(this.model, this.data);
    for (const o of this.scene.objects) this.upright.set(o, this.isUpright(o));
    this.sensorEngaged = this.locks.map((_, i) => this.lockEngaged(this.data, this.st, i));
  }

  palmPosition(data: MjData = this.data): number[] {
    return pointPosition(data, { kind: "body", id: this.palmBody });
  }

  clamp(p: number[]): void {
    for (let d = 0; d < 3; d++) p[d] = Math.min(WORKSPACE.max[d], Math.max(WORKSPACE.min[d], p[d]));
  }

  /** Total mass of free objects resting on a surface (not held). */
  private massOn(data: MjData, s: SceneSpec["surfaces"][number], st: WorldState): number {
    const site = this.points.get(s.name)!;
    const c = pointPosition(data, site);
    let m = 0;
    for (let i = 0; i < this.things.length; i++) {
      const t = this.things[i];
      if (!t.free || i === st.held) continue;
      const p = pointPosition(data, t.point);
      const dz = p[2] - s.top;
      if (Math.abs(p[0] - c[0]) <= s.half[0] && Math.abs(p[1] - c[1]) <= s.half[1] && dz > 0 && dz < 0.08) m += t.mass;
    }
    return m;
  }

  private lockEngaged(data: MjData, st: WorldState, i: number): boolean {
    const l = this.locks[i];
    if (l.lever) return !st.released[i];
    if (l.sensor) return this.massOn(data, l.sensor.surface, st) < l.sensor.minMass;
    return false;
  }

  /**
   * One physics step with the world's own mechanics: the grasp spring, locks and the sensor, then mj_step, then the
   * grasp/slip/lock-release rules. The real world and every MPC rollout step through this same function.
   */
  stepWorld(data: MjData, st: WorldState, grabbable: number[], log: Logger): void {
    const xfrc = data.xfrc_applied as Float64Array;
    xfrc.fill(0);
    const qfrc = data.qfrc_applied as Float64Array;
    const dt = this.model.opt.timestep as number;
    if (st.held >= 0) {
      const t = this.things[st.held];
      const pp = pointPosition(data, { kind: "body", id: this.palmBody });
      const gp = pointPosition(data, t.point);
      const dx = pp[0] - gp[0], dy = pp[1] - gp[1], dz = pp[2] - gp[2];
      const stretch = Math.hypot(dx, dy, dz);
      if (stretch > SLIP_STRETCH) {
        st.held = -1;
        log?.({ kind: "released", robot: "palm", object: t.name, detail: `grasp slipped: ${t.name} pulled ${(stretch * 100).toFixed(1)} cm from the palm` });
      } else {
        let fx = GRASP_K * dx + (GRASP_C * (dx - st.prev[0])) / dt;
        let fy = GRASP_K * dy + (GRASP_C * (dy - st.prev[1])) / dt;
        let fz = GRASP_K * dz + (GRASP_C * (dz - st.prev[2])) / dt;
        st.prev[0] = dx; st.prev[1] = dy; st.prev[2] = dz;
        const fn = Math.hypot(fx, fy, fz);
        if (fn > GRIP_MAX) {
          fx *= GRIP_MAX / fn; fy *= GRIP_MAX / fn; fz *= GRIP_MAX / fn;
        }
        const b = t.body;
        const com = (data.xipos as Float64Array).subarray(3 * b, 3 * b + 3);
        const rx = gp[0] - com[0], ry = gp[1] - com[1], rz = gp[2] - com[2];
        xfrc[6 * b] += fx; xfrc[6 * b + 1] += fy; xfrc[6 * b + 2] += fz;
        xfrc[6 * b + 3] += ry * fz - rz * fy; xfrc[6 * b + 4] += rz * fx - rx * fz; xfrc[6 * b + 5] += rx * fy - ry * fx;
        const pb = this.palmBody;
        xfrc[6 * pb] -= fx; xfrc[6 * pb + 1] -= fy; xfrc[6 * pb + 2] -= fz;
        if (t.free) this.holdOrientation(data, st, t, xfrc);
      }
    }
    for (let i = 0; i < this.locks.length; i++) {
      const j = this.locks[i].joint;
      const q = (data.qpos as Float64Array)[j.qpos];
      qfrc[j.dof] = q < LOCK_LATCH && this.lockEngaged(data, st, i) ? -LOCK_K * q - LOCK_C * (data.qvel as Float64Array)[j.dof] : 0;
    }
    this.mj.mj_step(this.model, data);
    if (st.held < 0 && grabbable.length > 0) {
      const pp = pointPosition(data, { kind: "body", id: this.palmBody });
      for (const i of grabbable) {
        const gp = pointPosition(data, this.things[i].point);
        if (Math.hypot(pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]) < GRASP_RADIUS) {
          this.attach(data, st, i);
          log?.({ kind: "picked", robot: "palm", object: this.things[i].name, detail: `palm grasped the ${this.things[i].name}` });
          break;
        }
      }
    }
    for (let i = 0; i < this.locks.length; i++) {
      const l = this.locks[i];
      if (l.lever && !st.released[i] && jointFraction(data, l.lever.joint) > l.lever.threshold) {
        st.released[i] = true;
        log?.({ kind: "opened", place: l.place, detail: `lock released: the ${l.name} lock opened` });
      }
    }
  }

  private attach(data: MjData, st: WorldState, i: number): void {
    st.held = i;
    const pp = pointPosition(data, { kind: "body", id: this.palmBody });
    const gp = pointPosition(data, this.things[i].point);
    st.prev = [pp[0] - gp[0], pp[1] - gp[1], pp[2] - gp[2]];
    const b = this.things[i].body;
    const q = (data.xquat as Float64Array).subarray(4 * b, 4 * b + 4);
    st.holdQuat = [q[0], q[1], q[2], q[3]];
    if (!this.things[i].free) return;
    // A gripper closing on two faces squares the object up: hold it with its most upward axis turned to vertical, so
    // a cube that fell over is carried (and set down) upright instead of tilted against a rim.
    const m = (data.xmat as Float64Array).subarray(9 * b, 9 * b + 9);
    let k = 0;
    for (let j = 1; j < 3; j++) if (Math.abs(m[6 + j]) > Math.abs(m[6 + k])) k = j;
    const sgn = Math.sign(m[6 + k]) || 1;
    const u = [sgn * m[k], sgn * m[3 + k], sgn * m[6 + k]];
    const angle = Math.acos(Math.min(1, u[2]));
    const n = Math.hypot(u[1], u[0]);
    if (angle < 1e-3 || n < 1e-9) return;
    const c = Math.cos(angle / 2), sn = Math.sin(angle / 2) / n;
    const a = [c, u[1] * sn, -u[0] * sn, 0]; // rotation about u × z taking u to vertical
    st.holdQuat = [
      a[0] * q[0] - a[1] * q[1] - a[2] * q[2] - a[3] * q[3],
      a[0] * q[1] + a[1] * q[0] + a[2] * q[3] - a[3] * q[2],
      a[0] * q[2] - a[1] * q[3] + a[2] * q[0] + a[3] * q[1],
      a[0] * q[3] + a[1] * q[2] - a[2] * q[1] + a[3] * q[0],
    ];
  }

  /** A gripper holds what it grasps rigidly: a critically damped rotational spring back to the grasp orientation. */
  private holdOrientation(data: MjData, st: WorldState, t: Thing, xfrc: Float64Array): void {
    const b = t.body;
    const q = (data.xquat as Float64Array).subarray(4 * b, 4 * b + 4);
    const h = st.holdQuat;
    // e = q ⊗ conj(h): the world-frame rotation from the held orientation to the current one.
    const w = q[0] * h[0] + q[1] * h[1] + q[2] * h[2] + q[3] * h[3];
    let x = -q[0] * h[1] + q[1] * h[0] - q[2] * h[3] + q[3] * h[2];
    let y = -q[0] * h[2] + q[1] * h[3] + q[2] * h[0] - q[3] * h[1];
    let z = -q[0] * h[3] - q[1] * h[2] + q[2] * h[1] + q[3] * h[0];
    const s = w < 0 ? -2 : 2; // small-angle rotation vector ≈ 2·(x, y, z), on the short way round
    x *= s; y *= s; z *= s;
    // Free-joint angular velocity is in the body frame; rotate it to the world frame.
    const v = data.qvel as Float64Array;
    const m = (data.xmat as Float64Array).subarray(9 * b, 9 * b + 9);
    const a0 = v[t.dof + 3], a1 = v[t.dof + 4], a2 = v[t.dof + 5];
    const wx = m[0] * a0 + m[1] * a1 + m[2] * a2, wy = m[3] * a0 + m[4] * a1 + m[5] * a2, wz = m[6] * a0 + m[7] * a1 + m[8] * a2;
    // Gains per principal axis (a long thin bar is ~200x easier to roll than to yaw); explicit torques with one
    // gain for all axes would be unstable about the light one.
    const R = (data.ximat as Float64Array).subarray(9 * b, 9 * b + 9);
    const I = (this.model.body_inertia as Float64Array).subarray(3 * b, 3 * b + 3);
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
  private setControl(data: MjData, target: number[]): void {
    const c = data.ctrl as Float64Array;
    c[0] = target[0]; c[1] = target[1]; c[2] = target[2];
  }

  private stepTick(): void {
    const n = Math.round(TICK / (this.model.opt.timestep as number));
    const target = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      this.plan.at(this.data.time as number, target);
      this.clamp(target);
      this.setControl(this.data, target);
      this.stepWorld(this.data, this.st, this.grabbable, (e) => this.log(e));
    }
    // Sensor locks follow the plate's load; log each change (lever locks log their release in stepWorld).
    this.locks.forEach((l, i) => {
      if (!l.sensor) return;
      const engaged = this.lockEngaged(this.data, this.st, i);
      if (engaged !== this.sensorEngaged[i]) {
        this.sensorEngaged[i] = engaged;
        this.log({ kind: engaged ? "closed" : "opened", place: l.place, detail: `lock ${engaged ? "engaged" : "released"}: the ${l.sensor.surface} ${engaged ? "is unloaded" : "is loaded"}` });
      }
    });
  }

  private copyState(from: MjData, to: MjData): void {
    for (const k of ["qpos", "qvel", "act", "ctrl", "qacc_warmstart", "xfrc_applied", "qfrc_applied"]) (to[k] as Float64Array).set(from[k] as Float64Array);
    to.time = from.time;
    this.mj.mj_forward(this.model, to);
  }

  private log(e: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.clock.time * 1000) / 1000, step: this.skillsEnded, ...e });
  }

  heldName(): string | null {
    return this.st.held >= 0 ? this.things[this.st.held].name : null;
  }

  private release(reason: string): void {
    if (this.st.held < 0) return;
    const name = this.things[this.st.held].name;
    this.st.held = -1;
    this.log({ kind: "released", robot: "palm", object: name, detail: reason });
  }

  // ---- the skill --------------------------------------------------------------------------------------------------

  async runSkill(robot: string, skill: string, args: Record<string, unknown>, ctx: ActionContext): Promise<ActionOutcome> {
    const fail = (message: string, extra: Record<string, unknown> = {}): ActionOutcome => ({ status: "aborted", values: { success: false, message, error: message, ...extra } });
    if (robot !== "palm" || skill !== "execute_motion") return fail(`unknown skill ${robot}.${skill}; the palm has execute_motion`);
    if (this.busy) return fail("the palm is busy with another motion");
    const parsed = MotionProgram.safeParse(args);
    if (!parsed.success) return fail(`invalid motion program: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(program)"}: ${i.message}`).join("; ")}`);
    const program = parsed.data;
    const unknown = program.terms.flatMap((t) => unknownNames(t, this));
    if (unknown.length) {
      const v = this.validNames();
      return fail(`unknown name(s) ${[...new Set(unknown)].join(", ")}; things: ${v.things.join(", ")}; joints: ${v.joints.join(", ") || "(none)"}`);
    }
    this.busy = true;
    const index = this.motions++;
    this.log({ kind: "skill_started", robot, skill, goalId: ctx.goalId, detail: program.terms.map((t) => termText(t)).join("; ") });
    const compiled = compileProgram(program.terms, this);
    const result: { canceled?: boolean; report?: Record<string, unknown>; message?: string; ok?: boolean } = {};
    const wall0 = performance.now(), sim0 = this.clock.time;
    try {
      const r = await this.clock.run(this.motion(program, compiled, index, ctx, result), ctx.signal);
      if (r === "canceled") result.canceled = true;
    } catch (err) {
      result.ok = false;
      result.message = `motion failed: ${(err as Error).message}`;
    } finally {
      this.busy = false;
      this.grabbable = [];
    }
    this.stats.wall += (performance.now() - wall0) / 1000;
    this.stats.simulated += this.clock.time - sim0;
    this.skillsEnded++;
    this.checkFalls();
    const values = { success: !!result.ok && !result.canceled, message: result.canceled ? "execute_motion was canceled" : result.message ?? "", ...result.report };
    this.log({ kind: values.success ? "skill_succeeded" : result.canceled ? "skill_canceled" : "skill_failed", robot, skill, goalId: ctx.goalId, detail: values.message });
    if (result.canceled) return { status: "canceled", values };
    return values.success ? { status: "succeeded", values } : { status: "aborted", values: { ...values, error: values.message } };
  }

  private report(compiled: CompiledProgram): TermReport[] {
    return compiled.terms.map((t) => {
      const residual = t.residual(this.data);
      return { term: t.text, residual: Math.round(residual * 1000) / 1000, tolerance: t.tolerance, met: residual <= t.tolerance };
    });
  }

  private *motion(program: MotionProgram, compiled: CompiledProgram, index: number, ctx: ActionContext, out: { report?: Record<string, unknown>; message?: string; ok?: boolean }): Motion {
    const rng = new Rng((this.seed * 1_000_003 + index * 7919 + 1) >>> 0);
    // Which things the palm may grasp during this motion: those a term brings the palm to.
    const palmTargets = program.terms.flatMap((t) => (t.kind === "minimize_l2_distance" && (t.a === "palm" || t.b === "palm") ? [t.a === "palm" ? t.b : t.a] : []));
    const held = this.heldName();
    if (held && palmTargets.length > 0 && !palmTargets.includes(held)) this.release(`released the ${held} to reach for ${palmTargets.join(", ")}`);
    this.grabbable = palmTargets.map((n) => this.thingIndex.get(n)).filter((i): i is number => i !== undefined);
    this.mj.mj_forward(this.model, this.data);

    const rolloutState = { st: cloneState(this.st) };
    const model: RolloutModel = {
      dt: this.model.opt.timestep as number,
      reset: () => {
        this.copyState(this.data, this.scratch);
        rolloutState.st = cloneState(this.st);
      },
      step: (target) => {
        this.setControl(this.scratch, target);
        this.stepWorld(this.scratch, rolloutState.st, this.grabbable, null);
        this.stats.rolloutSteps++;
      },
      cost: () => compiled.cost(this.scratch),
      clamp: (p) => this.clamp(p),
    };

    const primary = compiled.primary;
    let nominal = Spline.constant(this.palmPosition(), this.mpc.knots, this.data.time as number, this.mpc.horizon);
    let t = 0, metFor = 0, nextPlan = 0, nextFeedback = 0, nextCheck = 0;
    // A "grab X" step keeps hold of X; any other motion lets go at its end.
    const p = program.terms.find((x) => x.primary)!;
    const grabStep = p.kind === "minimize_l2_distance" && (p.a === "palm" || p.b === "palm");
    let residual = primary.residual(this.data);
    while (t < program.duration - 1e-9) {
      if (t >= nextPlan - 1e-9) {
        nominal = planOnce(model, nominal.shifted(this.data.time as number), rng, this.mpc).best;
        this.plan = nominal;
        nextPlan += PLAN_EVERY;
      }
      yield;
      t += TICK;
      residual = primary.residual(this.data);
      metFor = residual <= primary.tolerance ? metFor + TICK : 0;
      if (t >= nextFeedback) {
        ctx.feedback({ t: Math.round(t * 100) / 100, primaryResidual: Math.round(residual * 1000) / 1000, holding: this.heldName() });
        nextFeedback += 0.25;
      }
      // Stop once the primary term has held for a while and would still hold after letting go (checked by
      // simulating the release and settling on a copy — a dropped bar may roll back, a flung door bounce).
      if (metFor >= MET_HOLD - 1e-9 && t >= nextCheck - 1e-9) {
        nextCheck = t + PLAN_EVERY;
        if (this.holdsAfterRelease(compiled, grabStep)) break;
      }
    }
    const duration = t;
    if (!grabStep) this.release("motion ended");
    this.grabbable = [];
    this.plan = Spline.constant(this.palmPosition(), this.mpc.knots, this.data.time as number, this.mpc.horizon);
    for (let s = 0; s < SETTLE - 1e-9; s += TICK) yield;
    const terms = this.report(compiled);
    const prim = terms[compiled.terms.indexOf(primary)];
    // Bringing a thing to a surface means it ends up resting there (inside a crate's rim, upright, still); a cube
    // perched on another or tilted on the rim is near, but not placed.
    const pair = p.kind === "minimize_l2_distance" && ![p.a, p.b].includes("palm") ? [p.a, p.b] : [];
    const onto = this.scene.surfaces.find((x) => pair.includes(x.name));
    const placed = onto && pair.find((n) => n !== onto.name);
    if (onto && placed && prim.met && !this.restsOn(placed, onto.name)) {
      prim.met = false;
      prim.term = `${prim.term} (the ${placed} does not rest on the ${onto.name})`;
    }
    const report = { duration_sec: Math.round(duration * 100) / 100, primary: prim, terms, holding: this.heldName() };
    out.report = report;
    out.ok = prim.met;
    const unmet = terms.filter((x) => !x.met).map((x) => `${x.term.replace(/  #.*$/, "")} residual ${x.residual.toFixed(2)} > ${x.tolerance.toFixed(2)}`);
    out.message = prim.met
      ? `primary term ${prim.term.replace(/  #.*$/, "")} met: residual ${prim.residual.toFixed(3)} <= ${prim.tolerance.toFixed(2)} after ${duration.toFixed(2)} s${report.holding ? `; holding ${report.holding}` : ""}`
      : `primary term ${prim.term.replace(/  #.*$/, "")} not met: residual ${prim.residual.toFixed(2)} > ${prim.tolerance.toFixed(2)} after ${duration.toFixed(1)} s; unmet: ${unmet.join("; ")}`;
    this.log({ kind: "moved", robot: "palm", detail: `motion ${index} ended: ${terms.map((x) => `${x.term.replace(/  #.*$/, "")} = ${x.residual.toFixed(3)}`).join("; ")}` });
  }

  /** Simulates the end of the motion (release unless a grab step, palm still, settle) on the scratch copy. */
  private holdsAfterRelease(compiled: CompiledProgram, grabStep: boolean): boolean {
    this.copyState(this.data, this.scratch);
    const st = cloneState(this.st);
    if (!grabStep) st.held = -1;
    const still = this.palmPosition();
    const n = Math.round(SETTLE / (this.model.opt.timestep as number));
    for (let i = 0; i < n; i++) {
      this.setControl(this.scratch, still);
      this.stepWorld(this.scratch, st, [], null);
    }
    return compiled.primary.residual(this.scratch) <= compiled.primary.tolerance;
  }

  private isUpright(name: string): boolean {
    const b = this.things[this.thingIndex.get(name)!].body;
    return (this.data.xmat as Float64Array)[9 * b + 8] > 0.7;
  }

  /** Logs objects that fell over or came to rest somewhere new after a motion. */
  private checkFalls(): void {
    for (const o of this.scene.objects) {
      const up = this.isUpright(o);
      if (o !== "red_bar" && this.upright.get(o) && !up) this.log({ kind: "moved", object: o, detail: `the ${o} fell over` });
      this.upright.set(o, up);
    }
  }

  // ---- queries ------------------------------------------------------------------------------------------------------

  jointFractionOf(name: string): number {
    return jointFraction(this.data, this.joints.get(name)!);
  }

  /** A container is open when any of its doors is more than 30% open. */
  isOpen(container: string): boolean {
    const c = this.scene.containers.find((x) => x.name === container);
    if (!c) return true;
    return c.doors.some((d) => this.jointFractionOf(d.joint) > 0.3);
  }

  private speed(thing: Thing): number {
    const v = this.data.qvel as Float64Array;
    return Math.hypot(v[thing.dof], v[thing.dof + 1], v[thing.dof + 2]);
  }

  /** Where a thing is: held by the palm, in a container, on a surface, or on the floor. */
  locate(name: string): { relation: "in" | "on" | "held_by"; place: string } {
    const i = this.thingIndex.get(name);
    if (i !== undefined && i === this.st.held) return { relation: "held_by", place: "palm" };
    if (i === undefined || !this.things[i].free) return { relation: "on", place: "floor" };
    const p = pointPosition(this.data, this.things[i].point);
    for (const c of this.scene.containers) {
      if (p.every((v, d) => v > c.min[d] && v < c.max[d])) return { relation: "in", place: c.name };
    }
    for (const s of this.scene.surfaces) if (this.restsOn(name, s.name)) return { relation: "on", place: s.name };
    return { relation: "on", place: "floor" };
  }

  /** Resting on a surface: centre over its area (inside a crate's rim) at resting height, still, not held. */
  restsOn(name: string, surface: string): boolean {
    const i = this.thingIndex.get(name);
    const s = this.scene.surfaces.find((x) => x.name === surface);
    if (i === undefined || !s || i === this.st.held || !this.things[i].free) return false;
    const t = this.things[i];
    const p = pointPosition(this.data, t.point);
    const c = pointPosition(this.data, this.points.get(s.name)!);
    const dz = p[2] - s.top;
    return Math.abs(p[0] - c[0]) <= s.half[0] && Math.abs(p[1] - c[1]) <= s.half[1] && dz > 0.015 && dz < 0.045 && this.speed(t) < 0.05;
  }

  inside(name: string, container: string): boolean {
    const i = this.thingIndex.get(name);
    if (i === undefined || i === this.st.held) return false;
    return this.locate(name).place === container && this.speed(this.things[i]) < 0.05;
  }

  // ---- perception ---------------------------------------------------------------------------------------------------

  cameraPose(): CameraPose {
    return lookAt(CAMERA_EYE, CAMERA_TARGET);
  }

  renderFrame(): Frame {
    this.mj.mj_forward(this.model, this.data);
    return this.camera.render(this.model, this.data, this.cameraPose(), -1);
  }

  /** Pixels of each label in a frame. */
  pixelsOf(frame: Frame, label: string): number {
    const e = this.labels.indexOf(label);
    let n = 0;
    for (let i = 0; i < frame.geom.length; i++) if (frame.geom[i] >= 0 && this.geomToLabel[frame.geom[i]] === e) n++;
    return n;
  }

  async renderCamera(robot = "palm"): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: DetectionsMessage }> {
    if (robot !== "palm") throw new Error(`no robot ${robot}`);
    const frame = this.renderFrame();
    const detections = this.detect(frame);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { camera: "front", frame, image, depth, detections };
  }

  detect(frame: Frame): DetectionsMessage {
    const raw = detectObjects(frame, this.geomToLabel, this.labels, this.labels, this.noise, this.rng);
    // Mean colour of each label's own pixels, as a colour classifier on the segmented image would see it.
    const n = this.labels.length;
    const sum = new Float64Array(3 * n), cnt = new Int32Array(n);
    const placePx = new Int32Array(this.placeNames.length), insidePx = new Int32Array(this.placeNames.length);
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g < 0) continue;
      const e = this.geomToLabel[g];
      if (e >= 0) {
        cnt[e]++;
        sum[3 * e] += frame.rgb[3 * i];
        sum[3 * e + 1] += frame.rgb[3 * i + 1];
        sum[3 * e + 2] += frame.rgb[3 * i + 2];
      }
      const p = this.geomToPlace[g];
      if (p >= 0) {
        placePx[p]++;
        if (this.geomInside[g]) insidePx[p]++;
      }
    }
    const detections = raw.map((d) => {
      const e = this.labels.indexOf(d.truth);
      if (d.label === d.truth && !this.detected.has(d.truth)) {
        this.detected.add(d.truth);
        this.log({ kind: "detected", robot: "palm", object: d.truth });
      }
      return { label: d.label, score: d.score, box: d.box, location: this.locate(d.truth), color: colorName(sum[3 * e] / cnt[e], sum[3 * e + 1] / cnt[e], sum[3 * e + 2] / cnt[e]) };
    });
    const places = this.placeNames
      .map((name, i) => ({ name, state: (this.isOpen(name) ? "open" : "closed") as "open" | "closed", pixels: placePx[i], insidePixels: insidePx[i] }))
      .filter((p) => p.pixels >= 50);
    return { header: { stamp: this.stamp(), frame_id: "front_camera" }, robot: "palm", width: frame.width, height: frame.height, detections, places };
  }

  stamp(): { sec: number; nanosec: number } {
    const sec = Math.floor(this.clock.time);
    return { sec, nanosec: Math.round((this.clock.time - sec) * 1e9) };
  }

  // ---- evaluation (evaluator service only) -------------------------------------------------------------------------

  holds(literal: string, frame?: () => Frame): boolean {
    const l = parseLiteral(literal);
    let v: boolean;
    switch (l.pred) {
      case "inside":
      case "in":
        v = this.inside(l.args[0], l.args[1]);
        break;
      case "on":
        v = this.restsOn(l.args[0], l.args[1]);
        break;
      case "open":
        v = this.scene.containers.find((c) => c.name === l.args[0])?.doors.some((d) => this.jointFractionOf(d.joint) >= 0.7) ?? false;
        break;
      case "in_view":
        v = this.pixelsOf(frame ? frame() : this.renderFrame(), l.args[0]) >= 30;
        break;
      case "holding":
        v = this.heldName() === l.args[l.args.length - 1];
        break;
      default:
        throw new Error(`unknown goal predicate ${l.pred}`);
    }
    return l.negated ? !v : v;
  }

  evaluate(): { success: boolean; goal: { literal: string; holds: boolean }[]; skillsEnded: number; simTime: number; state: Record<string, string> } {
    let cached: Frame | undefined;
    const frame = () => (cached ??= this.renderFrame());
    const goal = this.scene.goal.map((literal) => ({ literal, holds: this.holds(literal, frame) }));
    const state: Record<string, string> = {};
    for (const j of this.scene.joints) state[j.name] = this.jointFractionOf(j.name).toFixed(2);
    for (const o of this.scene.objects) {
      const w = this.locate(o);
      state[o] = `${w.relation} ${w.place}${this.isUpright(o) || o === "red_bar" ? "" : " (fallen over)"}`;
    }
    this.locks.forEach((l, i) => (state[`${l.name}_lock`] = this.lockEngaged(this.data, this.st, i) ? "locked" : "released"));
    state.holding = this.heldName() ?? "nothing";
    return { success: goal.every((g) => g.holds), goal, skillsEnded: this.skillsEnded, simTime: this.clock.time, state };
  }

  /** Advances physics with the palm holding still (tests: stability, settling). */
  idle(seconds: number): void {
    this.plan = Spline.constant(this.plan.at(this.data.time as number), this.mpc.knots, this.data.time as number, this.mpc.horizon);
    const n = Math.round(seconds / TICK);
    for (let i = 0; i < n; i++) this.stepTick();
  }

  /** Positions of every free object (tests). */
  objectPositions(): Record<string, number[]> {
    return Object.fromEntries(this.scene.objects.map((o) => [o, pointPosition(this.data, this.points.get(o)!)]));
  }

  hasNaN(): boolean {
    return (this.data.qpos as Float64Array).some((v) => !Number.isFinite(v));
  }
}

/** A colour name from a mean RGB (0–255): hue for saturated colours, lightness for greys; dark oranges are brown. */
export function colorName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const v = max / 255, s = max > 0 ? (max - min) / max : 0;
  if (s < 0.25) return v > 0.75 ? "white" : v > 0.3 ? "grey" : "black";
  if (v < 0.15) return "black";
  let h: number;
  if (max === r) h = ((g - b) / (max - min)) * 60;
  else if (max === g) h = (2 + (b - r) / (max - min)) * 60;
  else h = (4 + (r - g) / (max - min)) * 60;
  if (h < 0) h += 360;
  if (h < 15 || h >= 340) return "red";
  if (h < 45) return v < 0.7 ? "brown" : "orange";
  if (h < 70) return "yellow";
  if (h < 170) return "green";
  if (h < 260) return "blue";
  if (h < 300) return "purple";
  return "pink";
}
