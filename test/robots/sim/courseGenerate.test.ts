/**
 * Generated obstacle courses: a pure function of their seed, built from the hand-made courses' obstacle kinds, and
 * checked solvable by a search over the dog's own skills in the simulator (nominal motions), which finds no way where
 * there is none.
 */
import { describe, expect, it } from "vitest";
import {
  FIRST_SCORED_SEED,
  findCourse,
  generateCourse,
  generatedName,
  generatedSeed,
  LABELS,
  listCourses,
} from "../../../robots/sim/course";
import { room, wall } from "../../../robots/sim/course/scene";
import { solveCourse } from "../../../robots/sim/course/solve";
import { GENERATED_COURSES, generatedSet } from "../../../evals/datasets/generated";
import { CourseExample } from "../../../evals/datasets";

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

  it("the solver finds a way within 100 s on hand-made and generated courses, and none where there is none", async () => {
    const made = await solveCourse("indoor_1");
    expect(made?.seconds).toBeLessThanOrEqual(100);
    expect(made!.steps.length).toBeGreaterThan(3);
    // The toy shut in a box of walls: no way to it.
    const shut = {
      ...findCourse("probe_toy"),
      name: "shut_in",
      things: [
        ...room(-1, 4, -2, 2),
        wall(1.5, -0.5, 1.5, 0.5),
        wall(2.7, -0.5, 2.7, 0.5),
        wall(1.5, 0.5, 2.7, 0.5),
        wall(1.5, -0.5, 2.7, -0.5),
      ],
    };
    expect(await solveCourse(shut, { maxExpansions: 300 })).toBeNull();
  }, 120_000);

  it("the dataset keeps solvable courses only, and the scored range starts at FIRST_SCORED_SEED", async () => {
    const set = await generatedSet(GENERATED_COURSES, 2, FIRST_SCORED_SEED);
    expect(set.scored).toBe(true);
    expect(set.rows).toHaveLength(2);
    for (const r of set.rows) {
      expect(CourseExample.parse(r).metadata.condition).toBe("scored");
      expect(generatedSeed(r.inputs.scenario)!).toBeGreaterThanOrEqual(FIRST_SCORED_SEED);
    }
    expect(set.verdicts.filter((v) => v.solvable).map((v) => v.seed)).toEqual(
      set.rows.map((r) => generatedSeed(r.inputs.scenario)),
    );
    expect(GENERATED_COURSES.row(3).metadata.condition).toBe("tuning");
    await expect(generatedSet(GENERATED_COURSES, 0, 0)).rejects.toThrow(/--count/);
  }, 120_000);
});
