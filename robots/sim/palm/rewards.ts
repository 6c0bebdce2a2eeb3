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

export function pointPosition(data: MjData, point: Point, out: number[] = [0, 0, 0]): number[] {
  const dataViews = views(data);
  const arr =
    point.kind === "body" ? dataViews.xpos : point.kind === "geom" ? dataViews.geom_xpos : dataViews.site_xpos;
  out[0] = arr[3 * point.id];
  out[1] = arr[3 * point.id + 1];
  out[2] = arr[3 * point.id + 2];
  return out;
}

export function jointFraction(data: MjData, j: JointRef): number {
  const jointPos = views(data).qpos[j.qpos];
  const fr = (jointPos - j.closed) / (j.open - j.closed);
  return fr < 0 ? 0 : fr > 1 ? 1 : fr;
}

function wrapAngle(angle: number): number {
  while (angle > Math.PI) angle -= 2 * Math.PI;
  while (angle < -Math.PI) angle += 2 * Math.PI;
  return angle;
}

/** Names a term refers to that the scene does not have, each with the kind of name expected. */
export function unknownNames(term: RewardTerm, resolver: Resolver): string[] {
  switch (term.kind) {
    case "minimize_l2_distance":
    case "maximize_l2_distance":
      return [term.a, term.b].filter((n) => !resolver.point(n)).map((n) => `"${n}" (not a thing in this scene)`);
    case "set_joint_fraction":
      return resolver.joint(term.joint) ? [] : [`"${term.joint}" (not a joint of this scene)`];
    case "set_obj_z_position":
      return resolver.point(term.obj) ? [] : [`"${term.obj}" (not a thing in this scene)`];
    case "set_obj_orientation":
      return resolver.body(term.obj) !== undefined ? [] : [`"${term.obj}" (not a movable object of this scene)`];
  }
}

/** How high above its destination a carried object travels until it is over it (m). */
const CARRY_CLEARANCE = 0.08;

/** Compiles a term whose names all resolve (check `unknownNames` first). */
export function compileTerm(term: RewardTerm, resolver: Resolver): CompiledTerm {
  const base = {
    term,
    text: termText(term),
    tolerance: TOLERANCE[term.kind],
    costWeight: (term.weight ?? 1) * SCALE[term.kind],
  };
  const pa = [0, 0, 0],
    pb = [0, 0, 0];
  switch (term.kind) {
    case "minimize_l2_distance":
    case "maximize_l2_distance": {
      const pointA = resolver.point(term.a)!,
        pointB = resolver.point(term.b)!;
      const far = term.kind === "maximize_l2_distance" ? term.distance : undefined;
      const dist = (data: MjData) => {
        pointPosition(data, pointA, pa);
        pointPosition(data, pointB, pb);
        return Math.hypot(pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]);
      };
      if (far === undefined) {
        // Carrying a loose object to something: aim above it until over it, then come down — a straight line would
        // drag the object into rims and door edges on the way.
        if (term.a === "palm" || term.b === "palm" || resolver.restHeight(term.a) === undefined)
          return { ...base, residual: dist, shaped: dist };
        const carried = (data: MjData) => {
          pointPosition(data, pointA, pa);
          pointPosition(data, pointB, pb);
          const across = Math.hypot(pa[0] - pb[0], pa[1] - pb[1]);
          const lift = Math.min(CARRY_CLEARANCE, Math.max(0, across - 0.02));
          return Math.hypot(pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2] - lift);
        };
        return { ...base, residual: dist, shaped: carried };
      }
      // The controller aims a little beyond "far enough", and counts a free object as far only if it would still be
      // far where it lands when let go (dropped straight down to the floor), so it does not hold things up high.
      const ra = resolver.restHeight(term.a),
        rb = resolver.restHeight(term.b);
      const landed = (data: MjData) => {
        pointPosition(data, pointA, pa);
        pointPosition(data, pointB, pb);
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
      const j = resolver.joint(term.joint)!;
      const res = (d: MjData) => Math.abs(jointFraction(d, j) - term.fraction);
      return { ...base, residual: res, shaped: res };
    }
    case "set_obj_z_position": {
      const point = resolver.point(term.obj)!;
      const res = (d: MjData) => Math.abs(pointPosition(d, point, pa)[2] - term.z);
      return { ...base, residual: res, shaped: res };
    }
    case "set_obj_orientation": {
      const bodyId = resolver.body(term.obj)!;
      const res = (data: MjData) => {
        const xmat = views(data).xmat.subarray(9 * bodyId, 9 * bodyId + 9);
        // Angle of the body frame about the world axis (roll, pitch or yaw).
        const angle =
          term.axis === "z"
            ? Math.atan2(xmat[3], xmat[0])
            : term.axis === "x"
              ? Math.atan2(xmat[7], xmat[8])
              : Math.atan2(xmat[2], xmat[8]);
        return Math.abs(wrapAngle(angle - term.radians));
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

export function compileProgram(terms: RewardTerm[], resolver: Resolver): CompiledProgram {
  const compiled = terms.map((t) => compileTerm(t, resolver));
  return {
    terms: compiled,
    primary: compiled.find((c) => c.term.primary)!,
    cost(data) {
      let total = 0;
      for (const t of compiled) total += t.costWeight * t.shaped(data);
      return total;
    },
  };
}
