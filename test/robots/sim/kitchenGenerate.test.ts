/**
 * Generated kitchen scenarios: a pure function of their seed, valid scenarios (every place within its room), goals of
 * one or two parts drawn from what the skills can do, worded so that the offline reader reaches exactly the goal the
 * simulator checks. The solver's check (a plan from the true state run on the world, under MuJoCo) is an integration
 * test: kitchenSolve.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { readInstruction, lexicon } from "../../../models/reasoning/language";
import { WorldDescription } from "../../../robots/manifests/schema";
import { generatedSeed } from "../../../robots/sim/generated";
import { generateKitchen } from "../../../robots/sim/kitchen/generate";
import { NAMES } from "../../../robots/sim/kitchen/layout";
import { parseScenario } from "../../../robots/sim/kitchen/scenario";
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
});
