/** The kitchen world as a served simulator. */
import { serveWorld, type ServeOptions, type ServedWorld, type SimulatedWorld } from "../serve";
import { KitchenWorld, type KitchenOptions, type RobotId } from "./world";
import { loadScenario } from "./scenario";

export { KitchenWorld } from "./world";
export { loadScenario, listScenarios, KitchenScenario } from "./scenario";

export interface KitchenServeOptions extends Omit<KitchenOptions, "scenario">, ServeOptions {
  scenario: string;
}

export async function serveKitchen(opts: KitchenServeOptions): Promise<ServedWorld & { world: KitchenWorld }> {
  const world = await KitchenWorld.create({ ...opts, scenario: loadScenario(opts.scenario) });
  const served: SimulatedWorld = {
    name: world.name,
    manifests: world.manifests,
    description: world.description,
    events: world.events,
    runSkill: (robot, skill, args, ctx) => world.runSkill(robot as RobotId, skill, args as Record<string, string>, ctx),
    renderCamera: (robot) => world.renderCamera(robot as RobotId),
    evaluate: () => world.evaluate(),
    close: () => world.close(),
  };
  return { ...(await serveWorld(served, opts)), world };
}
