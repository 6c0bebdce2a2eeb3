/**
 * Standing on what it climbed (part of memory). The camera measures heights above the ground the feet stand on, so
 * once it has climbed onto a cushion, a curb, a plank or a log, and until its hind feet are off it again, everything
 * reads that much lower: from on top of a 0.15 m cushion a couch's 0.22 m of room beneath reads 0.07 m, too low to
 * crawl. Reckoned from its own frames and moves only: the height it read for the thing before climbing it, where it
 * was, and how far the body has gone on since.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { CourseContext } from "../schemas";
import { KINDS, NEAR, ROBOT } from "./robot";
import { plainWay } from "./judging";
import { firstInPath } from "./geometry";

interface Climbed {
  /** Its top, as read before climbing it. */
  top: number;
  /** Forward travel since the climb began at which the feet are on it, and at which the hind feet are off it again. */
  on: number;
  off: number;
  travelled: number;
}

/** Heights read `by` lower than they are, put right (a thing resting on the floor reads no room beneath either way). */
function raise(dets: RangedDetection[], by: number): RangedDetection[] {
  if (by <= 0) return dets;
  return dets.map((d) => ({ ...d, top: d.top + by, underside: d.underside > 0 ? d.underside + by : 0 }));
}

/** The context with each frame's heights put right for what the body stood on when it was taken. */
export function onFooting(ctx: CourseContext): CourseContext {
  let climbed: Climbed | undefined;
  let height = 0;
  let changed = false;
  const history = ctx.history.map((entry, i) => {
    const frameHeight = height;
    const result = entry.result;
    if (result.skill === "climb" && ctx.history[i - 1]?.result.skill !== "climb") {
      const thing = firstInPath(entry.detections, NEAR);
      // Stairs and slopes are climbed step by step, not stood on at one height.
      const kind = thing && KINDS[thing.label];
      climbed =
        thing && plainWay(thing) === "climb" && !kind?.steps && !kind?.slope
          ? {
              top: thing.top + frameHeight,
              on: thing.distance,
              off: thing.distance + (kind?.depth ?? 0.3) + ROBOT.length,
              travelled: 0,
            }
          : undefined;
    }
    if (climbed) {
      climbed.travelled += result.moved;
      const on = climbed.travelled >= climbed.on && climbed.travelled < climbed.off;
      height = on ? climbed.top : 0;
      if (climbed.travelled >= climbed.off || climbed.travelled < 0) climbed = undefined;
    }
    if (frameHeight <= 0) return entry;
    changed = true;
    return { ...entry, detections: raise(entry.detections, frameHeight) };
  });
  if (!changed && height <= 0) return ctx;
  return { ...ctx, history, frame: { ...ctx.frame, detections: raise(ctx.frame.detections, height) } };
}
