/**
 * The kitchen world: MuJoCo model, true state, event log, skill dispatch, scheduled perturbations and the goal check.
 * The skills' controllers are in controllers.ts, the cameras and detector in perception.ts. Agents never import
 * this: they reach it over the bridge.
 */
import type { CameraPose, Frame, Vec3 } from "../camera";
import type { DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { SimClock } from "../clock";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import {
  SENSES_GRASP,
  bundledManifests,
  parseLiteral,
  type RobotManifest,
  type WorldDescription,
} from "../../manifests";
import { kitchenXml } from "./scene";
import {
  ARM_REST,
  MOBILE_GRIPPER_REST,
  NAVIGATION_POINTS,
  OBJECTS,
  PLACES,
  describeKitchen,
  navigationPoint,
  objectHalfHeight,
  place,
  type PlaceSpec,
} from "./layout";
import type { KitchenScenario } from "./scenario";
import { TICK, angleDiff, describeSuccess, skillFailure, skillMotion, type KitchenBody } from "./controllers";
import { KitchenCameras, cameraPose, type CameraOutput, type KitchenView } from "./perception";
import { geomsBox, type PlaceVolume } from "../locate";
import type { NamedPoseSkill } from "../serve";

import type { RobotId, Where } from "./types";

export type { RobotId };

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

const STEPS_PER_TICK = 10; // timestep 0.002

export class KitchenWorld {
  readonly name = "kitchen";
  /** The bundled manifests, without `senses_grasp` when the grippers do not sense a grasp: what the robots can say. */
  readonly manifests: RobotManifest[];
  readonly events = new EventLog();
  readonly clock: SimClock;
  private where = new Map<string, Where>();
  private busy = new Map<RobotId, string>();
  private mobile = { x: 0, y: 0, yaw: 0 };
  private skillsEnded = 0;
  private detected = new Set<string>();
  /** Whether each robot last closed its fingers (a pick) or opened them (a release): the robot's own command. */
  private gripperClosed = new Map<RobotId, boolean>();
  private cameras: KitchenCameras;
  private readonly graspSensing: boolean;
  private changeListeners: (() => void)[] = [];
  private bodyId = new Map<string, number>();
  // The controllers and the detector get narrow views of this world rather than the world itself: they need its
  // private state (where things are, mocap bodies, joints) but none of its bookkeeping.
  private readonly kitchenBody: KitchenBody;
  private readonly view: KitchenView;

  private constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly scenario: KitchenScenario,
    opts: KitchenOptions,
  ) {
    this.graspSensing = opts.graspSensing ?? true;
    this.manifests = bundledManifests("kitchen").map((manifest) =>
      this.graspSensing ? manifest : { ...manifest, facts: manifest.facts.filter((f) => f !== SENSES_GRASP) },
    );
    this.clock = new SimClock(TICK, () => this.step(), opts.speed ?? Infinity);
    for (let b = 0; b < model.nbody; b++) this.bodyId.set(mj.mj_id2name(model, mj.mjtObj.mjOBJ_BODY.value, b) ?? "", b);
    this.cameras = new KitchenCameras(mj, model, data, this.bodyId, opts);
    // Accessors in an object literal have their own `this`: they reach the world through this arrow.
    const world = () => this;
    this.kitchenBody = {
      clock: this.clock,
      graspSensing: this.graspSensing,
      get mobile() {
        return world().mobile;
      },
      where: (object) => this.where.get(object),
      setWhere: (object, where) => {
        this.where.set(object, where);
      },
      heldBy: (robot) => this.heldBy(robot),
      setGripper: (robot, closed) => {
        this.gripperClosed.set(robot, closed);
      },
      handClosed: (robot) => this.gripperClosed.get(robot) ?? false,
      dropToFloor: (object) => {
        this.where.delete(object);
      },
      mobileNavPoint: () => this.mobileNavPoint(),
      freeSlot: (p) => this.freeSlot(p),
      slotWorld: (p, slot, lift) => this.slotWorld(p, slot, lift),
      isClosed: (p) => this.isClosed(p),
      openFraction: (p) => this.openFraction(p),
      jointPosition: (p) => (this.data.qpos as Float64Array)[this.jointAddr(p).q],
      setJoint: (p, value) => this.setJoint(p, value),
      handlePosition: (p) => this.handlePosition(p),
      setMocap: (bodyName, pos) => this.setMocap(bodyName, pos),
      mocapPos: (bodyName) => this.mocapPos(bodyName),
      mobileGripperRest: () => this.mobileGripperRest(),
      log: (e) => this.log(e),
    };
    const { volumes, shut } = this.mapOfPlaces();
    this.view = {
      volumes,
      shut,
      hands: () =>
        (["mobile", "arm"] as const).map((robot) => ({
          name: robot,
          at: this.mocapPos(`${robot}_gripper`),
          closed: this.gripperClosed.get(robot) ?? false,
          reach: 0.08,
        })),
      stamp: () => this.stamp(),
      seen: (robot, object, placeName) => {
        if (this.detected.has(object)) return;
        this.detected.add(object);
        this.log({ kind: "detected", robot, object, place: placeName });
      },
    };
    this.reset();
  }

  static async create(opts: KitchenOptions): Promise<KitchenWorld> {
    const mj = await mujoco();
    const model = mj.MjModel.from_xml_string(kitchenXml());
    const data = new mj.MjData(model);
    return new KitchenWorld(mj, model, data, opts.scenario, opts);
  }

  get description(): WorldDescription {
    return describeKitchen();
  }

  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.clock.stop();
    this.cameras.dispose();
    this.data.delete();
    this.model.delete();
  }

  // ---- state ----------------------------------------------------------------------------------------------------

  private reset(): void {
    const scenario = this.scenario;
    const used = new Map<string, number>();
    for (const [obj, placeName] of Object.entries(scenario.placements) as [string, string][]) {
      const slot = used.get(placeName) ?? 0;
      used.set(placeName, slot + 1);
      this.where.set(obj, { place: place(placeName), slot });
    }
    for (const p of PLACES)
      if (p.openable) this.setJoint(p, scenario.open.includes(p.name) ? p.openPosition! : 0, true);
    const nav = navigationPoint(scenario.mobileAt);
    this.mobile = { x: nav.position[0], y: nav.position[1], yaw: nav.yaw };
    this.setMocap("mobile_gripper", this.mobileGripperRest());
    this.setMocap("arm_gripper", ARM_REST);
    this.gripperClosed.clear();
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
    const mocapId = (this.model.body_mocapid as Int32Array)[this.body(bodyName)];
    const mp = this.data.mocap_pos as Float64Array;
    mp[3 * mocapId] = pos[0];
    mp[3 * mocapId + 1] = pos[1];
    mp[3 * mocapId + 2] = pos[2];
    if (yaw !== undefined) {
      const mq = this.data.mocap_quat as Float64Array;
      mq[4 * mocapId] = Math.cos(yaw / 2);
      mq[4 * mocapId + 1] = 0;
      mq[4 * mocapId + 2] = 0;
      mq[4 * mocapId + 3] = Math.sin(yaw / 2);
    }
  }

  private mocapPos(bodyName: string): Vec3 {
    const mocapId = (this.model.body_mocapid as Int32Array)[this.body(bodyName)];
    const mp = this.data.mocap_pos as Float64Array;
    return [mp[3 * mocapId], mp[3 * mocapId + 1], mp[3 * mocapId + 2]];
  }

  private jointAddr(spec: PlaceSpec): { q: number; v: number; u: number } {
    const j = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_JOINT.value, spec.joint!);
    const actuator = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_ACTUATOR.value, spec.joint!);
    return { q: (this.model.jnt_qposadr as Int32Array)[j], v: (this.model.jnt_dofadr as Int32Array)[j], u: actuator };
  }

  /** Sets an actuator target; with `teleport` also the joint itself (scenario setup, perturbations). */
  private setJoint(spec: PlaceSpec, value: number, teleport = false): void {
    const addr = this.jointAddr(spec);
    (this.data.ctrl as Float64Array)[addr.u] = value;
    if (teleport) {
      (this.data.qpos as Float64Array)[addr.q] = value;
      (this.data.qvel as Float64Array)[addr.v] = 0;
    }
  }

  private handlePosition(spec: PlaceSpec): Vec3 {
    const geomId = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_GEOM.value, `${spec.name}_handle`);
    const x = this.data.geom_xpos as Float64Array;
    return [x[3 * geomId], x[3 * geomId + 1], x[3 * geomId + 2]];
  }

  /**
   * The robots' map of the kitchen, made once from its fixed geometry with every door and drawer shut (and each drawer
   * pulled out, for the room its contents sweep): where each place keeps its contents — its resting surfaces' reach,
   * up to the height of the tallest thing — and where each door or drawer lies when shut.
   */
  private mapOfPlaces(): { volumes: PlaceVolume[]; shut: Map<string, { min: Vec3; max: Vec3 }> } {
    const qpos = this.data.qpos as Float64Array;
    const saved = Float64Array.from(qpos);
    const openable = PLACES.filter((p) => p.openable);
    const at = (open: boolean) => {
      for (const p of openable) qpos[this.jointAddr(p).q] = open ? p.openPosition! : 0;
      this.mj.mj_kinematics(this.model, this.data);
    };
    const grow = (box: { min: Vec3; max: Vec3 } | undefined, point: Vec3): { min: Vec3; max: Vec3 } =>
      box
        ? {
            min: [0, 1, 2].map((k) => Math.min(box.min[k], point[k])) as Vec3,
            max: [0, 1, 2].map((k) => Math.max(box.max[k], point[k])) as Vec3,
          }
        : { min: [...point], max: [...point] };
    const surfaces = new Map<string, { min: Vec3; max: Vec3 }>();
    const shut = new Map<string, { min: Vec3; max: Vec3 }>();
    at(false);
    const geomBody = this.model.geom_bodyid as Int32Array;
    for (const p of openable) {
      const door = this.bodyId.get(`${p.body}_door`) ?? this.body(p.body);
      const box = geomsBox(
        this.mj,
        this.model,
        this.data,
        [...geomBody.keys()].filter((g) => geomBody[g] === door),
        0.03,
      );
      if (box) shut.set(p.name, box);
    }
    for (const open of [false, true]) {
      at(open);
      for (const p of PLACES)
        p.slots.forEach((_, i) => surfaces.set(p.name, grow(surfaces.get(p.name), this.slotWorld(p, i))));
    }
    qpos.set(saved);
    this.mj.mj_forward(this.model, this.data);
    const tallest = Math.max(...OBJECTS.map((o) => 2 * objectHalfHeight(o)));
    // Containers first: a thing in a drawer under a table is in the drawer.
    const volumes = [...PLACES]
      .sort((a, b) => Number(b.kind === "container") - Number(a.kind === "container"))
      .map((spec) => {
        const surface = surfaces.get(spec.name)!;
        return {
          name: spec.name,
          relation: spec.kind === "container" ? ("in" as const) : ("on" as const),
          min: [surface.min[0] - 0.1, surface.min[1] - 0.1, surface.min[2] - 0.03] as Vec3,
          max: [surface.max[0] + 0.1, surface.max[1] + 0.1, surface.max[2] + tallest + 0.02] as Vec3,
        };
      });
    return { volumes, shut };
  }

  /** How far open a door or drawer is, 0 (shut) … 1 (fully open). */
  openFraction(spec: PlaceSpec): number {
    if (!spec.openable) return 1;
    return (this.data.qpos as Float64Array)[this.jointAddr(spec).q] / spec.openPosition!;
  }

  isClosed(spec: PlaceSpec): boolean {
    return spec.openable && this.openFraction(spec) < 0.5;
  }

  private slotWorld(spec: PlaceSpec, slot: number, lift = 0): Vec3 {
    const bodyIndex = this.body(spec.body);
    const xpos = this.data.xpos as Float64Array;
    const xmat = this.data.xmat as Float64Array;
    const local = spec.slots[slot];
    const rot = xmat.subarray(9 * bodyIndex, 9 * bodyIndex + 9);
    return [
      xpos[3 * bodyIndex] + rot[0] * local[0] + rot[1] * local[1] + rot[2] * local[2],
      xpos[3 * bodyIndex + 1] + rot[3] * local[0] + rot[4] * local[1] + rot[5] * local[2],
      xpos[3 * bodyIndex + 2] + rot[6] * local[0] + rot[7] * local[1] + rot[8] * local[2] + lift,
    ];
  }

  private freeSlot(spec: PlaceSpec): number {
    const taken = new Set(
      [...this.where.values()]
        .filter((w): w is { place: PlaceSpec; slot: number } => "place" in w && w.place === spec)
        .map((w) => w.slot),
    );
    for (let i = 0; i < spec.slots.length; i++) if (!taken.has(i)) return i;
    return -1;
  }

  private mobileGripperRest(): Vec3 {
    const [forward, left, up] = MOBILE_GRIPPER_REST;
    const cos = Math.cos(this.mobile.yaw),
      sin = Math.sin(this.mobile.yaw);
    return [this.mobile.x + forward * cos - left * sin, this.mobile.y + forward * sin + left * cos, up];
  }

  /** Puts every object where the state says: in its slot (moving with drawers) or under the gripper holding it. */
  private syncMocap(): void {
    this.setMocap("mobile", [this.mobile.x, this.mobile.y, 0], this.mobile.yaw);
    for (const o of OBJECTS) {
      const where = this.where.get(o.name);
      let pos: Vec3;
      if (!where)
        pos = [3 + OBJECTS.indexOf(o) * 0.3, 3, -1]; // not in this scenario: parked under the floor, out of sight
      else if ("heldBy" in where) {
        const gripper = this.mocapPos(`${where.heldBy}_gripper`);
        pos = [gripper[0], gripper[1], gripper[2] - 0.035 - objectHalfHeight(o)];
      } else pos = this.slotWorld(where.place, where.slot, objectHalfHeight(o));
      this.setMocap(`obj_${o.name}`, pos);
    }
  }

  private step(): void {
    for (let i = 0; i < STEPS_PER_TICK; i++) this.mj.mj_step(this.model, this.data);
    this.syncMocap();
  }

  private log(event: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.clock.time * 1000) / 1000, step: this.skillsEnded, ...event });
  }

  // ---- skills -----------------------------------------------------------------------------------------------------

  /** Runs one skill goal to its end. Fails with a reason for anything a real robot would fail at. */
  async runSkill(
    robot: RobotId,
    skill: string,
    args: Record<string, string>,
    ctx: ActionContext,
  ): Promise<ActionOutcome> {
    const current = this.busy.get(robot);
    if (current) return { status: "aborted", values: { success: false, message: `${robot} is busy with ${current}` } };
    this.busy.set(robot, skill);
    this.log({ kind: "skill_started", robot, skill, goalId: ctx.goalId, detail: JSON.stringify(args) });
    const started = this.clock.time;
    let outcome: ActionOutcome;
    try {
      const failure = skillFailure(this.kitchenBody, robot, skill, args);
      if (failure) outcome = { status: "aborted", values: { success: false, message: failure } };
      else {
        const feedback = (phase: string, progress: number) =>
          ctx.feedback({ phase, progress: Math.round(progress * 100) / 100 });
        const result = await this.clock.run(skillMotion(this.kitchenBody, robot, skill, args, feedback), ctx.signal);
        outcome =
          result === "canceled"
            ? { status: "canceled", values: { success: false, message: `${skill} was canceled` } }
            : {
                status: "succeeded",
                values: { success: true, message: describeSuccess(robot, skill, args, this.graspSensing) },
              };
      }
    } catch (err) {
      outcome = { status: "aborted", values: { success: false, message: (err as Error).message } };
    } finally {
      this.busy.delete(robot);
    }
    const values = outcome.values as { success: boolean; message: string };
    (outcome.values as Record<string, unknown>).duration_sec = Math.round((this.clock.time - started) * 1000) / 1000;
    this.log({
      kind:
        outcome.status === "succeeded"
          ? "skill_succeeded"
          : outcome.status === "canceled"
            ? "skill_canceled"
            : "skill_failed",
      robot,
      skill,
      goalId: ctx.goalId,
      detail: values.message,
    });
    this.skillsEnded++;
    this.applyPerturbations();
    this.changed();
    return outcome;
  }

  private changed(): void {
    for (const l of this.changeListeners) l();
  }

  heldBy(robot: RobotId): string | undefined {
    for (const [o, w] of this.where) if ("heldBy" in w && w.heldBy === robot) return o;
    return undefined;
  }

  mobileNavPoint(): string | undefined {
    return NAVIGATION_POINTS.find(
      (point) =>
        Math.hypot(point.position[0] - this.mobile.x, point.position[1] - this.mobile.y) < 0.05 &&
        Math.abs(angleDiff(point.yaw, this.mobile.yaw)) < 0.05,
    )?.name;
  }

  // ---- perturbations ----------------------------------------------------------------------------------------------

  private applyPerturbations(): void {
    for (const pert of this.scenario.perturbations) {
      if (pert.afterSkill !== this.skillsEnded) continue;
      if (pert.move) {
        const { object, to } = pert.move;
        const where = this.where.get(object);
        const dest = place(to);
        const slot = this.freeSlot(dest);
        if (where && "heldBy" in where)
          this.log({ kind: "perturbation", object, detail: `not moved: held by ${where.heldBy}` });
        else if (slot < 0) this.log({ kind: "perturbation", object, detail: `not moved: ${to} is full` });
        else {
          this.where.set(object, { place: dest, slot });
          this.log({ kind: "perturbation", object, place: to, detail: `moved ${object} to ${to}` });
        }
      } else {
        const name = (pert.close ?? pert.open)!;
        const spec = place(name);
        this.setJoint(spec, pert.open ? spec.openPosition! : 0, true);
        this.log({ kind: "perturbation", place: name, detail: `${pert.open ? "opened" : "closed"} ${name}` });
      }
    }
    this.syncMocap();
    this.mj.mj_forward(this.model, this.data);
  }

  // ---- perception -------------------------------------------------------------------------------------------------

  cameraPose(robot: RobotId): CameraPose {
    return cameraPose(robot, this.mobile);
  }

  /** The base's go_to takes a navigation point: as a standard robot it is move_base to that point's pose in `map`. */
  namedPoseSkills(): NamedPoseSkill[] {
    const poses = Object.fromEntries(
      NAVIGATION_POINTS.map((n) => [n.name, { x: n.position[0], y: n.position[1], yaw: n.yaw }]),
    );
    return [
      {
        robot: "mobile",
        skill: "go_to",
        argument: "navigation_point",
        frame: "map",
        poses,
        basePose: () => ({ ...this.mobile }),
      },
    ];
  }

  /** Renders a robot's camera, runs the detector on it and encodes the images. */
  renderCamera(robot: RobotId): Promise<CameraOutput> {
    return this.cameras.render(robot, this.mobile, this.view);
  }

  stamp(): { sec: number; nanosec: number } {
    const sec = Math.floor(this.clock.time);
    return { sec, nanosec: Math.round((this.clock.time - sec) * 1e9) };
  }

  /** For tests of perception: the per-pixel object name of a frame (null where no object). */
  objectAtPixel(frame: Frame, i: number): string | null {
    return this.cameras.objectAtPixel(frame, i);
  }

  // ---- evaluation (evaluator service only) -----------------------------------------------------------------------

  /** Truth of one goal literal on the true state. */
  holds(literal: string): boolean {
    const parsed = parseLiteral(literal);
    let value: boolean;
    switch (parsed.pred) {
      case "in": {
        const where = this.where.get(parsed.args[0]);
        value = !!where && "place" in where && where.place.name === parsed.args[1];
        break;
      }
      case "holding":
        value = this.heldBy(parsed.args[0] as RobotId) === parsed.args[1];
        break;
      case "closed":
        value = this.isClosed(place(parsed.args[0]));
        break;
      case "found":
        value = this.detected.has(parsed.args[0]);
        break;
      case "at":
        value = parsed.args[0] === "mobile" && this.mobileNavPoint() === parsed.args[1];
        break;
      default:
        throw new Error(`unknown goal predicate ${parsed.pred}`);
    }
    return parsed.negated ? !value : value;
  }

  /** The true state, and whether `goal` holds (default: the scenario's goal; a run given another goal passes its own). */
  evaluate(literals: readonly string[] = this.scenario.goal): {
    success: boolean;
    goal: { literal: string; holds: boolean }[];
    skillsEnded: number;
    simTime: number;
    state: Record<string, string>;
  } {
    const goal = literals.map((literal) => ({ literal, holds: this.holds(literal) }));
    const state: Record<string, string> = {};
    for (const [o, w] of this.where) state[o] = "heldBy" in w ? `held_by(${w.heldBy})` : w.place.name;
    for (const p of PLACES) if (p.openable) state[p.name] = this.isClosed(p) ? "closed" : "open";
    return {
      success: goal.every((g) => g.holds),
      goal,
      skillsEnded: this.skillsEnded,
      simTime: this.clock.time,
      state,
    };
  }
}
