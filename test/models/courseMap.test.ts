/**
 * The legged robot's picture of the place from its own frames (models/symbolic/courseMap.ts): where to look next when
 * the toy has not been seen, and the way around a wall to a place remembered behind it.
 */
import { describe, expect, it } from "vitest";
import { CourseMap } from "../../models/symbolic/courseMap";
import type { RangedDetection } from "../../robots/msgs/detections";

const wall = (distance: number, bearing: number, width: number): RangedDetection => ({
  label: "wall", score: 0.99, box: { x: 0, y: 0, w: 160, h: 40 }, distance, bearing, top: 0.8, underside: 0, width,
});
const blocks = (d: RangedDetection) => d.label === "wall";
const at = (x: number, y: number, th: number) => ({ x, y, th });

describe("the course map", () => {
  it("facing a wall across the view, the next place to look is off to a side, not through the wall", () => {
    const map = new CourseMap([{ pose: at(0, 0, 0), detections: [wall(1.2, 0, 3)], fov: 60 }], [at(0, 0, 0)], blocks);
    const next = map.toUnseen(at(0, 0, 0))!;
    expect(next).toBeDefined();
    expect(map.clear(at(0, 0, 0), next)).toBe(true);
    // Not beyond the wall (x ≥ 1.2 along the way it faces, within its width).
    expect(next.x < 1.1 || Math.abs(next.y) > 1.5).toBe(true);
  });

  it("routes to a place remembered behind a wall around the wall's end, and straight when nothing is in between", () => {
    // The wall seen from two headings: 2 m ahead, from y = -3 to y = 1 (its end at y = 1).
    const looks = [
      { pose: at(0, 0, 0), detections: [wall(2, -26.6, 2.2)], fov: 60 },
      { pose: at(0, 0, 0), detections: [wall(2.1, 0, 2)], fov: 60 },
    ];
    const map = new CourseMap(looks, [at(0, 0, 0)], blocks);
    const behind = { x: 3, y: 0 };
    expect(map.clear(at(0, 0, 0), behind)).toBe(false);
    const leg = map.toward(at(0, 0, 0), behind)!;
    expect(leg).toBeDefined();
    expect(leg.y, "the leg goes toward the wall's open end (left)").toBeGreaterThan(0.5);
    expect(map.clear(at(0, 0, 0), leg)).toBe(true);
    expect(map.toward(at(0, 0, 0), { x: -1, y: 0 })).toEqual({ x: -1, y: 0 });
  });
});
