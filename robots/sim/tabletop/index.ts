/** The tabletop world (RePLan's scenes) as a served simulator. */
import { serveWorld, type ServeOptions, type ServedWorld, type SimulatedWorld } from "../serve";
import { TabletopWorld, type TabletopOptions } from "./world";
import { isSceneName, listScenes } from "./scenario";

export { TabletopWorld, colorName, type DetectionsMessage } from "./world";
export { listScenes, describeScene, SCRIPTED_SOLUTIONS, CONTROLLER_MOTIONS, type MotionInput } from "./scenario";

export interface TabletopServeOptions extends Omit<TabletopOptions, "scene">, ServeOptions {
  scenario: string;
}

export async function serveTabletop(opts: TabletopServeOptions): Promise<ServedWorld & { world: TabletopWorld }> {
  if (!isSceneName(opts.scenario)) throw new Error(`unknown tabletop scenario ${opts.scenario}; known: ${listScenes().join(", ")}`);
  const world = await TabletopWorld.create({ ...opts, scene: opts.scenario });
  const served: SimulatedWorld = {
    name: world.name,
    manifests: world.manifests,
    description: world.description,
    events: world.events,
    runSkill: (robot, skill, args, ctx) => world.runSkill(robot, skill, args, ctx),
    renderCamera: (robot) => world.renderCamera(robot),
    evaluate: () => world.evaluate(),
    close: () => world.close(),
  };
  return { ...(await serveWorld(served, opts)), world };
}
