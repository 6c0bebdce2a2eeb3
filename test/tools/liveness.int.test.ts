/**
 * A robot that goes away is noticed within its liveness window, not by its skill's time limit, on a real bridge in
 * this process (robots/bridge/server.ts) with real clients:
 * - an actionlib robot (a client of the bridge, as a ROS robot sits behind rosbridge: its status at 5 Hz, feedback,
 *   result) that dies mid-goal ends the skill `robot_lost` with its last feedback and status; a live one running a goal
 *   longer than the window is never taken for lost;
 * - a robot behind our own bridge (its simulator serves the socket): the socket gone past the window is `robot_lost`;
 *   the lost goal, reconciled once the robot is back, is re-attached where the robot still knows it and never sent
 *   again where it does not;
 * - the session's view of a camera: live, quiet (a camera that streams went silent), or lost with its robot, with the
 *   frame's age; a latched camera is not quiet while its robot lives.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BridgeServer } from "../../robots/bridge/server";
import { BridgeClient } from "../../robots/bridge/client";
import { actionTypes } from "../../robots/bridge/ros1";
import { RobotManifest } from "../../robots/manifests/schema";
import { callSkill } from "../../tools/skills";
import { RobotLiveness } from "../../tools/liveness";
import { cameraHealth, type CameraView } from "../../runtime/session";
import { startTcpProxy } from "../helpers/tcpProxy";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const ACTION = "/base/drive";
const ACTION_TYPE = "test_msgs/Drive";

async function bridge(port = 0): Promise<BridgeServer> {
  const server = await new BridgeServer({ port }).start();
  cleanups.push(() => server.close());
  return server;
}

async function client(url: string, opts: Parameters<typeof BridgeClient.connect>[1] = {}): Promise<BridgeClient> {
  const connection = await BridgeClient.connect(url, opts);
  cleanups.push(() => connection.close());
  return connection;
}

/** The base's manifest: one skill over `transport`, the liveness window `livenessSec`, a camera. */
/** The drive's own time limit: being lost is told by the robot's silence (its window), long before this. */
const DRIVE_TIMEOUT_SEC = 60;

function base(transport: "actionlib" | "action", livenessSec?: number, camera: { latched?: boolean } = {}) {
  return RobotManifest.parse({
    id: "base",
    kind: "mobile_base",
    description: "a wheeled base",
    ...(livenessSec ? { livenessSec } : {}),
    cameras: [{ name: "head", image: "/base/image", width: 4, height: 2, staleSec: 1, ...camera }],
    skills: [
      {
        name: "drive",
        action: ACTION,
        actionType: ACTION_TYPE,
        transport,
        description: "drive ahead",
        parameters: { type: "object", properties: { metres: { type: "number" } }, required: ["metres"] },
        timeoutSec: DRIVE_TIMEOUT_SEC,
      },
    ],
  });
}

/**
 * A robot with one actionlib action, as an action server behind rosbridge offers it: its status at 5 Hz whether or not a
 * goal runs, feedback every 100 ms, and its result after `goalMs`. `stop()` is its process dying: the socket goes, and
 * the bridge drops what it published.
 */
async function actionlibRobot(url: string, goalMs: number) {
  const robot = await BridgeClient.connect(url, { reconnect: false });
  const types = actionTypes(ACTION_TYPE);
  for (const [topic, type] of [
    ["status", types.status],
    ["feedback", types.feedback],
    ["result", types.result],
  ])
    robot.advertise(`${ACTION}/${topic}`, type);
  const goals = new Map<string, { status: number; text: string }>();
  const timers: NodeJS.Timeout[] = [];
  const stamp = () => ({ sec: Math.floor(Date.now() / 1000), nanosec: 0 });
  const publish = (topic: string, msg: unknown) => robot.connected && robot.publish(`${ACTION}/${topic}`, msg);
  timers.push(
    setInterval(() => {
      const statusList = [...goals].map(([id, goal]) => ({ goal_id: { id }, status: goal.status, text: goal.text }));
      publish("status", { header: { stamp: stamp(), frame_id: "" }, status_list: statusList });
    }, 200),
  );
  robot.subscribe<{ goal_id: { id: string } }>(`${ACTION}/goal`, types.goal, (request) => {
    const id = request.goal_id.id;
    if (goals.has(id)) return;
    goals.set(id, { status: 1, text: "driving" });
    let ticks = 0;
    const drive = setInterval(() => {
      ticks++;
      publish("feedback", { status: { goal_id: { id }, status: 1 }, feedback: { travelled: ticks / 10 } });
      if (ticks * 100 < goalMs) return;
      clearInterval(drive);
      goals.set(id, { status: 3, text: "arrived" });
      publish("result", {
        header: { stamp: stamp(), frame_id: "" },
        status: { goal_id: { id }, status: 3, text: "arrived" },
        result: {},
      });
    }, 100);
    timers.push(drive);
  });
  const stop = async () => {
    for (const timer of timers) clearInterval(timer);
    await robot.close();
  };
  cleanups.push(stop);
  return { goals, stop };
}

/** Our own bridge's long drive: one goal per call, counted, each running `goalMs`. */
function driveAction(server: BridgeServer, goalMs: number) {
  const started: string[] = [];
  server.advertiseAction(
    ACTION,
    ACTION_TYPE,
    async (_args, ctx) => {
      started.push(ctx.goalId);
      for (let travelled = 0; travelled * 100 < goalMs; travelled++) {
        if (ctx.signal.aborted) return { status: "canceled", values: { success: false, message: "stopped" } };
        ctx.feedback({ travelled });
        await new Promise((r) => setTimeout(r, 100));
      }
      return { status: "succeeded", values: { success: true, message: "arrived" } };
    },
    z.object({ metres: z.number() }),
  );
  return started;
}

describe("an actionlib robot behind the bridge", () => {
  it("that dies mid-goal ends the skill robot_lost within its window, with its last feedback and status", async () => {
    const server = await bridge();
    const robot = await actionlibRobot(server.url, 30_000);
    const agent = await client(server.url);
    let diedAt = 0;
    let heard = 0;
    const result = await callSkill(
      agent,
      [base("actionlib")],
      "base",
      "drive",
      { metres: 15 },
      {
        // Half a second into the drive: its status has listed the goal by then.
        onFeedback: () => {
          if (++heard !== 5) return;
          diedAt = Date.now();
          void robot.stop();
        },
      },
    );
    const seconds = (Date.now() - diedAt) / 1000;
    process.stdout.write(`actionlib robot died mid-goal: robot_lost after ${seconds.toFixed(2)} s\n`);
    expect(result).toMatchObject({ ok: false, status: "robot_lost", lastStatus: "ACTIVE: driving" });
    expect(result.error).toMatch(/action \/base\/drive: robot lost — its status \(\/base\/drive\/status\) stopped/);
    expect(result.feedback.at(-1)).toEqual({ travelled: 0.5 });
    // Not before its 2 s window; the upper bound is the skill's time limit, not this machine's speed (seconds printed above).
    expect(seconds).toBeGreaterThanOrEqual(1.5);
    expect(seconds).toBeLessThan(DRIVE_TIMEOUT_SEC / 2);
  });

  it("that lives, running a goal longer than its window, is never taken for lost", async () => {
    const server = await bridge();
    await actionlibRobot(server.url, 2500);
    const agent = await client(server.url);
    const result = await callSkill(agent, [base("actionlib", 1)], "base", "drive", { metres: 3 });
    expect(result).toMatchObject({ ok: true, status: "succeeded", message: "arrived" });
    expect(result.durationMs).toBeGreaterThan(2400);
  });

  it("whose server never lists the goal (a robot already gone) is lost within its window, not at the time limit", async () => {
    const server = await bridge();
    const agent = await client(server.url);
    const started = Date.now();
    const result = await callSkill(agent, [base("actionlib", 1)], "base", "drive", { metres: 1 });
    expect(result.status).toBe("robot_lost");
    expect(result.error).toMatch(/no status from \/base\/drive\/status .* it never listed goal/);
    expect(Date.now() - started).toBeLessThan((DRIVE_TIMEOUT_SEC / 2) * 1000);
  });
});

describe("a robot behind our own bridge", () => {
  it("whose socket is gone past its window ends the skill robot_lost; back, the lost goal is re-attached and runs once", async () => {
    const server = await bridge();
    const started = driveAction(server, 3000);
    const proxy = await startTcpProxy({ port: server.port });
    cleanups.push(() => proxy.close());
    const agent = await client(proxy.url, { backoffMs: 50, connectAttempts: 100 });
    const goalId = "liveness/0/base/drive";
    let cutAt = 0;
    const lost = await callSkill(
      agent,
      [base("action")],
      "base",
      "drive",
      { metres: 3 },
      {
        goalId,
        onFeedback: () => {
          if (cutAt) return;
          cutAt = Date.now();
          proxy.down();
        },
      },
    );
    const seconds = (Date.now() - cutAt) / 1000;
    expect(lost).toMatchObject({ status: "robot_lost", goalId });
    expect(lost.error).toMatch(/the bridge at .*: robot lost — its socket closed 2\.\d s ago and is not back/);
    expect(seconds).toBeLessThan(DRIVE_TIMEOUT_SEC / 2);
    proxy.up();
    await new Promise((r) => agent.once("reconnect", r));
    const back = await callSkill(
      agent,
      [base("action")],
      "base",
      "drive",
      { metres: 3 },
      { goalId, lostBefore: lost.error },
    );
    expect(back).toMatchObject({ ok: true, status: "succeeded", goalId });
    expect(started).toEqual([goalId]);
  });

  it("restarted, knowing nothing of the lost goal: it is not sent again, and the step comes back failed", async () => {
    const first = await bridge();
    const port = first.port;
    driveAction(first, 10_000);
    const agent = await client(first.url, { backoffMs: 50, connectAttempts: 100 });
    const goalId = "liveness/1/base/drive";
    const lost = callSkill(
      agent,
      [base("action")],
      "base",
      "drive",
      { metres: 3 },
      {
        goalId,
        onFeedback: () => void first.close(),
      },
    );
    expect(await lost).toMatchObject({ status: "robot_lost" });
    const second = await bridge(port);
    const startedAgain = driveAction(second, 100);
    const resumed = await callSkill(
      agent,
      [base("action")],
      "base",
      "drive",
      { metres: 3 },
      {
        goalId,
        lostBefore: "its socket closed",
      },
    );
    expect(resumed).toMatchObject({ ok: false, status: "aborted", goalId });
    expect(resumed.error).toMatch(/was lost with robot base .* the robot does not know it, so it is not sent again/);
    expect(startedAgain).toEqual([]);
  });
});

describe("a camera's health", () => {
  const frame = (imageAt: number): CameraView => ({
    image: { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, format: "png", data: "" },
    imageAt,
  });

  it("is live with its age while its robot gives signs of life, quiet once a streaming camera stops, lost with its robot", async () => {
    const server = await bridge();
    const robot = await actionlibRobot(server.url, 1000);
    const agent = await client(server.url);
    const robots = [base("actionlib", 1)];
    const session = {
      robots,
      views: new Map([["base", frame(Date.now())]]),
      liveness: new RobotLiveness(agent, robots),
    };
    await new Promise((r) => setTimeout(r, 300));
    expect(cameraHealth(session, "base")).toMatchObject({
      state: "live",
      said: expect.stringMatching(/^frame 0\.\d s old$/),
    });
    session.views.set("base", frame(Date.now() - 1500));
    expect(cameraHealth(session, "base")).toMatchObject({
      state: "quiet",
      said: expect.stringMatching(/camera \/base\/image has gone quiet .* its last frame is 1\.5 s old/),
    });
    await robot.stop();
    await new Promise((r) => setTimeout(r, 1300));
    const lost = cameraHealth(session, "base");
    expect(lost.state).toBe("lost");
    expect(lost.said).toMatch(
      /base's camera is lost with its robot \(no sign of life from its actions' status for 1\.\d s\): its last frame is 2\.\d s old, not what it sees now/,
    );
  });

  it("of a latched camera (a frame per change) is not quiet while its robot lives; behind our bridge the socket is its sign", async () => {
    const server = await bridge();
    const proxy = await startTcpProxy({ port: server.port });
    cleanups.push(() => proxy.close());
    const agent = await client(proxy.url, { backoffMs: 50, connectAttempts: 100 });
    const robots = [base("action", 1, { latched: true })];
    const session = {
      robots,
      views: new Map([["base", frame(Date.now() - 60_000)]]),
      liveness: new RobotLiveness(agent, robots),
    };
    expect(cameraHealth(session, "base")).toMatchObject({ state: "live", ageSec: expect.closeTo(60, 0) });
    proxy.down();
    await new Promise((r) => setTimeout(r, 1200));
    expect(cameraHealth(session, "base")).toMatchObject({
      state: "lost",
      said: expect.stringMatching(/no sign of life from the bridge's socket .* its last frame is 61\.\d s old/),
    });
  });
});
