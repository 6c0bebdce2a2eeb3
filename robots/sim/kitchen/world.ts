/**
 * The kitchen world: MuJoCo model, true state, the two robots' skills as controllers, cameras, detector,
 * event log, scheduled perturbations and the goal check. Agents never import this: they reach it over the bridge.
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame, type Vec3 } from "../camera";
import { detectObjects, type DetectionsMessage, type DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { SimClock, type Motion } from "../clock";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import { Rng } from "../random";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, parseLiteral, type RobotManifest, type WorldDescription } from "../../manifests";
import { kitchenXml } from "./scene";
import {
  ARM_BASE, ARM_CAMERA, ARM_REACH, ARM_REST, MOBILE_CAMERA_HEIGHT, MOBILE_CAMERA_PITCH, MOBILE_GRIPPER_REST,
  NAVIGATION_POINTS, OBJECTS, PLACES, navigationPoint, objectHalfHeight, objectSpec, place, type PlaceSpec,
} from "./layout";
import type { KitchenScenario } from "./scenario";

export type RobotId = "mobile" | "arm";
export type { DetectionsMessage };

export interface KitchenOptions {
  scenario: KitchenScenario;
  seed?: number;
  noise?: Partial<DetectorNoise>;
  width?: number;
  height?: number;
  /** Simulated seconds per wall second (Infinity: as fast as possible). */
  speed?: number;
  /**
   * Whether the grippers sense a grasp (default true). Without it, as on grippers with no force or width feedback,
   * a grasp that closes on nothing and a release with nothing in hand still report success — only a camera can tell.
   */
  graspSensing?: boolean;
}

export interface CameraOutput {
  robot: RobotId;
  camera: string;
  frame: Frame;
  pose: CameraPose;
  image: Buffer;
  depth: Buffer;
  detections: DetectionsMessage;
}

type Where = { place: PlaceSpec; slot: number } | { heldBy: RobotId };

const TICK = 0.02;
const STEPS_PER_TICK = 10; // timestep 0.002
const BASE_SPEED = 0.6; // m/s
const TURN_SPEED = 1.6; // rad/s
const GRIPPER_SPEED = 0.5; // m/s
const DOOR_TIME = 1.2; // s

export class KitchenWorld {
  readonly name = "kitchen";
  readonly manifests: RobotManifest[] = bundledManifests("kitchen");
  readonly events = new EventLog();
  readonly clock: SimClock;
  private where = new Map<string, Where>();
  private busy = new Map<RobotId, string>();
  private mobile = { x: 0, y: 0, yaw: 0 };
  private skillsEnded = 0;
  private detected = new Set<string>();
  private cameras = new Map<RobotId, RayCamera>();
  private rng: Rng;
  private readonly graspSensing: boolean;
  private noise: DetectorNoise;
  private changeListeners: (() => void)[] = [];
  private bodyId = new Map<string, number>();
  private geomToObject: Int32Array;
  private geomToPlace: Int32Array;
  private geomToFloor: Int32Array;

  private constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly scenario: KitchenScenario,
    opts: KitchenOptions,
  ) {
    this.rng = new Rng(opts.seed ?? 0);
    this.graspSensing = opts.graspSensing ?? true;
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.clock = new SimClock(TICK, () => this.step(), opts.speed ?? Infinity);
    for (let b = 0; b < model.nbody; b++) this.bodyId.set(mj.mj_id2name(model, mj.mjtObj.mjOBJ_BODY.value, b) ?? "", b);
    const geomBody = model.geom_bodyid as Int32Array;
    const bodyObject = new Map(OBJECTS.map((o, i) => [this.bodyId.get(`obj_${o.name}`)!, i]));
    const bodyPlace = new Map<number, number>();
    PLACES.forEach((p, i) => {
      for (const name of [p.body, `${p.body}_door`]) if (this.bodyId.has(name)) bodyPlace.set(this.bodyId.get(name)!, i);
    });
    this.geomToObject = Int32Array.from(geomBody, (b) => bodyObject.get(b) ?? -1);
    this.geomToPlace = Int32Array.from(geomBody, (b) => bodyPlace.get(b) ?? -1);
    const floors = new Map(PLACES.map((p, i) => [mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM.value, p.floor) as number, i]));
    this.geomToFloor = Int32Array.from(geomBody, (_b, g) => floors.get(g) ?? -1);
    const w = opts.width ?? 320;
    const h = opts.height ?? 240;
    this.cameras.set("mobile", new RayCamera(mj, w, h, 70));
    this.cameras.set("arm", new RayCamera(mj, w, h, 90));
    this.reset();
  }

  static async create(opts: KitchenOptions): Promise<KitchenWorld> {
    const mj = await mujoco();
    const model = mj.MjModel.from_xml_string(kitchenXml());
    const data = new mj.MjData(model);
    return new KitchenWorld(mj, model, data, opts.scenario, opts);
  }

  get description(): WorldDescription {
    return {
      name: "kitchen",
      places: PLACES.map((p) => ({ name: p.name, kind: p.kind, openable: p.openable, capacity: p.slots.length })),
      navigationPoints: NAVIGATION_POINTS.map((n) => n.name),
      labels: OBJECTS.map((o) => o.name),
    };
  }

  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.clock.stop();
    for (const c of this.cameras.values()) c.dispose();
    this.data.delete();
    this.model.delete();
  }

  // ---- state ----------------------------------------------------------------------------------------------------

  private reset(): void {
    const s = this.scenario;
    const used = new Map<string, number>();
    for (const [obj, placeName] of Object.entries(s.placements) as [string, string][]) {
      const slot = used.get(placeName) ?? 0;
      used.set(placeName, slot + 1);
      this.where.set(obj, { place: place(placeName), slot });
    }
    for (const p of PLACES) if (p.openable) this.setJoint(p, s.open.includes(p.name) ? p.openPosition! : 0, true);
    const nav = navigationPoint(s.mobileAt);
    this.mobile = { x: nav.position[0], y: nav.position[1], yaw: nav.yaw };
    this.setMocap("mobile_gripper", this.mobileGripperRest());
    this.setMocap("arm_gripper", ARM_REST);
    // Slots are read from body frames, which exist only after a forward pass.
    this.mj.mj_forward(this.model, this.data);
    this.syncMocap();
    this.mj.mj_forward(this.model, this.data);
  }

  private body(name: string): number {
    const id = this.bodyId.get(name);
    if (id === undefined) throw new Error(`no body ${name}`);
    return id;
  }

  private setMocap(bodyName: string, pos: Vec3, yaw?: number): void {
    const m = (this.model.body_mocapid as Int32Array)[this.body(bodyName)];
    const mp = this.data.mocap_pos as Float64Array;
    mp[3 * m] = pos[0];
    mp[3 * m + 1] = pos[1];
    mp[3 * m + 2] = pos[2];
    if (yaw !== undefined) {
      const mq = this.data.mocap_quat as Float64Array;
      mq[4 * m] = Math.cos(yaw / 2);
      mq[4 * m + 1] = 0;
      mq[4 * m + 2] = 0;
      mq[4 * m + 3] = Math.sin(yaw / 2);
    }
  }

  private mocapPos(bodyName: string): Vec3 {
    const m = (this.model.body_mocapid as Int32Array)[this.body(bodyName)];
    const mp = this.data.mocap_pos as Float64Array;
    return [mp[3 * m], mp[3 * m + 1], mp[3 * m + 2]];
  }

  private jointAddr(p: PlaceSpec): { q: number; v: number; u: number } {
    const j = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_JOINT.value, p.joint!);
    const u = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_ACTUATOR.value, p.joint!);
    return { q: (this.model.jnt_qposadr as Int32Array)[j], v: (this.model.jnt_dofadr as Int32Array)[j], u };
  }

  /** Sets an actuator target; with `teleport` also the joint itself (scenario setup, perturbations). */
  private setJoint(p: PlaceSpec, value: number, teleport = false): void {
    const a = this.jointAddr(p);
    (this.data.ctrl as Float64Array)[a.u] = value;
    if (teleport) {
      (this.data.qpos as Float64Array)[a.q] = value;
      (this.data.qvel as Float64Array)[a.v] = 0;
    }
  }

  /** How far open a door or drawer is, 0 (shut) … 1 (fully open). */
  openFraction(p: PlaceSpec): number {
    if (!p.openable) return 1;
    return (this.data.qpos as Float64Array)[this.jointAddr(p).q] / p.openPosition!;
  }

  isClosed(p: PlaceSpec): boolean {
    return p.openable && this.openFraction(p) < 0.5;
  }

  private slotWorld(p: PlaceSpec, slot: number, lift = 0): Vec3 {
    const b = this.body(p.body);
    const xpos = this.data.xpos as Float64Array;
    const xmat = this.data.xmat as Float64Array;
    const s = p.slots[slot];
    const m = xmat.subarray(9 * b, 9 * b + 9);
    return [
      xpos[3 * b] + m[0] * s[0] + m[1] * s[1] + m[2] * s[2],
      xpos[3 * b + 1] + m[3] * s[0] + m[4] * s[1] + m[5] * s[2],
      xpos[3 * b + 2] + m[6] * s[0] + m[7] * s[1] + m[8] * s[2] + lift,
    ];
  }

  private freeSlot(p: PlaceSpec): number {
    const taken = new Set([...this.where.values()].filter((w): w is { place: PlaceSpec; slot: number } => "place" in w && w.place === p).map((w) => w.slot));
    for (let i = 0; i < p.slots.length; i++) if (!taken.has(i)) return i;
    return -1;
  }

  private mobileGripperRest(): Vec3 {
    const [f, l, u] = MOBILE_GRIPPER_REST;
    const c = Math.cos(this.mobile.yaw), s = Math.sin(this.mobile.yaw);
    return [this.mobile.x + f * c - l * s, this.mobile.y + f * s + l * c, u];
  }

  /** Puts every object where the state says: in its slot (moving with drawers) or under the gripper holding it. */
  private syncMocap(): void {
    this.setMocap("mobile", [this.mobile.x, this.mobile.y, 0], this.mobile.yaw);
    for (const o of OBJECTS) {
      const w = this.where.get(o.name);
      let pos: Vec3;
      if (!w) pos = [3 + OBJECTS.indexOf(o) * 0.3, 3, -1]; // not in this scenario: parked under the floor, out of sight
      else if ("heldBy" in w) {
        const g = this.mocapPos(`${w.heldBy}_gripper`);
        pos = [g[0], g[1], g[2] - 0.035 - objectHalfHeight(o)];
      } else pos = this.slotWorld(w.place, w.slot, objectHalfHeight(o));
      this.setMocap(`obj_${o.name}`, pos);
    }
  }

  private step(): void {
    for (let i = 0; i < STEPS_PER_TICK; i++) this.mj.mj_step(this.model, this.data);
    this.syncMocap();
  }

  private log(e: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.clock.time * 1000) / 1000, step: this.skillsEnded, ...e });
  }

  // ---- skills -----------------------------------------------------------------------------------------------------

  /** Runs one skill goal to its end. Fails with a reason for anything a real robot would fail at. */
  async runSkill(robot: RobotId, skill: string, args: Record<string, string>, ctx: ActionContext): Promise<ActionOutcome> {
    const current = this.busy.get(robot);
    if (current) return { status: "aborted", values: { success: false, message: `${robot} is busy with ${current}` } };
    this.busy.set(robot, skill);
    this.log({ kind: "skill_started", robot, skill, goalId: ctx.goalId, detail: JSON.stringify(args) });
    const started = this.clock.time;
    let outcome: ActionOutcome;
    try {
      const failure = this.check(robot, skill, args);
      if (failure) outcome = { status: "aborted", values: { success: false, message: failure } };
      else {
        const r = await this.clock.run(this.motionFor(robot, skill, args, ctx), ctx.signal);
        outcome =
          r === "canceled"
            ? { status: "canceled", values: { success: false, message: `${skill} was canceled` } }
            : { status: "succeeded", values: { success: true, message: this.describeSuccess(robot, skill, args) } };
      }
    } catch (err) {
      outcome = { status: "aborted", values: { success: false, message: (err as Error).message } };
    } finally {
      this.busy.delete(robot);
    }
    const values = outcome.values as { success: boolean; message: string };
    (outcome.values as Record<string, unknown>).duration_sec = Math.round((this.clock.time - started) * 1000) / 1000;
    this.log({
      kind: outcome.status === "succeeded" ? "skill_succeeded" : outcome.status === "canceled" ? "skill_canceled" : "skill_failed",
      robot, skill, goalId: ctx.goalId, detail: values.message,
    });
    this.skillsEnded++;
    this.applyPerturbations();
    this.changed();
    return outcome;
  }

  private changed(): void {
    for (const l of this.changeListeners) l();
  }

  /** Why this skill cannot run now, or undefined. Checks the true state, as the physical robot would find it. */
  private check(robot: RobotId, skill: string, a: Record<string, string>): string | undefined {
    const holding = this.heldBy(robot);
    const reach = (p: PlaceSpec): string | undefined => {
      if (robot === "arm") {
        const d = Math.hypot(p.center[0] - ARM_BASE[0], p.center[1] - ARM_BASE[1]);
        return d <= ARM_REACH ? undefined : `the ${p.name} is out of the arm's reach (${d.toFixed(2)} m away, reach ${ARM_REACH} m)`;
      }
      const here = this.mobileNavPoint();
      const nav = NAVIGATION_POINTS.find((n) => n.serves === p.name);
      if (!nav) return `the mobile robot cannot get to the ${p.name}`;
      return here === nav.name ? undefined : `the mobile robot is ${here ? `at ${here}` : "between navigation points"}, not at ${nav.name}`;
    };
    switch (skill) {
      case "go_to":
        return robot === "mobile" ? undefined : "the arm cannot move its base";
      case "open":
      case "close": {
        const p = place(a.target);
        if (!p.openable) return `the ${p.name} cannot be opened or closed`;
        const r = reach(p);
        if (r) return r;
        if (robot === "arm" && holding) return `the arm needs its hand free to ${skill} the ${p.name} but holds the ${holding}`;
        if (skill === "open" && !this.isClosed(p)) return `the ${p.name} is already open`;
        if (skill === "close" && this.isClosed(p)) return `the ${p.name} is already closed`;
        return undefined;
      }
      case "pick_from": {
        const p = place(a.place);
        const r = reach(p);
        if (r) return r;
        if (holding) return `already holding the ${holding}; release it before picking another object`;
        if (this.isClosed(p)) return `cannot pick from the ${p.name}: it is closed`;
        const w = this.where.get(a.object);
        if (!w || !("place" in w) || w.place !== p) {
          // Without grasp sensing the robot goes through the motion and closes on nothing, none the wiser.
          return this.graspSensing ? `there is no ${a.object} ${p.kind === "container" ? "in" : "on"} the ${p.name}` : undefined;
        }
        return undefined;
      }
      case "release_to": {
        const p = place(a.place);
        if (holding !== a.object && this.graspSensing) return holding ? `holding the ${holding}, not the ${a.object}` : `not holding the ${a.object}`;
        const r = reach(p);
        if (r) return r;
        if (this.isClosed(p)) return `cannot put anything in the ${p.name}: it is closed`;
        if (this.freeSlot(p) < 0) return `the ${p.name} is full (${p.slots.length} of ${p.slots.length} places taken)`;
        return undefined;
      }
    }
    return `unknown skill ${skill}`;
  }

  private describeSuccess(robot: RobotId, skill: string, a: Record<string, string>): string {
    switch (skill) {
      case "go_to": return `${robot} is at ${a.navigation_point}`;
      case "open": return `the ${a.target} is open`;
      case "close": return `the ${a.target} is closed`;
      case "pick_from": return `${robot} holds the ${a.object}`;
      case "release_to": return `the ${a.object} is ${place(a.place).kind === "container" ? "in" : "on"} the ${a.place}`;
    }
    return "done";
  }

  heldBy(robot: RobotId): string | undefined {
    for (const [o, w] of this.where) if ("heldBy" in w && w.heldBy === robot) return o;
    return undefined;
  }

  mobileNavPoint(): string | undefined {
    return NAVIGATION_POINTS.find((n) => Math.hypot(n.position[0] - this.mobile.x, n.position[1] - this.mobile.y) < 0.05 && Math.abs(angleDiff(n.yaw, this.mobile.yaw)) < 0.05)?.name;
  }

  private motionFor(robot: RobotId, skill: string, a: Record<string, string>, ctx: ActionContext): Motion {
    const feedback = (phase: string, progress: number) => ctx.feedback({ phase, progress: Math.round(progress * 100) / 100 });
    switch (skill) {
      case "go_to": return this.goTo(a.navigation_point, feedback);
      case "open": return this.operate(robot, place(a.target), true, feedback);
      case "close": return this.operate(robot, place(a.target), false, feedback);
      case "pick_from": return this.pick(robot, a.object, place(a.place), feedback);
      case "release_to": return this.release(robot, a.object, place(a.place), feedback);
    }
    throw new Error(`unknown skill ${skill}`);
  }

  private *goTo(target: string, feedback: (phase: string, p: number) => void): Motion {
    const nav = navigationPoint(target);
    const [tx, ty] = nav.position;
    const total = Math.hypot(tx - this.mobile.x, ty - this.mobile.y);
    // Turn towards the goal, drive, then turn to face the place.
    if (total > 0.01) yield* this.turnTo(Math.atan2(ty - this.mobile.y, tx - this.mobile.x));
    let last = -1;
    while (Math.hypot(tx - this.mobile.x, ty - this.mobile.y) > 1e-6) {
      const dx = tx - this.mobile.x, dy = ty - this.mobile.y;
      const d = Math.hypot(dx, dy);
      const s = Math.min(1, (BASE_SPEED * TICK) / d);
      this.mobile.x += dx * s;
      this.mobile.y += dy * s;
      this.setMocap("mobile_gripper", this.mobileGripperRest());
      const progress = total > 0 ? 1 - Math.hypot(tx - this.mobile.x, ty - this.mobile.y) / total : 1;
      if (Math.floor(progress * 4) !== last) {
        last = Math.floor(progress * 4);
        feedback("driving", progress);
      }
      yield;
    }
    yield* this.turnTo(nav.yaw);
    feedback("arrived", 1);
  }

  private *turnTo(yaw: number): Motion {
    while (Math.abs(angleDiff(yaw, this.mobile.yaw)) > 1e-6) {
      const d = angleDiff(yaw, this.mobile.yaw);
      this.mobile.yaw += Math.sign(d) * Math.min(Math.abs(d), TURN_SPEED * TICK);
      this.setMocap("mobile_gripper", this.mobileGripperRest());
      yield;
    }
  }

  private *moveGripper(robot: RobotId, to: Vec3): Motion {
    const name = `${robot}_gripper`;
    for (;;) {
      const p = this.mocapPos(name);
      const d = Math.hypot(to[0] - p[0], to[1] - p[1], to[2] - p[2]);
      if (d < 1e-6) return;
      const s = Math.min(1, (GRIPPER_SPEED * TICK) / d);
      this.setMocap(name, [p[0] + (to[0] - p[0]) * s, p[1] + (to[1] - p[1]) * s, p[2] + (to[2] - p[2]) * s]);
      yield;
    }
  }

  private restPose(robot: RobotId): Vec3 {
    return robot === "arm" ? ARM_REST : this.mobileGripperRest();
  }

  private handlePosition(p: PlaceSpec): Vec3 {
    const g = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_GEOM.value, `${p.name}_handle`);
    const x = this.data.geom_xpos as Float64Array;
    return [x[3 * g], x[3 * g + 1], x[3 * g + 2]];
  }

  private *operate(robot: RobotId, p: PlaceSpec, open: boolean, feedback: (phase: string, x: number) => void): Motion {
    feedback("reaching for the handle", 0);
    yield* this.moveGripper(robot, this.handlePosition(p));
    this.log({ kind: "contact", robot, place: p.name, detail: `gripper grasped the ${p.name} handle` });
    const from = (this.data.qpos as Float64Array)[this.jointAddr(p).q];
    const to = open ? p.openPosition! : 0;
    const n = Math.ceil(DOOR_TIME / TICK);
    for (let i = 1; i <= n; i++) {
      // The gripper drives the actuator target along a smooth ramp and rides along with the handle.
      const s = i / n;
      this.setJoint(p, from + (to - from) * (3 * s * s - 2 * s * s * s));
      if (i % 5 === 0) this.setMocap(`${robot}_gripper`, this.handlePosition(p));
      if (i % Math.ceil(n / 3) === 0) feedback(open ? "opening" : "closing", s);
      yield;
    }
    // Let the joint settle on its target before judging the result.
    for (let i = 0; i < 40 && Math.abs(this.openFraction(p) - (open ? 1 : 0)) > 0.05; i++) yield;
    if (open ? this.openFraction(p) < 0.8 : this.openFraction(p) > 0.2) {
      throw new Error(`the ${p.name} did not ${open ? "open" : "close"} (stuck at ${Math.round(this.openFraction(p) * 100)}% open)`);
    }
    this.log({ kind: open ? "opened" : "closed", robot, place: p.name });
    yield* this.moveGripper(robot, this.restPose(robot));
    feedback("done", 1);
  }

  private *pick(robot: RobotId, object: string, p: PlaceSpec, feedback: (phase: string, x: number) => void): Motion {
    const w = this.where.get(object);
    if (!w || !("place" in w) || w.place !== p) {
      // Nothing there (only reachable without grasp sensing): the same motion, an empty hand.
      const top = this.slotWorld(p, 0, 0.12);
      yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
      yield* this.moveGripper(robot, top);
      yield* this.clock.wait(0.3);
      this.log({ kind: "picked", robot, place: p.name, detail: `gripper closed on nothing (no ${object} there)` });
      yield* this.moveGripper(robot, this.restPose(robot));
      feedback("lifted", 1);
      return;
    }
    const spec = objectSpec(object);
    const top = this.slotWorld(p, w.slot, 2 * objectHalfHeight(spec) + 0.035);
    feedback("approaching", 0);
    yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
    yield* this.moveGripper(robot, top);
    feedback("grasping", 0.5);
    this.log({ kind: "contact", robot, object, detail: `gripper closed on the ${object}` });
    yield* this.clock.wait(0.3);
    this.where.set(object, { heldBy: robot });
    this.log({ kind: "picked", robot, object, place: p.name });
    yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
    yield* this.moveGripper(robot, this.restPose(robot));
    feedback("lifted", 1);
  }

  private *release(robot: RobotId, requested: string, p: PlaceSpec, feedback: (phase: string, x: number) => void): Motion {
    // Opening the hand lets go of whatever it holds, which without grasp sensing may not be what was asked for.
    const object = this.heldBy(robot);
    const slot = this.freeSlot(p);
    if (!object) {
      const top = this.slotWorld(p, slot, 0.12);
      yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
      yield* this.clock.wait(0.2);
      this.log({ kind: "released", robot, place: p.name, detail: `opened an empty hand (no ${requested} in it)` });
      yield* this.moveGripper(robot, this.restPose(robot));
      feedback("done", 1);
      return;
    }
    const spec = objectSpec(object);
    const top = this.slotWorld(p, slot, 2 * objectHalfHeight(spec) + 0.035);
    feedback("carrying", 0);
    yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
    yield* this.moveGripper(robot, top);
    yield* this.clock.wait(0.2);
    this.where.set(object, { place: p, slot });
    this.log({ kind: "released", robot, object, place: p.name });
    feedback("released", 0.7);
    yield* this.moveGripper(robot, [top[0], top[1], top[2] + 0.15]);
    yield* this.moveGripper(robot, this.restPose(robot));
    feedback("done", 1);
  }

  // ---- perturbations ----------------------------------------------------------------------------------------------

  private applyPerturbations(): void {
    for (const pert of this.scenario.perturbations) {
      if (pert.afterSkill !== this.skillsEnded) continue;
      if (pert.move) {
        const { object, to } = pert.move;
        const w = this.where.get(object);
        const dest = place(to);
        const slot = this.freeSlot(dest);
        if (w && "heldBy" in w) this.log({ kind: "perturbation", object, detail: `not moved: held by ${w.heldBy}` });
        else if (slot < 0) this.log({ kind: "perturbation", object, detail: `not moved: ${to} is full` });
        else {
          this.where.set(object, { place: dest, slot });
          this.log({ kind: "perturbation", object, place: to, detail: `moved ${object} to ${to}` });
        }
      } else {
        const name = (pert.close ?? pert.open)!;
        const p = place(name);
        this.setJoint(p, pert.open ? p.openPosition! : 0, true);
        this.log({ kind: "perturbation", place: name, detail: `${pert.open ? "opened" : "closed"} ${name}` });
      }
    }
    this.syncMocap();
    this.mj.mj_forward(this.model, this.data);
  }

  // ---- perception -------------------------------------------------------------------------------------------------

  cameraPose(robot: RobotId): CameraPose {
    if (robot === "arm") return lookAt(ARM_CAMERA, [ARM_CAMERA[0], ARM_CAMERA[1], 0], [0, 1, 0]);
    const c = Math.cos(this.mobile.yaw), s = Math.sin(this.mobile.yaw);
    const eye: Vec3 = [this.mobile.x + 0.14 * c, this.mobile.y + 0.14 * s, MOBILE_CAMERA_HEIGHT];
    const cp = Math.cos(MOBILE_CAMERA_PITCH), sp = Math.sin(MOBILE_CAMERA_PITCH);
    return { position: eye, forward: [c * cp, s * cp, sp], up: [0, 0, 1] };
  }

  /** Renders a robot's camera, runs the detector on it and encodes the images. */
  async renderCamera(robot: RobotId): Promise<CameraOutput> {
    this.mj.mj_forward(this.model, this.data);
    const pose = this.cameraPose(robot);
    const cam = this.cameras.get(robot)!;
    const frame = cam.render(this.model, this.data, pose, robot === "mobile" ? this.body("mobile") : -1);
    const detections = this.detect(robot, frame);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { robot, camera: robot === "arm" ? "overhead" : "head", frame, pose, image, depth, detections };
  }

  private detect(robot: RobotId, frame: Frame): DetectionsMessage {
    const names = OBJECTS.map((o) => o.name);
    const raw = detectObjects(frame, this.geomToObject, names, names, this.noise, this.rng);
    const stamp = this.stamp();
    const dets = raw.map((d) => {
      const w = this.where.get(d.truth)!;
      const location: DetectionsMessage["detections"][number]["location"] =
        "heldBy" in w ? { relation: "held_by", place: w.heldBy } : { relation: w.place.kind === "container" ? "in" : "on", place: w.place.name };
      if (d.label === d.truth && !this.detected.has(d.truth)) {
        this.detected.add(d.truth);
        this.log({ kind: "detected", robot, object: d.truth, place: location.place });
      }
      return { label: d.label, score: d.score, box: d.box, location };
    });
    const placePixels = new Int32Array(PLACES.length);
    const floorPixels = new Int32Array(PLACES.length);
    const toPlace = this.geomToPlace;
    const toFloor = this.geomToFloor;
    for (let i = 0; i < frame.geom.length; i++) {
      const g = frame.geom[i];
      if (g < 0) continue;
      if (toPlace[g] >= 0) placePixels[toPlace[g]]++;
      if (toFloor[g] >= 0) floorPixels[toFloor[g]]++;
    }
    const places = PLACES.map((p, i) => ({ p, n: placePixels[i], inside: floorPixels[i] }))
      .filter(({ n }) => n >= 50)
      .map(({ p, n, inside }) => ({ name: p.name, state: (this.isClosed(p) ? "closed" : "open") as "open" | "closed", pixels: n, insidePixels: inside }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return {
      header: { stamp, frame_id: `${robot}_camera` },
      robot,
      width: frame.width,
      height: frame.height,
      detections: dets,
      places,
    };
  }

  stamp(): { sec: number; nanosec: number } {
    const sec = Math.floor(this.clock.time);
    return { sec, nanosec: Math.round((this.clock.time - sec) * 1e9) };
  }

  /** For tests of perception: the per-pixel object name of a frame (null where no object). */
  objectAtPixel(frame: Frame, i: number): string | null {
    const g = frame.geom[i];
    return g >= 0 && this.geomToObject[g] >= 0 ? OBJECTS[this.geomToObject[g]].name : null;
  }

  // ---- evaluation (evaluator service only) -----------------------------------------------------------------------

  /** Truth of one goal literal on the true state. */
  holds(literal: string): boolean {
    const l = parseLiteral(literal);
    let v: boolean;
    switch (l.pred) {
      case "in": {
        const w = this.where.get(l.args[0]);
        v = !!w && "place" in w && w.place.name === l.args[1];
        break;
      }
      case "holding":
        v = this.heldBy(l.args[0] as RobotId) === l.args[1];
        break;
      case "closed":
        v = this.isClosed(place(l.args[0]));
        break;
      case "found":
        v = this.detected.has(l.args[0]);
        break;
      case "at":
        v = l.args[0] === "mobile" && this.mobileNavPoint() === l.args[1];
        break;
      default:
        throw new Error(`unknown goal predicate ${l.pred}`);
    }
    return l.negated ? !v : v;
  }

  evaluate(): { success: boolean; goal: { literal: string; holds: boolean }[]; skillsEnded: number; simTime: number; state: Record<string, string> } {
    const goal = this.scenario.goal.map((literal) => ({ literal, holds: this.holds(literal) }));
    const state: Record<string, string> = {};
    for (const [o, w] of this.where) state[o] = "heldBy" in w ? `held_by(${w.heldBy})` : w.place.name;
    for (const p of PLACES) if (p.openable) state[p.name] = this.isClosed(p) ? "closed" : "open";
    return { success: goal.every((g) => g.holds), goal, skillsEnded: this.skillsEnded, simTime: this.clock.time, state };
  }
}

function angleDiff(a: number, b: number): number {
  let d = a - b;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return d;
}
