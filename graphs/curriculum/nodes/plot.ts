/**
 * A skill's learning curve as the analyst sees it: an SVG line plot (x learner iterations, y evaluation return scaled
 * to the known maximum, as the paper scales its curves to 400) rasterised to PNG with sharp. The look is fixed by
 * PLOT_STYLE so every plot — the run's, the exemplars' — reads the same way.
 */
import sharp from "sharp";
import { PLOT_STYLE } from "../schemas";

export interface CurvePlot {
  title: string;
  /** Evaluation returns, one per learner iteration since the skill began to be learned. */
  returns: number[];
  /** The largest possible return (rewards in [0, 1] times the evaluation episode's steps). */
  maxReturn: number;
  /** Iterations the x axis spans (at least the curve's length): a short curve covers only part of it. */
  horizon: number;
}

const esc = (s: string) => s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);

export function curveSvg(plot: CurvePlot): string {
  const { width, height, area, inset, frame, grid, curve, background } = PLOT_STYLE;
  const xMax = Math.max(plot.horizon, plot.returns.length - 1, 1);
  // Data sit `inset` pixels inside the frame, so a curve at 0 or at the maximum does not hide the frame line.
  const x = (i: number) => area.left + inset + ((area.right - area.left - 2 * inset) * i) / xMax;
  const y = (reward: number) =>
    area.bottom -
    inset -
    ((area.bottom - area.top - 2 * inset) * Math.max(0, Math.min(reward, plot.maxReturn))) / plot.maxReturn;
  const grids = [0.25, 0.5, 0.75].map(
    (fraction) =>
      `<line x1="${area.left}" x2="${area.right}" y1="${y(fraction * plot.maxReturn)}" y2="${y(fraction * plot.maxReturn)}" stroke="${grid}" stroke-width="1"/>`,
  );
  const points = plot.returns.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  const dots = plot.returns.map(
    (r, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(r).toFixed(1)}" r="2.5" fill="${curve}"/>`,
  );
  const text = (tx: number, ty: number, label: string, anchor = "middle", size = 10) =>
    `<text x="${tx}" y="${ty}" font-family="sans-serif" font-size="${size}" fill="#666666" text-anchor="${anchor}">${esc(label)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="${background}"/>`,
    ...grids,
    // On pixel centres, so the frame is drawn crisp.
    `<rect x="${area.left + 0.5}" y="${area.top + 0.5}" width="${area.right - area.left - 1}" height="${area.bottom - area.top - 1}" fill="none" stroke="${frame}" stroke-width="1"/>`,
    plot.returns.length > 1 ? `<polyline points="${points}" fill="none" stroke="${curve}" stroke-width="2"/>` : "",
    ...dots,
    text(width / 2, 14, plot.title, "middle", 11),
    text(area.left - 4, y(0) + 3, "0", "end"),
    text(area.left - 4, y(plot.maxReturn) + 4, String(Math.round(plot.maxReturn)), "end"),
    text(x(0), height - 8, "0", "middle"),
    text(x(xMax), height - 8, String(xMax), "middle"),
    text((area.left + area.right) / 2, height - 8, "learner iterations", "middle", 9),
    `</svg>`,
  ].join("");
}

/** The plot as PNG bytes (what goes to the artifact store and to the analyst). */
export async function renderCurve(plot: CurvePlot): Promise<Buffer> {
  if (!(plot.maxReturn > 0)) throw new Error(`a learning curve needs a positive maximum return, not ${plot.maxReturn}`);
  return sharp(Buffer.from(curveSvg(plot)))
    .png()
    .toBuffer();
}
