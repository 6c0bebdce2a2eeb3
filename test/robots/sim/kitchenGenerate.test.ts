/**
 * Generated kitchen scenarios: a pure function of their seed, valid scenarios (every place within its room), goals of
 * one or two parts drawn from what the skills can do, worded so that the offline reader reaches exactly the goal the
 * simulator checks; and the solver's check: a plan from the true state run on the world, and every thing the goal
 * names visible from somewhere the robots can look from, which says why when a scenario cannot be done.
 */
import { describe, expect, it } from "vitest";
import { readInstruction, lexicon } from "../../../models/reasoning/language";
import { WorldDescription } from "../../../robots/manifests/schema";
import { generatedSeed } from "../../../robots/sim/generated";
import { generateKitchen } from "../../../robots/sim/kitchen/generate";
import { NAMES } from "../../../robots/sim/kitchen/layout";
import { parseScenario } from "../../../robots/sim/kitchen/scenario";
import { planKitchen, solveKitchen } from "../../../robots/sim/kitchen/solve";
import { GENERATED_KITCHENS, generatedSet } from "../../../evals/datasets/generated";
import { KitchenExample } from "../../../evals/datasets";
import { robots, world as bareKitchen } from "../../helpers/kitchenWorld";

const kitchen = WorldDescription.parse({ ...bareKitchen, names: NAMES });
const lex = lexicon(kitchen, robots);

describe("generated kitchens", () => {
  const scenarios = Array.from({ length: 60 }, (_, i) => generateKitchen(i));

  it("are a pure function of their seed, valid, and vary over families, goal sizes, open doors and starts", () => {
    expect(JSON.stringify(generateKitchen(5))).toBe(JSON.stringify(generateKitchen(5)));
    expect(JSON.stringify(generateKitchen(5))).not.toBe(JSON.stringify(generateKitchen(6)));
    expect(generatedSeed(generateKitchen(17).name)).toBe(17);
    for (const s of scenarios) expect(() => parseScenario(s), s.name).not.toThrow();
    expect(new Set(scenarios.map((s) => s.family))).toEqual(new Set(["search", "manipulation", "integration"]));
    expect(new Set(scenarios.map((s) => s.goal.length))).toEqual(new Set([1, 2]));
    expect(scenarios.some((s) => s.open.length > 0) && scenarios.some((s) => s.open.length === 0)).toBe(true);
    expect(new Set(scenarios.map((s) => s.mobileAt)).size).toBeGreaterThan(2);
    for (const s of scenarios) for (const g of s.goal) expect(g).toMatch(/^(found|in)\(/);
  });

  it("are worded so the offline reader reaches exactly the goal the simulator checks", () => {
    for (const s of scenarios) {
      const reading = readInstruction(
        s.instruction,
        kitchen.labels,
        kitchen.places.map((p) => p.name),
        lex,
      );
      expect(reading.notUnderstood, s.instruction).toEqual([]);
      expect([...reading.goals].sort(), s.instruction).toEqual([...s.goal].sort());
    }
  });

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
