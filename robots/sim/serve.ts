/**
 * Serves a simulated world over the bridge exactly as a robot would be served: its manifests at
 * `/robograph/manifest`, each skill as the action `/<robot>/<skill>`, each camera as CompressedImage topics plus a
 * detections topic. The evaluator services (`/evaluator/check`, `/evaluator/events`) expose the true state and the
 * event log for scoring; agents must never call them, and with an evaluator key they cannot. They answer clients on
 * this machine only, unless a remote call carries the evaluator key. A world that runs on a clock can be paused and
 * unpaused (`/simulator/pause_physics`, `/simulator/unpause_physics`, as Gazebo's): goals stay accepted and wait.
 */
import type { z } from "zod";
import {
  BridgeServer,
  ServiceRefusal,
  type ActionContext,
  type ActionOutcome,
  type BridgeServerOptions,
  type Caller,
} from "../bridge/server";
import {
  argumentsValidator,
  MANIFEST_SERVICE,
  parseLiteral,
  type ManifestResponse,
  type RobotManifest,
  type WorldDescription,
} from "../manifests/schema";
import type { Frame } from "./camera";
import type { SimEvent } from "./events";
import type { SimClock } from "./clock";
import { RESET_SERVICE, RESET_TYPE } from "../msgs/rollout";

export interface CameraMessages {
  camera: string;
  image: Buffer;
  depth: Buffer;
  detections: { header: { stamp: { sec: number; nanosec: number }; frame_id: string } };
  /** The rendered pixels, for a world that publishes raw frames (standard messages). */
  frame?: Frame;
}

/**
 * A skill that takes a named pose (the kitchen base's go_to a navigation point): a world that speaks standard
 * messages serves it as move_base, a pose goal, and maps the pose back to the name it stands for.
 */
export interface NamedPoseSkill {
  robot: string;
  skill: string;
  /** The skill's argument that names the pose. */
  argument: string;
  /** The fixed frame the poses are in. */
  frame: string;
  /** Where each name is: position (m) and heading (rad from +x). */
  poses: Record<string, { x: number; y: number; yaw: number }>;
  /** Where the robot's base is now (move_base's feedback). */
  basePose(): { x: number; y: number; yaw: number };
}

/** What a world offers to be served. */
export interface SimulatedWorld {
  readonly name: string;
  readonly manifests: RobotManifest[];
  readonly description: WorldDescription;
  readonly events: { since(index?: number): SimEvent[]; length: number };
  runSkill(robot: string, skill: string, args: Record<string, unknown>, ctx: ActionContext): Promise<ActionOutcome>;
  renderCamera(robot: string): Promise<CameraMessages>;
  /** The true state for a scorer, and whether the goal holds: the scenario's, or the literals given. */
  evaluate(goal?: readonly string[]): unknown;
  close(): void | Promise<void>;
  /**
   * The validator the bridge applies to a skill's goal arguments (default: one built from the manifest's JSON schema).
   * A world whose own parser words refusals better (naming the field inside a union) returns a looser one here.
   */
  argumentsSchema?(robot: string, skill: string): z.ZodType<Record<string, unknown>> | undefined;
  /** Skills that take a named pose (see NamedPoseSkill). */
  namedPoseSkills?(): NamedPoseSkill[];
  /** Simulated time, which can be held (a world without one runs each skill at once, and cannot be paused). */
  readonly clock?: PausableClock;
}

export type PausableClock = Pick<SimClock, "pause" | "unpause" | "paused">;

/** Held simulated time: as Gazebo's pause_physics and unpause_physics (std_srvs/Empty). */
export const PAUSE_SERVICE = "/simulator/pause_physics";
export const UNPAUSE_SERVICE = "/simulator/unpause_physics";

/**
 * The goal an evaluator call asks about (`{ goal: ["in(apple, sink)", …] }`), checked against the world's names: a run
 * given a goal other than its scenario's is scored on its own goal, never on the scenario's. None given: the
 * scenario's goal.
 */
export function goalToCheck(
  args: unknown,
  world: Pick<SimulatedWorld, "description" | "manifests">,
): string[] | undefined {
  const goal = (args as { goal?: unknown } | null | undefined)?.goal;
  if (goal === undefined) return undefined;
  if (!Array.isArray(goal) || !goal.length || goal.some((g) => typeof g !== "string"))
    throw new Error('goal: a non-empty list of literals such as "in(apple, sink)"');
  const names = new Set([
    ...world.description.labels,
    ...world.description.places.map((p) => p.name),
    ...world.manifests.map((m) => m.id),
  ]);
  for (const g of goal as string[]) {
    const unknown = parseLiteral(g).args.filter((a) => !names.has(a));
    if (unknown.length)
      throw new Error(
        `goal literal ${JSON.stringify(g)} names what the ${world.description.name} world does not have: ${unknown.join(", ")}`,
      );
  }
  return goal as string[];
}

/**
 * A world that a new episode can start in without a new process: `restart` builds it afresh in this process, in the
 * scenario and with the seed the reset service was given, exactly as a new simulator process would start it.
 */
export interface RestartableWorld extends SimulatedWorld {
  restart(args: Record<string, unknown>): Promise<{ scenario: string; seed: number }>;
}

/**
 * Serves a world that is rebuilt for each episode: every call goes to the world of the current episode; `restart`
 * builds the next one (new MuJoCo model and data, new event log, detector reseeded, clock at zero) and disposes of the
 * old. Its robots must stay the same, since the bridge's topics and actions are advertised once.
 */
export class RebuiltWorld<W extends SimulatedWorld> implements RestartableWorld {
  constructor(
    public current: W,
    private readonly build: (args: Record<string, unknown>) => Promise<{ world: W; scenario: string; seed: number }>,
  ) {}
  get name() {
    return this.current.name;
  }
  get manifests() {
    return this.current.manifests;
  }
  get description() {
    return this.current.description;
  }
  get events() {
    return this.current.events;
  }
  get clock() {
    return this.current.clock;
  }
  runSkill(robot: string, skill: string, args: Record<string, unknown>, ctx: ActionContext) {
    return this.current.runSkill(robot, skill, args, ctx);
  }
  renderCamera(robot: string) {
    return this.current.renderCamera(robot);
  }
  evaluate(goal?: readonly string[]) {
    return this.current.evaluate(goal);
  }
  argumentsSchema(robot: string, skill: string) {
    return this.current.argumentsSchema?.(robot, skill);
  }
  async restart(args: Record<string, unknown>) {
    const next = await this.build(args);
    const ids = (simWorld: SimulatedWorld) =>
      JSON.stringify(simWorld.manifests.map((m) => [m.id, m.skills.map((k) => k.action), m.cameras]));
    if (ids(next.world) !== ids(this.current)) {
      await next.world.close();
      throw new Error(
        "a restart may change the scenario, not the robots (their topics and actions are already served)",
      );
    }
    const old = this.current;
    // As in Gazebo, a paused world stays paused across a reset.
    if (old.clock?.paused) next.world.clock?.pause();
    this.current = next.world;
    await old.close();
    return { scenario: next.scenario, seed: next.seed };
  }
  close() {
    return this.current.close();
  }
}

const restartable = (simWorld: SimulatedWorld): simWorld is RestartableWorld =>
  typeof (simWorld as Partial<RestartableWorld>).restart === "function";

export interface ServeOptions extends BridgeServerOptions {
  /** When set, the evaluator services answer only calls whose args carry `key`. */
  evaluatorKey?: string;
}

export const PING_ACTION = "/robograph/ping";
export const PING_TYPE = "robograph_msgs/action/Ping";

export interface ServedWorld {
  server: BridgeServer;
  /** Renders and publishes the cameras that anyone is subscribed to; resolves when they are on the wire. */
  publishCameras(robots?: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function serveWorld(world: SimulatedWorld, opts: ServeOptions = {}): Promise<ServedWorld> {
  // rosapi lists one ROS node per robot, as a ROS 2 deployment would have.
  const server = new BridgeServer({ ...opts, nodes: opts.nodes ?? world.manifests.map((m) => `/${m.id}`) });
  // Read at each call: a world that can be reset to another scene describes the scene it has now.
  server.advertiseService(MANIFEST_SERVICE, "robograph_msgs/srv/Manifest", (): ManifestResponse => ({
    robots: world.manifests,
    world: world.description,
  }));

  const evaluatorGuard = (args: unknown, caller: Caller) => {
    const keyed = !!opts.evaluatorKey && (args as { key?: unknown })?.key === opts.evaluatorKey;
    if (opts.evaluatorKey && !keyed) {
      throw new ServiceRefusal(
        "the evaluator services are for scoring only; this call did not carry the evaluator key",
      );
    }
    // The true state is for a scorer on this machine: a client elsewhere (an agent on a robot's network) gets none.
    if (!caller.loopback && !keyed) {
      throw new ServiceRefusal(
        "the evaluator services answer clients on this machine only (start the simulator with --evaluator-key to let a remote scorer call them with the key)",
      );
    }
  };
  server.advertiseService("/evaluator/check", "robograph_msgs/srv/EvaluatorCheck", (args, caller) => {
    evaluatorGuard(args, caller);
    return world.evaluate(goalToCheck(args, world));
  });
  server.advertiseService("/evaluator/events", "robograph_msgs/srv/EvaluatorEvents", (args, caller) => {
    evaluatorGuard(args, caller);
    const since = Number((args as { since?: unknown })?.since ?? 0);
    return { events: world.events.since(Number.isFinite(since) && since > 0 ? since : 0), total: world.events.length };
  });

  if (world.clock) {
    // Read at each call: a reset world has a new clock.
    server.advertiseService(PAUSE_SERVICE, "std_srvs/srv/Empty", () => (world.clock?.pause(), {}));
    server.advertiseService(UNPAUSE_SERVICE, "std_srvs/srv/Empty", () => (world.clock?.unpause(), {}));
  }

  // The no-op action: a round trip through the action machinery without a robot, for latency checks.
  server.advertiseAction(PING_ACTION, PING_TYPE, async (_args, ctx) => ({
    status: "succeeded",
    values: { goal_id: ctx.goalId },
  }));

  const publishers = new Map<
    string,
    { image: (m: unknown) => void; depth?: (m: unknown) => void; detections?: (m: unknown) => void; topics: string[] }
  >();
  let rendering: Promise<void> = Promise.resolve();

  // Robots whose frames are latched on the bridge (published once): a later subscriber is handed the latched frame first.
  const latched = new Set<string>();
  /**
   * `dropStale`: a robot nobody watches now loses its latched frame, which a skill has just made stale — an agent that
   * died mid-skill and comes back (a resumed run) gets the frame rendered on its subscription, the world after the
   * skill, not the one from before it. Nothing extra is rendered (the detector's draws stay in the same order).
   */
  const publishCameras = (robots: string[] = world.manifests.map((m) => m.id), dropStale = false): Promise<void> => {
    // Renders are serialized so frames go out in state order.
    rendering = rendering
      .then(async () => {
        for (const robot of robots) {
          const publisher = publishers.get(robot);
          if (!publisher) continue;
          if (!publisher.topics.some((t) => server.subscriberCount(t) > 0)) {
            if (dropStale && latched.delete(robot)) for (const t of publisher.topics) server.clearLatched(t);
            continue;
          }
          latched.add(robot);
          const out = await world.renderCamera(robot);
          const header = out.detections.header;
          publisher.image({ header, format: "png", data: out.image.toString("base64") });
          publisher.depth?.({ header, format: "png; 16UC1 depth in millimetres", data: out.depth.toString("base64") });
          publisher.detections?.(out.detections);
        }
      })
      .catch((err) => opts.log?.(`camera render failed: ${(err as Error).message}`));
    return rendering;
  };

  for (const m of world.manifests) {
    for (const cam of m.cameras) {
      const onSubscribe = () => void publishCameras([m.id]);
      const image = server.advertiseTopic(cam.image, "sensor_msgs/msg/CompressedImage", { latched: true, onSubscribe });
      const depth = cam.depth
        ? server.advertiseTopic(cam.depth, "sensor_msgs/msg/CompressedImage", { latched: true, onSubscribe })
        : undefined;
      const detections = cam.detections
        ? server.advertiseTopic(cam.detections, "robograph_msgs/msg/Detections", { latched: true, onSubscribe })
        : undefined;
      publishers.set(m.id, {
        image,
        depth,
        detections,
        topics: [cam.image, cam.depth, cam.detections].filter((t): t is string => !!t),
      });
    }
    for (const skill of m.skills) {
      server.advertiseAction(
        skill.action,
        skill.actionType,
        async (args: Record<string, unknown>, ctx) => {
          const out = await world.runSkill(m.id, skill.name, args, ctx);
          // Fresh frames are on the wire before the result, so an agent that saw the result sees the new state.
          await publishCameras(undefined, true);
          return out;
        },
        world.argumentsSchema?.(m.id, skill.name) ?? argumentsValidator(skill.parameters),
      );
    }
  }

  if (restartable(world)) {
    // A new episode in this process: every goal in flight is canceled and waited for, the world is rebuilt in the
    // scenario and seed asked for, the bridge forgets the last episode's goals, and fresh frames are latched before
    // the answer. What an experiment runner calls instead of starting a new simulator process.
    server.advertiseService(RESET_SERVICE, RESET_TYPE, async (args) => {
      const canceled = server.cancelAll();
      if (!(await server.goalsEnded()))
        throw new ServiceRefusal("a goal did not end within 10 s of being canceled; reset refused");
      await rendering;
      let out: { scenario: string; seed: number };
      try {
        out = await world.restart((args ?? {}) as Record<string, unknown>);
      } catch (err) {
        throw new ServiceRefusal(`invalid reset: ${(err as Error).message}`);
      }
      server.forgetFinishedGoals();
      // As in a new process: cameras someone watches render now, the others when first subscribed to (so the
      // detector's draws come in the same order), and no topic keeps a frame of the last episode.
      for (const [robot, p] of publishers) {
        if (p.topics.some((t) => server.subscriberCount(t) > 0)) continue;
        for (const t of p.topics) server.clearLatched(t);
        latched.delete(robot);
      }
      await publishCameras();
      return { ...out, canceled, success: true };
    });
  }

  await server.start();
  return {
    server,
    publishCameras,
    async close() {
      await server.close();
      await rendering;
      await world.close();
    },
  };
}
