import { describe, expect, it } from "vitest";
import { bundledManifests, parseLiteral, RobotManifest, worldFacts, argumentsValidator } from "../../robots/manifests";
import { listScenarios, loadScenario } from "../../robots/sim/kitchen";
import { ARM_BASE, ARM_REACH, NAVIGATION_POINTS, PLACES } from "../../robots/sim/kitchen/layout";

describe("robot manifests", () => {
  it("parses literals of the precondition language and rejects malformed ones", () => {
    expect(parseLiteral("not holding(self, _)")).toEqual({ negated: true, pred: "holding", args: ["self", "_"] });
    expect(parseLiteral("serves(?n, place)")).toEqual({ negated: false, pred: "serves", args: ["?n", "place"] });
    expect(() => parseLiteral("holding(self")).toThrow(/not a literal/);
    expect(() => parseLiteral("in(a b)")).toThrow(/bad argument/);
  });

  it("rejects an invalid manifest naming the field", () => {
    const [mobile] = bundledManifests("kitchen");
    const bad = structuredClone(mobile) as any;
    bad.skills[0].preconditions = ["at(self"];
    bad.skills[1].action = "no-slash";
    const r = RobotManifest.safeParse(bad);
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join("."));
    expect(paths).toContain("skills.0.preconditions.0");
    expect(paths).toContain("skills.1.action");
  });

  it("declares reach facts that agree with the kitchen's geometry", () => {
    const [mobile, arm] = bundledManifests("kitchen");
    const reach = PLACES.filter((p) => Math.hypot(p.center[0] - ARM_BASE[0], p.center[1] - ARM_BASE[1]) <= ARM_REACH).map((p) => `reaches(self, ${p.name})`);
    expect(arm.facts.sort()).toEqual(reach.sort());
    expect(mobile.facts.sort()).toEqual(NAVIGATION_POINTS.map((n) => `serves(${n.name}, ${n.serves})`).sort());
    expect(worldFacts({ name: "k", places: [{ name: "oven", kind: "container", openable: true, capacity: 1 }], navigationPoints: ["n"], labels: [] })).toEqual([
      "container(oven)",
      "openable(oven)",
      "navigation_point(n)",
    ]);
  });

  it("builds argument validators from the skills' JSON schemas", () => {
    const [mobile] = bundledManifests("kitchen");
    const pick = argumentsValidator(mobile.skills.find((s) => s.name === "pick_from")!.parameters);
    expect(pick.safeParse({ object: "apple", place: "table" }).success).toBe(true);
    expect(pick.safeParse({ object: "apple" }).success).toBe(false);
    expect(pick.safeParse({ object: "unicorn", place: "table" }).success).toBe(false);
  });

  it("ships every CLEA task family as valid scenarios", () => {
    const all = listScenarios().map(loadScenario);
    const families = new Set(all.map((s) => s.family));
    expect([...families].sort()).toEqual(["integration", "manipulation", "search"]);
    expect(all.some((s) => s.perturbations.length > 0)).toBe(true);
    expect(() => loadScenario("no_such_scenario")).toThrow(/known: /);
  });
});
