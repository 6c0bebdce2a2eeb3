/**
 * `robograph mcp` driven by the MCP SDK's own client, over stdio (the SDK spawns the server) and over Streamable HTTP,
 * against real kitchen simulators: the tools and their schemas, a skill that changes what the robot sees, `look`'s image,
 * a method run with progress notifications and its record as a resource, approvals asked by elicitation, bad input, and
 * the emergency stop during a running skill.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { bundledManifests } from "../../robots/manifests";
import { ROOT, descendants, startSim } from "../helpers/processes";
import { programArgs } from "../../robots/programs";
import { mcpServer, type McpServerOptions } from "../helpers/mcp";

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "robograph-mcp-"));
  dirs.push(dir);
  return dir;
};
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A server on stdio (spawned by the SDK's transport) and a client; `answer` set: the client supports elicitation. */
async function stdioClient(args: string[], answer?: McpServerOptions["answer"], env?: Record<string, string>) {
  const { client } = await mcpServer(args, { answer, env });
  clients.push(client);
  return client;
}

const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (p: { progress: number; message?: string }) => void,
) =>
  (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 600_000,
    ...(onprogress ? { onprogress } : {}),
  })) as CallToolResult;
const textOf = (result: CallToolResult) =>
  result.content
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
const imageOf = (result: CallToolResult) =>
  result.content.find((p) => p.type === "image") as { data: string; mimeType: string } | undefined;

describe("robograph mcp over stdio", () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient(["--world", "kitchen"]);
  }, 120_000);

  it("serves every skill with its manifest's schema, look, the emergency stop and one tool per method", async () => {
    const { tools } = await client.listTools();
    const manifests = bundledManifests("kitchen");
    for (const m of manifests)
      for (const s of m.skills) {
        const tool = tools.find((x) => x.name === `${m.id}__${s.name}`);
        expect(tool, `${m.id}.${s.name}`).toBeDefined();
        expect(tool!.inputSchema).toEqual(s.parameters);
      }
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "look",
        "emergency_stop",
        "run_closed_loop",
        "run_replan",
        "run_vlmpc",
        "run_behavior_critic",
        "run_curriculum",
        "resume_run",
      ]),
    );
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["robograph://manifests", "robograph://world"]);
    const world = JSON.parse(
      ((await client.readResource({ uri: "robograph://world" })).contents[0] as { text: string }).text,
    );
    expect(world.name).toBe("kitchen");
  });

  it("a skill changes what the robot's camera shows; look returns the frame as a PNG with its detections", async () => {
    const before = await call(client, "look", { robot: "mobile" });
    const png = Buffer.from(imageOf(before)!.data, "base64");
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(textOf(before)).toMatch(/^mobile sees: /);
    const went = await call(client, "mobile__go_to", { navigation_point: "in_front_of_refrigerator" });
    expect(went.isError ?? false, textOf(went)).toBe(false);
    expect(went.structuredContent).toMatchObject({ ok: true, status: "succeeded" });
    const after = await call(client, "look", { robot: "mobile" });
    expect(imageOf(after)!.data).not.toBe(imageOf(before)!.data);
  });

  it("bad input is a tool error that says why, and the server goes on serving", async () => {
    const bad = await call(client, "mobile__go_to", { navigation_point: "the_moon" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/invalid arguments for mobile\.go_to: navigation_point/);
    const unknown = await call(client, "mobile__fly", {});
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/robot mobile has no skill fly; it has: go_to/);
    const noTool = await call(client, "teleport", {});
    expect(textOf(noTool)).toMatch(/unknown tool teleport/);
    const wrongVariant = await call(client, "run_closed_loop", { variant: "no-such" });
    expect(textOf(wrongVariant)).toMatch(/variant must be one of full, no-critic/);
    const noRun = await call(client, "resume_run", { thread: "never-was" });
    expect(textOf(noRun)).toMatch(/no run "never-was"/);
    await expect(client.readResource({ uri: "robograph://runs/never-was/report.md" })).rejects.toThrow(/no resource/);
    expect((await call(client, "look", { robot: "arm" })).isError ?? false).toBe(false);
  });

  it("run_closed_loop does the default task (from where the robots stand now), sending a progress notification per node; its record is a resource", async () => {
    const progress: string[] = [];
    const result = await call(client, "run_closed_loop", {}, (p) => progress.push(p.message ?? ""));
    expect(result.isError ?? false, textOf(result)).toBe(false);
    const summary = result.structuredContent as {
      thread: string;
      status: string;
      success: boolean;
      checked: boolean;
      steps: number;
      modelCalls: number;
      record: string;
    };
    expect(summary).toMatchObject({ status: "succeeded", success: true, checked: true });
    expect(summary.steps).toBeGreaterThan(0);
    expect(progress.filter((m) => /^\[\s*\d+\] (perceiver|planner|critic|executor)/.test(m)).length).toBeGreaterThan(4);
    const report = (await client.readResource({ uri: summary.record })).contents[0] as { text: string };
    expect(report.text).toMatch(/## Result: succeeded/);
    expect((await client.listResources()).resources.map((x) => x.uri)).toContain(summary.record);
    // Another goal than the scenario's: checked on the literals given, or not at all — never on the scenario's goal.
    const other = await call(client, "run_closed_loop", { goal: "Find the apple and report where it is." });
    expect(other.structuredContent, textOf(other)).toMatchObject({
      checked: false,
      success: null,
      unchecked: expect.stringMatching(/not scenario/),
    });
  }, 300_000);
});

describe("robograph mcp: approvals and the emergency stop", () => {
  it("a skill that needs approval is refused when the client declines or cannot be asked, and runs when it accepts", async () => {
    const args = ["--world", "kitchen", "--approve", "mobile/open"];
    const declining = await stdioClient(args, "decline");
    const no = await call(declining, "mobile__open", { target: "refrigerator" });
    expect(no.isError).toBe(true);
    expect(textOf(no)).toMatch(/was not approved \(declined\): nothing was sent/);
    const mute = await stdioClient(args);
    expect(textOf(await call(mute, "mobile__open", { target: "refrigerator" }))).toMatch(/cannot be asked/);
    const accepting = await stdioClient(args, "accept");
    // It asks, then sends: the robot's own answer comes back (here: it is not in front of the refrigerator).
    const yes = await call(accepting, "mobile__open", { target: "refrigerator" });
    expect(yes.structuredContent).toMatchObject({ status: expect.stringMatching(/succeeded|aborted/) });
  }, 180_000);

  it("inside a method run, each skill that needs approval is asked of the client before the robot gets it", async () => {
    const asked: string[] = [];
    const client = await stdioClient(["--world", "kitchen", "--approve", "arm/release_to"], (message) =>
      asked.push(message),
    );
    const progress: string[] = [];
    const result = await call(client, "run_closed_loop", {}, (p) => progress.push(p.message ?? ""));
    expect(result.structuredContent, textOf(result)).toMatchObject({ status: "succeeded", success: true });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]).toMatch(/release_to/);
    expect(progress).toContain("approval of arm/release_to: accepted");
  }, 300_000);

  it("emergency_stop cancels a skill in flight: it ends canceled, and the robot takes the next one", async () => {
    const client = await stdioClient(["--world", "kitchen", "--speed", "1"]);
    const going = call(client, "mobile__go_to", { navigation_point: "in_front_of_sink" });
    await new Promise((r) => setTimeout(r, 1500));
    const stop = await call(client, "emergency_stop", { reason: "test" });
    expect(textOf(stop)).toMatch(/canceled 1 skill call/);
    const result = await going;
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { status: string }).status).toMatch(/canceled|aborted/);
    const next = await call(client, "mobile__go_to", { navigation_point: "in_front_of_table" });
    expect(next.structuredContent).toMatchObject({ ok: true, status: "succeeded" });
  }, 120_000);

  it("a run stopped mid-episode ends interrupted, and resume_run finishes it from its last checkpoint", async () => {
    const client = await stdioClient(["--world", "kitchen", "--speed", "2"]);
    let executed = 0;
    const first = call(client, "run_closed_loop", {}, (notification) => {
      if (/^\[\s*\d+\] executor/.test(notification.message ?? "")) executed++;
    });
    while (executed < 1) await new Promise((r) => setTimeout(r, 200));
    await call(client, "emergency_stop", { reason: "test" });
    const stopped = await first;
    const summary = stopped.structuredContent as { thread: string; status: string; statusReason: string };
    expect(summary.status, textOf(stopped)).toBe("interrupted");
    expect(textOf(stopped)).toMatch(/resume_run/);
    const resumed = await call(client, "resume_run", { thread: summary.thread });
    expect(resumed.structuredContent, textOf(resumed)).toMatchObject({
      thread: summary.thread,
      status: "succeeded",
      success: true,
      checked: true,
    });
  }, 300_000);
});

describe("robograph mcp: a campaign", () => {
  it("run_curriculum runs in the server's process (its simulators its only children); stopped it ends interrupted, and resume_run finishes it", async () => {
    const { client } = await mcpServer(["--world", "kitchen"]);
    clients.push(client);
    const serverPid = (client.transport as unknown as { pid: number }).pid;
    const lines: string[] = [];
    const first = call(client, "run_curriculum", { budget_episodes: 40, seed: 3, instances: 1 }, (notification) => {
      lines.push(notification.message ?? "");
    });
    let settled = false;
    void first.finally(() => (settled = true));
    // Stopped once it has embodied an episode or two.
    while (!settled && !lines.some((line) => /^[1-9]\d*\/40 episodes · cycle/.test(line)))
      await new Promise((r) => setTimeout(r, 200));
    expect(settled, "the run ended before it could be stopped").toBe(false);
    const children = descendants(serverPid).map((d) => d.argv);
    expect(textOf(await call(client, "emergency_stop", { reason: "test" }))).toMatch(/stopped 1 run\(s\)/);
    const stopped = await first;
    const summary = stopped.structuredContent as { thread: string; status: string; statusReason: string };
    expect(summary.status, textOf(stopped)).toBe("interrupted");
    expect(textOf(stopped)).toMatch(/resume_run/);
    expect(lines[0]).toMatch(/^robograph curriculum: symbolic reasoner \(offline\); 1 instance\(s\)/);
    // No `robograph run` child: the kitchen simulator the server serves and the curriculum's one blocks simulator.
    expect(
      children.some((argv) => argv.includes("--graph")),
      JSON.stringify(children),
    ).toBe(false);
    expect(children.filter((argv) => argv.includes("--instance"))).toHaveLength(1);

    // auto_approve means nothing to a campaign (it has nothing to approve), and does not stop its resume.
    const again: string[] = [];
    const resumed = await call(client, "resume_run", { thread: summary.thread, auto_approve: true }, (notification) => {
      again.push(notification.message ?? "");
    });
    expect(resumed.structuredContent, textOf(resumed)).toMatchObject({ thread: summary.thread });
    // On as many simulators as it was started with.
    expect(again[0]).toMatch(/; 1 instance\(s\)/);
    // It went on from where it stopped, to its budget's end.
    const after = resumed.structuredContent as { status: string; counters: { episodes: number } };
    expect(after.status).toBe("budget_exhausted");
    expect(after.counters.episodes).toBeGreaterThanOrEqual(40);
    // Its simulators stopped with it.
    expect(descendants(serverPid).filter((d) => d.argv.includes("--instance"))).toEqual([]);
  }, 600_000);
});

describe("robograph mcp: a robot that drops off", () => {
  it("a skill sent after the robot's bridge went away is a tool error that says so", async () => {
    const sim = await startSim(["--speed", "max"]);
    try {
      const client = await stdioClient(["--bridge-url", sim.url]);
      expect(
        (await call(client, "mobile__go_to", { navigation_point: "in_front_of_table" })).structuredContent,
      ).toMatchObject({ ok: true });
      await sim.stop("SIGKILL");
      const result = await call(client, "mobile__go_to", { navigation_point: "in_front_of_sink" });
      expect(result.isError).toBe(true);
      // Its socket closed and not back within the liveness window: the robot is lost, said at once, not by a timeout.
      expect(result.structuredContent, textOf(result)).toMatchObject({
        ok: false,
        status: "robot_lost",
        error: expect.stringMatching(/robot lost/),
      });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await sim.stop();
    }
  }, 120_000);
});

describe("robograph mcp: a model endpoint that is down", () => {
  it("a method run ends interrupted as a tool error that says how to resume it; the server goes on serving", async () => {
    // Nothing listens on port 9: every request is refused at once (no retries asked for).
    const client = await stdioClient(["--world", "workbench"], undefined, {
      OPENAI_API_KEY: "test",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      ROBOGRAPH_MODEL_BACKEND: "openai",
      ROBOGRAPH_MODEL_RETRIES: "0",
    });
    const result = await call(client, "run_behavior_critic", {});
    expect(result.isError, textOf(result)).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "interrupted" });
    expect(textOf(result)).toMatch(/resume_run \{"thread": "behaviorCritic-/);
    expect((await call(client, "look", {})).isError ?? false).toBe(false);
  }, 120_000);
});

describe("robograph mcp over Streamable HTTP", () => {
  let server: ChildProcess;
  let url = "";
  beforeAll(async () => {
    const dir = scratch();
    server = spawn(
      process.execPath,
      programArgs("cli/robograph.ts", [
        "mcp",
        "--world",
        "kitchen",
        "--http",
        "0",
        "--token",
        "sesame",
        "--data-dir",
        join(dir, "data"),
        "--runs-dir",
        join(dir, "runs"),
      ]),
      { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout!.on("data", (chunk: Buffer) => {
        out += chunk;
        const match = /Streamable HTTP at (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1].replace("0.0.0.0", "127.0.0.1"));
      });
      server.on("exit", (code) => reject(new Error(`mcp server exited ${code}: ${out}`)));
    });
  }, 120_000);
  afterAll(() => {
    server?.kill("SIGTERM");
  });

  it("serves the same tools to a client with the token, and refuses one without it", async () => {
    const client = new Client({ name: "http-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer sesame" } } }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("mobile__go_to");
    const look = await call(client, "look", {});
    expect(imageOf(look)?.mimeType).toBe("image/png");
    const stranger = new Client({ name: "stranger", version: "1" });
    await expect(stranger.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|token/i);
  });
});
