/**
 * Generated tabletop scenes: a pure function of their seed, laid out inside the palm's workspace with nothing loose in a
 * door's sweep, one to three obstacles composed, worded so the offline reader reaches exactly the goal the simulator
 * checks. The solvability check (the generator's solution run through the world's own MPC, under MuJoCo) is an
 * integration test: tabletopSolve.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { WorldDescription } from "../../../robots/manifests/schema";
import { generatedSeed } from "../../../robots/sim/generated";
import { generateTabletop, GOAL_KINDS } from "../../../robots/sim/tabletop/generate";
import { describeScene, sceneOf } from "../../../robots/sim/tabletop/scenario";
import { goalLiterals, readTabletopGoal } from "../../../graphs/replan/reasoner";
import { GENERATED_TABLETOPS } from "../../../evals/datasets/generated";
import { TabletopExample } from "../../../evals/datasets";

const scenes = Array.from({ length: 200 }, (_, i) => generateTabletop(i));

describe("generated tabletop scenes", () => {
  it("are a pure function of their seed and vary over goal kinds and composed obstacles", () => {
    expect(JSON.stringify(generateTabletop(5))).toBe(JSON.stringify(generateTabletop(5)));
    expect(JSON.stringify(generateTabletop(5))).not.toBe(JSON.stringify(generateTabletop(6)));
    expect(generatedSeed(generateTabletop(17).spec.name)).toBe(17);
    expect(sceneOf("generated_17")).toEqual(generateTabletop(17).spec);
    expect(new Set(scenes.map((s) => s.kind))).toEqual(new Set(GOAL_KINDS));
    for (const s of scenes) {
      expect(s.obstacles.length, s.summary).toBeGreaterThanOrEqual(1);
      expect(s.obstacles.length, s.summary).toBeLessThanOrEqual(3);
    }
    const has = (...o: string[]) => scenes.some((s) => o.every((x) => s.obstacles.includes(x as never)));
    // The compositions the hand-made eight never show.
    expect(has("bar across the handles", "lever lock")).toBe(true);
    expect(has("kettle in the door's swing", "bar across the handles")).toBe(true);
    expect(has("kettle in the door's swing", "weight-sensor lock")).toBe(true);
    expect(has("colour to read", "cube already on the crate")).toBe(true);
    expect(has("closed door", "another cabinet to search first")).toBe(true);
    expect(new Set(scenes.map((s) => s.obstacles.length))).toEqual(new Set([1, 2, 3]));
    // Decoys: a lever or a plate that locks nothing, beside a cabinet; listed as any mechanism is, never an obstacle.
    for (const d of ["lever", "weight plate"] as const)
      expect(
        scenes.some((s) => s.decoys.includes(d)),
        d,
      ).toBe(true);
    for (const s of scenes.filter((x) => x.decoys.length)) {
      expect(s.spec.locks.length, s.summary).toBe(
        s.obstacles.filter((o) => o === "lever lock" || o === "weight-sensor lock").length,
      );
      expect(
        s.solution.some((m) => m.terms.some((t) => t.kind === "set_joint_fraction" && t.joint === "lever")),
        s.summary,
      ).toBe(s.obstacles.includes("lever lock"));
    }
  });

  it("keep every free thing inside the workspace and out of every door's sweep", () => {
    for (const g of scenes) {
      const frees = [...g.spec.xml.matchAll(/<body name="([a-z_]+)" pos="([-\d. ]+)"><freejoint/g)].map((match) => ({
        name: match[1],
        at: match[2].split(" ").map(Number),
      }));
      expect(frees.map((f) => f.name).sort(), g.spec.name).toEqual([...g.spec.objects].sort());
      for (const f of frees) {
        expect(Math.abs(f.at[0]), `${g.spec.name} ${f.name}`).toBeLessThan(0.55);
        expect(Math.abs(f.at[1]), `${g.spec.name} ${f.name}`).toBeLessThan(0.55);
      }
      // A cube on the floor stands clear of each door's quarter disc (a door opening must not sweep it).
      for (const c of g.spec.containers) {
        const x0 = c.min[0] - 0.015,
          x1 = c.max[0] + 0.015,
          doorWidth = (x1 - x0) / c.doors.length;
        for (const d of c.doors) {
          const hx = d.side === "left" ? x0 : x1,
            sign = d.side === "left" ? 1 : -1,
            hy = c.min[1] - 0.012;
          for (const f of frees.filter((x) => /_cube$/.test(x.name) && x.at[2] < 0.03)) {
            const swept =
              f.at[1] < hy &&
              (f.at[0] - hx) * sign > -0.03 &&
              Math.hypot(f.at[0] - hx, f.at[1] - hy) < doorWidth + 0.05;
            expect(swept, `${g.spec.name} ${f.name} in the sweep of ${d.joint}`).toBe(false);
          }
        }
      }
    }
  });

  it("are worded so the offline reader reaches exactly the goal the simulator checks", () => {
    for (const g of scenes) {
      const world = WorldDescription.parse(describeScene(g.spec));
      const reading = readTabletopGoal(g.spec.instruction, world);
      expect(reading.message, g.spec.instruction).toBeUndefined();
      if (g.kind === "match_colour") {
        expect(reading.goal, g.spec.instruction).toEqual({ kind: "match_colour", place: "crate" });
        continue;
      }
      expect(goalLiterals(reading.goal!, world), g.spec.instruction).toEqual(g.spec.goal);
    }
  });

  it("become dataset rows: the scene by name, its goal, its kind as the family and its range as the condition", () => {
    const row = TabletopExample.parse(GENERATED_TABLETOPS.row(7));
    expect(row.inputs).toMatchObject({
      world: "tabletop",
      task: "generated_7",
      scenario: "generated_7",
      goal: generateTabletop(7).spec.instruction,
    });
    expect(row.metadata).toMatchObject({ family: generateTabletop(7).kind, condition: "tuning" });
    expect(TabletopExample.parse(GENERATED_TABLETOPS.row(3001)).metadata.condition).toBe("scored");
  });
});
