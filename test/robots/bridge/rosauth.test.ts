/**
 * rosauth's MAC and how the client uses it: the digest against one computed independently, the secret from the
 * environment or a file, a secret harmless to our own bridge (which keeps its token), and a rosbridge that closes the
 * socket on a refused or missing `auth` reported as such — by a stand-in server that refuses the way rosbridge does
 * (a close frame without a status code, before it says anything). test/robots/rosauth.int.test.ts does the same
 * against the reference rosbridge and rosauth.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { BridgeServer } from "../../../robots/bridge/server";
import { BridgeClient } from "../../../robots/bridge/client";
import { RosAuthError } from "../../../robots/bridge/errors";
import { authOp, rosauthMac, rosSecretFromEnvironment } from "../../../robots/bridge/rosauth";
import { scratchDir } from "../../helpers/episode";

const SECRET = "abcdefghijklmnop";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  while (cleanups.length) await cleanups.pop()!();
});

describe("rosauth's MAC", () => {
  it("is the SHA-512 hex of secret, client, dest, rand, t, level and end as rosauth's C++ streams them", () => {
    // python3 -c 'import hashlib; print(hashlib.sha512(b"abcdefghijklmnop192.168.1.101192.168.1.111xyzabc1795898600admin1795898720").hexdigest())'
    const expected =
      "b41170c7bd92c6a16a5077e7bb7762c345d2a262908f6f7dc94de7478e60ccde91a4af99f6055061ae973c092a24f2168f0b1cc1f85eaea02241d71d2d6a38b9";
    const fields = {
      client: "192.168.1.101",
      dest: "192.168.1.111",
      rand: "xyzabc",
      t: 1795898600,
      level: "admin",
      end: 1795898720,
    };
    expect(rosauthMac(SECRET, fields)).toBe(expected);
    // rosauth hashes the times' whole seconds; a fraction would hash text rosauth never sees.
    expect(() => rosauthMac(SECRET, { ...fields, t: 1795898600.5 })).toThrow(/whole seconds/);
  });

  it("the auth op carries whole seconds from this machine's clock, an end after them, and its own MAC", () => {
    const op = authOp(SECRET, { client: "127.0.0.1", dest: "robot.local" }, 1_795_898_600_750);
    expect(op).toMatchObject({ op: "auth", client: "127.0.0.1", dest: "robot.local", t: 1795898600 });
    expect(op.end).toBeGreaterThan(op.t);
    expect(op.rand).toMatch(/^[0-9a-f]{32}$/);
    expect(op.mac).toBe(rosauthMac(SECRET, op));
    expect(authOp(SECRET, { client: "", dest: "" }).rand).not.toBe(op.rand);
  });
});

describe("the secret", () => {
  it("comes from ROBOGRAPH_ROS_SECRET or the first line of ROBOGRAPH_ROS_SECRET_FILE, and must be 16 characters", async () => {
    const dir = scratchDir();
    const file = join(dir, "secret");
    writeFileSync(file, `${SECRET}\nsecond line ignored, as rosauth ignores it\n`);
    expect(rosSecretFromEnvironment({})).toBeUndefined();
    expect(rosSecretFromEnvironment({ ROBOGRAPH_ROS_SECRET: SECRET })).toBe(SECRET);
    expect(rosSecretFromEnvironment({ ROBOGRAPH_ROS_SECRET_FILE: file })).toBe(SECRET);
    expect(() => rosSecretFromEnvironment({ ROBOGRAPH_ROS_SECRET: SECRET, ROBOGRAPH_ROS_SECRET_FILE: file })).toThrow(
      /both set/,
    );
    expect(() => rosSecretFromEnvironment({ ROBOGRAPH_ROS_SECRET: "short" })).toThrow(
      /ROBOGRAPH_ROS_SECRET holds 5 characters; rosauth's secret is exactly 16/,
    );
    const missing = join(dir, "nowhere");
    let error: Error | undefined;
    try {
      rosSecretFromEnvironment({ ROBOGRAPH_ROS_SECRET_FILE: missing });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(new RegExp(`cannot read ROBOGRAPH_ROS_SECRET_FILE ${missing}: ENOENT`));
    expect((error?.cause as NodeJS.ErrnoException)?.code).toBe("ENOENT");
    await expect(BridgeClient.connect("ws://127.0.0.1:9", { rosSecret: "x".repeat(17) })).rejects.toThrow(
      /the rosSecret option holds 17 characters/,
    );
  });
});

describe("a client with a ROS secret", () => {
  it("still talks to our own bridge, which ignores the auth op and keeps its token", async () => {
    const bridge = new BridgeServer({ port: 0, token: "bridge-token" });
    await bridge.start();
    cleanups.push(() => bridge.close());
    const client = await BridgeClient.connect(bridge.url, { token: "bridge-token", rosSecret: SECRET });
    cleanups.push(() => client.close());
    const { topics } = await client.callService<{ topics: string[] }>("/rosapi/topics");
    expect(Array.isArray(topics)).toBe(true);
  });
});

/**
 * A server that refuses as ROS 1 rosbridge does with `authenticate:=true`: a first message other than an `auth` op
 * with `goodMac`, or an auth op without it, closes the socket without a status code; after a good one it answers
 * service calls with an empty success.
 */
async function refusingRosbridge(goodMac: (op: Record<string, unknown>) => boolean) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  let connections = 0;
  server.on("connection", (socket) => {
    connections++;
    let authenticated = false;
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (!authenticated) {
        if (message.op === "auth" && goodMac(message)) authenticated = true;
        else socket.close();
        return;
      }
      if (message.op === "call_service")
        socket.send(
          JSON.stringify({
            op: "service_response",
            id: message.id,
            service: message.service,
            result: true,
            values: {},
          }),
        );
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    /** Drops every connection as a restarting robot would. */
    dropAll: () => server.clients.forEach((socket) => socket.terminate()),
  };
}

describe("a rosbridge that requires authentication", () => {
  const checksMac = (op: Record<string, unknown>) =>
    op.mac === rosauthMac(SECRET, op as unknown as Parameters<typeof rosauthMac>[1]);

  it("is authenticated with the right secret", async () => {
    const rosbridge = await refusingRosbridge(checksMac);
    const client = await BridgeClient.connect(rosbridge.url, { rosSecret: SECRET });
    cleanups.push(() => client.close());
    expect(await client.callService("/rosapi/get_time")).toEqual({});
  });

  it("refuses a wrong secret: 'authentication refused', after one attempt", async () => {
    const rosbridge = await refusingRosbridge(checksMac);
    const err = await BridgeClient.connect(rosbridge.url, {
      rosSecret: "ponmlkjihgfedcba",
      connectAttempts: 4,
      backoffMs: 10,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RosAuthError);
    expect((err as Error).message).toMatch(
      new RegExp(`^authentication refused by rosbridge at ${rosbridge.url} \\(check ROBOGRAPH_ROS_SECRET`),
    );
    expect(rosbridge.connections()).toBe(1);
  });

  it("closes on a client without a secret at its first request, which says authentication is required", async () => {
    const rosbridge = await refusingRosbridge(checksMac);
    // Whatever secret this process's environment holds.
    vi.stubEnv("ROBOGRAPH_ROS_SECRET", undefined);
    vi.stubEnv("ROBOGRAPH_ROS_SECRET_FILE", undefined);
    const client = await BridgeClient.connect(rosbridge.url, { backoffMs: 10 });
    cleanups.push(() => client.close());
    const closed = new Promise<unknown>((resolve) => client.once("close", resolve));
    const err = await client.callService("/rosapi/topics").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RosAuthError);
    expect((err as Error).message).toMatch(
      new RegExp(`^authentication required by rosbridge at ${rosbridge.url}: .*set ROBOGRAPH_ROS_SECRET`),
    );
    expect(await closed).toBe(err);
    expect(client.closed).toBe(true);
    // No reconnecting into the same refusal; later requests say why.
    await expect(client.callService("/rosapi/topics")).rejects.toBe(err);
    expect(rosbridge.connections()).toBe(1);
  });

  it("authenticates again on reconnecting, and a refusal then ends the client with that reason", async () => {
    let secret = SECRET;
    const rosbridge = await refusingRosbridge(
      (op) => op.mac === rosauthMac(secret, op as unknown as Parameters<typeof rosauthMac>[1]),
    );
    const client = await BridgeClient.connect(rosbridge.url, { rosSecret: SECRET, backoffMs: 10 });
    cleanups.push(() => client.close());
    rosbridge.dropAll();
    await new Promise((resolve) => client.once("reconnect", resolve));
    expect(await client.callService("/rosapi/get_time")).toEqual({});
    // The robot's secret changes while this client is away.
    secret = "ponmlkjihgfedcba";
    const closed = new Promise<unknown>((resolve) => client.once("close", resolve));
    rosbridge.dropAll();
    const why = await closed;
    expect(why).toBeInstanceOf(RosAuthError);
    expect(client.closed).toBe(true);
    await expect(client.callService("/rosapi/get_time")).rejects.toBe(why);
    expect(rosbridge.connections()).toBe(3);
  });
});
