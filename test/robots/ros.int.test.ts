/**
 * The kitchen as a ROS 1 robot behind the reference rosbridge_server (roscore + rosbridge_websocket + rosapi from
 * ROS's own sources, ros/kit): the default CLEA task end to end through it, a SIGKILLed agent resumed without a skill
 * sent twice (goal ids through actionlib), canceled and timed-out goals, bad goals refused, a service-only skill, and
 * roslib and ROS's own command-line tools discovering the robot. The message package is held equal to the
 * TypeScript side it is generated from.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionClient, Goal, Param, Ros } from "roslib";
import { BridgeClient } from "../../robots/bridge/client";
import { sendActionlibGoal } from "../../robots/bridge/ros1";
import { GoalStatus } from "../../robots/bridge/protocol";
import { staleFiles } from "../../robots/msgs/ros1";
import { ManifestResponse } from "../../robots/manifests/schema";
import { bundledManifests } from "../../robots/manifests";
import { KitchenWorld, loadScenario } from "../../robots/sim/kitchen";
import { ROOT } from "../helpers/processes";
import { callSkill, discoverRobots } from "../../tools/skills";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { PAUSE_SERVICE, UNPAUSE_SERVICE } from "../../robots/sim/serve";
import { agent, killWhenStarted, runOn } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { completedDraft, requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";
import { programArgs } from "../../robots/programs";

describe("ros/robograph_msgs", () => {
  it("is what the TypeScript messages and the kitchen's manifests generate (npm run ros:msgs)", () => {
    expect(staleFiles()).toEqual([]);
  });
});

const available = requireRosOrSkip();

describe.skipIf(!available)("the kitchen as a ROS 1 robot behind the reference rosbridge_server", () => {
  let ros: RosStack;
  const sims: SimProcess[] = [];
  /** A kitchen attached to its own ROS stack (each test its own, so no state leaks between them). */
  const kitchenOnRos = async (args: string[] = []) => {
    const stack = await startRos();
    stacks.push(stack);
    const sim = await startSimProcess("kitchen", ["--ros", stack.url, ...args], 60_000);
    sims.push(sim);
    const client = await BridgeClient.connect(stack.url);
    clients.push(client);
    const { robots } = args.includes("--plain") ? { robots: [] } : await discoverRobots(client);
    return { stack, sim, client, robots };
  };
  const stacks: RosStack[] = [];
  const clients: BridgeClient[] = [];
  beforeAll(async () => {
    ros = await startRos();
    stacks.push(ros);
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of sims) await s.stop();
    for (const s of stacks) await s.stop();
  }, 60_000);

  it("runs the default task to success, the simulator's check agreeing", async () => {
    const sim = await startSimProcess("kitchen", ["--ros", ros.url], 60_000);
    sims.push(sim);
    const data = scratchDir();
    const run = await agent(["--bridge-url", ros.url, "--data-dir", data, "--runs-dir", join(data, "runs")]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/SUCCESS — succeeded/);
    expect(run.out).not.toMatch(/simulator's check says/);
    // ROS's own tools see the robot: its actions' topics, its detections typed by our message package, the manifest.
    const topics = ros.ros("rostopic", ["list"]);
    for (const t of [
      "/mobile/go_to/goal",
      "/mobile/go_to/result",
      "/arm/pick_from/status",
      "/arm/detections",
      "/mobile/camera/image/compressed",
    ])
      expect(topics).toContain(t);
    expect(ros.ros("rostopic", ["type", "/arm/detections"]).trim()).toBe("robograph_msgs/Detections");
    expect(ros.ros("rostopic", ["type", "/mobile/go_to/goal"]).trim()).toBe("robograph_msgs/GoToActionGoal");
    expect(ros.ros("rosparam", ["get", "/robograph/manifest"])).toMatch(/^'\{"robots":\[\{"id":"mobile"/);
  }, 240_000);

  it("resumes a SIGKILLed agent without sending any skill twice: the robot knows the goal by its id", async () => {
    const { stack, client } = await kitchenOnRos();
    const data = scratchDir();
    const common = [...runOn(stack.url, "ros-crash", data)];
    // Killed once the robot has goal 0, the world paused so that the goal is still running however late the kill.
    await client.callService(PAUSE_SERVICE, {});
    let armed = false;
    const first = await agent(common, (_line, kill) => {
      if (armed) return;
      armed = true;
      killWhenStarted(client, "ros-crash/0/", kill);
    });
    expect(first.signal).toBe("SIGKILL");
    await client.callService(UNPAUSE_SERVICE, {});
    const second = await agent([...common, "--resume"]);
    expect(second.out, first.out + second.out).toMatch(/re-attaching to goal ros-crash\/0\//);
    expect(second.out, second.out).toMatch(/SUCCESS — succeeded/);
    const { events } = await client.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events");
    const started = events.filter((e) => e.kind === "skill_started").map((e) => e.goalId);
    expect(started.length).toBeGreaterThan(3);
    expect(new Set(started).size).toBe(started.length);
    expect((await client.callService<{ success: boolean }>("/evaluator/check")).success).toBe(true);
  }, 300_000);

  it("cancels an actionlib goal, times one out, refuses a goal that does not fit its type, and follows a goal to its end", async () => {
    // The world paused (std_srvs/Empty through rosbridge) holds each drive, so the cancel and the time limit land
    // while the base drives; the last goal runs with the world going on.
    const { client, robots } = await kitchenOnRos();
    await client.callService(PAUSE_SERVICE, {});
    const ac = new AbortController();
    const going = callSkill(
      client,
      robots,
      "mobile",
      "go_to",
      { navigation_point: "in_front_of_refrigerator" },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 1500);
    const canceled = await going;
    expect(canceled.status).toBe("canceled");
    // Our client validates before sending; another client's bad goal is refused by the robot, naming the field.
    const bad = await sendActionlibGoal(
      client,
      "/mobile/go_to",
      "robograph_msgs/GoTo",
      { navigation_point: "the moon" },
      { goalId: "bad-goal-1", timeoutMs: 20_000 },
    ).result;
    expect(bad.status).toBe(GoalStatus.ABORTED);
    expect(JSON.stringify(bad.values)).toMatch(/invalid goal: navigation_point/);
    // A goal that outlives its time limit ends `timeout` and is canceled on the robot, which is then free again.
    const late = await callSkill(
      client,
      robots,
      "mobile",
      "go_to",
      { navigation_point: "in_front_of_sink" },
      { timeoutMs: 800 },
    );
    expect(late.status).toBe("timeout");
    // The cancel is on its way when the caller gives up; the robot is free once it has logged the goal's end.
    let ended = false;
    for (let i = 0; i < 100 && !ended; i++) {
      const { events } = await client.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events");
      ended = events.some((e) => e.goalId === late.goalId && /^skill_(canceled|succeeded|failed)$/.test(e.kind));
      if (!ended) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ended).toBe(true);
    await client.callService(UNPAUSE_SERVICE, {});
    const feedback: unknown[] = [];
    const done = await callSkill(
      client,
      robots,
      "mobile",
      "go_to",
      { navigation_point: "in_front_of_oven" },
      { onFeedback: (f) => feedback.push(f) },
    );
    expect(done.status).toBe("succeeded");
    expect(done.message).toBe("mobile is at in_front_of_oven");
    expect(feedback.length).toBeGreaterThan(0);
  }, 120_000);

  it("calls a skill a robot offers as a ROS service (std_srvs/Trigger): its failure a result, its silence a timeout", async () => {
    // A robot-side client offering a plain ROS service, as a ROS node would; the skill's manifest says `service`.
    const robot = await BridgeClient.connect(ros.url);
    clients.push(robot);
    robot.dialect = "ros1";
    let calls = 0;
    robot.advertiseService("/gripper/calibrate", "std_srvs/Trigger", () =>
      ++calls === 1 ? { success: true, message: "calibrated" } : { success: false, message: "already calibrated" },
    );
    const agentSide = await BridgeClient.connect(ros.url);
    clients.push(agentSide);
    agentSide.dialect = "ros1";
    const manifest = {
      id: "gripper",
      kind: "gripper",
      description: "a gripper",
      cameras: [],
      facts: [],
      skills: [
        {
          name: "calibrate",
          action: "/gripper/calibrate",
          actionType: "std_srvs/Trigger",
          transport: "service" as const,
          description: "calibrate the fingers",
          parameters: { type: "object" as const, properties: {}, required: [], additionalProperties: false as const },
          preconditions: [],
          effects: [],
          timeoutSec: 10,
          requiresApproval: false,
        },
      ],
    };
    // Advertising goes through the ROS master: retry until the service is known.
    let first = await callSkill(agentSide, [manifest], "gripper", "calibrate", {});
    for (let i = 0; i < 20 && !first.ok && calls === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      first = await callSkill(agentSide, [manifest], "gripper", "calibrate", {});
    }
    expect(first, first.error).toMatchObject({ ok: true, status: "succeeded", message: "calibrated" });
    const second = await callSkill(agentSide, [manifest], "gripper", "calibrate", {});
    expect(second).toMatchObject({ ok: false, status: "aborted", message: "already calibrated" });
    // A service that does not answer in time ends `timeout`; an abort stops the waiting.
    robot.advertiseService("/gripper/wait", "std_srvs/Trigger", () => new Promise(() => {}));
    const waiting = { ...manifest, skills: [{ ...manifest.skills[0], name: "wait", action: "/gripper/wait" }] };
    let slow = await callSkill(agentSide, [waiting], "gripper", "wait", {}, { timeoutMs: 1000 });
    for (let i = 0; i < 20 && slow.status !== "timeout"; i++)
      slow = await callSkill(agentSide, [waiting], "gripper", "wait", {}, { timeoutMs: 1000 });
    expect(slow.status).toBe("timeout");
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    expect((await callSkill(agentSide, [waiting], "gripper", "wait", {}, { signal: ac.signal })).status).toBe(
      "disconnected",
    );
  }, 60_000);

  it("runs a plain ROS robot (no manifest of ours) from connect's draft, completed as a person would", async () => {
    const { stack } = await kitchenOnRos(["--plain"]);
    const dir = scratchDir();
    const draftFile = join(dir, "draft.json");
    const run = spawnSync(
      process.execPath,
      programArgs("cli/robograph.ts", ["connect", stack.url, "--out", draftFile]),
      { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    // What the person writes: words, the values each argument takes, preconditions and effects, and the world.
    const draft = ManifestResponse.pick({ robots: true }).parse(JSON.parse(readFileSync(draftFile, "utf8")));
    const written = bundledManifests("kitchen");
    const robots = completedDraft(draft.robots, written);
    const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash") });
    const manifestFile = join(dir, "kitchen-robots.json");
    writeFileSync(manifestFile, JSON.stringify({ robots, world: world.description }));
    await world.close();
    const agentRun = await agent([
      "--bridge-url",
      stack.url,
      "--manifest",
      manifestFile,
      "--data-dir",
      dir,
      "--runs-dir",
      join(dir, "runs"),
    ]);
    expect(agentRun.code, agentRun.out).toBe(0);
    expect(agentRun.out).toMatch(/SUCCESS — succeeded/);
    expect(agentRun.out).not.toMatch(/simulator's check says/);
    // Without the file there is nothing to discover: the agent says so.
    const bare = await agent(["--bridge-url", stack.url, "--data-dir", dir, "--runs-dir", join(dir, "runs")]);
    expect(bare.code).not.toBe(0);
    expect(bare.out).toMatch(/serves no \/robograph\/manifest.*robograph connect .*--manifest FILE/);
  }, 240_000);

  it("is discovered by roslib through the real rosapi, and robograph connect drafts its manifests", async () => {
    const { stack, robots } = await kitchenOnRos();
    const ros = new Ros({ url: stack.url });
    await new Promise<void>((resolve, reject) => {
      ros.once("connection", () => resolve());
      ros.once("error", reject);
    });
    try {
      const call = <T>(fn: (ok: (v: T) => void, fail: (e: unknown) => void) => void) =>
        new Promise<T>((resolve, reject) => fn(resolve, reject));
      const { topics, types } = await call<{ topics: string[]; types: string[] }>((ok, fail) =>
        ros.getTopics(ok, fail),
      );
      expect(types[topics.indexOf("/mobile/detections")]).toBe("robograph_msgs/Detections");
      expect(types[topics.indexOf("/arm/pick_from/goal")]).toBe("robograph_msgs/PickFromActionGoal");
      expect(await call<string>((ok, fail) => ros.getServiceType("/robograph/manifest", ok, fail))).toBe(
        "robograph_msgs/Json",
      );
      const text = await new Promise<string>((resolve) =>
        new Param({ ros: ros, name: "/robograph/manifest" }).get((v: unknown) => resolve(v as string)),
      );
      expect(JSON.parse(text).robots[1].skills.map((s: { name: string }) => s.name)).toEqual([
        "open",
        "close",
        "pick_from",
        "release_to",
      ]);
      // roslib's own actionlib client drives a skill: the robot side is plain actionlib.
      const ac = new ActionClient<{ navigation_point: string }, unknown, { success: boolean; message: string }>({
        ros: ros,
        serverName: "/mobile/go_to",
        actionName: "robograph_msgs/GoToAction",
      });
      const result = await new Promise<{ success: boolean; message: string }>((resolve) => {
        const goal = new Goal<{ navigation_point: string }, unknown, { success: boolean; message: string }>({
          actionClient: ac,
          goalMessage: { navigation_point: "in_front_of_sink" },
        });
        goal.on("result", resolve);
        goal.send();
      });
      expect(result).toMatchObject({ success: true, message: "mobile is at in_front_of_sink" });
    } finally {
      ros.close();
    }
    // connect, as a robot owner runs it: every skill of each robot proposed, with its arguments, as a valid manifest.
    const out = join(scratchDir(), "draft.json");
    const run = spawnSync(process.execPath, programArgs("cli/robograph.ts", ["connect", stack.url, "--out", out]), {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\(ROS 1\)/);
    expect(run.stdout).toMatch(/still to write by a person/);
    const draft = ManifestResponse.pick({ robots: true }).parse(JSON.parse(readFileSync(out, "utf8")));
    for (const m of robots) {
      const drafted = draft.robots.find((x) => x.id === m.id)!;
      expect(drafted.skills.map((s) => s.name).sort()).toEqual(m.skills.map((s) => s.name).sort());
      for (const s of m.skills) {
        const ds = drafted.skills.find((x) => x.name === s.name)!;
        expect(ds).toMatchObject({ action: s.action, actionType: s.actionType, transport: "actionlib" });
        expect(Object.keys(ds.parameters.properties).sort()).toEqual(Object.keys(s.parameters.properties).sort());
      }
      expect(drafted.cameras[0]).toMatchObject({
        image: m.cameras[0].image,
        depth: m.cameras[0].depth,
        detections: m.cameras[0].detections,
        width: 320,
        height: 240,
      });
    }
  }, 90_000);
});
