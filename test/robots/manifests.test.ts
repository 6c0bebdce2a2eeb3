import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { MotionProgram, RewardTerm } from "../../robots/msgs/motion";
import {
  bundledManifests,
  loadManifestFile,
  parseLiteral,
  RobotManifest,
  SENSES_GRASP,
  worldFacts,
  argumentsValidator,
} from "../../robots/manifests";
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
    const bad = structuredClone(mobile) as { skills: { preconditions: string[]; action: string }[] };
    bad.skills[0].preconditions = ["at(self"];
    bad.skills[1].action = "no-slash";
    const parsed = RobotManifest.safeParse(bad);
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.map((i) => i.path.join("."));
    expect(paths).toContain("skills.0.preconditions.0");
    expect(paths).toContain("skills.1.action");
  });

  it("refuses a key the schema does not know, naming the robot and skill and the key it likely meant, instead of dropping it for its default", () => {
    const dir = mkdtempSync(join(tmpdir(), "manifest-"));
    try {
      const [mobile, arm] = bundledManifests("kitchen");
      const robots = structuredClone([mobile, arm]) as unknown as Record<string, unknown>[];
      const skills = robots[1].skills as Record<string, unknown>[];
      skills[0].timeoutSecs = skills[0].timeoutSec;
      delete skills[0].timeoutSec;
      robots[0].livenesSec = 3;
      const file = join(dir, "robot.json");
      writeFileSync(file, JSON.stringify({ robots }));
      const error = (() => {
        try {
          loadManifestFile(file);
          return "";
        } catch (err) {
          return (err as Error).message;
        }
      })();
      expect(error).toContain(
        `robot "arm", skill "${String(skills[0].name)}": unknown key "timeoutSecs" (did you mean "timeoutSec"?)`,
      );
      expect(error).toContain(`robot "mobile": unknown key "livenesSec" (did you mean "livenessSec"?)`);
      // The same file with the keys spelled right loads.
      skills[0].timeoutSec = skills[0].timeoutSecs;
      delete skills[0].timeoutSecs;
      delete robots[0].livenesSec;
      writeFileSync(file, JSON.stringify({ robots }));
      expect(loadManifestFile(file).robots.map((r) => r.id)).toEqual(["mobile", "arm"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("declares reach facts that agree with the kitchen's geometry", () => {
    const [mobile, arm] = bundledManifests("kitchen");
    const reach = PLACES.filter(
      (p) => Math.hypot(p.center[0] - ARM_BASE[0], p.center[1] - ARM_BASE[1]) <= ARM_REACH,
    ).map((p) => `reaches(self, ${p.name})`);
    // Both grippers sense a grasp (the simulator's --grasp-sensing off serves manifests without the fact).
    expect(arm.facts.sort()).toEqual([...reach, SENSES_GRASP].sort());
    expect(mobile.facts.sort()).toEqual(
      [...NAVIGATION_POINTS.map((n) => `serves(${n.name}, ${n.serves})`), SENSES_GRASP].sort(),
    );
    expect(
      worldFacts({
        name: "k",
        places: [{ name: "oven", kind: "container", openable: true, capacity: 1 }],
        navigationPoints: ["n"],
        labels: [],
      }),
    ).toEqual(["container(oven)", "openable(oven)", "navigation_point(n)"]);
  });

  it("builds argument validators from the skills' JSON schemas", () => {
    const [mobile] = bundledManifests("kitchen");
    const pick = argumentsValidator(mobile.skills.find((s) => s.name === "pick_from")!.parameters);
    expect(pick.safeParse({ object: "apple", place: "table" }).success).toBe(true);
    expect(pick.safeParse({ object: "apple" }).success).toBe(false);
    expect(pick.safeParse({ object: "unicorn", place: "table" }).success).toBe(false);
  });

  it("describes execute_motion's reward terms with the same schema the controller validates against", () => {
    const [palm] = bundledManifests("tabletop");
    const motion = palm.skills.find((s) => s.name === "execute_motion")!;
    const { $schema: _ignored, ...items } = z.toJSONSchema(RewardTerm, { io: "input" }) as Record<string, unknown>;
    // The manifest is generated from robots/msgs/motion.ts; a change there must be carried into the JSON file.
    expect(motion.parameters.properties.terms.items).toEqual(items);
    const validator = argumentsValidator(motion.parameters);
    const ok = {
      terms: [
        { kind: "minimize_l2_distance", a: "palm", b: "kettle" },
        { kind: "maximize_l2_distance", a: "kettle", b: "microwave_handle", distance: 0.4, primary: true },
      ],
      duration: 4,
    };
    expect(validator.safeParse(ok).success).toBe(true);
    expect(MotionProgram.safeParse(ok).success).toBe(true);
    expect(
      validator.safeParse({ terms: [{ kind: "set_joint_fraction", joint: "lever", fraction: 1.5 }] }).success,
    ).toBe(false);
    expect(validator.safeParse({ terms: [] }).success).toBe(false);
    expect(validator.safeParse({ terms: [{ kind: "run_python", code: "import os" }] }).success).toBe(false);
    // Exactly one primary term: the controller's own check, beyond what JSON schema can say.
    expect(
      MotionProgram.safeParse({ terms: [{ kind: "minimize_l2_distance", a: "palm", b: "kettle" }] }).error?.issues[0]
        .message,
    ).toBe("exactly one term must be primary");
  });

  it("ships every CLEA task family as valid scenarios", () => {
    const all = listScenarios().map(loadScenario);
    const families = new Set(all.map((s) => s.family));
    expect([...families].sort()).toEqual(["integration", "manipulation", "search"]);
    expect(all.some((s) => s.perturbations.length > 0)).toBe(true);
    expect(() => loadScenario("no_such_scenario")).toThrow(/known: /);
  });
});
