/**
 * The generated critic set's physical check: did an edit change what happened, measurably, against the careful twin
 * run on the very same layout? Read from the two rollouts' dense detection tracks (what the camera saw every 0.1 s),
 * with one generic yardstick for every family — the hand's path, its time, its peak speed, how often it grasped, where
 * every thing ended — never a behaviour-specific monitor. An edit that changed nothing measurable has no truth to score.
 */
import type { LocatedDetection, Rollout } from "../../robots/msgs/rollout";

type P3 = [number, number, number];
const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** A measurable change needs at least this much (the detector's depth jitter is about a centimetre). */
export const CHANGE = { seconds: 0.3, path: 0.02, speedRatio: 1.25, moved: 0.02, flatter: 0.9, lower: 0.01 };

/** Where the hand was seen, with when (a frame that does not show it adds nothing). */
function palmPath(rollout: Rollout): { t: number; p: P3 }[] {
  return rollout.track.flatMap((x) => x.detections.detections.filter((d) => d.label === "palm").map((d) => ({ t: x.t, p: d.position })));
}

/** The path resampled at `points` evenly spaced points along its length. */
function resample(path: P3[], points: number): P3[] {
  if (path.length < 2) return path;
  const cum = [0];
  for (let i = 1; i < path.length; i++) cum.push(cum[i - 1] + dist(path[i - 1], path[i]));
  const total = cum[cum.length - 1] || 1;
  const out: P3[] = [];
  let j = 1;
  for (let k = 0; k < points; k++) {
    const along = (k * total) / (points - 1);
    while (j < path.length - 1 && cum[j] < along) j++;
    const fraction = cum[j] > cum[j - 1] ? (along - cum[j - 1]) / (cum[j] - cum[j - 1]) : 0;
    out.push([0, 1, 2].map((d) => path[j - 1][d] + fraction * (path[j][d] - path[j - 1][d])) as P3);
  }
  return out;
}

function peakSpeed(path: { t: number; p: P3 }[]): number {
  let peak = 0;
  for (let i = 1; i < path.length; i++) {
    const dt = path[i].t - path[i - 1].t;
    if (dt > 0) peak = Math.max(peak, dist(path[i - 1].p, path[i].p) / dt);
  }
  return peak;
}

/** Times the hand took hold of something (a thing seen held after not being held). */
function grasps(rollout: Rollout): number {
  let count = 0, held = false;
  for (const x of rollout.track) {
    const now = x.detections.detections.some((d) => d.location.relation === "held_by");
    if (now && !held) count++;
    held = now;
  }
  return count;
}

/** Each thing seen once in the last frame (alike things cannot be told apart), by label. */
function lastSeen(rollout: Rollout): Map<string, LocatedDetection> {
  const last = rollout.track[rollout.track.length - 1]?.detections.detections ?? [];
  const count = new Map<string, number>();
  for (const d of last) count.set(d.label, (count.get(d.label) ?? 0) + 1);
  return new Map(last.filter((d) => count.get(d.label) === 1 && d.label !== "palm").map((d) => [d.label, d]));
}

/** One way a rollout differs from its twin: what, by how much, and how many times the yardstick's own step that is. */
export interface MotionChange {
  /** Which measure: time, path, speed, lower, grasps, open, or `moved:<thing>` / `flatter:<thing>`. */
  aspect: string;
  /** The difference in its own unit, and as a multiple of the smallest change that counts (CHANGE). */
  size: number;
  steps: number;
  said: string;
}

/** What measurably differs between an edited rollout and its twin, measure by measure (empty: nothing measurable). */
export function motionDifferences(edited: Rollout, twin: Rollout): MotionChange[] {
  const out: MotionChange[] = [];
  const push = (aspect: string, size: number, step: number, said: string) =>
    out.push({ aspect, size, steps: step > 0 ? size / step : 1, said });
  const dt = edited.duration - twin.duration;
  if (Math.abs(dt) >= CHANGE.seconds) push("time", Math.abs(dt), CHANGE.seconds, `takes ${Math.abs(dt).toFixed(1)} s ${dt > 0 ? "longer" : "less"}`);
  const pe = palmPath(edited), pt = palmPath(twin);
  const editedPoints = resample(pe.map((x) => x.p), 60), twinPoints = resample(pt.map((x) => x.p), 60);
  const apart = editedPoints.length === twinPoints.length ? Math.max(0, ...editedPoints.map((p, i) => dist(p, twinPoints[i]))) : Infinity;
  if (apart >= CHANGE.path) push("path", apart, CHANGE.path, `the hand's path is up to ${(apart * 100).toFixed(0)} cm from the twin's`);
  const ve = peakSpeed(pe), vt = peakSpeed(pt);
  if (vt > 0 && (ve / vt >= CHANGE.speedRatio || vt / ve >= CHANGE.speedRatio)) {
    const ratio = Math.max(ve / vt, vt / ve);
    push("speed", ratio, CHANGE.speedRatio, `peak hand speed ${ve.toFixed(2)} m/s against ${vt.toFixed(2)}`);
  }
  const low = Math.min(...pt.map((x) => x.p[2])) - Math.min(...pe.map((x) => x.p[2]));
  if (low >= CHANGE.lower) push("lower", low, CHANGE.lower, `the hand comes ${(low * 100).toFixed(0)} cm lower`);
  const ge = grasps(edited), gt = grasps(twin);
  if (ge !== gt) push("grasps", Math.abs(ge - gt), 1, `grasps ${ge} times against ${gt}`);
  const le = lastSeen(edited), lt = lastSeen(twin);
  for (const [label, d] of le) {
    const twinSeen = lt.get(label);
    if (!twinSeen) continue;
    const moved = dist(d.position, twinSeen.position);
    const heightOf = (x: LocatedDetection) => x.zRange[1] - x.zRange[0];
    if (moved >= CHANGE.moved) push(`moved:${label}`, moved, CHANGE.moved, `the ${label} ends ${(moved * 100).toFixed(0)} cm from where the twin's does`);
    else if (heightOf(twinSeen) > 0.02 && heightOf(d) < CHANGE.flatter * heightOf(twinSeen)) {
      const flatter = 1 - heightOf(d) / heightOf(twinSeen);
      push(`flatter:${label}`, flatter, 1 - CHANGE.flatter, `the ${label} ends ${(flatter * 100).toFixed(0)}% flatter`);
    }
  }
  const open = (r: Rollout) => (r.track[r.track.length - 1]?.detections.places ?? []).filter((p) => p.state === "open").map((p) => p.name).sort().join(",");
  if (open(edited) !== open(twin)) push("open", 1, 1, `open at the end: ${open(edited) || "nothing"} against ${open(twin) || "nothing"}`);
  return out;
}

/** What measurably differs between an edited rollout and its twin (empty: the edit changed nothing measurable). */
export function motionChanges(edited: Rollout, twin: Rollout): string[] {
  return motionDifferences(edited, twin).map((c) => c.said);
}

/**
 * Whether a rewritten program's motion came back toward its careful twin, by the same yardstick: `back` when nothing
 * measurable differs any more; `closer` when no new difference appeared and the differences, each counted in its own
 * yardstick's steps (a path 10 cm off is five 2 cm steps), add up to less than before; else `not closer`.
 */
export function towardTwin(before: MotionChange[], after: MotionChange[]): "back" | "closer" | "not closer" {
  if (after.length === 0) return "back";
  const had = new Set(before.map((c) => c.aspect));
  const sum = (cs: MotionChange[]) => cs.reduce((n, c) => n + Math.min(c.steps, 1e3), 0);
  return after.every((c) => had.has(c.aspect)) && sum(after) < sum(before) ? "closer" : "not closer";
}
