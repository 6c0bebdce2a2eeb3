/**
 * Generated obstacle courses: a pure function of their seed, built from the hand-made courses' obstacle kinds. The
 * solvability check (a search over the dog's own skills in the simulator, under MuJoCo) is an integration test:
 * courseSolve.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  findCourse,
  generateCourse,
  generatedName,
  generatedSeed,
  LABELS,
  listCourses,
} from "../../../robots/sim/course";

describe("generated courses", () => {
  it("are a pure function of their seed, named generated_<seed>, and differ between seeds", () => {
    expect(JSON.stringify(generateCourse(7))).toBe(JSON.stringify(generateCourse(7)));
    expect(JSON.stringify(generateCourse(7))).not.toBe(JSON.stringify(generateCourse(8)));
    expect(findCourse(generatedName(42)).name).toBe("generated_42");
    expect(generatedSeed("generated_42")).toBe(42);
    expect(generatedSeed("indoor_1")).toBeUndefined();
    expect(() => generateCourse(-1)).toThrow(/whole number/);
    expect(listCourses()).not.toContain("generated_0");
  });

  it("vary: rooms and yards, barriers of every kind, things to go around, toys behind the start", () => {
    const courses = Array.from({ length: 200 }, (_, i) => generateCourse(i));
    expect(new Set(courses.map((c) => c.ground))).toEqual(new Set(["indoor", "outdoor"]));
    const labels = new Set(courses.flatMap((c) => c.things.map((t) => t.label)));
    for (const l of ["couch", "cushion", "stool", "bush", "bamboo", "log", "curb", "hill", "plank", "bench", "wall"])
      expect(labels, l).toContain(l);
    for (const l of labels) expect(LABELS).toContain(l);
    expect(
      courses.some((c) => c.toy.x < 0),
      "a toy behind the start",
    ).toBe(true);
    expect(
      courses.some((c) => c.deadEnd),
      "a start in a dead-end corridor",
    ).toBe(true);
    for (const c of courses) expect(Math.hypot(c.toy.x, c.toy.y), c.name).toBeGreaterThanOrEqual(2);
  });
});
