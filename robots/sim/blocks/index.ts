/**
 * The blocks world as a served simulator: the arm's `run_skills` action and camera (serve.ts), plus `/arm/episodes`
 * (recorded episodes by id, or those since the last reset) and `/robograph/reset` (a new layout; a running plan is
 * ended; the history is cleared).
 */
import { ServiceRefusal } from "../../bridge/server";
import {
  EPISODES_SERVICE,
  EPISODES_TYPE,
  EpisodesRequest,
  RESET_SERVICE,
  RESET_TYPE,
  explainGoalError,
} from "../../msgs/runSkills";
import { serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { BlocksWorld, type BlocksOptions } from "./world";

export { BlocksWorld, type BlocksOptions } from "./world";
export { layoutFor } from "./scene";

export interface BlocksServeOptions extends BlocksOptions, ServeOptions {}

export async function serveBlocks(opts: BlocksServeOptions): Promise<ServedWorld & { world: BlocksWorld }> {
  const world = await BlocksWorld.create(opts);
  const served = await serveWorld(world, opts);
  served.server.advertiseService(EPISODES_SERVICE, EPISODES_TYPE, (args) => {
    const parsed = EpisodesRequest.safeParse(args ?? {});
    if (!parsed.success) throw new ServiceRefusal(`invalid episodes request: ${explainGoalError(parsed.error)}`);
    const { ids, since, limit } = parsed.data;
    try {
      const episodes = ids ? ids.map((id) => world.store.get(id)) : world.store.since(since ?? 0, limit);
      return { episodes, total: world.store.length };
    } catch (err) {
      throw new ServiceRefusal((err as Error).message);
    }
  });
  served.server.advertiseService(RESET_SERVICE, RESET_TYPE, async (args) => {
    let out;
    try {
      out = await world.reset(args ?? {});
    } catch (err) {
      throw new ServiceRefusal((err as Error).message);
    }
    await served.publishCameras();
    return { ...out, success: true };
  });
  return { ...served, world };
}
