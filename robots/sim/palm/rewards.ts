/**
 * Reward terms (robots/msgs/motion.ts) as residuals on an MjData: each term becomes a function of the simulation state that
 * is 0 when the term is satisfied, with a tolerance under which it counts as met. The controller's cost is the
 * weighted sum of residuals, each scaled to be comparable with metres.
 */
import { termText, type RewardTerm } from "../../msgs/motion";
import type { MjData } from "../mujoco";
import { views } from "./views";

/** A named point of the scene: a body frame, a geom centre or a site. */
export interface Point {
  kind: "body" | "geom" | "site";
  id: number;
}

export interface JointRef {
  qpos: number;
  dof: number;
  /** Joint range: fraction 0 at `closed`, 1 at `open`. */
  closed: number;
  open: number;
}

export interface Resolver {
  point(name: string): Point | undefined;
  joint(name: string): JointRef | undefined;
  /** Body of a thing whose orientation can be set (free objects). */
  body(name: string): number | undefined;
  /** Height of a free object's centre when it rests upright on the floor (undefined: not a free object). */
  restHeight(name: string): number | undefined;
}

export const TOLERANCE = {
  minimize_l2_distance: 0.05,
  maximize_l2_distance: 0.02,
  set_joint_fraction: 0.1,
  set_obj_z_position: 0.03,
  set_obj_orientation: 0.2,
} as const;

/** Cost scale per residual unit, so a full door swing or a half turn weighs about as much as tens of centimetres. */
const SCALE = {
  minimize_l2_distance: 1,
  maximize_l2_distance: 1,
  set_joint_fraction: 0.4,
  set_obj_z_position: 1,
  set_obj_orientation: 0.12,
} as const;

export interface CompiledTerm {
  term: RewardTerm;
  text: string;
  tolerance: number;
  /** weight × scale. */
  costWeight: number;
  residual(data: MjData): number;
  /** What the controller minimizes (the residual, with a safety margin where one helps). */
  shaped(data: MjData): number;
}

const MAXIMIZE_MARGIN = 0.05;

export function pointPosition(data: MjData, p: Point, out: number[] = [0, 0, 0]): number[] {
  const v = views(data);
  const arr = p.kind === "body" ? v.xpos : p.kind === "geom" ? v.geom_xpos : v.site_xpos;
  out[0] = arr[3 * p.id];
  out[1] = arr[3 * p.id + 1];
  out[2] = arr[3 * p.id + 2];
  return out;
}

export function jointFraction(data: MjData, j: JointRef): number {
  const q = views(data).qpos[j.qpos];
  const fr = (q - j.closed) / (j.open - j.closed);
  return fr < 0 ? 0 : fr > 1 ? 1 : fr;
}

function wrapAngle(a: number): number {
  while (a > Math.PI) a -= 2 * Math.PI;
  while (a < -Math.PI) a += 2 * Math.PI;
  return a;
}

/** Names a term refers to that the scene does not have, each with the kind of name expected. */
export function unknownNames(t: RewardTerm, r: Resolver): string[] {
  switch (t.kind) {
    case "minimize_l2_distance":
    case "maximize_l2_distance":
      return [t.a, t.b].filter((n) => !r.point(n)).map((n) => `"${n}" (not a thing in this scene)`);
    case "set_joint_fraction":
      return r.joint(t.joint) ? [] : [`"${t.joint}" (not a joint of this scene)`];
    case "set_obj_z_position":
      return r.point(t.obj) ? [] : [`"${t.obj}" (not a thing in this scene)`];
    case "set_obj_orientation":
      return r.body(t.obj) !== undefined ? [] : [`"${t.obj}" (not a movable object of this scene)`];
  }
}

/** How high above its destination a carried object travels until it is over it (m). */
const CARRY_CLEARANCE = 0.08;

/** Compiles a term whose names all resolve (check `unknownNames` first). */
export function compileTerm(t: RewardTerm, r: Resolver): CompiledTerm {
  const base = {
    term: t,
    text: termText(t),
    tolerance: TOLERANCE[t.kind],
    costWeight: (t.weight ?? 1) * SCALE[t.kind],
  };
  const pa = [0, 0, 0],
    pb = [0, 0, 0];
  switch (t.kind) {
    case "minimize_l2_distance":
    case "maximize_l2_distance": {
      const a = r.point(t.a)!,
        b = r.point(t.b)!;
      const far = t.kind === "maximize_l2_distance" ? t.distance : undefined;
      const dist = (d: MjData) => {
        pointPosition(d, a, pa);
        pointPosition(d, b, pb);
        return Math.hypot(pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]);
      };
      if (far === undefined) {
        // Carrying a loose object to something: aim above it until over it, then come down — a straight line would
        // drag the object into rims and door edges on the way.
        if (t.a === "palm" || t.b === "palm" || r.restHeight(t.a) === undefined)
          return { ...base, residual: dist, shaped: dist };
        const carried = (d: MjData) => {
          pointPosition(d, a, pa);
          pointPosition(d, b, pb);
          const across = Math.hypot(pa[0] - pb[0], pa[1] - pb[1]);
          const lift = Math.min(CARRY_CLEARANCE, Math.max(0, across - 0.02));
          return Math.hypot(pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2] - lift);
        };
        return { ...base, residual: dist, shaped: carried };
      }
      // The controller aims a little beyond "far enough", and counts a free object as far only if it would still be
      // far where it lands when let go (dropped straight down to the floor), so it does not hold things up high.
      const ra = r.restHeight(t.a),
        rb = r.restHeight(t.b);
      const landed = (d: MjData) => {
        pointPosition(d, a, pa);
        pointPosition(d, b, pb);
        if (ra !== undefined && pa[2] > ra) pa[2] = ra;
        if (rb !== undefined && pb[2] > rb) pb[2] = rb;
        return Math.hypot(pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]);
      };
      const shaped =
        ra === undefined && rb === undefined
          ? (d: MjData) => Math.max(0, far + MAXIMIZE_MARGIN - dist(d))
          : (d: MjData) => Math.max(0, far + MAXIMIZE_MARGIN - Math.min(dist(d), landed(d)));
      return { ...base, residual: (d) => Math.max(0, far - dist(d)), shaped };
    }
    case "set_joint_fraction": {
      const j = r.joint(t.joint)!;
      const res = (d: MjData) => Math.abs(jointFraction(d, j) - t.fraction);
      return { ...base, residual: res, shaped: res };
    }
    case "set_obj_z_position": {
      const p = r.point(t.obj)!;
      const res = (d: MjData) => Math.abs(pointPosition(d, p, pa)[2] - t.z);
      return { ...base, residual: res, shaped: res };
    }
    case "set_obj_orientation": {
      const b = r.body(t.obj)!;
      const res = (d: MjData) => {
        const m = views(d).xmat.subarray(9 * b, 9 * b + 9);
        // Angle of the body frame about the world axis (roll, pitch or yaw).
        const angle =
          t.axis === "z" ? Math.atan2(m[3], m[0]) : t.axis === "x" ? Math.atan2(m[7], m[8]) : Math.atan2(m[2], m[8]);
        return Math.abs(wrapAngle(angle - t.radians));
      };
      return { ...base, residual: res, shaped: res };
    }
  }
}

export interface CompiledProgram {
  terms: CompiledTerm[];
  primary: CompiledTerm;
  /** Σ wᵢ·scaleᵢ·residualᵢ at the state in `data`. */
  cost(data: MjData): number;
}

export function compileProgram(terms: RewardTerm[], r: Resolver): CompiledProgram {
  const compiled = terms.map((t) => compileTerm(t, r));
  return {
    terms: compiled,
    primary: compiled.find((c) => c.term.primary)!,
    cost(data) {
      let c = 0;
      for (const t of compiled) c += t.costWeight * t.shaped(data);
      return c;
    },
  };
}
