/**
 * The legged robot's picture of the place from its own frames (graphs/vlmpc/reasoner/courseMap.ts): where to look next when
 * the toy has not been seen, and the way around a wall to a place remembered behind it.
 */
import { describe, expect, it } from "vitest";
import { CourseMap } from "../../../graphs/vlmpc/reasoner/courseMap";
import type { RangedDetection } from "../../../robots/msgs/detections";
import { boxFor, CAMERA } from "../../helpers/camera";

const wall = (distance: number, bearing: number, width: number): RangedDetection => ({
  label: "wall",
  score: 0.99,
  box: boxFor(distance, bearing, width, 0),
  distance,
  bearing,
  top: 0.8,
  underside: 0,
  width,
});
const blocks = (d: RangedDetection) => d.label === "wall";
const at = (x: number, y: number, th: number) => ({ x, y, th });

describe("the course map", () => {
  it("facing a wall across the view, the next place to look is off to a side, not through the wall", () => {
    // The wall fills the view 1.2 m ahead: the frame shows 1.39 m of it (y from -0.69 to 0.69).
    const map = new CourseMap(
      [{ pose: at(0, 0, 0), detections: [wall(1.2, 0, 1.39)], ...CAMERA }],
      [at(0, 0, 0)],
      blocks,
    );
    const next = map.toUnseen(at(0, 0, 0))!;
    expect(next).toBeDefined();
    expect(map.clear(at(0, 0, 0), next)).toBe(true);
    // Not behind the part of the wall it saw.
    expect(next.x < 1.2 || Math.abs(next.y) > 0.7).toBe(true);
  });

  it("a wall seen slantwise blocks only where its box is: the opening beside it stays open", () => {
    // Tuning course 32, a metre from a wall's opening: the wall on the right of it seen slantwise (it measures 1.38 m
    // across at a median 0.73 m, but its box covers only the right two thirds of the image) and, through the opening,
    // the next wall's pieces 3.2 m and 5 m on. Square to the line of sight, 1.38 m at 0.73 m would cover the whole
    // view, the opening too, and the search turned on the spot in front of it.
    const piece = (distance: number, bearing: number, width: number, x: number, boxWidth: number): RangedDetection => ({
      ...wall(distance, bearing, width),
      box: { x, y: 0, w: boxWidth, h: 40 },
    });
    const view = [
      piece(5.07, 20.2, 1.08, 10, 38),
      piece(0.73, -9.6, 1.38, 47, 113),
      piece(0.84, -9.8, 0.1, 93, 22),
      piece(3.22, 10.6, 0.08, 52, 4),
      piece(3.24, 27.9, 0.21, 0, 13),
    ];
    const map = new CourseMap([{ pose: at(0, 0, 0), detections: view, ...CAMERA }], [at(0, 0, 0)], blocks);
    const ahead = (range: number, bearing: number) => ({
      x: range * Math.cos((bearing * Math.PI) / 180),
      y: range * Math.sin((bearing * Math.PI) / 180),
    });
    expect(map.hasSeen(ahead(2, 22)), "the ground through the opening").toBe(true);
    expect(map.hasSeen(ahead(1.5, -10)), "the ground behind the wall").toBe(false);
    expect(map.clear(at(0, 0, 0), ahead(1.5, -10))).toBe(false);
  });

  it("routes to a place remembered behind a wall around the wall's end, and straight when nothing is in between", () => {
    // The wall seen from two headings: 2 m ahead, from y = -3 to y = 1 (its end at y = 1).
    const looks = [
      { pose: at(0, 0, 0), detections: [wall(2, -26.6, 2.2)], ...CAMERA },
      { pose: at(0, 0, 0), detections: [wall(2.1, 0, 2)], ...CAMERA },
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

  it("where a walk stalled against something no frame showed, the way straight on is blocked", () => {
    // Nothing in view across the way; the walk stopped at (0.25, 0): what stopped it is below the camera, just ahead.
    const look = { pose: at(0, 0, 0), detections: [wall(3, 0, 3.4)], ...CAMERA };
    const open = new CourseMap([look], [at(0, 0, 0)], blocks);
    const bumped = new CourseMap([look], [at(0, 0, 0)], blocks, [at(0.25, 0, 0)]);
    expect(open.clear(at(0, 0, 0), { x: 1.5, y: 0 })).toBe(true);
    expect(bumped.clear(at(0, 0, 0), { x: 1.5, y: 0 })).toBe(false);
    // Off to the side of it the way stays clear.
    expect(bumped.clear(at(0, 0, 0), { x: 0, y: 1.5 })).toBe(true);
  });
});
