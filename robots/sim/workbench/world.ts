/**
 * The workbench world (the behaviour critics' benchmark): MuJoCo physics with a visible two-finger palm, the event log
 * and its monitor, the `run_primitives` skill with its recorder, the goal check, and reset. The scene's physics lives
 * in a Stage that a reset replaces; the palm's controllers are in controllers.ts, the monitor in monitor.ts, the
 * camera in perception.ts. Agents never import this: they reach it over the bridge.
 */
import { z } from "zod";
import type { CameraPose, Frame, Vec3 } from "../camera";
import { geomsBox } from "../locate";
import { encodeDepthPng, encodeRgbPng } from "../camera";
import { SimClock } from "../clock";
import type { DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { mujoco, type Mujoco } from "../mujoco";
import type { SimulatedWorld } from "../serve";
import { setControl } from "../palm/controllers";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, parseLiteral, type RobotManifest, type WorldDescription } from "../../manifests";
import { explainProgramError, PrimitiveProgram } from "../../msgs/primitives";
import type { RolloutDetections } from "../../msgs/rollout";
import { runPrimitives, type Path, type ProgramOutcome, type WorkbenchBody } from "./controllers";
import { EventMonitor } from "./monitor";
import { WorkbenchCamera, workbenchCameraPose, type WorkbenchView } from "./perception";
import { Recorder, type RecordedRollout } from "./recorder";
import {
  buildWorkbenchScene,
  FINGER,
  isWorkbenchScene,
  PALM_HOME,
  WORKBENCH_SCENES,
  type WorkbenchScene,
  type WorkbenchSceneName,
} from "./scenes";
import { Stage, TICK, type Snapshot } from "./stage";

export interface WorkbenchOptions {
  scene: WorkbenchSceneName;
  seed?: number;
  noise?: Partial<DetectorNoise>;
  width?: number;
  height?: number;
  /** Simulated seconds per wall second (Infinity: as fast as possible). */
  speed?: number;
}

/** Settling after a scene is built (things were placed by hand) and after a program (what falls, lands). */
const SETTLE_START = 0.6;
const SETTLE_END = 0.5;

export const ResetArgs = z.strictObject({
  scenario: z.enum(WORKBENCH_SCENES).optional().describe("scene to load (default: the current one)"),
  seed: z.number().int().min(0).max(1_000_000).optional().describe("layout seed (default: the current one)"),
});

export interface ProgramResult {
  status: ActionOutcome["status"];
  values: Record<string, unknown>;
  recorded?: RecordedRollout;
}

export class WorkbenchWorld implements SimulatedWorld, WorkbenchBody {
  readonly name = "workbench";
  readonly manifests: RobotManifest[] = bundledManifests("workbench");
  readonly events = new EventLog();
  readonly clock: SimClock;
  /** Wall and simulated seconds spent in programs, and frames rendered (the benchmark's speed report). */
  readonly stats = { wall: 0, simulated: 0, programs: 0, frames: 0, renderMs: 0 };
  cmd: number[] = [...PALM_HOME];
  path: Path | null = null;
  private current: Stage;
  private watcher: EventMonitor;
  private camera: WorkbenchCamera;
  private recorder: Recorder<Snapshot> | null = null;
  private last: RecordedRollout | null = null;
  /**
   * What the camera has shown of the loose things since the scene was set, from the recorder's frames (every 0.1 s
   * of a program, deterministic — never the published frames, which render only for a subscriber): those in the
   * latest frame, and where each was when last shown. A move_to goes no further than this (whereIs).
   */
  private inView = new Set<string>();
  private lastSeen = new Map<string, number[]>();
  private busy = false;
  private skillsEnded = 0;
  private programs = 0;
  private seed: number;
  private readonly view: WorkbenchView;
  /** The scene's map for the detector: what holds things in or on it, where each drawer lies shut. */
  private holders = new Map<string, "in" | "on">();
  /** Where each loose support and thing lay once the scene settled (the simulator's truth; tests and the generator). */
  private settled = new Map<string, { xy: [number, number]; tilt: number }>();
  private doors = new Map<string, { geoms: ReadonlySet<number>; shut: { min: Vec3; max: Vec3 } }>();

  private constructor(
    private readonly mj: Mujoco,
    opts: WorkbenchOptions,
  ) {
    this.seed = opts.seed ?? 0;
    this.clock = new SimClock(TICK, () => this.stepTick(), opts.speed ?? Infinity);
    this.camera = new WorkbenchCamera(mj, opts);
    this.view = {
      hand: () => ({ name: "palm", at: this.current.palm() as Vec3, closed: this.current.st.held >= 0, reach: 0.03 }),
      holds: () => this.holders,
      partOf: () => new Map(this.current.scene.joints.map((j) => [j.handle, j.object])),
      doors: () => this.doors,
      stamp: () => this.stamp(),
    };
    this.current = this.build(opts.scene, this.seed);
    this.watcher = new EventMonitor(
      this.current,
      (e, t) => this.log(e, t),
      () => this.time(),
    );
  }

  static async create(opts: WorkbenchOptions): Promise<WorkbenchWorld> {
    if (!isWorkbenchScene(opts.scene))
      throw new Error(`unknown workbench scene ${opts.scene}; known: ${WORKBENCH_SCENES.join(", ")}`);
    return new WorkbenchWorld(await mujoco(), opts);
  }

  // ---- WorkbenchBody ---------------------------------------------------------------------------------------------
  get stage(): Stage {
    return this.current;
  }
  get monitor(): EventMonitor {
    return this.watcher;
  }
  time(): number {
    return this.current.data.time as number;
  }

  /**
   * Where a program's move_to goes for a name: a place, handle or named point where it is; a loose thing where it is
   * if the camera's latest frame shows it or the palm holds it, else where the camera last showed it, else nowhere
   * (undefined) — never where a thing the camera has not seen has gone meanwhile.
   */
  whereIs(name: string): number[] | undefined {
    const stage = this.current;
    const i = stage.thingIndex(name);
    if (i === undefined || !stage.parts.things[i].free || i === stage.st.held || this.inView.has(name))
      return stage.point(name);
    return this.lastSeen.get(name);
  }

  get scene(): WorkbenchScene {
    return this.current.scene;
  }

  get description(): WorldDescription {
    const scene = this.current.scene;
    return {
      name: "workbench",
      places: [
        ...scene.places.map((place) => ({
          name: place.name,
          kind: (place.kind === "drawer" ? "container" : "surface") as "container" | "surface",
          openable: place.kind === "drawer",
        })),
        { name: "table", kind: "surface" as const, openable: false },
      ],
      navigationPoints: [],
      labels: [...new Set(this.current.detector.labels)],
      joints: scene.joints.map((j) => ({ ...j })),
      targets: scene.targets.map((t) => ({ name: t.name, place: t.place })),
    };
  }

  /** The world validates programs itself (explainProgramError names the field inside the union of primitives). */
  argumentsSchema(): z.ZodType<Record<string, unknown>> {
    return z.record(z.string(), z.unknown());
  }

  // ---- episodes ----------------------------------------------------------------------------------------------------

  private build(scene: WorkbenchSceneName, seed: number): Stage {
    const spec = buildWorkbenchScene(scene, seed);
    const model = this.mj.MjModel.from_xml_string(spec.xml);
    const data = new this.mj.MjData(model);
    const stage = new Stage(this.mj, model, data, spec);
    this.cmd = [...PALM_HOME];
    this.path = null;
    stage.setFingers(FINGER.open);
    // The palm's slides are offsets from the world origin: start them at home, clear of everything.
    stage.parts.palmQpos.forEach((a, d) => ((data.qpos as Float64Array)[a] = PALM_HOME[d]));
    this.mj.mj_forward(model, data);
    for (let i = 0, n = Math.round(SETTLE_START / (model.opt.timestep as number)); i < n; i++) {
      setControl(data, this.cmd);
      stage.step(null);
    }
    (data.qvel as Float64Array).fill(0);
    data.time = 0;
    this.mj.mj_forward(model, data);
    this.camera.reseed(seed);
    this.settled = loosePoses(stage);
    this.holders = holdsOf(spec);
    this.doors = doorsOf(this.mj, stage);
    return stage;
  }

  /** Loads a scene afresh (this one by default): new physics, empty event log, clock at zero, no last rollout. */
  reset(args: { scenario?: string; seed?: number } = {}): {
    scenario: WorkbenchSceneName;
    seed: number;
    instruction: string;
  } {
    if (this.busy) throw new Error("a program is running; reset refused (wait for it to end or cancel it)");
    const parsed = ResetArgs.safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid reset: ${explainProgramError(parsed.error)}`);
    const scenario = parsed.data.scenario ?? this.current.scene.name;
    const seed = parsed.data.seed ?? this.seed;
    const old = this.current;
    this.current = this.build(scenario, seed);
    old.dispose();
    this.seed = seed;
    this.watcher = new EventMonitor(
      this.current,
      (e, t) => this.log(e, t),
      () => this.time(),
    );
    this.events.clear();
    this.clock.time = 0;
    this.clock.ticks = 0;
    this.last = null;
    this.inView.clear();
    this.lastSeen.clear();
    this.skillsEnded = 0;
    this.programs = 0;
    return { scenario, seed, instruction: this.current.scene.instruction };
  }

  async close(): Promise<void> {
    await this.clock.stop();
    this.camera.dispose();
    this.current.dispose();
  }

  private stepTick(): void {
    const stage = this.current;
    const substeps = stage.substeps;
    for (let i = 0; i < substeps; i++) {
      if (this.path) this.cmd = this.path.at(stage.data.time as number);
      setControl(stage.data, this.cmd);
      stage.step((e) => this.onMechanics(e));
    }
    this.watcher.tick();
    this.restoreCollisions();
    if (this.recorder?.due(this.time())) this.capture();
  }

  /** Events from the spring mechanics: a grasp that slipped is a release like any other. */
  private onMechanics(event: Omit<SimEvent, "t" | "step">): void {
    this.log(event);
    if (event.kind === "released" && event.object) {
      this.current.st.gripMax = undefined;
      const i = this.current.thingIndex(event.object);
      if (i !== undefined) this.watcher.onRelease(i);
    }
  }

  /** Lets the palm collide again with what it let go of, once the fingers are clear of it. */
  private restoreCollisions(): void {
    const stage = this.current;
    if (stage.excluded.size === 0) return;
    const held = stage.st.held >= 0 ? stage.parts.things[stage.st.held].body : -1;
    for (const body of [...stage.excluded]) {
      if (body === held) continue;
      const i = stage.parts.things.findIndex((t) => t.body === body && t.free);
      const palm = stage.palm();
      let clear: boolean;
      if (i >= 0) {
        const position = stage.thingPosition(i);
        clear =
          stage.palmLowest().z > stage.top(i) + 0.01 ||
          Math.hypot(palm[0] - position[0], palm[1] - position[1]) > stage.reach(i) + FINGER.open / 2 + 0.03;
      } else {
        const handle = stage.parts.things.find((t) => t.body === body)!;
        const position = stage.point(handle.name)!;
        clear = Math.hypot(palm[0] - position[0], palm[1] - position[1], palm[2] - position[2]) > 0.08;
      }
      if (clear) stage.exclude(body, false);
    }
  }

  log(event: Omit<SimEvent, "t" | "step">, at?: number): void {
    this.events.add({ t: Math.round((at ?? this.time()) * 1000) / 1000, step: this.skillsEnded, ...event });
  }

  stamp(): { sec: number; nanosec: number } {
    const now = this.time();
    const sec = Math.floor(now);
    return { sec, nanosec: Math.round((now - sec) * 1e9) };
  }

  // ---- the skill ---------------------------------------------------------------------------------------------------

  async runSkill(
    robot: string,
    skill: string,
    args: Record<string, unknown>,
    ctx: ActionContext,
  ): Promise<ActionOutcome> {
    if (robot !== "palm" || skill !== "run_primitives") {
      const message = `unknown skill ${robot}.${skill}; the palm has run_primitives`;
      return { status: "aborted", values: { success: false, message, error: message } };
    }
    const result = await this.runProgram(args, {
      goalId: ctx.goalId,
      signal: ctx.signal,
      feedback: (f) => ctx.feedback(f),
    });
    return { status: result.status, values: result.values };
  }

  /** Names a program uses that the scene does not have, each with where it is used. */
  unknownNames(program: PrimitiveProgram): string[] {
    const stage = this.current;
    const bad: string[] = [];
    program.steps.forEach((st, i) => {
      if (st.op === "move_to" && (st.target === "palm" || !stage.parts.points.has(st.target)))
        bad.push(`steps.${i}.target "${st.target}"`);
      if (st.op === "grasp" && stage.thingIndex(st.object) === undefined) bad.push(`steps.${i}.object "${st.object}"`);
      if (st.op === "set_joint" && !stage.joint(st.joint)) bad.push(`steps.${i}.joint "${st.joint}"`);
    });
    return bad;
  }

  validNames(): { things: string[]; places: string[]; points: string[]; joints: string[] } {
    const scene = this.current.scene;
    return {
      things: [...scene.objects, ...scene.joints.map((j) => j.handle)],
      places: [...scene.places.map((p) => p.name), "table"],
      points: scene.targets.map((t) => t.name),
      joints: scene.joints.map((j) => j.name),
    };
  }

  /**
   * Runs a program and records it. Refusals (busy, invalid, unknown names) run nothing and record nothing; otherwise
   * the result's rollout is also kept as the last rollout.
   */
  async runProgram(
    args: unknown,
    opts: { id?: string; goalId?: string; signal?: AbortSignal; feedback?: (f: unknown) => void } = {},
  ): Promise<ProgramResult> {
    const refuse = (message: string): ProgramResult => ({
      status: "aborted",
      values: { success: false, completed: false, message, error: message },
    });
    if (this.busy) return refuse("the palm is busy with another program");
    const parsed = PrimitiveProgram.safeParse(args);
    if (!parsed.success) return refuse(`invalid program: ${explainProgramError(parsed.error)}`);
    const program = parsed.data;
    const unknown = this.unknownNames(program);
    if (unknown.length) {
      const valid = this.validNames();
      return refuse(
        `unknown name(s) ${unknown.join(", ")}; things: ${valid.things.join(", ")}; places: ${valid.places.join(", ")}; points: ${valid.points.join(", ") || "(none)"}; joints: ${valid.joints.join(", ") || "(none)"}`,
      );
    }
    this.busy = true;
    const stage = this.current;
    const id = opts.id ?? `${stage.scene.name}-s${stage.scene.seed}-p${this.programs + 1}`;
    this.programs++;
    const t0 = this.time();
    const wall0 = performance.now();
    const out: ProgramOutcome = { narration: [], completed: false };
    this.log({
      kind: "skill_started",
      robot: "palm",
      skill: "run_primitives",
      goalId: opts.goalId,
      detail: `${program.steps.length} primitives: ${program.steps.map((x) => x.op).join(", ")}`,
    });
    this.watcher.begin();
    this.recorder = new Recorder(t0);
    this.capture();
    let canceled = false;
    try {
      const motion = (function* (world: WorkbenchWorld) {
        yield* runPrimitives(world, program, out, t0, opts.feedback ?? (() => {}));
        // Let what was set down (or dropped) come to rest inside the recorded window.
        for (let t = 0; t < SETTLE_END - 1e-9; t += TICK) yield;
      })(this);
      canceled = (await this.clock.run(motion, opts.signal)) === "canceled";
    } catch (err) {
      out.completed = false;
      out.failed = {
        index: out.narration.length,
        op: program.steps[out.narration.length]?.op ?? "?",
        reason: `controller error: ${(err as Error).message}`,
      };
    }
    this.path = null;
    this.watcher.end();
    this.capture();
    const duration = Math.round((this.time() - t0) * 1000) / 1000;
    const recorder = this.recorder;
    this.recorder = null;
    this.skillsEnded++;
    // Key frames at what the robot's own controller knows — when each primitive began and ended — and the rest spread
    // evenly by the recorder. Never at the event monitor's moments: no real recorder knows when the undesirable thing
    // happened, and frames chosen by it would show a critic where to look.
    const boundaries = out.narration.flatMap((n) => [n.to, n.from]);
    const completed = out.completed && !canceled;
    const r0 = performance.now();
    const recorded = await recorder.finish(
      {
        id,
        instruction: stage.scene.instruction,
        scene: stage.scene.name,
        seed: stage.scene.seed,
        program,
        narration: out.narration,
        startTime: Math.round(t0 * 1000) / 1000,
        duration,
        completed,
      },
      boundaries,
      (snap) => stage.withSnapshot(snap, (data) => this.camera.render(stage.model, data)),
    );
    this.stats.renderMs += performance.now() - r0;
    this.last = recorded;
    this.busy = false;
    this.stats.wall += (performance.now() - wall0) / 1000;
    this.stats.simulated += duration;
    this.stats.programs++;
    const failed = out.failed && !canceled ? out.failed : undefined;
    const message = canceled
      ? `run_primitives was canceled after ${out.narration.length} of ${program.steps.length} primitives`
      : failed
        ? `step ${failed.index} (${failed.op}) failed: ${failed.reason}`
        : `ran ${program.steps.length} primitives in ${duration.toFixed(1)} s; rollout ${id} (${recorded.rollout.frames.length} key frames) is at /palm/last_rollout`;
    const values = {
      success: completed,
      completed,
      message,
      duration,
      steps: out.narration.length,
      failed_step: failed ?? null,
      rollout_id: id,
      key_frames: recorded.rollout.frames.length,
    };
    this.log({
      kind: completed ? "skill_succeeded" : canceled ? "skill_canceled" : "skill_failed",
      robot: "palm",
      skill: "run_primitives",
      goalId: opts.goalId,
      detail: message,
    });
    if (canceled) return { status: "canceled", values, recorded };
    return completed
      ? { status: "succeeded", values, recorded }
      : { status: "aborted", values: { ...values, error: message }, recorded };
  }

  /** The rollout of the last program (since the last reset), or null. */
  lastRollout(): RecordedRollout | null {
    return this.last;
  }

  /** One instant of the recording: the detector on the half-size view, and a snapshot to render it later. */
  private capture(): void {
    if (!this.recorder) return;
    const started = performance.now();
    const stage = this.current;
    this.mj.mj_kinematics(stage.model, stage.data);
    const frame = this.camera.render(stage.model, stage.data, true);
    this.noteShown(frame);
    const detections = this.detect(frame);
    this.recorder.capture(this.time(), stage.snapshot(), detections);
    this.stats.frames++;
    this.stats.renderMs += performance.now() - started;
  }

  /** The loose things a recorder frame shows (any pixel of theirs), and where each is as it shows. */
  private noteShown(frame: Frame): void {
    const stage = this.current;
    const { geomToEntity, entities } = stage.detector;
    const shown = new Set<number>();
    for (const g of frame.geom) if (g >= 0 && geomToEntity[g] >= 0) shown.add(geomToEntity[g]);
    this.inView.clear();
    for (const e of shown) {
      const name = entities[e];
      const i = stage.thingIndex(name);
      if (i === undefined || !stage.parts.things[i].free) continue;
      this.inView.add(name);
      this.lastSeen.set(name, stage.point(name)!);
    }
  }

  // ---- perception --------------------------------------------------------------------------------------------------

  cameraPose(): CameraPose {
    return workbenchCameraPose();
  }

  renderFrame(): Frame {
    this.mj.mj_kinematics(this.current.model, this.current.data);
    return this.camera.render(this.current.model, this.current.data);
  }

  detect(frame: Frame): RolloutDetections {
    return this.camera.detect(frame, this.current.detector, this.view);
  }

  async renderCamera(
    robot = "palm",
  ): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: RolloutDetections }> {
    if (robot !== "palm") throw new Error(`no robot ${robot}`);
    const frame = this.renderFrame();
    const detections = this.detect(frame);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { camera: "front", frame, image, depth, detections };
  }

  // ---- where things are (the detector's locations and the goal check) -----------------------------------------------

  /** Where a seen entity is: in the palm, in the drawer, on a surface (in the bowl), in the cup (beads), on the table. */
  locate(entity: string): { relation: "in" | "on" | "held_by"; place: string } {
    const stage = this.current;
    if (entity === stage.heldName()) return { relation: "held_by", place: "palm" };
    const handleOf = stage.scene.joints.find((j) => j.handle === entity);
    if (handleOf) return { relation: "on", place: handleOf.object };
    let position: number[] | undefined;
    let bottom: number;
    const i = stage.thingIndex(entity);
    if (i !== undefined) {
      position = stage.thingPosition(i);
      bottom = stage.bottom(i);
    } else if (stage.scene.beads.includes(entity)) {
      const bodyId = stage.bodyId(entity);
      position = Array.from((stage.data.xpos as Float64Array).subarray(3 * bodyId, 3 * bodyId + 3));
      bottom = stage.bodyExtreme(bodyId, -1);
      const cup = stage.parts.things.find((t, k) => stage.props[k].kind === "cup");
      if (cup) {
        const local = stage.toBodyFrame(cup.body, position);
        if (Math.hypot(local[0], local[1]) < 0.043 && local[2] > -0.06 && local[2] < 0.03)
          return { relation: "in", place: cup.name };
      }
    } else return { relation: "on", place: "table" };
    for (const c of stage.scene.containers)
      if (this.inContainer(position, c.name)) return { relation: "in", place: c.name };
    for (const sf of stage.scene.surfaces) {
      if (sf.name === "table") continue;
      if (this.overSurface(position, bottom, sf.name, 0.03))
        return { relation: sf.name === "bowl" ? "in" : "on", place: sf.name };
    }
    return { relation: "on", place: "table" };
  }

  private inContainer(position: number[], container: string): boolean {
    const stage = this.current;
    const spec = stage.scene.containers.find((x) => x.name === container)!;
    const local = stage.toBodyFrame(stage.bodyId(container), position);
    return local.every((v, d) => v > spec.min[d] && v < spec.max[d]);
  }

  private overSurface(position: number[], bottom: number, surface: string, tolerance: number): boolean {
    const stage = this.current;
    const sf = stage.scene.surfaces.find((x) => x.name === surface)!;
    const centre = stage.point(sf.name)!;
    const dx = position[0] - centre[0],
      dy = position[1] - centre[1];
    const inside = sf.round
      ? Math.hypot(dx, dy) <= sf.half[0]
      : Math.abs(dx) <= sf.half[0] && Math.abs(dy) <= sf.half[1];
    return inside && bottom - sf.top > -0.01 && bottom - sf.top < tolerance;
  }

  /** A thing rests on a surface: not held, its centre over the surface, its bottom on it, still. */
  restsOn(name: string, surface: string): boolean {
    const stage = this.current;
    const i = stage.thingIndex(name);
    if (
      i === undefined ||
      i === stage.st.held ||
      !stage.parts.things[i].free ||
      !stage.scene.surfaces.some((x) => x.name === surface)
    )
      return false;
    return (
      this.overSurface(stage.thingPosition(i), stage.bottom(i), surface, 0.015) &&
      Math.hypot(...stage.velocity(i)) < 0.05
    );
  }

  inside(name: string, container: string): boolean {
    const stage = this.current;
    const i = stage.thingIndex(name);
    if (i === undefined || i === stage.st.held) return false;
    if (stage.scene.surfaces.some((x) => x.name === container)) return this.restsOn(name, container);
    if (!stage.scene.containers.some((c) => c.name === container)) return false;
    return this.inContainer(stage.thingPosition(i), container) && Math.hypot(...stage.velocity(i)) < 0.05;
  }

  holds(literal: string): boolean {
    const parsed = parseLiteral(literal);
    const stage = this.current;
    const args = parsed.args;
    let truth: boolean;
    switch (parsed.pred) {
      case "on":
        truth = stage.scene.containers.some((c) => c.name === args[1])
          ? this.inside(args[0], args[1])
          : this.restsOn(args[0], args[1]);
        break;
      case "in":
      case "inside":
        truth = this.inside(args[0], args[1]);
        break;
      case "holding":
        truth = stage.heldName() === args[args.length - 1];
        break;
      case "open":
        truth = stage.scene.joints.some((j) => j.object === args[0] && stage.jointFraction(j.name) >= 0.7);
        break;
      case "closed":
        truth = stage.scene.joints.filter((j) => j.object === args[0]).every((j) => stage.jointFraction(j.name) < 0.1);
        break;
      case "upright": {
        const thing = stage.thing(args[0]);
        truth = !!thing && stage.tilt(thing.body) < 0.3;
        break;
      }
      default:
        throw new Error(`unknown goal predicate ${parsed.pred}`);
    }
    return parsed.negated ? !truth : truth;
  }

  /** The true state, and whether `goal` holds (default: the scene's goal; a run given another goal passes its own). */
  evaluate(literals?: readonly string[]): {
    success: boolean;
    goal: { literal: string; holds: boolean }[];
    scene: string;
    seed: number;
    skillsEnded: number;
    simTime: number;
    state: Record<string, string>;
  } {
    const stage = this.current;
    const goal = (literals ?? stage.scene.goal).map((literal) => ({ literal, holds: this.holds(literal) }));
    const state: Record<string, string> = {};
    stage.parts.things.forEach((thing, i) => {
      if (!thing.free) return;
      const where = this.locate(thing.name);
      const notes = [
        stage.props[i].tippable && stage.tilt(thing.body) > Math.PI / 4 ? "fallen over" : "",
        stage.props[i].crushable && this.flattened(i) ? "flattened" : "",
      ].filter(Boolean);
      state[thing.name] = `${where.relation} ${where.place}${notes.length ? ` (${notes.join(", ")})` : ""}`;
    });
    for (const j of stage.scene.joints) state[j.name] = stage.jointFraction(j.name).toFixed(2);
    if (stage.scene.beads.length) state.beads_in_cup = `${this.watcher.beadsInTheCup()} of ${stage.scene.beads.length}`;
    state.holding = stage.heldName() ?? "nothing";
    return {
      success: goal.every((g) => g.holds),
      goal,
      scene: stage.scene.name,
      seed: stage.scene.seed,
      skillsEnded: this.skillsEnded,
      simTime: this.time(),
      state,
    };
  }

  private flattened(i: number): boolean {
    const stage = this.current;
    const geom = stage.bodyGeoms.get(stage.parts.things[i].body)![0];
    return (stage.model.geom_size as Float64Array)[3 * geom + 2] < 0.029;
  }

  // ---- tests and tools -----------------------------------------------------------------------------------------------

  /** Advances physics with the palm holding still. */
  idle(seconds: number): void {
    const ticks = Math.round(seconds / TICK);
    for (let i = 0; i < ticks; i++) {
      this.stepTick();
      this.clock.time += TICK;
    }
  }

  /** Positions of every free thing and bead. */
  objectPositions(): Record<string, number[]> {
    const stage = this.current;
    const out: Record<string, number[]> = {};
    stage.parts.things.forEach((thing, i) => {
      if (thing.free) out[thing.name] = stage.thingPosition(i).map((v) => Math.round(v * 1e4) / 1e4);
    });
    for (const b of stage.scene.beads) {
      const id = stage.bodyId(b);
      out[b] = Array.from(
        (stage.data.xpos as Float64Array).subarray(3 * id, 3 * id + 3),
        (v) => Math.round(v * 1e4) / 1e4,
      );
    }
    return out;
  }

  /**
   * How far each loose support (plate, tray, bowl) and thing lies now from where it lay when the scene settled: the
   * simulator's truth, in metres across the table and radians of tilt (what the critic must find from its camera).
   */
  displacements(): Record<string, { moved: number; tilt: number }> {
    const now = loosePoses(this.current);
    const out: Record<string, { moved: number; tilt: number }> = {};
    for (const [name, start] of this.settled) {
      const pose = now.get(name)!;
      out[name] = {
        moved: Math.round(Math.hypot(pose.xy[0] - start.xy[0], pose.xy[1] - start.xy[1]) * 1e4) / 1e4,
        tilt: Math.round(Math.abs(pose.tilt - start.tilt) * 1e4) / 1e4,
      };
    }
    return out;
  }

  hasNaN(): boolean {
    return (this.current.data.qpos as Float64Array).some((v) => !Number.isFinite(v));
  }
}

/** The loose supports' and free things' positions on the table and tilts (a drawer's cabinet is furniture: fixed). */
function loosePoses(stage: Stage): Map<string, { xy: [number, number]; tilt: number }> {
  const xpos = stage.data.xpos as Float64Array;
  const names = [
    ...stage.scene.places.filter((p) => p.kind !== "drawer").map((p) => p.name),
    ...stage.scene.things.map((t) => t.name),
  ];
  return new Map(
    names.map((name) => {
      const body = stage.bodyId(name);
      return [name, { xy: [xpos[3 * body], xpos[3 * body + 1]] as [number, number], tilt: stage.tilt(body) }];
    }),
  );
}

/** What rests in or on each thing that holds others: drawers, bowls and cups hold things in them; plates and trays on. */
function holdsOf(scene: WorkbenchScene): Map<string, "in" | "on"> {
  return new Map<string, "in" | "on">([
    ...scene.places.map(
      (p) => [p.name, p.kind === "drawer" || p.kind === "bowl" ? "in" : "on"] as [string, "in" | "on"],
    ),
    ...scene.things.filter((t) => t.kind === "cup").map((t) => [t.name, "in"] as [string, "in" | "on"]),
  ]);
}

/** Each drawer's parts and where they lie when shut, from the model with every joint closed (a scratch copy). */
function doorsOf(
  mj: Mujoco,
  stage: Stage,
): Map<string, { geoms: ReadonlySet<number>; shut: { min: Vec3; max: Vec3 } }> {
  const out = new Map<string, { geoms: ReadonlySet<number>; shut: { min: Vec3; max: Vec3 } }>();
  const scratch = stage.scratch;
  (scratch.qpos as Float64Array).set(stage.data.qpos as Float64Array);
  for (const j of stage.scene.joints)
    (scratch.qpos as Float64Array)[stage.joint(j.name)!.qpos] = stage.joint(j.name)!.closed;
  mj.mj_kinematics(stage.model, scratch);
  for (const j of stage.scene.joints) {
    const body = (stage.model.jnt_bodyid as Int32Array)[
      mj.mj_name2id(stage.model, mj.mjtObj.mjOBJ_JOINT.value, j.name)
    ];
    const geoms = stage.bodyGeoms.get(body) ?? [];
    const shut = geomsBox(mj, stage.model, scratch, geoms, 0.02);
    if (shut) out.set(j.object, { geoms: new Set(geoms), shut });
  }
  return out;
}
