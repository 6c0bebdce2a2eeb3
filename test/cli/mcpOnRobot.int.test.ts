/**
 * Methods over MCP on a robot of the user's own: a rospy robot of standard messages (test/fixtures/ros/standard_robot.py)
 * behind the reference rosbridge, described by connect's draft completed as a person would, with a world block of its
 * own. An MCP server started on it (--bridge-url, --manifest) runs run_closed_loop on that robot and ends as the CLI run
 * on that robot does — the offline reasoner's clear refusal of a robot without detections — never in another world; a
 * manifest file without a world block is refused naming what to add. (The completed run on a manifest robot whose
 * camera has detections is the kitchen-as-standard-robot's, in test/robots/standard.int.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ManifestResponse } from "../../robots/manifests/schema";
import { METHODS } from "../../graphs";
import { scratchDir } from "../helpers/episode";
import { ROOT } from "../helpers/processes";
import { mcpServer, textOf } from "../helpers/mcp";
import { completedStandardDraft, requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";
import { programArgs } from "../../robots/programs";

const ROBOT = join(ROOT, "test", "fixtures", "ros", "standard_robot.py");
const available = requireRosOrSkip();

const robograph = (args: string[]) =>
  spawnSync(process.execPath, programArgs("cli/robograph.ts", args), {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 180_000,
  });

describe.skipIf(!available)("methods over MCP on a robot of the user's own", () => {
  let ros: RosStack;
  let withWorld: string;
  let withoutWorld: string;
  const clients: Client[] = [];

  /** An MCP server on the robot, as a desktop client would start it, and the SDK's client on it. */
  async function serverOn(manifest: string) {
    const server = await mcpServer(["--bridge-url", ros.url, "--manifest", manifest]);
    clients.push(server.client);
    return server;
  }

  beforeAll(async () => {
    ros = await startRos();
    await ros.node(ROBOT);
    const dir = scratchDir();
    const drafted = robograph(["connect", ros.url, "--out", join(dir, "draft.json")]);
    expect(drafted.status, drafted.stdout + drafted.stderr).toBe(0);
    const draft = ManifestResponse.pick({ robots: true }).parse(
      JSON.parse(readFileSync(join(dir, "draft.json"), "utf8")),
    ).robots[0];
    const robot = completedStandardDraft(draft);
    const world = {
      name: "flat",
      places: [{ name: "charger", kind: "surface", openable: false }],
      navigationPoints: ["dock_front", "window"],
      labels: ["cup"],
    };
    withWorld = join(dir, "flat.json");
    writeFileSync(withWorld, JSON.stringify({ robots: [robot], world }));
    withoutWorld = join(dir, "no-world.json");
    writeFileSync(withoutWorld, JSON.stringify({ robots: [robot] }));
  }, 180_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await ros?.stop();
  }, 60_000);

  it("runs every method tool on the server's robot, and run_closed_loop ends as the CLI run on that robot does", async () => {
    const { client, runs } = await serverOn(withWorld);
    const { tools } = await client.listTools();
    for (const method of METHODS.filter((listed) => !listed.campaign))
      expect(tools.find((tool) => tool.name === method.tool)?.description).toMatch(/Runs on this server's robots\./);
    // A robot of one's own has no scenario: the task must be said.
    const noGoal = (await client.callTool({ name: "run_closed_loop", arguments: {} })) as CallToolResult;
    expect(noGoal.isError).toBe(true);
    expect(textOf(noGoal)).toMatch(
      /--goal: the robot of .*flat\.json \(world flat\) has no scenario to take a task from/,
    );
    const progress: string[] = [];
    const viaMcp = (await client.callTool(
      { name: "run_closed_loop", arguments: { goal: "Go to the window." } },
      undefined,
      { timeout: 180_000, onprogress: (update) => progress.push(update.message ?? "") },
    )) as CallToolResult;
    // The run went to this robot (its bridge, its manifest), never to a kitchen simulator of its own.
    expect(progress.join("\n")).not.toMatch(/simulator \(scenario/);
    expect(viaMcp.isError).toBe(true);
    expect(textOf(viaMcp)).toMatch(
      /run_closed_loop \(thread closedLoop-\w+\): .*robot base publishes no detections .* offline reasoner reads only detections: run with a VLM/,
    );
    // The run's record (the refused call above left only its request).
    const runDirs = readdirSync(runs).filter((dir) => existsSync(join(runs, dir, "summary.json")));
    expect(runDirs).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(runs, runDirs[0], "mcp.json"), "utf8"))).toMatchObject({
      bridgeUrl: ros.url,
      manifest: withWorld,
    });
    // The CLI on the same robot: the same refusal (exit 1), its run named after the robot's world and goal.
    const data = scratchDir();
    const viaCli = robograph([
      "run",
      "--bridge-url",
      ros.url,
      "--manifest",
      withWorld,
      "--goal",
      "Go to the window.",
      "--data-dir",
      data,
      "--runs-dir",
      join(data, "runs"),
    ]);
    expect(viaCli.status, viaCli.stdout + viaCli.stderr).toBe(1);
    expect(viaCli.stderr).toMatch(/robot base publishes no detections .* offline reasoner reads only detections/);
    const [cliRun] = readdirSync(join(data, "runs"));
    expect(cliRun).toMatch(/^flat-go-to-the-window-\w{8}$/);
    const summary = JSON.parse(readFileSync(join(data, "runs", cliRun, "summary.json"), "utf8"));
    expect(summary).toMatchObject({
      world: "flat",
      checked: false,
      unchecked: expect.stringMatching(/robot of your own/),
    });
    expect(summary.scenario).toBeUndefined();
  }, 300_000);

  it("refuses a manifest file without a world block, naming what to add, and starts nothing in its stead", async () => {
    const { client, runs } = await serverOn(withoutWorld);
    const refused = (await client.callTool({
      name: "run_replan",
      arguments: { goal: "Put the cup on the charger." },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/no-world\.json has no "world" block: the replan graph plans over .* Add one/);
    expect(
      existsSync(runs) ? readdirSync(runs).filter((dir) => existsSync(join(runs, dir, "summary.json"))) : [],
    ).toEqual([]);
  }, 120_000);
});
