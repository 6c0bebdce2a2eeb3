/**
 * Whether a generated tabletop scene can be done: the generator's solution — motions written from the true layout
 * that clear each obstacle it placed, then reach the goal — run one by one through the world's own MPC, then the
 * world's own goal check. It knows everything an agent has to find out, so it is for building datasets and for tests
 * only; nothing of it is ever served to an agent. A scene the controller cannot do says nothing about a method.
 */
import type { ActionContext } from "../../bridge/server";
import type { GeneratedTabletop } from "./generate";
import { TabletopWorld } from "./world";

export interface TabletopSolution {
  solvable: boolean;
  /** How many of the solution's motions succeeded. */
  motions: number;
  why?: string;
}

const ctx = (): ActionContext =>
  ({ goalId: "solve", signal: new AbortController().signal, feedback: () => {} }) as unknown as ActionContext;

export async function solveTabletop(generated: GeneratedTabletop): Promise<TabletopSolution> {
  const world = await TabletopWorld.create({ scene: generated.spec.name, seed: 1 });
  try {
    if (world.evaluate().success) return { solvable: false, motions: 0, why: "the goal holds before anything is done" };
    for (const [i, m] of generated.solution.entries()) {
      const outcome = await world.runSkill("palm", "execute_motion", m as unknown as Record<string, unknown>, ctx());
      if (outcome.status !== "succeeded")
        return {
          solvable: false,
          motions: i,
          why: `motion ${i + 1} of ${generated.solution.length} failed: ${String((outcome.values as { message?: unknown }).message ?? outcome.status)}`,
        };
      if (world.hasNaN()) return { solvable: false, motions: i + 1, why: "the physics diverged" };
    }
    const ev = world.evaluate();
    if (!ev.success)
      return {
        solvable: false,
        motions: generated.solution.length,
        why: `the goal does not hold after the solution: ${ev.goal
          .filter((x) => !x.holds)
          .map((x) => x.literal)
          .join(", ")}`,
      };
    return { solvable: true, motions: generated.solution.length };
  } finally {
    await world.close();
  }
}
