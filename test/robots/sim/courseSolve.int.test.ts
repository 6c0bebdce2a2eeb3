/**
 * The solvability check of obstacle courses: a search over the dog's own skills in the simulator (nominal motions,
 * MuJoCo's course, so an integration test; the courses' unit checks are courseGenerate.test.ts), which finds no way
 * where there is none; the dataset keeps only courses that pass it.
 */
import { describe, expect, it } from "vitest";
import { FIRST_SCORED_SEED, findCourse, generatedSeed } from "../../../robots/sim/course";
import { room, wall } from "../../../robots/sim/course/scene";
import { solveCourse } from "../../../robots/sim/course/solve";
import { GENERATED_COURSES, generatedSet } from "../../../evals/datasets/generated";
import { CourseExample } from "../../../evals/datasets";

describe("generated courses", () => {
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
