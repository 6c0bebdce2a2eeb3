/** The kitchen world as a served simulator; `/robograph/reset` starts a new episode in it without a new process. */
import { RebuiltWorld, serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { KitchenWorld, type KitchenOptions } from "./world";
import { loadScenario, parseScenario, type KitchenScenario } from "./scenario";
import { serveWorldOnRos, type RosRobot } from "../ros";

export { KitchenWorld } from "./world";
export { loadScenario, listScenarios, parseScenario, KitchenScenario } from "./scenario";

export interface KitchenServeOptions extends Omit<KitchenOptions, "scenario">, ServeOptions {
  scenario: string;
}

/** A reset's scenario: a bundled name, a scenario file, or the scenario itself (a dataset row's). */
function scenarioOf(given: unknown, current: KitchenScenario): KitchenScenario {
  if (given === undefined) return current;
  if (typeof given === "string") return loadScenario(given);
  return parseScenario(given);
}

export async function serveKitchen(opts: KitchenServeOptions): Promise<ServedWorld & { world: KitchenWorld }> {
  const world: RebuiltWorld<KitchenWorld> = new RebuiltWorld(
    await KitchenWorld.create({ ...opts, scenario: loadScenario(opts.scenario) }),
    async (args) => {
      const scenario = scenarioOf(args.scenario, world.current.scenario);
      const seed = args.seed === undefined ? (opts.seed ?? 0) : Number(args.seed);
      if (!Number.isInteger(seed) || seed < 0)
        throw new Error(`seed must be a non-negative integer, got ${JSON.stringify(args.seed)}`);
      return { world: await KitchenWorld.create({ ...opts, scenario, seed }), scenario: scenario.name, seed };
    },
  );
  const served = await serveWorld(world, opts);
  return {
    ...served,
    // The world of the episode now (a reset replaces it).
    get world() {
      return world.current;
    },
  };
}

/** The kitchen as a ROS 1 robot behind the reference rosbridge_server at `url` (see ../ros). */
export async function serveKitchenOnRos(
  url: string,
  opts: KitchenServeOptions & { plain?: boolean; standard?: boolean },
): Promise<RosRobot> {
  const world = await KitchenWorld.create({ ...opts, scenario: loadScenario(opts.scenario) });
  try {
    return await serveWorldOnRos(world, url, {
      evaluatorKey: opts.evaluatorKey,
      token: opts.token,
      log: opts.log,
      plain: opts.plain,
      standard: opts.standard,
    });
  } catch (err) {
    await world.close();
    throw err;
  }
}
