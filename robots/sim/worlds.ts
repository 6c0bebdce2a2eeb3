/**
 * The simulated worlds, in one table: `serve-sim` serves them from it, `robograph run` and `robograph mcp` start and
 * name them from it, and the experiment runner reads from it which ones a single process can serve episode after
 * episode. A new world is its folder and a line here.
 */
import { loadScenario, listScenarios, serveKitchen, serveKitchenOnRos } from "./kitchen";
import { isTabletopScene, listScenes, sceneOf } from "./tabletop/scenario";
import { serveTabletop } from "./tabletop";
import { COURSE_GOAL, listCourses } from "./course/scenarios";
import { generatedSeed } from "./course/generate";
import { serveCourse } from "./course";
import { isWorkbenchScene, listWorkbenchScenes, sceneInstruction, serveWorkbench } from "./workbench";
import { serveBlocks } from "./blocks";
import { STARTS, type Start } from "./blocks/scene";
import type { ServedWorld, ServeOptions } from "./serve";
import type { RosRobot } from "./ros";
import type { DetectorNoise } from "./detector";

/** What `serve-sim` gives every world: the bridge's options, the seed, the detector's noise, speed and camera size. */
export interface CommonServeOptions extends ServeOptions {
  seed: number;
  noise: Partial<DetectorNoise>;
  speed: number;
  width: number;
  height: number;
}

/** What a world takes beyond the common options (each world reads its own). */
export interface WorldOptions {
  scenario?: string;
  graspSensing?: boolean;
  /** blocks: where episodes are recorded, this instance's name, how each layout starts; whether --speed was given. */
  episodes?: string;
  instance?: string;
  start?: string;
  speedGiven?: boolean;
  /** As a ROS 1 robot: without our manifest, or speaking only ROS's own messages. */
  plain?: boolean;
  standard?: boolean;
}

export interface World {
  name: string;
  /** The scenario a world starts in when none is named; undefined for a world whose runs make their own (blocks). */
  defaultScenario?: string;
  /** Its bundled scenarios (generated ones are named by their seed, e.g. generated_12). */
  scenarios(): string[];
  /** A scenario's name and its task in words; throws naming the world's scenarios. */
  scenario(name: string): { name: string; instruction: string };
  /** One process serves episode after episode: its bridge's reset builds the next in place (serve.ts, RebuiltWorld). */
  resets: boolean;
  /** How its layouts may start (`--start`), the first the default; undefined: one way. */
  starts?: readonly string[];
  /** Its camera's size unless told otherwise. */
  size: { width: number; height: number };
  /** Its own simulator options, as a run passes them on (`robograph run`, the experiment runner). */
  options(o: { graspSensing?: boolean }): string[];
  serve(common: CommonServeOptions, o: WorldOptions): Promise<ServedWorld>;
  /** As a ROS 1 robot behind the reference rosbridge_server (the worlds whose skills have ROS message types). */
  ros?(url: string, common: CommonServeOptions, o: WorldOptions): Promise<RosRobot>;
}

export const WORLDS: readonly World[] = [
  {
    name: "kitchen",
    defaultScenario: "integration_tea_to_trash",
    scenarios: listScenarios,
    scenario: (name) => loadScenario(name),
    resets: true,
    size: { width: 320, height: 240 },
    options: (o) => ["--grasp-sensing", o.graspSensing === false ? "off" : "on"],
    serve: (common, opts) =>
      serveKitchen({
        ...common,
        scenario: opts.scenario ?? "integration_tea_to_trash",
        graspSensing: opts.graspSensing ?? true,
      }),
    ros: (url, common, opts) =>
      serveKitchenOnRos(url, {
        ...common,
        scenario: opts.scenario ?? "integration_tea_to_trash",
        graspSensing: opts.graspSensing ?? true,
        plain: opts.plain || opts.standard,
        standard: opts.standard,
      }),
  },
  {
    name: "tabletop",
    defaultScenario: "cabinet_barred",
    scenarios: listScenes,
    scenario: (name) => {
      if (!isTabletopScene(name))
        throw new Error(`no tabletop scene ${name}; one of ${listScenes().join(", ")}, or generated_<seed>`);
      return { name, instruction: sceneOf(name).instruction };
    },
    resets: true,
    size: { width: 320, height: 240 },
    options: () => [],
    serve: (common, o) => serveTabletop({ ...common, scenario: o.scenario ?? "cabinet_barred" }),
  },
  {
    name: "course",
    defaultScenario: "indoor_1",
    scenarios: listCourses,
    scenario: (name) => {
      if (!listCourses().includes(name) && generatedSeed(name) === undefined)
        throw new Error(`no course ${name}; one of ${listCourses().join(", ")}, or generated_<seed>`);
      return { name, instruction: COURSE_GOAL };
    },
    resets: true,
    // The legged robot's narrow head camera is cheaper at 160x120 (a RealSense-like view).
    size: { width: 160, height: 120 },
    options: () => [],
    serve: (common, o) => serveCourse({ ...common, scenario: o.scenario ?? "indoor_1" }),
  },
  {
    name: "workbench",
    defaultScenario: "apple_plate",
    scenarios: listWorkbenchScenes,
    scenario: (name) => {
      if (!isWorkbenchScene(name))
        throw new Error(`no workbench scene ${name}; one of ${listWorkbenchScenes().join(", ")}`);
      return { name, instruction: sceneInstruction(name) };
    },
    resets: false,
    size: { width: 320, height: 240 },
    options: () => [],
    serve: (common, o) => serveWorkbench({ ...common, scenario: o.scenario ?? "apple_plate" }),
  },
  {
    name: "blocks",
    scenarios: () => [],
    scenario: (name) => {
      throw new Error(`the blocks world has no scenarios (${name}): a curriculum proposes its own tasks`);
    },
    resets: false,
    starts: STARTS,
    size: { width: 320, height: 240 },
    options: () => [],
    serve: (common, opts) => {
      if (opts.start !== undefined && !(STARTS as readonly string[]).includes(opts.start))
        throw new Error(`--start must be one of ${STARTS.join(", ")}, not ${JSON.stringify(opts.start)}`);
      // Learning wants episodes as fast as they run unless a speed is asked for.
      return serveBlocks({
        ...common,
        speed: opts.speedGiven ? common.speed : Infinity,
        episodesDir: opts.episodes,
        instance: opts.instance,
        start: opts.start as Start | undefined,
      });
    },
  },
];

/** A world by name; the error lists them. */
export function world(name: string): World {
  const found = WORLDS.find((x) => x.name === name);
  if (!found) throw new Error(`unknown world ${name}; available: ${WORLDS.map((x) => x.name).join(", ")}`);
  return found;
}
