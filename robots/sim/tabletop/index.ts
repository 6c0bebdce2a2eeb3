/** The tabletop world (RePLan's scenes) as a served simulator. */
import { serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { TabletopWorld, type TabletopOptions } from "./world";
import { isSceneName, listScenes } from "./scenario";

export { TabletopWorld } from "./world";
export { colorName, type DetectionsMessage } from "./perception";
export { listScenes, describeScene, SCRIPTED_SOLUTIONS, CONTROLLER_MOTIONS, type MotionInput } from "./scenario";

export interface TabletopServeOptions extends Omit<TabletopOptions, "scene">, ServeOptions {
  scenario: string;
}

export async function serveTabletop(opts: TabletopServeOptions): Promise<ServedWorld & { world: TabletopWorld }> {
  if (!isSceneName(opts.scenario)) throw new Error(`unknown tabletop scenario ${opts.scenario}; known: ${listScenes().join(", ")}`);
  const world = await TabletopWorld.create({ ...opts, scene: opts.scenario });
  return { ...(await serveWorld(world, opts)), world };
}
