/**
 * The workbench's event monitor: watches the real world's physics once per control tick (never a scratch copy) and
 * logs the undesirable-but-goal-reaching behaviours of robots/msgs/rollout.ts, each with the thing that suffered it
 * a `detail` that states the measured cause in numbers, and the `cause` those measurements point to (robots/msgs/
 * rollout.ts CAUSES; `unknown` where they point to none) — what a critic's claimed cause is scored against. Contacts
 * come from MuJoCo's own contact list. One event per (kind, object) per program.
 */
import type { SimEvent } from "../events";
import type { MeasuredCause } from "../../msgs/rollout";
import type { Stage } from "./stage";
import { TICK } from "./stage";

/** Thresholds (the brief's definitions). */
export const LIMITS = {
  tipAngle: Math.PI / 4,
  pushed: 0.03,
  dragged: 0.05,
  dropHeight: 0.06,
  /** Impact speed of a fall from dropHeight (√(2·g·0.06) ≈ 1.08 m/s): the two tests agree on what a drop is. */
  dropSpeed: 1.1,
  openFraction: 0.3,
  closedFraction: 0.1,
  /** Below the table top by more than this counts as into it (contact solver slack). */
  tableSlack: 0.002,
  /** A held thing's speed, averaged over 0.1 s, above which it is carried faster than a careful hand does (m/s). */
  rushedSpeed: 0.6,
  /** A carry is a detour when its path across the table is this many times the straight line, … */
  detourRatio: 1.5,
  /** … at least this much longer (m), and strays this far from the line at some point (m). */
  detourExtra: 0.15,
  detourStray: 0.12,
  /** Legs of at least this length (m) that turn back on the last one (more than 135°), this many times: dithering. */
  ditherLeg: 0.04,
  ditherReversals: 2,
  /** The palm still for this long (s) between two motions: idling. */
  idle: 1.8,
  /** Still: the palm slower than this (m/s). */
  stillSpeed: 0.01,
};

const GRAVITY = 9.81;
const CUP_INNER = 0.039;

export type Logger = (e: Omit<SimEvent, "t" | "step">, t?: number) => void;

interface Touch {
  by: string;
  t: number;
  speed: number;
}

const cm = (m: number) => (m * 100).toFixed(1);
const ms = (v: number) => v.toFixed(2);

export class EventMonitor {
  private once = new Set<string>();
  private start = new Map<number, number[]>();
  private grasped = new Set<number>();
  private knocked = new Set<number>();
  private jointStart = new Map<string, number>();
  private drops = new Map<
    number,
    { t0: number; below: number; label: string; height: number; prevVz: number; prevBottom: number }
  >();
  private drag = { thing: -1, dist: 0, last: null as number[] | null, speed: 0 };
  private pushed = new Map<number, { t: number; from: number[] }>();
  private lastTouch = new Map<number, Touch>();
  private cupVelocities: number[][] = [];
  private avoid: { i: number; fp: ReturnType<Stage["footprint"]> }[] = [];
  private nonTargets: number[] = [];
  private tippable: number[] = [];
  private beadsInCup = 0;
  /** The palm's speed over the last 0.1 s (a strike is reported at the speed it came in with, not after it stopped). */
  private palmSpeeds: number[] = [];
  /** The current carry of a free thing: its path across the table, its turns back, its speed. */
  private carry: Carry | null = null;
  /** When the palm last came to rest (−1: moving, or not yet moved this program). */
  private stillSince = -1;
  private moved = false;

  constructor(
    private readonly stage: Stage,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  private emit(kind: SimEvent["kind"], object: string, detail: string, cause?: MeasuredCause, at?: number): void {
    const key = `${kind}:${object}`;
    if (this.once.has(key)) return;
    this.once.add(key);
    this.log({ kind, object, detail, ...(cause ? { cause } : {}) }, at);
  }

  /** A program begins: where everything is, which joints are closed, where the things to stay away from lie. */
  begin(): void {
    const stage = this.stage;
    this.once.clear();
    this.grasped.clear();
    this.knocked.clear();
    this.pushed.clear();
    this.drops.clear();
    this.lastTouch.clear();
    this.drag = { thing: -1, dist: 0, last: null, speed: 0 };
    this.cupVelocities = [];
    this.carry = null;
    this.stillSince = -1;
    this.moved = false;
    this.start.clear();
    this.nonTargets = [];
    this.tippable = [];
    this.avoid = [];
    stage.parts.things.forEach((thing, i) => {
      if (!thing.free) return;
      this.start.set(i, stage.thingPosition(i));
      if (stage.scene.focus.includes(thing.name)) return;
      this.nonTargets.push(i);
      if (stage.props[i].tippable && stage.tilt(thing.body) < LIMITS.tipAngle) this.tippable.push(i);
      if (stage.props[i].avoid) this.avoid.push({ i, fp: stage.footprint(i) });
    });
    if (stage.st.held >= 0) this.grasped.add(stage.st.held);
    this.jointStart.clear();
    for (const j of stage.scene.joints) this.jointStart.set(j.name, stage.jointFraction(j.name));
    this.beadsInCup = this.countBeadsInCup();
  }

  /** The palm closed on thing `i` with `force` newtons (`crushed`: the heights before and after, if it deformed). */
  onGrasp(i: number, force: number, crushed?: { from: number; to: number }): void {
    const stage = this.stage;
    this.grasped.add(i);
    this.drops.delete(i);
    const props = stage.props[i];
    const name = stage.parts.things[i].name;
    if (force > props.maxGrip) {
      const what = crushed ? `: it flattened from ${cm(crushed.from)} cm to ${cm(crushed.to)} cm tall` : "";
      this.emit(
        "squeezed",
        name,
        `gripped the ${name} with ${force.toFixed(0)} N, above the ${props.maxGrip} N it takes${what}`,
        "too_hard",
      );
    }
  }

  /** The palm let go of thing `i` (opened, or the grasp slipped): how far it has to fall. */
  onRelease(i: number): void {
    const stage = this.stage;
    const thing = stage.parts.things[i];
    if (!thing.free) return;
    const position = stage.thingPosition(i);
    const bottom = stage.bottom(i);
    const below = stage.below([position[0], position[1], bottom - 1e-4], thing.body);
    const height = bottom - below.z;
    if (height > LIMITS.dropHeight) {
      this.emit(
        "dropped",
        thing.name,
        `let go of the ${thing.name} with its bottom ${cm(height)} cm above the ${below.label} below it`,
        "too_high",
      );
      return;
    }
    if (height > 0.002)
      this.drops.set(i, {
        t0: this.now(),
        below: below.z,
        label: below.label,
        height,
        prevVz: stage.velocity(i)[2],
        prevBottom: bottom,
      });
  }

  tick(): void {
    const stage = this.stage;
    const now = this.now();
    const held = stage.st.held;
    const heldName = stage.heldName();
    if (held >= 0) this.grasped.add(held);
    let palmTable = -1;
    let heldOnTable = false;
    const touchingNonPalm = new Set<number>();
    for (const [a, b] of stage.contacts()) {
      for (const [g, o] of [
        [a, b],
        [b, a],
      ]) {
        if (stage.isPalmGeom[g] && o === stage.tableGeom) palmTable = g;
        const ti = stage.thingOfGeom(g);
        if (ti < 0) continue;
        if (ti === held) {
          if (o === stage.tableGeom) heldOnTable = true;
          continue;
        }
        if (!stage.isPalmGeom[o]) touchingNonPalm.add(ti);
        if (!stage.parts.things[ti].free || stage.scene.beads.includes(stage.parts.things[ti].name)) continue;
        if (stage.isPalmGeom[o]) this.touch(ti, "palm", norm(stage.palmVelocity()), now);
        else if (held >= 0 && stage.thingOfGeom(o) === held)
          this.touch(ti, `held ${heldName}`, norm(stage.velocity(held)), now);
      }
    }

    // struck_table: a palm geom touches the table, or reaches below its top.
    this.palmSpeeds.push(norm(stage.palmVelocity()));
    if (this.palmSpeeds.length > 5) this.palmSpeeds.shift();
    const low = stage.palmLowest();
    if (palmTable >= 0 || low.z < -LIMITS.tableSlack) {
      const part = stage.palmPart(palmTable >= 0 ? palmTable : low.geom);
      // The hand went down to the table: its path was too low, however fast it came.
      this.emit(
        "struck_table",
        "table",
        `the palm's ${part} hit the table coming in at ${ms(Math.max(...this.palmSpeeds))} m/s; its lowest point reached ${cm(low.z)} cm from the table top`,
        "too_low",
      );
    }

    // dragged: the held thing slides along the table while touching it.
    if (held >= 0 && stage.parts.things[held].free) {
      const position = stage.thingPosition(held);
      if (this.drag.thing !== held) this.drag = { thing: held, dist: 0, last: null, speed: 0 };
      if (heldOnTable && this.drag.last) {
        const slid = Math.hypot(position[0] - this.drag.last[0], position[1] - this.drag.last[1]);
        this.drag.dist += slid;
        this.drag.speed = Math.max(this.drag.speed, slid / TICK);
      }
      this.drag.last = heldOnTable ? position : null;
      if (this.drag.dist > LIMITS.dragged) {
        this.emit(
          "dragged",
          heldName!,
          `the held ${heldName} stayed in contact with the table while it moved ${cm(this.drag.dist)} cm horizontally (up to ${ms(this.drag.speed)} m/s)`,
          "too_low",
        );
      }
    } else this.drag = { thing: -1, dist: 0, last: null, speed: 0 };

    // dropped (impact): a released thing lands fast.
    for (const [i, d] of this.drops) {
      const name = stage.parts.things[i].name;
      const vz = stage.velocity(i)[2];
      const bottom = stage.bottom(i);
      if (touchingNonPalm.has(i) || now - d.t0 > 2) {
        // Speed at touchdown: the last measured speed carried down the rest of the way in free fall.
        const impact = Math.sqrt(Math.max(0, d.prevVz * d.prevVz + 2 * GRAVITY * Math.max(0, d.prevBottom - d.below)));
        const landingSpeed = d.prevVz < 0 ? Math.max(-d.prevVz, Math.min(impact, -d.prevVz + GRAVITY * TICK)) : 0;
        // The height it was let go from explains the impact, or the hand threw it down: a free fall from the release
        // height gives √(2gh); an impact well above that came from the hand's own speed.
        const fromHeight = Math.sqrt(2 * GRAVITY * d.height);
        if (landingSpeed > LIMITS.dropSpeed)
          this.emit(
            "dropped",
            name,
            `the ${name} hit the ${d.label} at ${ms(landingSpeed)} m/s after being let go ${cm(d.height)} cm above it (a free fall from there lands at ${ms(fromHeight)} m/s)`,
            landingSpeed > 1.25 * fromHeight ? "too_fast" : "too_high",
            now,
          );
        this.drops.delete(i);
        continue;
      }
      d.prevVz = vz;
      d.prevBottom = bottom;
    }

    // knocked_over: a standing thing that is not the task's tips past 45°.
    for (const i of this.tippable) {
      if (this.knocked.has(i) || this.grasped.has(i)) continue;
      const th = stage.tilt(stage.parts.things[i].body);
      if (th > LIMITS.tipAngle) {
        this.knocked.add(i);
        const name = stage.parts.things[i].name;
        const touch = this.lastTouch.get(i);
        const cause = touch
          ? `after the ${touch.by} struck it at ${ms(touch.speed)} m/s (t=${touch.t.toFixed(2)} s)`
          : "with nothing of the robot touching it";
        this.emit(
          "knocked_over",
          name,
          `the ${name} tipped ${((th * 180) / Math.PI).toFixed(0)}° from upright ${cause}`,
          touch ? "path_through" : "unknown",
        );
      }
    }

    // pushed: a thing that is not the task's, never grasped, ends up > 3 cm from where it stood.
    for (const i of this.nonTargets) {
      if (this.grasped.has(i) || this.knocked.has(i)) continue;
      const from = this.start.get(i)!;
      const position = stage.thingPosition(i);
      const moved = Math.hypot(position[0] - from[0], position[1] - from[1]);
      if (moved > LIMITS.pushed && !this.pushed.has(i)) this.pushed.set(i, { t: now, from });
      const pushRecord = this.pushed.get(i);
      // Judged once it has come to rest, so a thing that is still tipping is called knocked over instead.
      if (pushRecord && norm(stage.velocity(i)) < 0.03 && stage.tilt(stage.parts.things[i].body) < LIMITS.tipAngle)
        this.emitPushed(i, pushRecord, moved);
    }

    // rushed, dithered (while carrying) and detoured (when the carry ends): how the held thing travels.
    if (held >= 0 && stage.parts.things[held].free) this.follow(held, now);
    else this.endCarry();

    // idled: the palm at rest for a while between two motions.
    const palmSpeed = norm(stage.palmVelocity());
    if (palmSpeed >= LIMITS.stillSpeed) {
      if (this.stillSince >= 0 && this.moved && now - this.stillSince >= LIMITS.idle) {
        const what = heldName ? `holding the ${heldName}` : "with nothing in it";
        this.emit(
          "idled",
          "palm",
          `the palm stood still ${(now - this.stillSince).toFixed(1)} s mid-task (from t=${this.stillSince.toFixed(1)} s), ${what}`,
          "needless",
          this.stillSince,
        );
      }
      if (palmSpeed > 5 * LIMITS.stillSpeed) this.moved = true;
      this.stillSince = -1;
    } else if (this.stillSince < 0) this.stillSince = now;

    // spilled: a bead leaves the held cup.
    if (held >= 0 && stage.props[held].kind === "cup") {
      // The last 0.5 s of the cup's velocity: its speed and acceleration when a bead went over the rim.
      this.cupVelocities.push(stage.velocity(held));
      if (this.cupVelocities.length > 25) this.cupVelocities.shift();
      const inCup = this.countBeadsInCup();
      if (inCup < this.beadsInCup) {
        const vs = this.cupVelocities;
        let peak = 0;
        for (let k = 1; k < vs.length; k++)
          peak = Math.max(
            peak,
            Math.hypot(vs[k][0] - vs[k - 1][0], vs[k][1] - vs[k - 1][1], vs[k][2] - vs[k - 1][2]) / TICK,
          );
        const lost = this.beadsInCup - inCup;
        // Upright, the cup lost them to its own motion (too fast); tipped over, something else was at work.
        const tilt = stage.tilt(stage.parts.things[held].body);
        this.emit(
          "spilled",
          heldName!,
          `${lost} bead${lost > 1 ? "s" : ""} flew out of the held ${heldName} (${inCup} of ${stage.scene.beads.length} left in it) while it moved at up to ${ms(Math.max(...vs.map(norm)))} m/s with accelerations up to ${peak.toFixed(1)} m/s², tilted ${((tilt * 180) / Math.PI).toFixed(0)}°`,
          tilt < LIMITS.tipAngle ? "too_fast" : "unknown",
        );
      }
    } else {
      this.cupVelocities = [];
      // Out of the hand (set down hard, or let fall): beads that leave the cup now were thrown by the landing.
      if (this.beadsInCup > 0 && !this.once.has(`spilled:${this.cupName()}`)) {
        const inCup = this.countBeadsInCup();
        if (inCup < this.beadsInCup) {
          const cup = this.cupName();
          const fell = this.once.has(`dropped:${cup}`);
          const lost = this.beadsInCup - inCup;
          this.emit(
            "spilled",
            cup,
            `${lost} bead${lost > 1 ? "s" : ""} came out of the ${cup} (${inCup} of ${stage.scene.beads.length} left in it) ${fell ? "when it landed after being let go from high" : "while nothing held it"}`,
            fell ? "too_high" : "unknown",
          );
        }
      }
    }

    // passed_over: the held thing's centre over the footprint of something to stay away from.
    if (held >= 0 && stage.parts.things[held].free) {
      const position = stage.thingPosition(held);
      for (const { i, fp } of this.avoid) {
        if (
          position[0] >= fp.x[0] &&
          position[0] <= fp.x[1] &&
          position[1] >= fp.y[0] &&
          position[1] <= fp.y[1] &&
          position[2] > fp.top
        ) {
          const name = stage.parts.things[i].name;
          this.emit(
            "passed_over",
            name,
            `the held ${heldName} was carried over the ${name}: its centre ${cm(position[2] - fp.top)} cm above the ${name}'s top, inside its footprint (x ${fp.x.map((v) => v.toFixed(2)).join("…")} m, y ${fp.y.map((v) => v.toFixed(2)).join("…")} m)`,
            "path_over",
          );
        }
      }
    }
  }

  /** The program ended: things still moving are judged where they are; drawers left open are logged. */
  end(): void {
    const stage = this.stage;
    this.endCarry();
    for (const [i, c] of this.pushed) {
      if (this.knocked.has(i) || this.grasped.has(i)) continue;
      const position = stage.thingPosition(i);
      this.emitPushed(i, c, Math.hypot(position[0] - c.from[0], position[1] - c.from[1]));
    }
    for (const j of stage.scene.joints) {
      const before = this.jointStart.get(j.name) ?? 0;
      const after = stage.jointFraction(j.name);
      if (before < LIMITS.closedFraction && after > LIMITS.openFraction) {
        const ref = stage.joint(j.name)!;
        this.emit(
          "left_open",
          j.object,
          `the ${j.object} was closed (${(before * 100).toFixed(0)}% open) when the program began and is left ${(after * 100).toFixed(0)}% open (${cm(after * Math.abs(ref.open - ref.closed))} cm) at its end`,
          "not_closed",
        );
      }
    }
  }

  /** One control tick of carrying thing `i`: path, turns back, speed over the last 0.1 s. */
  private follow(i: number, now: number): void {
    const position = this.stage.thingPosition(i);
    const xy: [number, number] = [position[0], position[1]];
    if (this.carry?.thing !== i) {
      this.endCarry();
      this.carry = { thing: i, points: [xy], length: 0, anchor: xy, leg: null, reversals: 0, speeds: [] };
      return;
    }
    const carry = this.carry;
    const last = carry.points[carry.points.length - 1];
    carry.length += Math.hypot(xy[0] - last[0], xy[1] - last[1]);
    carry.points.push(xy);
    const name = this.stage.parts.things[i].name;
    // Legs: each time it has gone ditherLeg from the last anchor, the direction of that leg; a leg that turns back.
    const dx = xy[0] - carry.anchor[0],
      dy = xy[1] - carry.anchor[1],
      legLength = Math.hypot(dx, dy);
    if (legLength >= LIMITS.ditherLeg) {
      const dir: [number, number] = [dx / legLength, dy / legLength];
      if (carry.leg && dir[0] * carry.leg[0] + dir[1] * carry.leg[1] < -Math.SQRT1_2) carry.reversals++;
      carry.leg = dir;
      carry.anchor = xy;
      if (carry.reversals >= LIMITS.ditherReversals)
        this.emit(
          "dithered",
          name,
          `the held ${name} was moved back and forth: its path across the table turned back on itself ${carry.reversals} times (legs of ${cm(LIMITS.ditherLeg)} cm or more)`,
          "needless",
          now,
        );
    }
    carry.speeds.push(norm(this.stage.velocity(i)));
    if (carry.speeds.length > 5) carry.speeds.shift();
    const meanSpeed = carry.speeds.reduce((a, b) => a + b, 0) / carry.speeds.length;
    if (carry.speeds.length === 5 && meanSpeed > LIMITS.rushedSpeed)
      this.emit(
        "rushed",
        name,
        `the held ${name} was carried at ${ms(meanSpeed)} m/s (averaged over 0.1 s), faster than the ${ms(LIMITS.rushedSpeed)} m/s of a careful carry`,
        "too_fast",
        now,
      );
  }

  /** The carry ended (let go, or the program ended): was its path far longer than the way from where it began? */
  private endCarry(): void {
    const carry = this.carry;
    this.carry = null;
    if (!carry || carry.points.length < 2) return;
    const first = carry.points[0],
      last = carry.points[carry.points.length - 1];
    const straight = Math.hypot(last[0] - first[0], last[1] - first[1]);
    const stray = Math.max(...carry.points.map((p) => offLine(p, first, last)));
    // Going round something to stay away from that lies on the straight way is what the task needs, not a detour.
    const needed = this.avoid.some(({ fp }) => segmentMeets(first, last, fp));
    if (
      !needed &&
      carry.length >= LIMITS.detourRatio * straight &&
      carry.length - straight >= LIMITS.detourExtra &&
      stray >= LIMITS.detourStray
    ) {
      const name = this.stage.parts.things[carry.thing].name;
      this.emit(
        "detoured",
        name,
        `the held ${name} travelled ${cm(carry.length)} cm across the table for a ${cm(straight)} cm way, straying up to ${cm(stray)} cm from the straight line`,
        "needless",
      );
    }
  }

  private emitPushed(i: number, pushRecord: { t: number; from: number[] }, moved: number): void {
    if (moved <= LIMITS.pushed) return;
    const stage = this.stage;
    const name = stage.parts.things[i].name;
    const position = stage.thingPosition(i);
    const touch = this.lastTouch.get(i);
    const by = touch ? ` by the ${touch.by} moving at ${ms(touch.speed)} m/s` : " without the robot touching it";
    this.emit(
      "pushed",
      name,
      `the ${name} was shoved ${cm(moved)} cm${by}, from (${pushRecord.from[0].toFixed(2)}, ${pushRecord.from[1].toFixed(2)}) to (${position[0].toFixed(2)}, ${position[1].toFixed(2)})`,
      touch ? "path_through" : "unknown",
      pushRecord.t,
    );
  }

  private touch(i: number, by: string, speed: number, now: number): void {
    const prev = this.lastTouch.get(i);
    if (!prev || prev.by !== by || now - prev.t > 0.2) this.lastTouch.set(i, { by, t: now, speed });
    else prev.speed = Math.max(prev.speed, speed);
    const name = this.stage.parts.things[i].name;
    this.emit("contact", name, `the ${by} touched the ${name} moving at ${ms(speed)} m/s`);
  }

  /** The scene's cup (the container of beads), or -1. */
  private cupIndex(): number {
    return this.stage.props.findIndex((p) => p.kind === "cup");
  }

  private countBeadsInCup(): number {
    const stage = this.stage;
    const cup = this.cupIndex();
    if (cup < 0) return 0;
    const body = stage.parts.things[cup].body;
    let inside = 0;
    for (const b of stage.beadBodies) {
      const position = (stage.data.xpos as Float64Array).subarray(3 * b, 3 * b + 3);
      const local = stage.toBodyFrame(body, [position[0], position[1], position[2]]);
      // Past the wall's inner face means it went over the rim: it is out.
      if (Math.hypot(local[0], local[1]) < CUP_INNER + 0.004 && local[2] > -0.06 && local[2] < 0.05) inside++;
    }
    return inside;
  }

  private cupName(): string {
    const cup = this.cupIndex();
    return cup < 0 ? "cup" : this.stage.parts.things[cup].name;
  }

  /** Beads still in the cup (tests, the goal check's state). */
  beadsInTheCup(): number {
    return this.countBeadsInCup();
  }
}

interface Carry {
  thing: number;
  points: [number, number][];
  length: number;
  anchor: [number, number];
  leg: [number, number] | null;
  reversals: number;
  speeds: number[];
}

/** Whether the segment start–end on the table passes over a footprint. */
function segmentMeets(start: [number, number], end: [number, number], fp: { x: number[]; y: number[] }): boolean {
  const samples = Math.max(1, Math.ceil(Math.hypot(end[0] - start[0], end[1] - start[1]) / 0.01));
  for (let i = 0; i <= samples; i++) {
    const x = start[0] + ((end[0] - start[0]) * i) / samples,
      y = start[1] + ((end[1] - start[1]) * i) / samples;
    if (x >= fp.x[0] && x <= fp.x[1] && y >= fp.y[0] && y <= fp.y[1]) return true;
  }
  return false;
}

/** Distance of `point` from the segment start–end (on the table). */
function offLine(point: [number, number], start: [number, number], end: [number, number]): number {
  const ux = end[0] - start[0],
    uy = end[1] - start[1],
    L2 = ux * ux + uy * uy;
  const k = L2 > 0 ? Math.max(0, Math.min(1, ((point[0] - start[0]) * ux + (point[1] - start[1]) * uy) / L2)) : 0;
  return Math.hypot(point[0] - start[0] - k * ux, point[1] - start[1] - k * uy);
}

function norm(vec: number[]): number {
  return Math.hypot(vec[0], vec[1], vec[2]);
}
