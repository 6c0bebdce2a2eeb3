/**
 * The dog's body and its six skills. The base is kinematic: each control tick a skill moves the body a little along its
 * heading (or turns it), in sub-steps of at most 2 cm / 1°, and every sub-step is checked by MuJoCo — downward rays
 * under the footprint find the ground it would stand on, then collision detection between the active posture's geoms
 * and the course says whether the body fits there. The first sub-step that does not fit ends the motion: the body
 * stays where it last fitted and the skill spends the rest of its time pushing (stalled). The scene decides everything;
 * no obstacle is special-cased here.
 */
import type { Motion } from "../clock";
import type { DoubleBuffer, IntBuffer } from "@mujoco/mujoco";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import type { Rng } from "../../random";
import { BODY, POSTURES, type Posture, type Thing } from "./scene";

export const SKILLS = ["walk", "crawl", "climb", "backward", "turn_left", "turn_right"] as const;
export type Skill = (typeof SKILLS)[number];
export const MAGNITUDES = ["small", "medium", "large"] as const;
export type Magnitude = (typeof MAGNITUDES)[number];

/** Skill time of each magnitude, seconds (every skill). */
export const SECONDS: Record<Magnitude, number> = { small: 1, medium: 2, large: 4 };
/** Forward speeds, m/s (walk 0.3/0.6/1.2 m, crawl 0.15/0.3/0.6 m, backward 0.2/0.4/0.8 m). */
export const SPEED = { walk: 0.3, crawl: 0.15, backward: 0.2 } as const;
/** How far forward a climb carries the body while its legs lift, metres. */
export const CLIMB_DISTANCE: Record<Magnitude, number> = { small: 0.25, medium: 0.4, large: 0.6 };
export const TURN_DEG: Record<Magnitude, number> = { small: 15, medium: 30, large: 60 };
/** Seeded disturbance: each skill's distance or angle is off by up to ±10%. */
export const DISTURBANCE = 0.1;
/** A climb onto a slippery/rounded thing (a log) gets up with this probability; otherwise the feet slip and it stalls there. */
export const SLIP_SUCCESS = 0.7;
/** Control tick, seconds of skill time. */
export const TICK = 0.05;
const SUBSTEP = 0.02;
const SUBTURN = (1 * Math.PI) / 180;
/** Support rays start this far above foot reach (so they are within a few millimetres of vertical near the ground). */
const RAY_HEIGHT = 30;

export interface Pose {
  x: number;
  y: number;
  /** Radians, counter-clockwise from +x. */
  yaw: number;
  /** Height of the ground the body stands on. */
  z: number;
}

export interface Blocker {
  /** Index of the thing in the course, -1 for the ground. */
  thing: number;
  /** Which part of the body touched: the torso (hips, legs) or the head. */
  part: "torso" | "head";
  slipped?: boolean;
}

/** What the skill reports: odometry only. */
export interface SkillReport {
  moved: number;
  turned: number;
  stalled: boolean;
  seconds: number;
  message: string;
}

export interface BodyEvent {
  kind: "contact" | "moved";
  thing: number;
  detail: string;
}

// The feet are under the torso (hips to shoulders); the head overhangs what is in front.
const ALONG_COARSE = samples(BODY.hipsX, BODY.shouldersX, 0.05);
const ALONG_FINE = samples(BODY.hipsX, BODY.shouldersX, 0.02);
const ACROSS = [-BODY.halfWidth + 0.005, 0, BODY.halfWidth - 0.005];

function samples(start: number, end: number, step: number): number[] {
  const intervals = Math.round((end - start) / step);
  return Array.from({ length: intervals + 1 }, (_, i) => start + ((end - start) * i) / intervals);
}

/** The body as MuJoCo sees it: a free joint whose pose is set directly, and one torso + head box pair per posture. */
export class DogBody {
  pose: Pose;
  posture: Posture = "stand";
  private readonly qadr: number;
  private readonly bodyId: number;
  private readonly geoms: Record<Posture, { torso: number; head: number }>;
  private readonly dogGeoms = new Map<number, "torso" | "head">();
  private readonly rayHit: IntBuffer;
  private readonly rayNormal: DoubleBuffer;
  private readonly rayBuffers = new Map<
    number,
    { vec: Float64Array; geom: IntBuffer; dist: DoubleBuffer; normal: DoubleBuffer }
  >();
  private readonly groundOnly = [1, 0, 0, 0, 0, 0];

  constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    /** Thing index of each geom (-1: the ground, the toy, the dog). */
    readonly thingOfGeom: Int32Array,
    start: Pose,
  ) {
    const id = (type: string, name: string) => mj.mj_name2id(model, mj.mjtObj[type].value, name) as number;
    this.bodyId = id("mjOBJ_BODY", "dog");
    this.qadr = (model.jnt_qposadr as Int32Array)[id("mjOBJ_JOINT", "dog")];
    const postureGeom = (posture: Posture, part: "torso" | "head") => {
      const gid = id("mjOBJ_GEOM", `dog_${posture}_${part}`);
      this.dogGeoms.set(gid, part);
      return gid;
    };
    this.geoms = {
      stand: { torso: postureGeom("stand", "torso"), head: postureGeom("stand", "head") },
      crawl: { torso: postureGeom("crawl", "torso"), head: postureGeom("crawl", "head") },
      climb: { torso: postureGeom("climb", "torso"), head: postureGeom("climb", "head") },
    };
    this.rayHit = new mj.IntBuffer(1);
    this.rayNormal = new mj.DoubleBuffer(3);
    mj.mj_kinematics(model, data);
    this.pose = { ...start, z: this.support(start, "stand", start.z, true).z };
    this.apply(this.pose, "stand");
  }

  get dogBodyId(): number {
    return this.bodyId;
  }

  dispose(): void {
    this.rayHit.delete();
    this.rayNormal.delete();
    for (const r of this.rayBuffers.values()) {
      r.geom.delete();
      r.dist.delete();
      r.normal.delete();
    }
    this.rayBuffers.clear();
  }

  /** Puts the body at `pose` with only `posture`'s geoms colliding, and updates MuJoCo's kinematics. */
  apply(pose: Pose, posture: Posture): void {
    const qpos = this.data.qpos as Float64Array;
    const addr = this.qadr;
    qpos[addr] = pose.x;
    qpos[addr + 1] = pose.y;
    qpos[addr + 2] = pose.z;
    qpos[addr + 3] = Math.cos(pose.yaw / 2);
    qpos[addr + 4] = 0;
    qpos[addr + 5] = 0;
    qpos[addr + 6] = Math.sin(pose.yaw / 2);
    const aff = this.model.geom_conaffinity as Int32Array;
    for (const p of Object.keys(this.geoms) as Posture[]) {
      aff[this.geoms[p].torso] = p === posture ? 1 : 0;
      aff[this.geoms[p].head] = p === posture ? 1 : 0;
    }
    this.mj.mj_kinematics(this.model, this.data);
  }

  /** What the body would touch at `pose` in `posture` (null: it fits). Leaves MuJoCo's state at that pose. */
  contact(pose: Pose, posture: Posture): Blocker | null {
    this.apply(pose, posture);
    this.mj.mj_collision(this.model, this.data);
    const contactCount = this.data.ncon as number;
    let found: Blocker | null = null;
    for (let i = 0; i < contactCount && !found; i++) {
      const contact = this.data.contact.get(i);
      if (!contact) continue;
      const g1 = contact.geom1 as number,
        g2 = contact.geom2 as number,
        dist = contact.dist as number;
      contact.delete();
      // Grazing contacts (surfaces exactly flush) are not touching.
      if (dist > -1e-5) continue;
      const part = this.dogGeoms.get(g1) ?? this.dogGeoms.get(g2);
      if (!part) continue;
      const other = this.dogGeoms.has(g1) ? g2 : g1;
      found = { thing: this.thingOfGeom[other], part };
    }
    return found;
  }

  /**
   * The ground the body stands on at `pose`: the highest surface under its feet (the torso's footprint) that a foot
   * reaches, i.e. no higher than `fromZ` plus the posture's step height. Also the geom it is (to know what was
   * climbed), and `inside`: the thing a foot would be inside of (a wall), where the body cannot be.
   *
   * One batched mj_multiRay from a point 30 m above the body aims a ray at each footprint sample at foot-reach height
   * (each ray is within a few milliradians of vertical there). A ray whose first hit is above foot reach (the seat of a
   * couch the body is under, or the top of a wall), or is not on a surface one can stand on (the side of something a
   * millimetre away), is cast again on its own, vertically from foot reach downward; if that ray leaves a solid (its
   * hit faces away), the foot would be inside it.
   */
  support(pose: Pose, posture: Posture, fromZ: number, fine = false): { z: number; geom: number; inside?: number } {
    const reach = fromZ + POSTURES[posture].step + 0.001;
    const cos = Math.cos(pose.yaw),
      sin = Math.sin(pose.yaw);
    const along = fine ? ALONG_FINE : ALONG_COARSE;
    const rayCount = along.length * ACROSS.length;
    const rays = this.rays(rayCount);
    const origin: [number, number, number] = [pose.x, pose.y, reach + RAY_HEIGHT];
    const px = new Float64Array(rayCount),
      py = new Float64Array(rayCount);
    let k = 0;
    for (const bx of along) {
      for (const by of ACROSS) {
        px[k] = pose.x + cos * bx - sin * by;
        py[k] = pose.y + sin * bx + cos * by;
        const dx = px[k] - origin[0],
          dy = py[k] - origin[1];
        const length = Math.hypot(dx, dy, RAY_HEIGHT);
        rays.vec[3 * k] = dx / length;
        rays.vec[3 * k + 1] = dy / length;
        rays.vec[3 * k + 2] = -RAY_HEIGHT / length;
        k++;
      }
    }
    this.mj.mj_multiRay(
      this.model,
      this.data,
      origin,
      rays.vec,
      this.groundOnly,
      true,
      this.bodyId,
      rays.geom,
      rays.dist,
      rays.normal,
      rayCount,
      2 * RAY_HEIGHT,
    );
    const hitGeom = rays.geom.GetView() as Int32Array,
      hitDist = rays.dist.GetView() as Float64Array,
      hitNormal = rays.normal.GetView() as Float64Array;
    let best = -Infinity,
      geom = -1;
    for (let i = 0; i < rayCount; i++) {
      let z = hitDist[i] < 0 ? -Infinity : origin[2] + rays.vec[3 * i + 2] * hitDist[i];
      let rayGeom = hitGeom[i];
      if (z > reach || (hitDist[i] >= 0 && hitNormal[3 * i + 2] < 0.5)) {
        const distance = this.mj.mj_ray(
          this.model,
          this.data,
          [px[i], py[i], reach],
          [0, 0, -1],
          this.groundOnly,
          true,
          this.bodyId,
          this.rayHit,
          this.rayNormal,
        ) as number;
        z = distance < 0 ? -Infinity : reach - distance;
        rayGeom = (this.rayHit.GetView() as Int32Array)[0];
        if (distance >= 0 && (this.rayNormal.GetView() as Float64Array)[2] < -0.5)
          return { z: reach, geom: rayGeom, inside: this.thingOfGeom[rayGeom] };
      }
      if (z > best) {
        best = z;
        geom = rayGeom;
      }
    }
    return best === -Infinity ? { z: 0, geom: -1 } : { z: best, geom };
  }

  private rays(count: number): { vec: Float64Array; geom: IntBuffer; dist: DoubleBuffer; normal: DoubleBuffer } {
    let buffers = this.rayBuffers.get(count);
    if (!buffers) {
      buffers = {
        vec: new Float64Array(3 * count),
        geom: new this.mj.IntBuffer(count),
        dist: new this.mj.DoubleBuffer(count),
        normal: new this.mj.DoubleBuffer(3 * count),
      };
      this.rayBuffers.set(count, buffers);
    }
    return buffers;
  }

  /** The thing right above a point of the body (`bx` along it), within `within` metres, or -1. */
  overhead(bx: number, within = 0.6): number {
    const cos = Math.cos(this.pose.yaw),
      sin = Math.sin(this.pose.yaw);
    const distance = this.mj.mj_ray(
      this.model,
      this.data,
      [this.pose.x + cos * bx, this.pose.y + sin * bx, this.pose.z + 0.05],
      [0, 0, 1],
      this.groundOnly,
      true,
      this.bodyId,
      this.rayHit,
      null,
    ) as number;
    if (distance < 0 || distance > within) return -1;
    return this.thingOfGeom[(this.rayHit.GetView() as Int32Array)[0]];
  }

  /** Whether the body can take `posture` where it is; if so it does (settling on the ground that posture stands on). */
  takePosture(posture: Posture, fine = true): boolean {
    if (posture === this.posture) return true;
    // Changing posture in place never climbs onto anything: the feet reach only what they reach now.
    const sup = this.support(
      this.pose,
      posture,
      this.pose.z + POSTURES[this.posture].step - POSTURES[posture].step,
      fine,
    );
    let pose = { ...this.pose, z: sup.z };
    if (sup.inside === undefined && this.contact(pose, posture) && sup.z < this.pose.z) pose = { ...this.pose };
    if (sup.inside !== undefined || this.contact(pose, posture)) {
      this.apply(this.pose, this.posture);
      return false;
    }
    this.pose = pose;
    this.posture = posture;
    return true;
  }
}

/** The six skills as motions on the clock; each draws its disturbance from `rng` and reports odometry. */
export class Controllers {
  constructor(
    private readonly body: DogBody,
    private readonly things: readonly Thing[],
    private readonly rng: Rng,
    private readonly hooks: { event(e: BodyEvent): void; tick(): void },
  ) {}

  private label(thing: number): string {
    return thing >= 0 ? this.things[thing].label : "ground";
  }

  *run(skill: Skill, magnitude: Magnitude, report: SkillReport): Motion {
    const body = this.body;
    const seconds = SECONDS[magnitude];
    const ticks = Math.round(seconds / TICK);
    const factor = 1 + DISTURBANCE * (2 * this.rng.next() - 1);
    const turning = skill === "turn_left" || skill === "turn_right";
    const want: Posture = skill === "crawl" ? "crawl" : skill === "climb" ? "climb" : "stand";
    const nominal = turning
      ? TURN_DEG[magnitude]
      : skill === "climb"
        ? CLIMB_DISTANCE[magnitude]
        : SPEED[skill as keyof typeof SPEED] * seconds;
    const target = nominal * factor * (skill === "backward" || skill === "turn_right" ? -1 : 1);
    const slips = new Map<number, boolean>();
    const climbed = new Set<number>();
    let blocker: Blocker | null = null;
    let cannot: string | undefined;
    let hipsUnder = body.overhead(BODY.hipsX + 0.05);
    let done = 0;

    // A crouched body backs out crouched and stands as soon as there is room; anything else needs its posture first.
    if (!body.takePosture(want) && skill !== "backward") {
      cannot =
        want === "stand"
          ? "there is no room to stand up (something is just above the body)"
          : `there is no room to ${want === "crawl" ? "lower the body" : "lift the legs"} here`;
      this.hooks.event({ kind: "contact", thing: -1, detail: `${skill} ${magnitude} could not start: ${cannot}` });
    }

    const step = (delta: number): Blocker | null => {
      // One sub-step of a move (metres along the heading) or a turn (radians).
      const from = body.pose;
      const cand: Pose = turning
        ? { ...from, yaw: from.yaw + delta }
        : { ...from, x: from.x + delta * Math.cos(from.yaw), y: from.y + delta * Math.sin(from.yaw) };
      const sup = body.support(cand, body.posture, from.z);
      if (sup.inside !== undefined) return { thing: sup.inside, part: "torso" };
      cand.z = sup.z;
      const thing = sup.geom >= 0 ? body.thingOfGeom[sup.geom] : -1;
      if (
        body.posture === "climb" &&
        thing >= 0 &&
        this.things[thing].slippery &&
        sup.z > from.z + POSTURES.stand.step
      ) {
        if (!slips.has(thing)) slips.set(thing, this.rng.next() < SLIP_SUCCESS);
        if (!slips.get(thing)) return { thing, part: "torso", slipped: true };
      }
      let hit = body.contact(cand, body.posture);
      if (hit && cand.z < from.z) {
        // Stepping down, a foot may still be on the edge between two footprint samples: stay up until clear of it.
        const up = { ...cand, z: from.z };
        if (!body.contact(up, body.posture)) {
          cand.z = from.z;
          hit = null;
        }
      }
      if (hit) return hit;
      if (body.posture === "climb" && thing >= 0 && sup.z > from.z + POSTURES.stand.step && !climbed.has(thing)) {
        climbed.add(thing);
        this.hooks.event({ kind: "moved", thing, detail: `climbed onto the ${this.label(thing)}` });
      }
      body.pose = cand;
      return null;
    };

    const perTick = target / ticks;
    for (let k = 0; k < ticks; k++) {
      if (!cannot && !blocker) {
        const amount = turning ? (perTick * Math.PI) / 180 : perTick;
        const substeps = Math.max(1, Math.ceil(Math.abs(amount) / (turning ? SUBTURN : SUBSTEP)));
        for (let i = 0; i < substeps && !blocker; i++) {
          const hit = step(amount / substeps);
          if (!hit) {
            done += amount / substeps;
          } else {
            // Close in on the point of first contact (to 1/16 of a sub-step), so the odometry is what was really covered.
            let rest = amount / substeps;
            for (let b = 0; b < 4; b++) {
              rest /= 2;
              if (!step(rest)) done += rest;
            }
            blocker = hit;
          }
          if (body.posture === "crawl" && !turning) {
            const under = body.overhead(BODY.hipsX + 0.05);
            if (hipsUnder >= 0 && under !== hipsUnder && amount > 0) {
              this.hooks.event({
                kind: "moved",
                thing: hipsUnder,
                detail: `crawled under the ${this.label(hipsUnder)} and out from beneath it`,
              });
            }
            hipsUnder = under;
          }
          if (skill === "backward" && body.posture !== "stand") body.takePosture("stand", false);
        }
        if (blocker) {
          const blockerLabel = this.label(blocker.thing);
          const detail = blocker.slipped
            ? `${skill} ${magnitude}: the feet slipped on the ${blockerLabel} after ${Math.abs(done).toFixed(2)} m`
            : `${skill} ${magnitude} stalled against the ${blockerLabel} (${blocker.part}) after ${turning ? `${Math.abs((done * 180) / Math.PI).toFixed(1)}°` : `${Math.abs(done).toFixed(2)} m`}`;
          this.hooks.event({ kind: "contact", thing: blocker.thing, detail });
        }
      }
      // Odometry so far (a canceled skill reports what it did before it stopped).
      report.moved = turning ? 0 : Math.round(done * 1000) / 1000;
      report.turned = turning ? Math.round(((done * 180) / Math.PI) * 10) / 10 : 0;
      report.stalled = !!(blocker || cannot);
      this.hooks.tick();
      yield;
    }
    // After any skill the dog stands up again when there is room (crawling under furniture, it stays low).
    body.takePosture("stand");
    body.apply(body.pose, body.posture);
    report.seconds = seconds;
    report.message = describe(skill, report, target, blocker, cannot);
  }
}

function describe(skill: Skill, report: SkillReport, target: number, blocker: Blocker | null, cannot?: string): string {
  if (cannot) return `${skill} did not start: ${cannot}`;
  const turning = skill === "turn_left" || skill === "turn_right";
  const verb = {
    walk: "walked",
    crawl: "crawled",
    climb: "climbed forward",
    backward: "backed up",
    turn_left: "turned left",
    turn_right: "turned right",
  }[skill];
  const amount = turning ? `${Math.abs(report.turned).toFixed(0)}°` : `${Math.abs(report.moved).toFixed(2)} m`;
  if (!blocker) return `${verb} ${amount}`;
  const of = turning ? `${Math.abs(target).toFixed(0)}°` : `${Math.abs(target).toFixed(2)} m`;
  const why = blocker.slipped ? "the feet slipped and the body could not get up" : "the body stopped against something";
  return `${verb} ${amount} of ${of}, then stalled: ${why}`;
}
