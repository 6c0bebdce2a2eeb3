/** The kitchen world as a served simulator. */
import { serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { KitchenWorld, type KitchenOptions, type RobotId } from "./world";
import { loadScenario } from "./scenario";

export { KitchenWorld } from "./world";
export { loadScenario, listScenarios, KitchenScenario } from "./scenario";

export interface KitchenServeOptions extends Omit<KitchenOptions, "scenario">, ServeOptions {
  scenario: string;
}

export async function serveKitchen(opts: KitchenServeOptions): Promise<ServedWorld & { world: KitchenWorld }> {
  const world = await KitchenWorld.create({ ...opts, scenario: loadScenario(opts.scenario) });
  return { ...(await serveWorld(world, opts)), world };
}
