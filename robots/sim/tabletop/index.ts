/** The tabletop world (RePLan's scenes) as a served simulator; `/robograph/reset` changes scene and seed in place. */
import { RebuiltWorld, serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { TabletopWorld, type TabletopOptions } from "./world";
import { isTabletopScene, listScenes } from "./scenario";

export { TabletopWorld } from "./world";
export { colorName, type DetectionsMessage } from "../palm/perception";
export { listScenes, describeScene, SCRIPTED_SOLUTIONS, CONTROLLER_MOTIONS, type MotionInput } from "./scenario";

export interface TabletopServeOptions extends Omit<TabletopOptions, "scene">, ServeOptions {
  scenario: string;
}

export async function serveTabletop(opts: TabletopServeOptions): Promise<ServedWorld & { world: TabletopWorld }> {
  if (!isTabletopScene(opts.scenario))
    throw new Error(
      `unknown tabletop scenario ${opts.scenario}; known: ${listScenes().join(", ")}, or generated_<seed>`,
    );
  const world: RebuiltWorld<TabletopWorld> = new RebuiltWorld(
    await TabletopWorld.create({ ...opts, scene: opts.scenario }),
    async (args) => {
      const scene: string = args.scenario === undefined ? world.current.scene.name : String(args.scenario);
      if (!isTabletopScene(scene))
        throw new Error(`unknown tabletop scenario ${scene}; known: ${listScenes().join(", ")}, or generated_<seed>`);
      const seed = args.seed === undefined ? (opts.seed ?? 0) : Number(args.seed);
      if (!Number.isInteger(seed) || seed < 0)
        throw new Error(`seed must be a non-negative integer, got ${JSON.stringify(args.seed)}`);
      return { world: await TabletopWorld.create({ ...opts, scene, seed }), scenario: scene, seed };
    },
  );
  const served = await serveWorld(world, opts);
  return {
    ...served,
    get world() {
      return world.current;
    },
  };
}
