/** One workbench world per test file (started once, reset before each program) and a program run on it. */
import { afterAll, beforeAll } from "vitest";
import { WorkbenchWorld } from "../../robots/sim/workbench";
import type { WorkbenchSceneName } from "../../robots/sim/workbench/scenes";
import type { PrimitiveProgramInput } from "../../robots/msgs/primitives";

/**
 * Registers the world's start and close with the file's hooks and returns `run`: a program on `scene` at `layout` from
 * a fresh reset — whether it reached the goal, its rollout, what ended displaced (the simulator's truth) and the
 * scene's focus.
 */
export function workbenchPrograms() {
  let world: WorkbenchWorld;
  beforeAll(async () => {
    world = await WorkbenchWorld.create({ scene: "apple_plate", seed: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });
  return async (scene: WorkbenchSceneName, layout: number, make: (w: WorkbenchWorld) => PrimitiveProgramInput) => {
    world.reset({ scenario: scene, seed: layout });
    const result = await world.runProgram(make(world));
    return {
      ok: result.status === "succeeded" && world.evaluate().success,
      rollout: result.recorded!.rollout,
      displaced: world.displacements(),
      focus: world.scene.focus,
    };
  };
}
