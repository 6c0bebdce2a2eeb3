/**
 * The reference rosbridge run with `authenticate:=true` beside rosauth's node (ros/kit/start.sh with
 * ROSBRIDGE_AUTH_SECRET_FILE), and a standard rospy robot behind it: the right secret reaches rosapi and carries a
 * publish/subscribe round trip, a wrong one is reported as "authentication refused", none at all as "authentication
 * required" (rosbridge closes the socket at the first request), and `robograph connect` drafts the robot's manifest
 * with the secret in its environment. The digest itself is checked in test/robots/bridge/rosauth.test.ts.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, connect as connectTcp, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { RosAuthError } from "../../robots/bridge/errors";
import { ManifestResponse } from "../../robots/manifests/schema";
import { learnDialect } from "../../tools/skills";
import { ROOT } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";
import { programArgs } from "../../robots/programs";

const SECRET = "r0b0graph-s3cret";
const ROBOT = join(ROOT, "test", "fixtures", "ros", "standard_robot.py");
const available = requireRosOrSkip();

/** `robograph connect URL --out FILE` in a process whose environment holds `secretEnv` and no other ROS secret. */
function connectCommand(url: string, out: string, secretEnv: Record<string, string>) {
  const { ROBOGRAPH_ROS_SECRET: _inline, ROBOGRAPH_ROS_SECRET_FILE: _file, ...env } = process.env;
  return spawnSync(process.execPath, programArgs("cli/robograph.ts", ["connect", url, "--out", out]), {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 90_000,
    env: { ...env, ...secretEnv },
  });
}

/** A TCP proxy on a free loopback port in front of `target`, counting the connections made through it. */
async function countingProxy(target: URL) {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    count++;
    const outbound = connectTcp(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}${target.pathname === "/" ? "" : target.pathname}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("the reference kit's options", () => {
  it.skipIf(!available)("refuses a secret file rosauth would refuse, before starting anything", async () => {
    const file = join(scratchDir(), "secret");
    writeFileSync(file, "too short\n");
    await expect(startRos({ authSecretFile: file })).rejects.toThrow(
      /first line of .* has 9 characters; rosauth needs 16/,
    );
  });
});

describe.skipIf(!available)("a rosbridge that requires rosauth's authentication", () => {
  let ros: RosStack;
  let secretFile: string;
  let dir: string;
  const clients: BridgeClient[] = [];
  const connect = async (rosSecret?: string) => {
    const client = await BridgeClient.connect(ros.url, { rosSecret, connectAttempts: 3, backoffMs: 50 });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    // Only what each case passes: never a secret from the environment this suite runs in.
    vi.stubEnv("ROBOGRAPH_ROS_SECRET", undefined);
    vi.stubEnv("ROBOGRAPH_ROS_SECRET_FILE", undefined);
    dir = scratchDir();
    secretFile = join(dir, "rosauth.secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    ros = await startRos({ authSecretFile: secretFile });
    await ros.node(ROBOT);
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await ros?.stop();
    vi.unstubAllEnvs();
  }, 60_000);

  it("with the right secret: rosapi answers and a topic carries messages between two clients", async () => {
    const talker = await connect(SECRET);
    const listener = await connect(SECRET);
    await learnDialect(talker);
    await learnDialect(listener);
    expect(talker.dialect).toBe("ros1");
    const { topics } = await talker.callService<{ topics: string[] }>("/rosapi/topics");
    expect(topics).toContain("/base/last_goal");
    const heard: string[] = [];
    listener.subscribe<{ data: string }>("/rosauth_check/chatter", "std_msgs/msg/String", (m) => heard.push(m.data));
    talker.advertise("/rosauth_check/chatter", "std_msgs/msg/String");
    // ROS connects publisher and subscriber in its own time: say it until it is heard.
    await expect
      .poll(
        () => {
          talker.publish("/rosauth_check/chatter", { data: "hello through rosauth" });
          return heard;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toContain("hello through rosauth");
    expect(talker.connected && listener.connected).toBe(true);
  });

  it("with a wrong secret: 'authentication refused', not a connection error, and no retries", async () => {
    // Through a proxy that counts the connections rosbridge is offered: three attempts are allowed, one is made.
    const proxy = await countingProxy(new URL(ros.url));
    try {
      const err = await BridgeClient.connect(proxy.url, {
        rosSecret: "0123456789abcdef",
        connectAttempts: 3,
        backoffMs: 50,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RosAuthError);
      expect((err as Error).message).toMatch(
        new RegExp(`^authentication refused by rosbridge at ${proxy.url} \\(check ROBOGRAPH_ROS_SECRET`),
      );
      expect(proxy.connections()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("with no secret: rosbridge closes the socket at the first request, reported as 'authentication required'", async () => {
    // The socket opens: rosbridge says nothing until a message comes, and then closes it unanswered.
    const client = await connect();
    const err = await client.callService("/rosapi/topics").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RosAuthError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^authentication required by rosbridge at ${ros.url}: it closed the connection at this client's first request.*ROBOGRAPH_ROS_SECRET`,
      ),
    );
    expect(client.closed).toBe(true);
    await expect(client.callService("/rosapi/topics")).rejects.toBe(err);
  });

  it("robograph connect drafts the robot with the secret file in its environment, and says what is missing without", () => {
    const out = join(dir, "draft.json");
    const run = connectCommand(ros.url, out, { ROBOGRAPH_ROS_SECRET_FILE: secretFile });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\(ROS 1\)/);
    const { robots } = ManifestResponse.pick({ robots: true }).parse(JSON.parse(readFileSync(out, "utf8")));
    // rosauth's own /authenticate is rosbridge's business, not a skill of any robot.
    expect(robots.map((r) => r.id)).toEqual(["base"]);
    expect(robots[0].skills.map((s) => s.name)).toEqual(expect.arrayContaining(["dock", "move_base"]));

    const refused = connectCommand(ros.url, join(dir, "none.json"), {});
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/authentication required by rosbridge at .*ROBOGRAPH_ROS_SECRET/);
  });
});
