/**
 * The analyst's in-context exemplars: six learning curves drawn like the run's own, each with a verdict and its reason
 * (still rising; two plateaus; peaked and declining; declined and rising again; too short to tell) — the kinds of
 * curve the paper showed its model. The curves are made up to show each shape clearly.
 */
import type { CurveExemplar } from "../schemas";
import { renderCurve } from "./plot";

export interface Exemplar extends CurveExemplar {
  returns: number[];
}

const MAX = 80;
const scale = (xs: number[]) => xs.map((x) => Math.round(x * MAX * 10) / 10);

export const EXEMPLARS: Exemplar[] = [
  {
    returns: scale([0.02, 0.08, 0.17, 0.27, 0.38, 0.49, 0.6]),
    converged: false,
    reasoning: "The curve is still climbing steeply at its end; training has not converged.",
  },
  {
    returns: scale([0.05, 0.3, 0.55, 0.7, 0.76, 0.78, 0.77, 0.78, 0.79]),
    converged: true,
    reasoning: "The curve rose and then levelled off; the last points hardly change, so training has converged.",
  },
  {
    returns: scale([0.4, 0.62, 0.85, 0.9, 0.91, 0.9, 0.92, 0.91]),
    converged: true,
    reasoning: "Near the top of the scale and flat over the last iterations: converged.",
  },
  {
    returns: scale([0.1, 0.45, 0.75, 0.86, 0.8, 0.68, 0.58, 0.5]),
    converged: true,
    reasoning: "The curve peaked and is now falling: training had converged already and is degrading.",
  },
  {
    returns: scale([0.1, 0.5, 0.7, 0.45, 0.3, 0.42, 0.55, 0.68]),
    converged: false,
    reasoning: "After an earlier peak the curve fell but is rising again: not converged yet.",
  },
  {
    returns: scale([0.05, 0.2]),
    converged: false,
    reasoning: "Only a couple of points: there is no full learning curve yet, so it has not converged.",
  },
];

const rendered = new Map<number, Promise<Buffer[]>>();

/** The exemplar plots as PNGs, in order, on the run's x axis (drawn once per process). */
export function exemplarPlots(horizon: number): Promise<Buffer[]> {
  let plots = rendered.get(horizon);
  if (!plots) {
    plots = Promise.all(
      EXEMPLARS.map((e, i) => renderCurve({ title: `example ${i + 1}`, returns: e.returns, maxReturn: MAX, horizon })),
    );
    rendered.set(horizon, plots);
  }
  return plots;
}
