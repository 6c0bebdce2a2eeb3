/**
 * The solvability check of generated tabletop scenes: the generator's solution run through the world's own MPC (MuJoCo
 * physics, so an integration test; the scenes' unit checks are tabletopGenerate.test.ts), which says why when a scene
 * cannot be done.
 */
import { describe, expect, it } from "vitest";
import { generateTabletop } from "../../../robots/sim/tabletop/generate";
import { solveTabletop } from "../../../robots/sim/tabletop/solve";

const scenes = Array.from({ length: 200 }, (_, i) => generateTabletop(i));

describe("generated tabletop scenes", () => {
  it("the solvability check runs the generator's solution through the MPC, and says why a scene cannot be done", async () => {
    // A scene with three obstacles composed: its solution clears each, then the world's own check confirms the goal.
    const three = scenes.find((s) => s.obstacles.length === 3 && s.kind === "place_inside")!;
    const ok = await solveTabletop(three);
    expect(ok, three.summary).toMatchObject({ solvable: true, motions: three.solution.length });
    // Without the motions that clear the obstacles, the door stays shut: the check fails and says where.
    const skipped = await solveTabletop({ ...three, solution: three.solution.slice(-2) });
    expect(skipped.solvable).toBe(false);
    expect(skipped.why).toMatch(/motion 1 of 2 failed: .*not met/);
  }, 120_000);
});
