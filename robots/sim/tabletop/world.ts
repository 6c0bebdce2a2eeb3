/**
 * The tabletop world (RePLan's scenes): MuJoCo physics with a floating palm, the true state, the event log, the
 * `execute_motion` skill's dispatch and the goal check. The scene's parts are looked up in bodies.ts, the palm's
 * mechanics and the MPC motion are in controllers.ts, the front camera and detector in perception.ts. Agents never
 * import this: they reach it over the bridge.
 */
import type { CameraPose, Frame, Vec3 } from "../camera";
import type { DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { SimClock } from "../clock";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, parseLiteral, type RobotManifest, type WorldDescription } from "../../manifests";
import { MotionProgram, termText } from "../../msgs/motion";
import type { SceneSpec } from "./scenes";
import {
  compileProgram,
  jointFraction,
  pointPosition,
  unknownNames,
  type JointRef,
  type Point,
  type Resolver,
} from "../palm/rewards";
import { DEFAULT_MPC, Spline, type MpcOptions } from "../palm/mpc";
import { describeScene, sceneOf } from "./scenario";
import { indexScene, type Lock, type Thing } from "../palm/bodies";
import {
  TICK,
  executeMotion,
  lockEngaged,
  setControl,
  stepWorld,
  type PalmBody,
  type WorldState,
} from "../palm/controllers";
import { geomsBox, type PlaceVolume } from "../locate";
import { TabletopCamera, cameraPose, type DetectionsMessage, type TabletopView } from "../palm/perception";
import { modelViews } from "../palm/views";

export interface TabletopOptions {
  /** A hand-made scene's name or generated_<seed>. */
  scene: string;
  seed?: number;
  noise?: Partial<DetectorNoise>;
  width?: number;
  height?: number;
  /** Simulated seconds per wall second (Infinity: as fast as possible). */
  speed?: number;
  mpc?: Partial<MpcOptions>;
}

// ---- constants (why: see the spec of the palm in the manifest) ----------------------------------------------------
export const PALM_REST = [0, -0.35, 0.45];
const WORKSPACE = { min: [-0.6, -0.6, 0.02], max: [0.6, 0.6, 0.7] };

export class TabletopWorld implements Resolver {
  readonly name = "tabletop";
  readonly manifests: RobotManifest[] = bundledManifests("tabletop");
  readonly events = new EventLog();
  readonly clock: SimClock;
  readonly description: WorldDescription;
  readonly mpc: MpcOptions;
  private readonly scratch: MjData;
  private readonly st: WorldState;
  private readonly things: Thing[];
  private readonly thingIndex: Map<string, number>;
  private readonly points: Map<string, Point>;
  private readonly joints: Map<string, JointRef>;
  private readonly palmBody: number;
  private readonly palmQpos: number[];
  private readonly locks: Lock[];
  private plan: Spline;
  private grabbable: number[] = [];
  private camera: TabletopCamera;
  private busy = false;
  private motions = 0;
  private skillsEnded = 0;
  private seed: number;
  private detected = new Set<string>();
  private upright = new Map<string, boolean>();
  private sensorEngaged: boolean[] = [];
  /** Wall and simulated seconds spent in motions (for the benchmark). */
  readonly stats = { wall: 0, simulated: 0, rolloutSteps: 0 };
  // The controllers and the detector get narrow views of this world rather than the world itself: they need its
  // private state (physics, grasp and lock state, the palm's plan) but none of its bookkeeping.
  private readonly palm: PalmBody;
  private readonly view: TabletopView;

  private constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly scene: SceneSpec,
    opts: TabletopOptions,
  ) {
    this.seed = opts.seed ?? 0;
    this.mpc = { ...DEFAULT_MPC, ...opts.mpc };
    this.scratch = new mj.MjData(model);
    this.clock = new SimClock(TICK, () => this.stepTick(), opts.speed ?? Infinity);
    ({
      palmBody: this.palmBody,
      palmQpos: this.palmQpos,
      things: this.things,
      thingIndex: this.thingIndex,
      points: this.points,
      joints: this.joints,
      locks: this.locks,
    } = indexScene(mj, model, scene));
    this.description = describeScene(scene);
    this.camera = new TabletopCamera(mj, model, data, scene, this.description, { ...opts, seed: this.seed });
    this.st = { held: -1, prev: [0, 0, 0], holdQuat: [1, 0, 0, 0], released: this.locks.map(() => false) };
    this.plan = Spline.constant(PALM_REST, this.mpc.knots, 0, this.mpc.horizon);
    // Accessors in an object literal have their own `this`: they reach the world through this arrow.
    const world = () => this;
    this.palm = {
      mj,
      model,
      data,
      scratch: this.scratch,
      palmBody: this.palmBody,
      things: this.things,
      locks: this.locks,
      points: this.points,
      st: this.st,
      mpc: this.mpc,
      seed: this.seed,
      surfaces: scene.surfaces,
      stats: this.stats,
      get plan() {
        return world().plan;
      },
      set plan(plan) {
        world().plan = plan;
      },
      get grabbable() {
        return world().grabbable;
      },
      set grabbable(grabbable) {
        world().grabbable = grabbable;
      },
      thingIndex: (name) => this.thingIndex.get(name),
      heldName: () => this.heldName(),
      restsOn: (name, surface) => this.restsOn(name, surface),
      palmPosition: () => this.palmPosition(),
      clamp: (p) => this.clamp(p),
      log: (e) => this.log(e),
    };
    const { volumes, shut } = this.mapOfScene();
    this.view = {
      fixed: new Set(this.description.labels.filter((l) => !scene.objects.includes(l))),
      volumes,
      shut,
      hand: () => ({ name: "palm", at: this.palmPosition() as Vec3, closed: this.st.held >= 0, reach: 0.06 }),
      stamp: () => this.stamp(),
      seen: (object) => {
        if (this.detected.has(object)) return;
        this.detected.add(object);
        this.log({ kind: "detected", robot: "palm", object });
      },
    };
    this.reset();
  }

  static async create(opts: TabletopOptions): Promise<TabletopWorld> {
    const mj = await mujoco();
    const spec = sceneOf(opts.scene);
    const model = mj.MjModel.from_xml_string(spec.xml);
    const data = new mj.MjData(model);
    return new TabletopWorld(mj, model, data, spec, opts);
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
    const qpos = this.data.qpos as Float64Array;
    this.palmQpos.forEach((a, i) => (qpos[a] = PALM_REST[i]));
    (this.data.ctrl as Float64Array).set(PALM_REST);
    for (const [j, v] of Object.entries(this.scene.initialJoints)) qpos[this.joints.get(j)!.qpos] = v;
    this.mj.mj_forward(this.model, this.data);
    // Let contacts settle (objects were placed by hand), so the episode starts at rest.
    for (let i = 0; i < 150; i++) stepWorld(this.palm, this.data, this.st, [], null);
    (this.data.qvel as Float64Array).fill(0);
    this.data.time = 0;
    this.mj.mj_forward(this.model, this.data);
    for (const o of this.scene.objects) this.upright.set(o, this.isUpright(o));
    this.sensorEngaged = this.locks.map((_, i) => lockEngaged(this.palm, this.data, this.st, i));
  }

  /**
   * The scene's map, made once from its fixed geometry with every door shut: each container's inside and each surface's
   * top as the room their contents take up, and where each door lies when shut.
   */
  private mapOfScene(): {
    volumes: PlaceVolume[];
    shut: Map<string, { door: string; box: { min: Vec3; max: Vec3 } }[]>;
  } {
    const qpos = this.data.qpos as Float64Array;
    const saved = Float64Array.from(qpos);
    for (const j of this.joints.values()) qpos[j.qpos] = j.closed;
    this.mj.mj_kinematics(this.model, this.data);
    const geomBody = this.model.geom_bodyid as Int32Array;
    const bodyName = (bodyIndex: number) =>
      (this.mj.mj_id2name(this.model, this.mj.mjtObj.mjOBJ_BODY.value, bodyIndex) as string | null) ?? "";
    const shut = new Map(
      this.scene.containers.map((container) => [
        container.name,
        container.doors.flatMap((doorSpec) => {
          const door = `${container.name}__${doorSpec.joint}`;
          const box = geomsBox(
            this.mj,
            this.model,
            this.data,
            [...geomBody.keys()].filter((g) => bodyName(geomBody[g]) === door),
            0.02,
          );
          return box ? [{ door, box }] : [];
        }),
      ]),
    );
    const volumes: PlaceVolume[] = [
      ...this.scene.containers.map((container) => ({
        name: container.name,
        relation: "in" as const,
        min: [...container.min] as Vec3,
        max: [...container.max] as Vec3,
      })),
      ...this.scene.surfaces.map((sf) => {
        const centre = pointPosition(this.data, this.points.get(sf.name)!);
        // A thing resting on it has its middle a little above its top; the tallest of them well under 12 cm.
        return {
          name: sf.name,
          relation: "on" as const,
          min: [centre[0] - sf.half[0], centre[1] - sf.half[1], sf.top] as Vec3,
          max: [centre[0] + sf.half[0], centre[1] + sf.half[1], sf.top + 0.12] as Vec3,
        };
      }),
    ];
    qpos.set(saved);
    this.mj.mj_forward(this.model, this.data);
    return { volumes, shut };
  }

  palmPosition(data: MjData = this.data): number[] {
    return pointPosition(data, { kind: "body", id: this.palmBody });
  }

  clamp(position: number[]): void {
    for (let d = 0; d < 3; d++) position[d] = Math.min(WORKSPACE.max[d], Math.max(WORKSPACE.min[d], position[d]));
  }

  private stepTick(): void {
    const substeps = Math.round(TICK / modelViews(this.model).timestep);
    const target = [0, 0, 0];
    for (let i = 0; i < substeps; i++) {
      this.plan.at(this.data.time as number, target);
      this.clamp(target);
      setControl(this.data, target);
      stepWorld(this.palm, this.data, this.st, this.grabbable, (e) => this.log(e));
    }
    // Sensor locks follow the plate's load; log each change (lever locks log their release in stepWorld).
    this.locks.forEach((lock, i) => {
      if (!lock.sensor) return;
      const engaged = lockEngaged(this.palm, this.data, this.st, i);
      if (engaged !== this.sensorEngaged[i]) {
        this.sensorEngaged[i] = engaged;
        this.log({
          kind: engaged ? "closed" : "opened",
          place: lock.place,
          detail: `lock ${engaged ? "engaged" : "released"}: the ${lock.sensor.surface} ${engaged ? "is unloaded" : "is loaded"}`,
        });
      }
    });
  }

  private log(event: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.clock.time * 1000) / 1000, step: this.skillsEnded, ...event });
  }

  heldName(): string | null {
    return this.st.held >= 0 ? this.things[this.st.held].name : null;
  }

  // ---- the skill --------------------------------------------------------------------------------------------------

  async runSkill(
    robot: string,
    skill: string,
    args: Record<string, unknown>,
    ctx: ActionContext,
  ): Promise<ActionOutcome> {
    const fail = (message: string, extra: Record<string, unknown> = {}): ActionOutcome => ({
      status: "aborted",
      values: { success: false, message, error: message, ...extra },
    });
    if (robot !== "palm" || skill !== "execute_motion")
      return fail(`unknown skill ${robot}.${skill}; the palm has execute_motion`);
    if (this.busy) return fail("the palm is busy with another motion");
    const parsed = MotionProgram.safeParse(args);
    if (!parsed.success)
      return fail(
        `invalid motion program: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(program)"}: ${i.message}`).join("; ")}`,
      );
    const program = parsed.data;
    const unknown = program.terms.flatMap((t) => unknownNames(t, this));
    if (unknown.length) {
      const valid = this.validNames();
      return fail(
        `unknown name(s) ${[...new Set(unknown)].join(", ")}; things: ${valid.things.join(", ")}; joints: ${valid.joints.join(", ") || "(none)"}`,
      );
    }
    this.busy = true;
    const index = this.motions++;
    this.log({
      kind: "skill_started",
      robot,
      skill,
      goalId: ctx.goalId,
      detail: program.terms.map((t) => termText(t)).join("; "),
    });
    const compiled = compileProgram(program.terms, this);
    const result: { canceled?: boolean; report?: Record<string, unknown>; message?: string; ok?: boolean } = {};
    const wall0 = performance.now(),
      sim0 = this.clock.time;
    try {
      const runResult = await this.clock.run(
        executeMotion(this.palm, program, compiled, index, ctx, result),
        ctx.signal,
      );
      if (runResult === "canceled") result.canceled = true;
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
    const values = {
      success: !!result.ok && !result.canceled,
      message: result.canceled ? "execute_motion was canceled" : (result.message ?? ""),
      ...result.report,
    };
    this.log({
      kind: values.success ? "skill_succeeded" : result.canceled ? "skill_canceled" : "skill_failed",
      robot,
      skill,
      goalId: ctx.goalId,
      detail: values.message,
    });
    if (result.canceled) return { status: "canceled", values };
    return values.success
      ? { status: "succeeded", values }
      : { status: "aborted", values: { ...values, error: values.message } };
  }

  private isUpright(name: string): boolean {
    const bodyIndex = this.things[this.thingIndex.get(name)!].body;
    return (this.data.xmat as Float64Array)[9 * bodyIndex + 8] > 0.7;
  }

  /** Logs objects that fell over or came to rest somewhere new after a motion. */
  private checkFalls(): void {
    for (const o of this.scene.objects) {
      const up = this.isUpright(o);
      if (o !== "red_bar" && this.upright.get(o) && !up)
        this.log({ kind: "moved", object: o, detail: `the ${o} fell over` });
      this.upright.set(o, up);
    }
  }

  // ---- queries ------------------------------------------------------------------------------------------------------

  jointFractionOf(name: string): number {
    return jointFraction(this.data, this.joints.get(name)!);
  }

  /** A container is open when any of its doors is more than 30% open. */
  isOpen(container: string): boolean {
    const spec = this.scene.containers.find((x) => x.name === container);
    if (!spec) return true;
    return spec.doors.some((d) => this.jointFractionOf(d.joint) > 0.3);
  }

  private speed(thing: Thing): number {
    const qvel = this.data.qvel as Float64Array;
    return Math.hypot(qvel[thing.dof], qvel[thing.dof + 1], qvel[thing.dof + 2]);
  }

  /** Where a thing is: held by the palm, in a container, on a surface, or on the floor. */
  locate(name: string): { relation: "in" | "on" | "held_by"; place: string } {
    const i = this.thingIndex.get(name);
    if (i !== undefined && i === this.st.held) return { relation: "held_by", place: "palm" };
    if (i === undefined || !this.things[i].free) return { relation: "on", place: "floor" };
    const position = pointPosition(this.data, this.things[i].point);
    for (const c of this.scene.containers) {
      if (position.every((v, d) => v > c.min[d] && v < c.max[d])) return { relation: "in", place: c.name };
    }
    for (const s of this.scene.surfaces) if (this.restsOn(name, s.name)) return { relation: "on", place: s.name };
    return { relation: "on", place: "floor" };
  }

  /** Resting on a surface: centre over its area (inside a crate's rim) at resting height, still, not held. */
  restsOn(name: string, surface: string): boolean {
    const i = this.thingIndex.get(name);
    const spec = this.scene.surfaces.find((x) => x.name === surface);
    if (i === undefined || !spec || i === this.st.held || !this.things[i].free) return false;
    const thing = this.things[i];
    const position = pointPosition(this.data, thing.point);
    const centre = pointPosition(this.data, this.points.get(spec.name)!);
    const dz = position[2] - spec.top;
    return (
      Math.abs(position[0] - centre[0]) <= spec.half[0] &&
      Math.abs(position[1] - centre[1]) <= spec.half[1] &&
      dz > 0.015 &&
      dz < 0.045 &&
      this.speed(thing) < 0.05
    );
  }

  inside(name: string, container: string): boolean {
    const i = this.thingIndex.get(name);
    if (i === undefined || i === this.st.held) return false;
    return this.locate(name).place === container && this.speed(this.things[i]) < 0.05;
  }

  // ---- perception ---------------------------------------------------------------------------------------------------

  cameraPose(): CameraPose {
    return cameraPose();
  }

  renderFrame(): Frame {
    return this.camera.renderFrame();
  }

  /** Pixels of each label in a frame. */
  pixelsOf(frame: Frame, label: string): number {
    return this.camera.pixelsOf(frame, label);
  }

  async renderCamera(
    robot = "palm",
  ): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: DetectionsMessage }> {
    if (robot !== "palm") throw new Error(`no robot ${robot}`);
    return this.camera.render(this.view);
  }

  detect(frame: Frame): DetectionsMessage {
    return this.camera.detect(frame, this.view);
  }

  stamp(): { sec: number; nanosec: number } {
    const sec = Math.floor(this.clock.time);
    return { sec, nanosec: Math.round((this.clock.time - sec) * 1e9) };
  }

  // ---- evaluation (evaluator service only) -------------------------------------------------------------------------

  holds(literal: string, frame?: () => Frame): boolean {
    const parsed = parseLiteral(literal);
    let value: boolean;
    switch (parsed.pred) {
      case "inside":
      case "in":
        value = this.inside(parsed.args[0], parsed.args[1]);
        break;
      case "on":
        value = this.restsOn(parsed.args[0], parsed.args[1]);
        break;
      case "open":
        value =
          this.scene.containers
            .find((c) => c.name === parsed.args[0])
            ?.doors.some((d) => this.jointFractionOf(d.joint) >= 0.7) ?? false;
        break;
      case "in_view":
        value = this.pixelsOf(frame ? frame() : this.renderFrame(), parsed.args[0]) >= 30;
        break;
      case "holding":
        value = this.heldName() === parsed.args[parsed.args.length - 1];
        break;
      default:
        throw new Error(`unknown goal predicate ${parsed.pred}`);
    }
    return parsed.negated ? !value : value;
  }

  /** The true state, and whether `goal` holds (default: the scene's goal; a run given another goal passes its own). */
  evaluate(literals: readonly string[] = this.scene.goal): {
    success: boolean;
    goal: { literal: string; holds: boolean }[];
    skillsEnded: number;
    simTime: number;
    state: Record<string, string>;
  } {
    let cached: Frame | undefined;
    const frame = () => (cached ??= this.renderFrame());
    const goal = literals.map((literal) => ({ literal, holds: this.holds(literal, frame) }));
    const state: Record<string, string> = {};
    for (const j of this.scene.joints) state[j.name] = this.jointFractionOf(j.name).toFixed(2);
    for (const o of this.scene.objects) {
      const where = this.locate(o);
      state[o] = `${where.relation} ${where.place}${this.isUpright(o) || o === "red_bar" ? "" : " (fallen over)"}`;
    }
    this.locks.forEach(
      (l, i) => (state[`${l.name}_lock`] = lockEngaged(this.palm, this.data, this.st, i) ? "locked" : "released"),
    );
    state.holding = this.heldName() ?? "nothing";
    return {
      success: goal.every((g) => g.holds),
      goal,
      skillsEnded: this.skillsEnded,
      simTime: this.clock.time,
      state,
    };
  }

  /** Advances physics with the palm holding still (tests: stability, settling). */
  idle(seconds: number): void {
    this.plan = Spline.constant(
      this.plan.at(this.data.time as number),
      this.mpc.knots,
      this.data.time as number,
      this.mpc.horizon,
    );
    const ticks = Math.round(seconds / TICK);
    for (let i = 0; i < ticks; i++) this.stepTick();
  }

  /** Positions of every free object (tests). */
  objectPositions(): Record<string, number[]> {
    return Object.fromEntries(this.scene.objects.map((o) => [o, pointPosition(this.data, this.points.get(o)!)]));
  }

  hasNaN(): boolean {
    return (this.data.qpos as Float64Array).some((v) => !Number.isFinite(v));
  }
}
