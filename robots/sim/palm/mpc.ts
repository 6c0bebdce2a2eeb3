/**
 * Predictive sampling (Howell et al. 2022, the MJPC planner RePLan uses): the control is a piecewise-linear spline of
 * palm position targets over a short horizon. Each planning iteration rolls out the previous best plan (shifted to
 * now) and Gaussian perturbations of its knots on copies of the current state, with the very same per-step world
 * mechanics as the real world, and keeps the cheapest. No gradients, no model of the task beyond the cost.
 */
import type { Rng } from "../../random";

export interface MpcOptions {
  /** Seconds the plan looks ahead. */
  horizon: number;
  /** Spline knots over the horizon (the first at "now"). */
  knots: number;
  /** Candidate plans per iteration, the nominal included. */
  samples: number;
  /** Perturbation scales (metres), cycled over the candidates: small ones refine, large ones explore. */
  sigmas: number[];
  /** Physics steps between running-cost evaluations. */
  costEvery: number;
  /** Cost per metre of knot-to-knot travel (a small control-effort term). */
  effort: number;
  /** Palm speed limit (m/s) between knots: keeps motions deliberate, so held things are not flung around. */
  maxSpeed: number;
  /** How far (m) a candidate's first knot may jump from the nominal's. */
  maxJump: number;
}

export const DEFAULT_MPC: MpcOptions = {
  horizon: 0.6,
  knots: 3,
  samples: 14,
  sigmas: [0.015, 0.04, 0.08, 0.15],
  costEvery: 5,
  effort: 0.02,
  maxSpeed: 0.6,
  maxJump: 0.04,
};

/** What the planner rolls out: a copy of the world it can reset to the real state and step. */
export interface RolloutModel {
  /** Physics step, seconds. */
  readonly dt: number;
  /** Copies the real state (physics and world state: grasp, locks) into the rollout copy. */
  reset(): void;
  /** Advances the rollout copy one physics step with the palm driven towards `target`. */
  step(target: number[]): void;
  /** Instantaneous cost of the rollout copy's state. */
  cost(): number;
  /** Keeps a palm target inside the workspace. */
  clamp(p: number[]): void;
}

/** A piecewise-linear spline of 3-D knots, evenly spaced over `horizon` from `t0`. */
export class Spline {
  constructor(
    readonly knots: Float64Array,
    readonly t0: number,
    readonly horizon: number,
  ) {}

  get count(): number {
    return this.knots.length / 3;
  }

  static constant(position: number[], count: number, t0: number, horizon: number): Spline {
    const k = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) k.set(position.slice(0, 3), 3 * i);
    return new Spline(k, t0, horizon);
  }

  /** The target at absolute time `time` (held constant past either end). */
  at(time: number, out: number[] = [0, 0, 0]): number[] {
    const knotCount = this.count;
    let knotIndex = ((time - this.t0) / this.horizon) * (knotCount - 1);
    if (knotIndex < 0) knotIndex = 0;
    if (knotIndex > knotCount - 1) knotIndex = knotCount - 1;
    const i = Math.min(knotCount - 2, Math.floor(knotIndex));
    const blend = knotIndex - i;
    const k = this.knots;
    for (let d = 0; d < 3; d++) out[d] = k[3 * i + d] * (1 - blend) + k[3 * (i + 1) + d] * blend;
    return out;
  }

  /** The same plan re-knotted to start at t0 (the receding horizon's "shift"). */
  shifted(t0: number): Spline {
    const knotCount = this.count;
    const k = new Float64Array(3 * knotCount);
    const point = [0, 0, 0];
    for (let i = 0; i < knotCount; i++) {
      this.at(t0 + (i / (knotCount - 1)) * this.horizon, point);
      k[3 * i] = point[0];
      k[3 * i + 1] = point[1];
      k[3 * i + 2] = point[2];
    }
    return new Spline(k, t0, this.horizon);
  }
}

function gaussian(rng: Rng): number {
  // Box–Muller; 1 − next() keeps the logarithm finite.
  const radialDraw = 1 - rng.next();
  const angleDraw = rng.next();
  return Math.sqrt(-2 * Math.log(radialDraw)) * Math.cos(2 * Math.PI * angleDraw);
}

export interface PlanResult {
  best: Spline;
  cost: number;
  /** Rollout physics steps taken (pruned rollouts stop early). */
  steps: number;
}

/** Rolls out `plan` from the real state; stops as soon as its cost exceeds `bound`. */
function rollout(model: RolloutModel, plan: Spline, opts: MpcOptions, bound: number): { cost: number; steps: number } {
  model.reset();
  const stepCount = Math.round(plan.horizon / model.dt);
  const target = [0, 0, 0];
  let cost = 0;
  const k = plan.knots;
  for (let i = 3; i < k.length; i += 3)
    cost += opts.effort * Math.hypot(k[i] - k[i - 3], k[i + 1] - k[i - 2], k[i + 2] - k[i - 1]);
  const every = opts.costEvery;
  for (let s = 0; s < stepCount; s++) {
    plan.at(plan.t0 + s * model.dt, target);
    model.step(target);
    if ((s + 1) % every === 0) {
      cost += model.cost() * every * model.dt;
      if (cost > bound) return { cost: Infinity, steps: s + 1 };
    }
  }
  // Terminal cost: where the plan leaves things matters more than the path there.
  cost += model.cost() * 0.2;
  return { cost, steps: stepCount };
}

/** One planning iteration from the real state, starting from `nominal` (already shifted to now). */
export function planOnce(model: RolloutModel, nominal: Spline, rng: Rng, opts: MpcOptions = DEFAULT_MPC): PlanResult {
  let best = nominal;
  let steps = 0;
  const first = rollout(model, nominal, opts, Infinity);
  let bestCost = first.cost;
  steps += first.steps;
  const knot = [0, 0, 0];
  for (let c = 1; c < opts.samples; c++) {
    const sigma = opts.sigmas[(c - 1) % opts.sigmas.length];
    const k = new Float64Array(nominal.knots);
    const segment = (opts.maxSpeed * nominal.horizon) / (nominal.count - 1);
    for (let i = 0; i < k.length; i += 3) {
      knot[0] = k[i] + sigma * gaussian(rng);
      knot[1] = k[i + 1] + sigma * gaussian(rng);
      knot[2] = k[i + 2] + sigma * gaussian(rng);
      // Limit the step from the previous knot (the first: from the nominal's first knot, i.e. about where the palm is).
      const from = i === 0 ? nominal.knots : k;
      const prevOffset = i === 0 ? 0 : i - 3;
      const limit = i === 0 ? opts.maxJump : segment;
      const dx = knot[0] - from[prevOffset],
        dy = knot[1] - from[prevOffset + 1],
        dz = knot[2] - from[prevOffset + 2];
      const jump = Math.hypot(dx, dy, dz);
      if (jump > limit) {
        knot[0] = from[prevOffset] + (dx * limit) / jump;
        knot[1] = from[prevOffset + 1] + (dy * limit) / jump;
        knot[2] = from[prevOffset + 2] + (dz * limit) / jump;
      }
      model.clamp(knot);
      k[i] = knot[0];
      k[i + 1] = knot[1];
      k[i + 2] = knot[2];
    }
    const cand = new Spline(k, nominal.t0, nominal.horizon);
    const result = rollout(model, cand, opts, bestCost);
    steps += result.steps;
    if (result.cost < bestCost) {
      bestCost = result.cost;
      best = cand;
    }
  }
  return { best, cost: bestCost, steps };
}
