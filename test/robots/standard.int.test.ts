/**
 * Robots that speak only the messages ROS ships, behind the reference rosbridge_server (ros/kit):
 * - a small rospy robot (test/fixtures/ros/standard_robot.py: move_base_msgs/MoveBase, a std_srvs/Trigger service, raw
 *   and JPEG cameras with depth and CameraInfo, no manifest of ours): connect's draft, nested goals from the skill
 *   call, the LangChain tool and MCP, a goal from a named pose, refusals that name the field, frames of every
 *   encoding, and a robot without our detector under the offline reasoner and under a VLM;
 * - the kitchen as a standard robot (`--standard`): the default CLEA task from connect's draft completed by a file a
 *   person would write, and a SIGKILL during move_base resumed without a goal sent twice.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BridgeClient } from "../../robots/bridge/client";
import { ManifestResponse, RobotManifest } from "../../robots/manifests/schema";
import { bundledManifests } from "../../robots/manifests";
import { pngOf, type ImageMessage } from "../../robots/msgs/images";
import { KitchenWorld, loadScenario } from "../../robots/sim/kitchen";
import { NAVIGATION_POINTS } from "../../robots/sim/kitchen/layout";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { PAUSE_SERVICE, UNPAUSE_SERVICE } from "../../robots/sim/serve";
import { callSkill, InvalidSkillArgumentsError, learnDialect, skillTools } from "../../tools/skills";
import { closePooledSessions } from "../../runtime/run";
import { perceive } from "../../graphs/clea/nodes/perceiver";
import type { ClosedLoopStateType } from "../../graphs/clea/state";
import { agent, killWhenStarted } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { startFakeOpenAI } from "../helpers/openaiServer";
import { ROOT } from "../helpers/processes";
import { mcpServer } from "../helpers/mcp";
import { inRunOf } from "../helpers/run";
import { clea } from "../../graphs/clea";
import { completedDraft, completedStandardDraft, requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";
import { programArgs } from "../../robots/programs";

const ROBOT = join(ROOT, "test", "fixtures", "ros", "standard_robot.py");
const available = requireRosOrSkip();

const connect = (url: string, out: string) =>
  spawnSync(process.execPath, programArgs("cli/robograph.ts", ["connect", url, "--out", out]), {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 90_000,
  });

/** RGB of pixel (x, y) of a PNG. */
async function pixel(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png)
    .removeAlpha()
    .toColourspace("srgb")
    .raw()
    .toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

describe.skipIf(!available)("a plain ROS robot with standard messages only", () => {
  let ros: RosStack;
  let client: BridgeClient;
  let draft: RobotManifest;
  let manifest: RobotManifest;
  let manifestFile: string;
  let connectOut = "";
  const goals: unknown[] = [];
  beforeAll(async () => {
    ros = await startRos();
    await ros.node(ROBOT);
    client = await BridgeClient.connect(ros.url);
    await learnDialect(client);
    client.subscribe<{ data: string }>("/base/last_goal", "std_msgs/msg/String", (m) => goals.push(JSON.parse(m.data)));
    const dir = scratchDir();
    const run = connect(ros.url, join(dir, "draft.json"));
    connectOut = run.stdout + run.stderr;
    expect(run.status, connectOut).toBe(0);
    draft = ManifestResponse.pick({ robots: true }).parse(JSON.parse(readFileSync(join(dir, "draft.json"), "utf8")))
      .robots[0];
    manifest = completedStandardDraft(draft);
    manifestFile = join(dir, "base.json");
    writeFileSync(manifestFile, JSON.stringify({ robots: [manifest] }, null, 1));
  }, 120_000);
  afterAll(async () => {
    await closePooledSessions();
    await client?.close();
    await ros?.stop();
  }, 60_000);

  it("connect drafts the nested goal and the camera as published: its real size, raw depth, CameraInfo, no detector", () => {
    expect(draft.id).toBe("base");
    expect(draft.cameras[0]).toMatchObject({
      image: "/base/camera/image_raw/compressed",
      imageType: "sensor_msgs/msg/CompressedImage",
      depth: "/base/camera/depth/image_raw",
      depthType: "sensor_msgs/msg/Image",
      info: "/base/camera/camera_info",
      width: 640,
      height: 480,
    });
    expect(draft.cameras[0].detections).toBeUndefined();
    const mb = draft.skills.find((s) => s.name === "move_base")!;
    expect(mb).toMatchObject({
      action: "/base/move_base",
      actionType: "move_base_msgs/MoveBase",
      transport: "actionlib",
      goal: { template: { target_pose: { $pose: "navigation_point" } }, poses: {} },
    });
    expect(mb.goal!.message.properties.target_pose.properties!.pose.properties!.orientation.required).toEqual([
      "x",
      "y",
      "z",
      "w",
    ]);
    expect(draft.skills.find((s) => s.name === "dock")).toMatchObject({
      transport: "service",
      actionType: "std_srvs/Trigger",
    });
    expect(connectOut).toMatch(/target_pose\.pose\.position\.x/);
    expect(connectOut).toMatch(/measure each place it may go to/);
    expect(connectOut).toMatch(/no detections topic/);
  });

  it("sends a nested move_base goal, follows its feedback, reads its result by its status, and refuses what does not fit", async () => {
    const robots = [manifest];
    const feedback: unknown[] = [];
    const pose = { position: { x: 0.6, y: -0.4, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } };
    const result = await callSkill(
      client,
      robots,
      "base",
      "move_base",
      { target_pose: { header: { frame_id: "map" }, pose } },
      { onFeedback: (f) => feedback.push(f) },
    );
    expect(result, result.error).toMatchObject({ ok: true, status: "succeeded", message: "arrived at (0.60, -0.40)" });
    expect(feedback.length).toBeGreaterThan(0);
    const at = (
      feedback.at(-1) as {
        base_position: { header: { frame_id: string }; pose: { position: { x: number; y: number } } };
      }
    ).base_position;
    expect(at.header.frame_id).toBe("map");
    expect([at.pose.position.x, at.pose.position.y].map((v) => Math.round(v * 100) / 100)).toEqual([0.6, -0.4]);
    expect(goals.at(-1)).toEqual({ frame_id: "map", position: [0.6, -0.4, 0], orientation: [0, 0, 0, 1] });
    // Aborted: the result is empty, the status text says why.
    const odom = await callSkill(client, robots, "base", "move_base", {
      target_pose: { header: { frame_id: "odom" }, pose },
    });
    expect(odom).toMatchObject({ ok: false, status: "aborted" });
    expect(odom.error).toMatch(/goal in frame 'odom': this robot navigates in map/);
    // Canceled mid-drive: preempted.
    const ac = new AbortController();
    const far = callSkill(
      client,
      robots,
      "base",
      "move_base",
      { target_pose: { header: { frame_id: "map" }, pose: { ...pose, position: { x: 6, y: 0, z: 0 } } } },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 800);
    expect(await far).toMatchObject({ ok: false, status: "canceled", message: "stopped on request" });
    // Refused before anything is sent, naming the field.
    const sent = goals.length;
    await expect(
      callSkill(client, robots, "base", "move_base", {
        target_pose: { header: { frame_id: "map" }, pose: { ...pose, position: { x: "far", y: 0, z: 0 } } },
      }),
    ).rejects.toThrow(/target_pose\.pose\.position\.x/);
    await expect(
      callSkill(client, robots, "base", "move_base", {
        target_pose: { header: { frame_id: "map" }, pose: { position: pose.position } },
      }),
    ).rejects.toThrow(InvalidSkillArgumentsError);
    await new Promise((r) => setTimeout(r, 300));
    expect(goals.length).toBe(sent);
  }, 60_000);

  it("turns a named pose into the PoseStamped goal, and the LangChain tool takes nested and named goals alike", async () => {
    const robots = [manifest];
    const result = await callSkill(client, robots, "base", "go_to", { navigation_point: "dock_front" });
    expect(result, result.error).toMatchObject({ ok: true, message: "arrived at (1.00, 0.50)" });
    const last = goals.at(-1) as { frame_id: string; orientation: number[] };
    expect(last.frame_id).toBe("map");
    expect(last.orientation.map((v) => Math.round(v * 1000) / 1000)).toEqual([0, 0, 0.707, 0.707]);
    await expect(callSkill(client, robots, "base", "go_to", { navigation_point: "the moon" })).rejects.toThrow(
      /navigation_point/,
    );
    const tools = skillTools(client, robots);
    const raw = tools.find((t) => t.name === "base__move_base")!;
    const out = JSON.parse(
      String(
        await raw.invoke({
          target_pose: {
            header: { frame_id: "map" },
            pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
          },
        }),
      ),
    );
    expect(out).toMatchObject({ ok: true, message: "arrived at (0.00, 0.00)" });
    await expect(raw.invoke({ target_pose: { header: { frame_id: "map" } } })).rejects.toThrow();
    expect(JSON.parse(String(await tools.find((t) => t.name === "base__dock")!.invoke({})))).toMatchObject({
      ok: true,
      message: "docked",
    });
    expect(JSON.parse(String(await tools.find((t) => t.name === "base__dock")!.invoke({})))).toMatchObject({
      ok: false,
      error: "already docked",
    });
  }, 60_000);

  it("decodes the robot's raw rgb8, bgr8 and mono8 frames and its JPEG to the right colours", async () => {
    const next = (topic: string, type: string) => client.nextMessage<ImageMessage>(topic, type, 10_000);
    const rgb = await pngOf(await next("/base/camera/image_raw", "sensor_msgs/msg/Image"), "/base/camera/image_raw");
    expect(await pixel(rgb, 10, 240)).toEqual([255, 0, 0]);
    expect(await pixel(rgb, 630, 240)).toEqual([0, 0, 255]);
    const jpeg = await pngOf(
      await next("/base/camera/image_raw/compressed", "sensor_msgs/msg/CompressedImage"),
      "/base/camera/image_raw/compressed",
    );
    const [red, , blue] = await pixel(jpeg, 10, 240);
    expect(red).toBeGreaterThan(230);
    expect(blue).toBeLessThan(30);
    const bgr = await pngOf(await next("/base/wrist/image_raw", "sensor_msgs/msg/Image"), "/base/wrist/image_raw");
    expect([await pixel(bgr, 0, 0), await pixel(bgr, 3, 1)]).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    const mono = await pngOf(await next("/base/ir/image_raw", "sensor_msgs/msg/Image"), "/base/ir/image_raw");
    expect([await pixel(mono, 0, 0), await pixel(mono, 3, 1)]).toEqual([
      [10, 10, 10],
      [200, 200, 200],
    ]);
  }, 60_000);

  it("is driven over MCP by the SDK's client: move_base from a named pose with feedback as progress, look's PNG and depth", async () => {
    const { client: mcpClient } = await mcpServer(["--bridge-url", ros.url, "--manifest", manifestFile]);
    try {
      const { tools } = await mcpClient.listTools();
      expect(tools.find((t) => t.name === "base__go_to")!.inputSchema).toMatchObject({
        properties: { navigation_point: { enum: ["dock_front", "window"] } },
      });
      expect(tools.find((t) => t.name === "base__move_base")!.inputSchema).toMatchObject({
        properties: { target_pose: { properties: { header: { required: ["frame_id"] } } } },
      });
      const progress: string[] = [];
      const went = (await mcpClient.callTool(
        { name: "base__go_to", arguments: { navigation_point: "window" } },
        undefined,
        {
          onprogress: (p) => progress.push(p.message ?? ""),
        },
      )) as CallToolResult;
      expect(went.isError ?? false, JSON.stringify(went.content)).toBe(false);
      expect(went.structuredContent).toMatchObject({
        ok: true,
        status: "succeeded",
        message: "arrived at (-0.40, 0.20)",
      });
      expect(progress.some((p) => /base_position/.test(p))).toBe(true);
      const bad = (await mcpClient.callTool({
        name: "base__move_base",
        arguments: {
          target_pose: {
            header: { frame_id: "map" },
            pose: { position: { x: 1, y: 1, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: "one" } },
          },
        },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toMatch(/target_pose\.pose\.orientation\.w/);
      const look = (await mcpClient.callTool({ name: "look", arguments: {} })) as CallToolResult;
      const image = look.content.find((p) => p.type === "image") as { data: string; mimeType: string };
      expect(image.mimeType).toBe("image/png");
      const png = Buffer.from(image.data, "base64");
      expect((await sharp(png).metadata()).width).toBe(640);
      expect((await pixel(png, 630, 240))[2]).toBeGreaterThan(230);
      expect(JSON.stringify(look.content)).toMatch(/no object detector.*2\.00 m ahead/);
    } finally {
      await mcpClient.close();
    }
  }, 120_000);

  it("the offline reasoner refuses a robot without detections; a VLM is sent its frame and told there is no detector", async () => {
    const world = {
      name: "flat",
      places: [{ name: "charger", kind: "surface", openable: false }],
      navigationPoints: ["dock_front", "window"],
      labels: ["cup"],
    };
    const file = join(scratchDir(), "with-world.json");
    writeFileSync(file, JSON.stringify({ robots: [manifest], world }));
    const state = {
      observations: {},
      history: [],
      counters: { nextEntryId: 0, steps: 0, iterations: 0 },
      startedAt: 0,
    } as unknown as ClosedLoopStateType;
    const offline = inRunOf(clea, { bridgeUrl: ros.url, manifest: file, backend: "symbolic", dataDir: scratchDir() });
    await expect(perceive(state, offline)).rejects.toThrow(
      /robot base publishes no detections .* offline reasoner reads only detections: run with a VLM/,
    );
    await offline.run.close();
    const vlm = await startFakeOpenAI((req) => {
      const answer = JSON.stringify({
        robot: "base",
        objects: [],
        containers: [],
        visiblePlaces: [],
        summary: "a red wall and a blue wall",
      });
      return req.tools?.length ? { arguments: answer } : { content: answer };
    });
    const withVlm = inRunOf(
      clea,
      { bridgeUrl: ros.url, manifest: file, backend: "openai", dataDir: scratchDir() },
      { ...process.env, OPENAI_API_KEY: "local", OPENAI_BASE_URL: vlm.baseURL },
    );
    try {
      const out = await perceive(state, withVlm);
      expect((out.observations as Record<string, { summary: string }>).base.summary).toBe("a red wall and a blue wall");
      const sent = JSON.stringify(vlm.requests[0].messages);
      expect(sent).toMatch(/data:image\/png;base64,/);
      expect(sent).toMatch(/no object detector/);
    } finally {
      await withVlm.run.close();
      await vlm.close();
    }
  }, 60_000);
});

// Concurrently: each test has its own ROS stack and simulator, and most of its time is the robot's moves at real time.
describe.skipIf(!available).concurrent("the kitchen as a standard robot (--standard)", () => {
  const stacks: RosStack[] = [];
  const sims: SimProcess[] = [];
  afterAll(async () => {
    for (const s of sims) await s.stop();
    for (const s of stacks) await s.stop();
  }, 60_000);

  /** connect's draft of the standard kitchen, completed by the file a person writes: words, rules, measured poses. */
  async function personsFile(url: string): Promise<string> {
    const dir = scratchDir();
    const run = connect(url, join(dir, "draft.json"));
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const draft = ManifestResponse.pick({ robots: true }).parse(
      JSON.parse(readFileSync(join(dir, "draft.json"), "utf8")),
    );
    const written = bundledManifests("kitchen");
    // The person measured each navigation point where the base stands in front of it (here: the layout's numbers).
    const poses = Object.fromEntries(
      NAVIGATION_POINTS.map((point) => [
        point.name,
        { frame_id: "map", position: { x: point.position[0], y: point.position[1], z: 0 }, yaw: point.yaw },
      ]),
    );
    // move_base is the base's go_to: the planner's name for it, its words and rules, its poses.
    const robots = completedDraft(draft.robots, written, { as: { move_base: "go_to" }, poses });
    const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash") });
    const file = join(dir, "kitchen-standard.json");
    writeFileSync(file, JSON.stringify({ robots, world: world.description }));
    await world.close();
    return file;
  }

  it("drafts move_base and raw cameras, and runs the default CLEA task to the simulator's success; a SIGKILL mid-move_base resumes without a goal sent twice", async () => {
    const stack = await startRos();
    stacks.push(stack);
    sims.push(await startSimProcess("kitchen", ["--ros", stack.url, "--standard"], 60_000));
    const file = personsFile(stack.url);
    const personsManifests = JSON.parse(readFileSync(await file, "utf8")) as { robots: RobotManifest[] };
    const mobile = personsManifests.robots.find((r) => r.id === "mobile")!;
    expect(mobile.cameras[0]).toMatchObject({
      image: "/mobile/camera/image_raw",
      imageType: "sensor_msgs/msg/Image",
      depth: "/mobile/camera/depth/image_raw",
      info: "/mobile/camera/camera_info",
      detections: "/mobile/detections",
      width: 320,
      height: 240,
    });
    expect(mobile.skills.find((s) => s.name === "go_to")).toMatchObject({
      action: "/mobile/move_base",
      actionType: "move_base_msgs/MoveBase",
      goal: { template: { target_pose: { $pose: "navigation_point" } } },
    });
    const data = scratchDir();
    const common = [
      "--bridge-url",
      stack.url,
      "--manifest",
      await file,
      "--thread",
      "standard-crash",
      "--data-dir",
      data,
      "--runs-dir",
      join(data, "runs"),
    ];
    // The world is paused (as Gazebo's pause_physics) until the agent is dead: its first goal, move_base's, is
    // accepted and waits, so the kill, sent once the robot has it, lands mid-move_base however late it is sent.
    const watcher = await BridgeClient.connect(stack.url);
    try {
      await learnDialect(watcher);
      await watcher.callService(PAUSE_SERVICE, {});
      let armed = false;
      const first = await agent(common, (_line, kill) => {
        if (armed) return;
        armed = true;
        killWhenStarted(watcher, "standard-crash/0/", kill);
      });
      expect(first.signal, first.out).toBe("SIGKILL");
      expect(first.out).toMatch(/dispatch +goal standard-crash\/0\/mobile\/go_to/);
      // The robot holds the goal, not yet ended, when the world goes on.
      const held = await watcher.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events");
      expect(held.events.filter((e) => e.goalId?.startsWith("standard-crash/0/")).map((e) => e.kind)).toEqual([
        "skill_started",
      ]);
      await watcher.callService(UNPAUSE_SERVICE, {});
      const second = await agent([...common, "--resume"]);
      expect(second.code, second.out).toBe(0);
      expect(second.out).toMatch(/re-attaching to goal standard-crash\/0\/mobile\/go_to/);
      expect(second.out).toMatch(/SUCCESS — succeeded/);
      expect(second.out).not.toMatch(/simulator's check says/);
      const { events } = await watcher.callService<{ events: { kind: string; goalId?: string }[] }>(
        "/evaluator/events",
      );
      const started = events.filter((e) => e.kind === "skill_started").map((e) => e.goalId);
      expect(started.length).toBeGreaterThan(3);
      expect(new Set(started).size).toBe(started.length);
      expect((await watcher.callService<{ success: boolean }>("/evaluator/check")).success).toBe(true);
    } finally {
      await watcher.close();
    }
    // The run's record keeps move_base's feedback.
    expect(readFileSync(join(data, "runs", "standard-crash", "feedback.jsonl"), "utf8")).toMatch(
      /"skill":"go_to".*base_position/,
    );
  }, 300_000);

  it("runs the default CLEA task over MCP on the server's robot (its bridge and manifest file) to the simulator's success", async () => {
    const stack = await startRos();
    stacks.push(stack);
    sims.push(await startSimProcess("kitchen", ["--ros", stack.url, "--standard"], 60_000));
    const file = await personsFile(stack.url);
    const { client: mcpClient } = await mcpServer(["--bridge-url", stack.url, "--manifest", file]);
    try {
      const lines: string[] = [];
      const result = (await mcpClient.callTool({ name: "run_closed_loop", arguments: {} }, undefined, {
        timeout: 240_000,
        onprogress: (update) => lines.push(update.message ?? ""),
      })) as CallToolResult;
      expect(result.structuredContent, JSON.stringify(result.content)).toMatchObject({
        status: "succeeded",
        success: true,
        checked: true,
      });
      // On the robot behind the reference rosbridge, through the manifest file's move_base: no simulator of its own.
      expect(lines.join("\n")).toMatch(/goal closedLoop-\w+\/\d+\/mobile\/go_to/);
      expect(lines.join("\n")).not.toMatch(/simulator \(scenario/);
    } finally {
      await mcpClient.close();
    }
  }, 300_000);
});
