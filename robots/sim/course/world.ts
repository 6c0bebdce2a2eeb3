/**
 * The obstacle-course world: one course's MuJoCo model, the dog's kinematic body and skills, its head camera, the
 * event log and the evaluator's view of the truth. Agents never import this: they reach it over the bridge.
 */
import { encodeDepthPng, encodeRgbPng, type CameraPose, type Frame } from "../camera";
import { SimClock } from "../clock";
import type { DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import { Rng } from "../../random";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, type RobotManifest, type WorldDescription } from "../../manifests";
import type { RangedDetectionsMessage } from "../../msgs/detections";
import {
  Controllers,
  DogBody,
  MAGNITUDES,
  SKILLS,
  TICK,
  type BodyEvent,
  type Magnitude,
  type Skill,
  type SkillReport,
} from "./controllers";
import { HeadCamera, detectionsMessage } from "./perception";
import { BODY, LABELS, courseXml, thingBody } from "./scene";
import { findCourse, type Course } from "./scenarios";

export const ROBOT = "dog";

/** The toy counts as reached when some point of the body's spine (hips to nose) comes within this of it, on its level. */
export const SUCCESS_RADIUS = 0.45;
const SAME_LEVEL = 0.3;

export interface CourseOptions {
  scenario: string;
  /** The course itself, when it is not one findCourse knows by `scenario` (tests). */
  course?: Course;
  seed?: number;
  noise?: Partial<DetectorNoise>;
  /** Simulated seconds per wall second (Infinity: as fast as possible). */
  speed?: number;
  /** Head camera resolution (default 160×120: a frame, rays to PNGs and detections, stays near 15 ms). */
  width?: number;
  height?: number;
}

export interface CourseCameraOutput {
  camera: string;
  frame: Frame;
  pose: CameraPose;
  image: Buffer;
  depth: Buffer;
  detections: RangedDetectionsMessage;
}

export interface CourseEvaluation {
  scenario: string;
  /** The toy was reached (latched: passing it counts, as the trial would end there). */
  success: boolean;
  /** Skill seconds when it was reached. */
  reachedAt: number | null;
  /** Courses with a dead end (dead_end_stairs): the whole body got out of it. */
  leftDeadEnd?: boolean;
  /** Whether the body is within reach of the toy right now. */
  atToy: boolean;
  pose: { x: number; y: number; yaw: number; z: number };
  posture: string;
  /** Horizontal distance from the toy to the nearest point of the spine (hips to nose), metres. */
  distanceToToy: number;
  skillSeconds: number;
  skills: number;
  stalls: number;
  climbs: number;
  crawlsThrough: number;
}

/** What people call the things of the courses (the world description's `names`): the toy is the instruction's "red chew toy". */
const COURSE_NAMES: Record<string, { display: string; aliases: string[] }> = {
  toy: { display: "red chew toy", aliases: ["chew toy", "red toy", "dog toy"] },
  couch: { display: "couch", aliases: ["sofa"] },
  cushion: { display: "cushion", aliases: ["pillow"] },
  stool: { display: "stool", aliases: [] },
  bush: { display: "bush", aliases: ["shrub", "hedge"] },
  bamboo: { display: "bamboo", aliases: ["bamboo stalks"] },
  log: { display: "log", aliases: ["small log"] },
  curb: { display: "curb", aliases: ["kerb"] },
  hill: { display: "hill", aliases: ["slope"] },
  plank: { display: "plank", aliases: ["board"] },
  bench: { display: "bench", aliases: [] },
  stairs: { display: "stairs", aliases: ["steps", "staircase"] },
  wall: { display: "wall", aliases: [] },
};

export class CourseWorld {
  readonly name = "course";
  readonly manifests: RobotManifest[];
  readonly events = new EventLog();
  readonly clock: SimClock;
  readonly body: DogBody;
  private readonly controllers: Controllers;
  private readonly camera: HeadCamera;
  private readonly detectorRng: Rng;
  private readonly noise: DetectorNoise;
  private readonly toyZ: number;
  private busy?: string;
  private skillsEnded = 0;
  private stalls = 0;
  private climbs = 0;
  private crawlsThrough = 0;
  private reachedAt: number | null = null;
  private toySeen = false;
  private leftDeadEnd = false;
  private progress?: (elapsed: number) => void;

  private constructor(
    mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly course: Course,
    opts: CourseOptions,
  ) {
    const seed = opts.seed ?? 0;
    // Two streams, so that how often the camera is rendered never changes how the body moves.
    const motionRng = new Rng(seed);
    this.detectorRng = new Rng(seed + 7919);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    this.clock = new SimClock(TICK, () => {}, opts.speed ?? Infinity);

    const things = course.things;
    const bodyThing = new Map<number, number>();
    things.forEach((t, i) => bodyThing.set(mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY.value, thingBody(i, t)), i));
    const toyBody = mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY.value, "toy");
    const geomBody = model.geom_bodyid as Int32Array;
    const thingOfGeom = Int32Array.from(geomBody, (b) => bodyThing.get(b) ?? -1);
    // Detector entities: every thing, then the toy.
    const entityOfGeom = Int32Array.from(geomBody, (b) => (b === toyBody ? things.length : (bodyThing.get(b) ?? -1)));
    this.toyZ = course.toy.z ?? 0;

    this.body = new DogBody(mj, model, data, thingOfGeom, {
      x: course.start.x,
      y: course.start.y,
      yaw: (course.start.yawDeg * Math.PI) / 180,
      z: 0,
    });
    this.controllers = new Controllers(this.body, things, motionRng, {
      event: (e) => this.onBodyEvent(e),
      tick: () => this.onTick(),
    });
    const width = opts.width ?? 160;
    const height = opts.height ?? 120;
    this.camera = new HeadCamera(mj, width, height, entityOfGeom, [...things.map((t) => t.label), "toy"]);
    const [manifest] = bundledManifests("course");
    this.manifests = [{ ...manifest, cameras: manifest.cameras.map((c) => ({ ...c, width, height })) }];
  }

  static async create(opts: CourseOptions): Promise<CourseWorld> {
    const course = opts.course ?? findCourse(opts.scenario);
    const mj = await mujoco();
    const model = mj.MjModel.from_xml_string(courseXml(course));
    const data = new mj.MjData(model);
    return new CourseWorld(mj, model, data, course, opts);
  }

  /** The vocabulary only: what the detector can name. Nothing about the layout. */
  get description(): WorldDescription {
    return {
      name: "course",
      places: [],
      navigationPoints: [],
      labels: [...LABELS],
      names: structuredClone(COURSE_NAMES),
    };
  }

  async close(): Promise<void> {
    await this.clock.stop();
    this.camera.camera.dispose();
    this.body.dispose();
    this.data.delete();
    this.model.delete();
  }

  private log(event: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.clock.time * 1000) / 1000, step: this.skillsEnded, robot: ROBOT, ...event });
  }

  private onBodyEvent(event: BodyEvent): void {
    const object = event.thing >= 0 ? this.course.things[event.thing].label : undefined;
    if (event.kind === "contact") this.stalls++;
    if (event.kind === "moved" && event.detail.startsWith("climbed")) this.climbs++;
    if (event.kind === "moved" && event.detail.startsWith("crawled")) this.crawlsThrough++;
    this.log({ kind: event.kind, object, detail: event.detail });
  }

  private onTick(): void {
    const elapsed = this.clock.time + TICK;
    if (this.course.deadEnd && !this.leftDeadEnd && !this.inDeadEnd()) {
      this.leftDeadEnd = true;
      this.log({ kind: "moved", detail: "out of the dead end" });
    }
    if (this.reachedAt === null && this.atToy()) {
      this.reachedAt = Math.round(elapsed * 1000) / 1000;
      this.log({
        kind: "moved",
        object: "toy",
        detail: `reached the toy (${this.toyDistance().toFixed(2)} m from the body)`,
      });
    }
    this.progress?.(elapsed);
  }

  // ---- skills -------------------------------------------------------------------------------------------------------

  async runSkill(
    robot: string,
    skill: string,
    args: Record<string, unknown>,
    ctx: ActionContext,
  ): Promise<ActionOutcome> {
    const refuse = (message: string): ActionOutcome => ({ status: "aborted", values: { message, error: message } });
    if (robot !== ROBOT) return refuse(`unknown robot ${robot}; this world has ${ROBOT}`);
    if (!(SKILLS as readonly string[]).includes(skill))
      return refuse(`unknown skill ${skill}; the dog has ${SKILLS.join(", ")}`);
    const magnitude = args.magnitude;
    if (typeof magnitude !== "string" || !(MAGNITUDES as readonly string[]).includes(magnitude)) {
      return refuse(`invalid magnitude ${JSON.stringify(magnitude)}; one of ${MAGNITUDES.join(", ")}`);
    }
    if (this.busy) return refuse(`the dog is busy with ${this.busy}`);
    this.busy = skill;
    this.log({ kind: "skill_started", skill, goalId: ctx.goalId, detail: magnitude });
    const report: SkillReport = { moved: 0, turned: 0, stalled: false, seconds: 0, message: "" };
    const started = this.clock.time;
    let lastSecond = 0;
    this.progress = (elapsed) => {
      const second = Math.floor(elapsed - started + 1e-6);
      if (second > lastSecond) {
        lastSecond = second;
        ctx.feedback({ skill, magnitude, elapsed: second });
      }
    };
    let outcome: ActionOutcome;
    try {
      const result = await this.clock.run(
        this.controllers.run(skill as Skill, magnitude as Magnitude, report),
        ctx.signal,
      );
      if (result === "canceled") {
        this.body.apply(this.body.pose, this.body.posture);
        const message = `${skill} was canceled`;
        outcome = {
          status: "canceled",
          values: { ...report, seconds: Math.round((this.clock.time - started) * 1000) / 1000, message },
        };
      } else outcome = { status: "succeeded", values: { ...report } };
    } catch (err) {
      const message = `${skill} failed: ${(err as Error).message}`;
      outcome = { status: "aborted", values: { message, error: message } };
    } finally {
      this.busy = undefined;
      this.progress = undefined;
    }
    this.skillsEnded++;
    const message = (outcome.values as { message: string }).message;
    this.log({
      kind:
        outcome.status === "succeeded"
          ? "skill_succeeded"
          : outcome.status === "canceled"
            ? "skill_canceled"
            : "skill_failed",
      skill,
      goalId: ctx.goalId,
      detail: message,
    });
    return outcome;
  }

  // ---- perception ---------------------------------------------------------------------------------------------------

  async renderCamera(robot: string = ROBOT): Promise<CourseCameraOutput> {
    if (robot !== ROBOT) throw new Error(`unknown robot ${robot}`);
    this.body.apply(this.body.pose, this.body.posture);
    const { frame, pose } = this.camera.render(this.model, this.data, this.body);
    const detected = this.camera.detect(frame, pose, this.body.pose.z, this.noise, this.detectorRng);
    for (const d of detected) {
      if (d.truth === "toy" && d.detection.label === "toy" && !this.toySeen) {
        this.toySeen = true;
        this.log({ kind: "detected", object: "toy", detail: `toy in view ${d.detection.distance.toFixed(2)} m away` });
      }
    }
    const sec = Math.floor(this.clock.time);
    const stamp = { sec, nanosec: Math.round((this.clock.time - sec) * 1e9) };
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { camera: "head", frame, pose, image, depth, detections: detectionsMessage(ROBOT, frame, stamp, detected) };
  }

  // ---- evaluation (evaluator services only) -------------------------------------------------------------------------

  /** Horizontal distance from the toy to the nearest point of the spine, hips to nose. */
  toyDistance(): number {
    const { x, y, yaw } = this.body.pose;
    const cos = Math.cos(yaw),
      sin = Math.sin(yaw);
    const tx = this.course.toy.x - x,
      ty = this.course.toy.y - y;
    const along = Math.min(BODY.noseX, Math.max(BODY.hipsX, tx * cos + ty * sin));
    return Math.hypot(tx - along * cos, ty - along * sin);
  }

  /** Some point of the spine, hips to nose, is still inside the dead end's walls. */
  private inDeadEnd(): boolean {
    const deadEnd = this.course.deadEnd!;
    const { x, y, yaw } = this.body.pose;
    return [BODY.hipsX, BODY.noseX].some((offset) => {
      const px = x + offset * Math.cos(yaw),
        py = y + offset * Math.sin(yaw);
      return px > deadEnd.x0 && px < deadEnd.x1 && py > deadEnd.y0 && py < deadEnd.y1;
    });
  }

  private atToy(): boolean {
    return this.toyDistance() <= SUCCESS_RADIUS && Math.abs(this.toyZ - this.body.pose.z) < SAME_LEVEL;
  }

  evaluate(literals?: readonly string[]): CourseEvaluation {
    if (literals) throw new Error("the course world checks one goal, its own: the dog within reach of the toy");
    const pose = this.body.pose;
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    return {
      scenario: this.course.name,
      success: this.reachedAt !== null,
      reachedAt: this.reachedAt,
      ...(this.course.deadEnd ? { leftDeadEnd: this.leftDeadEnd } : {}),
      atToy: this.atToy(),
      pose: {
        x: r3(pose.x),
        y: r3(pose.y),
        yaw: Math.round(((((pose.yaw * 180) / Math.PI + 540) % 360) - 180) * 10) / 10,
        z: r3(pose.z),
      },
      posture: this.body.posture,
      distanceToToy: r3(this.toyDistance()),
      skillSeconds: r3(this.clock.time),
      skills: this.skillsEnded,
      stalls: this.stalls,
      climbs: this.climbs,
      crawlsThrough: this.crawlsThrough,
    };
  }
}
