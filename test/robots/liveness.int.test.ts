/**
 * A robot that dies is noticed in seconds, on the reference ROS 1 stack with the rospy robot of standard messages
 * (test/fixtures/ros/standard_robot.py), killed with SIGKILL as a crash would kill it — the ROS master still lists its
 * topics and services afterwards, so only the silence of its action's status (5 Hz) and its node's refusal tell:
 * - a long MoveBase goal ends `robot_lost` within a few seconds, with the robot's last feedback and status;
 * - a run (the one episode runner, a graph whose executor goes through the recorded-goal path) pauses `interrupted`;
 *   with the robot restarted, `resume` completes it, and no goal id reaches the robot twice: the lost goal, unknown to
 *   the new process, is not sent again, and the step is sent anew under a new id;
 * - over MCP (the SDK's client), `look` says how old the frame is, and once the robot is gone, that the camera is lost
 *   with its robot and how old its last frame is; a service skill of the dead node fails at once, `robot_lost`.
 * The kitchen-as-a-standard-robot's agent SIGKILL and resume is test/robots/standard.int.test.ts's.
 */
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, MemorySaver, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { BridgeClient } from "../../robots/bridge/client";
import { RobotManifest } from "../../robots/manifests/schema";
import { callSkill, learnDialect } from "../../tools/skills";
import { runRecordedGoal } from "../../nodes/executor";
import { resumable } from "../../nodes/guard";
import { last, type Status } from "../../nodes/state";
import { runEpisode, type EpisodeMethod } from "../../runtime/episode";
import type { RunnableGraph } from "../../runtime/follow";
import { ROBOTS_ONLY, runOf } from "../../runtime/run";
import { runSignal } from "../../runtime/estop";
import { scratchDir } from "../helpers/episode";
import { ROOT } from "../helpers/processes";
import { mcpServer, textOf } from "../helpers/mcp";
import { requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";

const ROBOT = join(ROOT, "test", "fixtures", "ros", "standard_robot.py");
const available = requireRosOrSkip();

const number = { type: "number" };
const xyz = { type: "object", properties: { x: number, y: number, z: number }, required: ["x", "y", "z"] };
/** The rospy robot as a person would describe it: move_base as its actionlib action, dock as a service, its camera. */
const BASE = RobotManifest.parse({
  id: "base",
  kind: "mobile_base",
  description: "A wheeled base with a camera.",
  cameras: [
    {
      name: "camera",
      image: "/base/camera/image_raw/compressed",
      imageType: "sensor_msgs/CompressedImage",
      width: 640,
      height: 480,
    },
  ],
  skills: [
    {
      name: "move_base",
      action: "/base/move_base",
      actionType: "move_base_msgs/MoveBase",
      transport: "actionlib",
      description: "Drive the base to a pose in map.",
      parameters: {
        type: "object",
        properties: {
          target_pose: {
            type: "object",
            properties: {
              header: { type: "object", properties: { frame_id: { type: "string" } }, required: ["frame_id"] },
              pose: {
                type: "object",
                properties: {
                  position: xyz,
                  orientation: { ...xyz, properties: { ...xyz.properties, w: number }, required: ["x", "y", "z", "w"] },
                },
                required: ["position", "orientation"],
              },
            },
            required: ["header", "pose"],
          },
        },
        required: ["target_pose"],
      },
      timeoutSec: 60,
    },
    {
      name: "dock",
      action: "/base/dock",
      actionType: "std_srvs/Trigger",
      transport: "service",
      description: "Dock to the charger.",
      parameters: { type: "object", properties: {} },
    },
  ],
});

/** A pose `metres` ahead in map: the robot drives 0.5 s a metre, so a goal lasts as long as the test needs. */
const ahead = (metres: number) => ({
  target_pose: {
    header: { frame_id: "map" },
    pose: { position: { x: metres, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!available)("a rospy robot killed mid-goal", () => {
  let ros: RosStack;
  let robot: ChildProcess;
  let watcher: BridgeClient;
  let manifestFile: string;
  /** The goal ids each of the robot's processes took (listed ACTIVE in its status), one set per process. */
  const lifetimes: Set<string>[] = [];

  /** Starts the robot's process (again): a new lifetime of goal ids, once its status is heard. */
  async function startRobot(): Promise<void> {
    robot = await ros.node(ROBOT);
    lifetimes.push(new Set());
    const heard = lifetimes.length;
    for (const end = Date.now() + 15_000; statusHeardIn !== heard; await sleep(50))
      if (Date.now() > end) throw new Error("the restarted robot's status never arrived");
  }
  let statusHeardIn = 0;
  /** SIGKILL, as a crash: nothing of the robot says goodbye. Resolves with when it died. */
  function killRobot(): number {
    robot.kill("SIGKILL");
    return Date.now();
  }

  beforeAll(async () => {
    ros = await startRos();
    watcher = await BridgeClient.connect(ros.url);
    await learnDialect(watcher);
    watcher.subscribe<{ status_list: { goal_id: { id: string }; status: number }[] }>(
      "/base/move_base/status",
      "actionlib_msgs/GoalStatusArray",
      (message) => {
        statusHeardIn = lifetimes.length;
        for (const goal of message.status_list) if (goal.status === 1) lifetimes.at(-1)?.add(goal.goal_id.id);
      },
    );
    manifestFile = join(scratchDir(), "base.json");
    writeFileSync(manifestFile, JSON.stringify({ robots: [BASE] }, null, 1));
    await startRobot();
  }, 120_000);
  afterAll(async () => {
    await watcher?.close();
    await ros?.stop();
  }, 60_000);

  it("ends a long MoveBase goal robot_lost within seconds, with the robot's last feedback and status", async () => {
    const client = await BridgeClient.connect(ros.url);
    try {
      await learnDialect(client);
      let diedAt = 0;
      const result = await callSkill(client, [BASE], "base", "move_base", ahead(20), {
        // A second into a ten-second drive.
        onFeedback: () => {
          if (!diedAt && lifetimes.at(-1)!.size) diedAt = Date.now() + 1000;
          if (diedAt && Date.now() >= diedAt && robot.exitCode === null && robot.signalCode === null)
            diedAt = killRobot();
        },
      });
      const seconds = (Date.now() - diedAt) / 1000;
      process.stdout.write(`rospy robot SIGKILLed mid-move_base: robot_lost ${seconds.toFixed(2)} s after its death\n`);
      expect(result).toMatchObject({ ok: false, status: "robot_lost", lastStatus: expect.stringMatching(/^ACTIVE/) });
      expect(result.error).toMatch(
        /action \/base\/move_base: robot lost — its status \(\/base\/move_base\/status\) stopped \d\.\d s ago; it last said goal .* was ACTIVE/,
      );
      expect(JSON.stringify(result.feedback.at(-1))).toMatch(/base_position/);
      // Noticed by the robot's silence, not by the skill's 60 s timeout (the seconds are printed above: ~2 s here; a
      // wall-clock bound tighter than the timeout would only measure how busy the machine is).
      expect(seconds).toBeLessThan(BASE.skills[0]!.timeoutSec / 2);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("pauses a run interrupted; with the robot restarted, resume completes it and no goal id reaches the robot twice", async () => {
    if (robot.exitCode === null && robot.signalCode === null) killRobot();
    await startRobot();
    const checkpointer = new MemorySaver();
    const thread = "liveness-resume";
    const episode = (resume: boolean, onUpdate?: (node: string, update: Record<string, unknown>) => void) =>
      runEpisode<DriveStateType>({
        method: driveMethod,
        settings: { bridgeUrl: ros.url, manifest: manifestFile, dataDir: scratchDir(), backend: "symbolic" },
        goal: "drive 8 m ahead",
        thread,
        checkpointer,
        resume,
        onUpdate,
      });
    const firstLife = lifetimes.at(-1)!;
    // Killed a second after the robot took the run's first goal (a four-second drive).
    let diedAt = 0;
    const killer = setInterval(() => {
      if (!diedAt && firstLife.size) diedAt = Date.now() + 1000;
      if (diedAt && Date.now() >= diedAt && robot.exitCode === null && robot.signalCode === null) {
        diedAt = killRobot();
        clearInterval(killer);
      }
    }, 20);
    let pausedAt = 0;
    const first = await episode(false, (node, update) => {
      if (node === "drive" && update.status === "interrupted") pausedAt = Date.now();
    }).finally(() => clearInterval(killer));
    const seconds = (pausedAt - diedAt) / 1000;
    process.stdout.write(`run paused interrupted ${seconds.toFixed(2)} s after the robot's death\n`);
    expect(first.status, first.statusReason).toBe("interrupted");
    expect(first.statusReason).toMatch(
      /base\/move_base \(goal liveness-resume\/0\/base\/move_base\): action \/base\/move_base: robot lost — its status .* stopped .*its last feedback: .*base_position.*; resume with: .* --resume once the robot is back/,
    );
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(BASE.skills[0]!.timeoutSec / 2);
    expect([...firstLife]).toEqual(["liveness-resume/0/base/move_base"]);

    await startRobot();
    const second = await episode(true);
    expect(second.status, second.statusReason).toBe("succeeded");
    expect(second.statusReason).toBe("arrived at (8.00, 0.00)");
    // The lost goal came back failed without being sent again; the step went out once more under a new id.
    expect(second.state?.failures).toEqual([
      expect.stringMatching(
        /goal liveness-resume\/0\/base\/move_base was lost with robot base .*; back, the robot does not know it, so it is not sent again/,
      ),
    ]);
    expect([...lifetimes.at(-1)!]).toEqual(["liveness-resume/1/base/move_base"]);
    const everyId = lifetimes.flatMap((ids) => [...ids]);
    expect(new Set(everyId).size).toBe(everyId.length);
  }, 120_000);

  it("over MCP: look gives the frame's age; with the robot dead, its camera lost and its last frame's age; a service skill fails at once", async () => {
    if (robot.exitCode !== null || robot.signalCode !== null) await startRobot();
    const { client: mcp } = await mcpServer(["--bridge-url", ros.url, "--manifest", manifestFile]);
    try {
      const alive = (await mcp.callTool({ name: "look", arguments: {} })) as CallToolResult;
      expect(alive.isError ?? false).toBe(false);
      expect(textOf(alive)).toMatch(/\(frame 0\.\d s old\)$/);
      killRobot();
      await sleep(3000);
      const lost = (await mcp.callTool({ name: "look", arguments: {} })) as CallToolResult;
      expect(lost.content.some((part) => part.type === "image")).toBe(true);
      const said = textOf(lost);
      process.stdout.write(`look after the robot's death: ${said}\n`);
      expect(said).toMatch(
        /^base's camera is lost with its robot \(no sign of life from its actions' status for \d\.\d s\): its last frame is \d\.\d s old, not what it sees now\. It saw then: /,
      );
      expect(Number(/its last frame is (\d\.\d) s old/.exec(said)![1])).toBeGreaterThanOrEqual(2.5);
      const started = Date.now();
      const dock = (await mcp.callTool({ name: "base__dock", arguments: {} })) as CallToolResult;
      expect(dock.isError).toBe(true);
      expect(dock.structuredContent).toMatchObject({
        status: "robot_lost",
        error: expect.stringMatching(
          /service \/base\/dock: robot lost — its node does not answer: Unable to communicate/,
        ),
      });
      // At once, by its node's refusal: well inside the skill's own time limit, whatever this machine's load.
      expect(Date.now() - started).toBeLessThan(
        (BASE.skills.find((skill) => skill.name === "dock")!.timeoutSec * 1000) / 2,
      );
    } finally {
      await mcp.close();
    }
  }, 90_000);
});

/**
 * The smallest method that drives a robot the way every method's executor does: `dispatch` records the goal id,
 * `drive` sends it through the recorded-goal path (nodes/executor.ts), both `resumable` as the methods' executors are;
 * a failed drive is tried again under a new id.
 */
const DriveState = Annotation.Root({
  goal: Annotation<string>(),
  attempt: last(0),
  pendingGoal: last<{ goalId: string; lost?: string } | null>(null),
  failures: Annotation<string[]>({ reducer: (all, more) => [...all, ...more], default: () => [] }),
  status: last<Status>("running"),
  statusReason: last(""),
});
type DriveStateType = typeof DriveState.State;

const threadOf = (config?: RunnableConfig) =>
  (config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "drive";

const driveMethod: EpisodeMethod = {
  runtime: ROBOTS_ONLY,
  input: (goal) => ({ goal }),
  compile: (checkpointer?: BaseCheckpointSaver) =>
    new StateGraph(DriveState)
      .addNode(
        "dispatch",
        resumable(async (state: DriveStateType, config?: RunnableConfig) => ({
          pendingGoal: { goalId: `${threadOf(config)}/${state.attempt}/base/move_base` },
        })),
      )
      .addNode(
        "drive",
        resumable(async (state: DriveStateType, config?: RunnableConfig) => {
          const session = await runOf(config).session(undefined, { world: false });
          const { goalId } = state.pendingGoal!;
          const result = await runRecordedGoal(
            session,
            goalId,
            "base",
            "move_base",
            ahead(8),
            runSignal(config),
            config,
          );
          if (result.ok) return { pendingGoal: null, status: "succeeded" as const, statusReason: result.message };
          const failures = [result.error ?? result.status];
          if (state.attempt >= 2)
            return { pendingGoal: null, failures, status: "failed" as const, statusReason: failures[0] };
          return { pendingGoal: null, failures, attempt: state.attempt + 1 };
        }),
      )
      .addEdge(START, "dispatch")
      .addEdge("dispatch", "drive")
      .addConditionalEdges("drive", (state: DriveStateType) => (state.status === "running" ? "dispatch" : END), [
        "dispatch",
        END,
      ])
      .compile({ checkpointer }) as unknown as RunnableGraph,
};
