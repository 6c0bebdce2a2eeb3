/**
 * Judging an obstacle as the model would: the way past it (walk, crawl, climb or go around) from its kind and its
 * heights, and one look at the thing in the way with the noise knobs applied — a misread kind or a misjudged height
 * near a threshold — always drawing the same number of random numbers, so later draws do not depend on which slips
 * happened.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { Draw, NoiseKnobs } from "../../../models/symbolic/noise";
import { KINDS, OBSTACLE_LABELS, ROBOT, type Way } from "./robot";

function wayOf(label: string, top: number, underside: number): Way {
  const k = KINDS[label];
  if (k?.slope) return "walk";
  // A flight of stairs is tall overall but each step is low.
  if (k?.steps) return "climb";
  if (top < ROBOT.climbHeight) return "climb";
  // Unknown things: trust the depth reading of the room beneath.
  const room = k?.roomBeneath ?? true;
  if (room && underside > ROBOT.height + 0.04) return "walk";
  if (room && underside > ROBOT.crawlHeight) return "crawl";
  return "around";
}

/** A misjudged height lands on the other side of the threshold — but only for heights near it (no one takes a 2 m bamboo for a step). */
function misjudged(value: number, threshold: number): number {
  if (Math.abs(value - threshold) > 0.15) return value;
  return value > threshold ? threshold - 0.03 : threshold + 0.03;
}

export interface Judged {
  d: RangedDetection;
  /** What the model takes it for (a misread changes it). */
  label: string;
  way: Way;
  slip?: string;
}

/** One look at the obstacle in the way: three draws always, so later draws do not depend on which slips happened. */
export function judge(detection: RangedDetection, noise: NoiseKnobs, rng: Draw): Judged {
  const misread = rng.next() < noise.misreadObstacle;
  const pick = rng.next();
  const misjudge = rng.next() < noise.misjudgeClearance;
  let { label, top, underside } = detection;
  if (misread) {
    const others = OBSTACLE_LABELS.filter((l) => l !== detection.label);
    label = others[Math.floor(pick * others.length)];
    ({ top, underside } = KINDS[label]);
  }
  if (misjudge) {
    top = misjudged(top, ROBOT.climbHeight);
    underside = misjudged(underside, ROBOT.crawlHeight);
  }
  return {
    d: detection,
    label,
    way: wayOf(label, top, underside),
    slip: misread || misjudge ? "uncertain reading" : undefined,
  };
}

export const plainWay = (d: RangedDetection) => wayOf(d.label, d.top, d.underside);
