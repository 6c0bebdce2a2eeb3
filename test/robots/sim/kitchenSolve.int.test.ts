/**
 * The solver's check of generated kitchen scenarios: a plan from the true state run on the world (MuJoCo's kitchen, so
 * an integration test; the scenarios' unit checks are kitchenGenerate.test.ts), and every thing the goal names visible
 * from somewhere the robots can look from, which says why when a scenario cannot be done; the dataset holds only
 * scenarios that pass it.
 */
import { describe, expect, it } from "vitest";
import { generateKitchen } from "../../../robots/sim/kitchen/generate";
import { planKitchen, solveKitchen } from "../../../robots/sim/kitchen/solve";
import { GENERATED_KITCHENS, generatedSet } from "../../../evals/datasets/generated";
import { KitchenExample } from "../../../evals/datasets";

describe("generated kitchens", () => {
  it("the solver's plan, run on the world, does them; it says why one cannot be done", async () => {
    for (const seed of [2, 3, 16]) {
      const solution = await solveKitchen(generateKitchen(seed));
      expect(solution.solvable, `${seed}: ${solution.why}`).toBe(true);
      expect(solution.steps.length).toBeGreaterThan(2);
    }
    const generated = generateKitchen(3);
    // Something that is not in the kitchen.
    expect((await solveKitchen({ ...generated, goal: ["in(cup, oven)"], placements: { apple: "table" } })).why).toMatch(
      /not in the kitchen/,
    );
    // The trash can's far corner is out of every camera's sight: a search for what lies there cannot succeed by looking.
    const hidden = await solveKitchen({
      ...generated,
      family: "search",
      placements: { apple: "trash_can", orange: "trash_can", cup: "trash_can" },
      goal: ["found(cup)"],
      open: [],
    });
    expect(hidden.why).toBe("no camera sees the cup where it starts, from anywhere the robots can look from");
    // The oven holds one thing: a second cannot go in.
    const full = await solveKitchen({
      ...generated,
      placements: { apple: "table", bread: "oven" },
      goal: ["in(apple, oven)"],
      open: [],
    });
    expect(full.solvable).toBe(false);
    expect(full.why).toMatch(/release_to/);
    expect(
      planKitchen({
        ...generated,
        placements: { apple: "refrigerator" },
        goal: ["in(apple, drawer_top)"],
        open: [],
        mobileAt: "in_front_of_sink",
      }).map((x) => `${x.robot}.${x.skill}`),
    ).toEqual([
      "mobile.go_to",
      "mobile.open",
      "arm.open",
      "mobile.pick_from",
      "mobile.go_to",
      "mobile.release_to",
      "arm.pick_from",
      "arm.release_to",
    ]);
  }, 120_000);

  it("the dataset holds doable scenarios only, scored from seed 1000", async () => {
    const set = await generatedSet(GENERATED_KITCHENS, 2, 1000);
    expect(set.scored).toBe(true);
    for (const r of set.rows) {
      expect(KitchenExample.parse(r).metadata.condition).toBe("scored");
      expect(r.outputs.goal).toEqual(r.inputs.scenario.goal);
    }
  }, 120_000);
});
