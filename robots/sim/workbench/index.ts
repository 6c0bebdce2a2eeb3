/**
 * The workbench world as a served simulator: the palm's `run_primitives` skill and camera (serve.ts), plus
 * `/palm/last_rollout` (the recorder's last rollout, key frames as base64 PNG) and `/robograph/reset`.
 */
import { ServiceRefusal } from "../../bridge/server";
import { LAST_ROLLOUT_SERVICE, LAST_ROLLOUT_TYPE, RESET_SERVICE, RESET_TYPE, type Rollout } from "../../msgs/rollout";
import { serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { isWorkbenchScene, WORKBENCH_SCENES } from "./scenes";
import { WorkbenchWorld, type WorkbenchOptions } from "./world";
import type { RecordedRollout } from "./recorder";

export { WorkbenchWorld, ResetArgs, type WorkbenchOptions, type ProgramResult } from "./world";
export {
  WORKBENCH_SCENES,
  buildWorkbenchScene,
  isWorkbenchScene,
  sceneInstruction,
  OBJECT_PROPS,
  type WorkbenchSceneName,
  type WorkbenchScene,
} from "./scenes";
export { selectKeyFrames, MAX_KEY_FRAMES, FRAME_PERIOD, type RecordedRollout } from "./recorder";
export { LIMITS } from "./monitor";

export function listWorkbenchScenes(): string[] {
  return [...WORKBENCH_SCENES];
}

/** The rollout as the wire carries it: each key frame's image is its PNG in base64. */
export function rolloutMessage(recorded: RecordedRollout): Rollout {
  return {
    ...recorded.rollout,
    frames: recorded.rollout.frames.map((f, k) => ({ ...f, image: recorded.images[k].toString("base64") })),
  };
}

export interface WorkbenchServeOptions extends Omit<WorkbenchOptions, "scene">, ServeOptions {
  scenario: string;
}

export async function serveWorkbench(opts: WorkbenchServeOptions): Promise<ServedWorld & { world: WorkbenchWorld }> {
  if (!isWorkbenchScene(opts.scenario))
    throw new Error(`unknown workbench scenario ${opts.scenario}; known: ${WORKBENCH_SCENES.join(", ")}`);
  const world = await WorkbenchWorld.create({ ...opts, scene: opts.scenario });
  const served = await serveWorld(world, opts);
  served.server.advertiseService(LAST_ROLLOUT_SERVICE, LAST_ROLLOUT_TYPE, () => {
    const last = world.lastRollout();
    if (!last)
      throw new ServiceRefusal("no program has run since the world was (re)set; run /palm/run_primitives first");
    return rolloutMessage(last);
  });
  served.server.advertiseService(RESET_SERVICE, RESET_TYPE, async (args) => {
    let out;
    try {
      out = world.reset((args ?? {}) as { scenario?: string; seed?: number });
    } catch (err) {
      throw new ServiceRefusal((err as Error).message);
    }
    // Subscribers see the new scene before the reset answers.
    await served.publishCameras();
    return { ...out, success: true };
  });
  return { ...served, world };
}
