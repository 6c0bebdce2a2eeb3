/**
 * What a client can make the bridge hold or spend is bounded: connections, unfinished fragments (per connection and in
 * total), name and id lengths, topics a departed client advertised, remembered goals by bytes, replies to a client
 * that never reads, nesting depth and each client's share of the event loop. Real servers and raw `ws` clients on
 * loopback; sizes are scaled down through the server's options so each case stays small.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Server as HttpServer } from "node:http";
import { WebSocket } from "ws";
import { BridgeServer } from "../../../robots/bridge/server";
import { BridgeClient } from "../../../robots/bridge/client";
import { BridgeAuthError } from "../../../robots/bridge/errors";
import { MAX_ID_LENGTH, nestingExceeds } from "../../../robots/bridge/protocol";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function server(opts: ConstructorParameters<typeof BridgeServer>[0] = {}) {
  const bridge = new BridgeServer({ port: 0, ...opts });
  await bridge.start();
  cleanups.push(() => bridge.close());
  return bridge;
}

/** A message the bridge sent: every one has its op; status messages say why in `msg`. */
type Inbound = { op: string; id?: string; msg: string; [field: string]: unknown };

/** A raw client that keeps every message it gets. */
async function raw(url: string, headers?: Record<string, string>) {
  const ws = new WebSocket(url, { headers, maxPayload: 64 * 1024 * 1024 });
  const inbox: Inbound[] = [];
  ws.on("message", (d) => inbox.push(JSON.parse(d.toString())));
  ws.on("error", () => {});
  cleanups.push(async () => ws.terminate());
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once("error", reject);
  });
  const next = async (pred: (m: Inbound) => boolean) => {
    await expect.poll(() => inbox.find(pred), { timeout: 10_000 }).toBeTruthy();
    return inbox.splice(inbox.findIndex(pred), 1)[0];
  };
  const closed = new Promise<void>((r) => ws.once("close", () => r()));
  return { ws, inbox, next, closed };
}

describe("credentials", () => {
  it("takes the Bearer scheme in any case, and an empty ?token= does not hide a correct header", async () => {
    const bridge = await server({ token: "s3cret" });
    await raw(bridge.url, { authorization: "bearer s3cret" });
    await raw(bridge.url, { authorization: "BEARER  s3cret " });
    await raw(`${bridge.url}/?token=`, { authorization: "Bearer s3cret" });
    await expect(raw(`${bridge.url}/?token=`)).rejects.toThrow(/401/);
    await expect(raw(bridge.url, { authorization: "Basic s3cret" })).rejects.toThrow(/401/);
  });

  it("does not retry a connection whose token the server refused", async () => {
    const bridge = await server({ token: "s3cret" });
    let upgrades = 0;
    (bridge as unknown as { http: HttpServer }).http.on("upgrade", () => upgrades++);
    const err = await BridgeClient.connect(bridge.url, { token: "wrong", connectAttempts: 5, backoffMs: 10 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(BridgeAuthError);
    expect(err.message).toMatch(/HTTP 401/);
    expect(upgrades).toBe(1);
  });
});

describe("memory a client can make the server hold", () => {
  it("caps unfinished fragments per connection and over all connections, and frees them when a client leaves", async () => {
    const bridge = await server({ maxMessageBytes: 100_000, maxFragmentBytes: 150_000 });
    const piece = "x".repeat(60_000);
    const clientA = await raw(bridge.url);
    clientA.ws.send(JSON.stringify({ op: "fragment", id: "a1", data: piece, num: 0, total: 3 }));
    // A second unfinished message would put this connection over one message's worth.
    clientA.ws.send(JSON.stringify({ op: "fragment", id: "a2", data: piece, num: 0, total: 3 }));
    expect((await clientA.next((m) => m.id === "a2")).msg).toMatch(
      /unfinished fragmented messages on this connection exceed 100000 bytes/,
    );
    const clientB = await raw(bridge.url);
    clientB.ws.send(JSON.stringify({ op: "fragment", id: "b1", data: piece, num: 0, total: 3 }));
    const clientC = await raw(bridge.url);
    clientC.ws.send(JSON.stringify({ op: "fragment", id: "c1", data: piece, num: 0, total: 3 }));
    expect((await clientC.next((m) => m.id === "c1")).msg).toMatch(/the server holds its limit of 150000 bytes/);
    // clientA leaves: its bytes go back to the pool, and clientC's message fits.
    clientA.ws.close();
    await clientA.closed;
    await expect.poll(() => bridge.clientCount).toBe(2);
    clientC.inbox.length = 0;
    clientC.ws.send(JSON.stringify({ op: "fragment", id: "c2", data: piece, num: 0, total: 3 }));
    clientC.ws.send(
      JSON.stringify({ op: "call_service", id: "ping", service: "/robograph/goal_status", args: { id: "none" } }),
    );
    await clientC.next((m) => m.id === "ping");
    expect(clientC.inbox.filter((m) => m.op === "status")).toEqual([]);
  });

  it("refuses names and ids beyond their bounds without echoing them", async () => {
    const bridge = await server();
    const topicsBefore = bridge.topicCount;
    const peer = await raw(bridge.url);
    peer.ws.send(
      JSON.stringify({ op: "advertise", id: "adv", topic: `/${"n".repeat(300)}`, type: "std_msgs/msg/String" }),
    );
    expect((await peer.next((m) => m.id === "adv")).msg).toMatch(/invalid advertise message: topic: Too big/);
    const longId = "g".repeat(MAX_ID_LENGTH + 1);
    peer.ws.send(
      JSON.stringify({ op: "send_action_goal", id: longId, action: "/robograph/ping", action_type: "x", args: {} }),
    );
    const refusal = await peer.next(
      (m) => m.op === "status" && /invalid send_action_goal message: id: Too big/.test(m.msg),
    );
    expect(refusal.id).toBeUndefined();
    peer.ws.send(JSON.stringify({ op: "x".repeat(100_000) }));
    expect((await peer.next((m) => /unknown op/.test(m.msg ?? ""))).msg.length).toBeLessThan(300);
    expect(bridge.topicCount).toBe(topicsBefore);
    expect(bridge.rememberedGoalBytes).toBe(0);
  });

  it("forgets a topic once every client that advertised it has left", async () => {
    const bridge = await server();
    bridge.advertiseTopic("/robot/camera", "sensor_msgs/msg/CompressedImage");
    const before = bridge.topicCount;
    const clientA = await raw(bridge.url);
    const clientB = await raw(bridge.url);
    for (const c of [clientA, clientB])
      c.ws.send(JSON.stringify({ op: "advertise", topic: "/chatter", type: "std_msgs/msg/String" }));
    clientA.ws.send(JSON.stringify({ op: "advertise", topic: "/only_a", type: "std_msgs/msg/String" }));
    await expect.poll(() => bridge.topicCount).toBe(before + 2);
    clientA.ws.close();
    await expect.poll(() => bridge.topicCount).toBe(before + 1); // /chatter stays: clientB still advertises it
    clientB.ws.send(JSON.stringify({ op: "unadvertise", topic: "/chatter" }));
    await expect.poll(() => bridge.topicCount).toBe(before);
    // The server's own topics never go.
    clientB.ws.send(
      JSON.stringify({ op: "advertise", topic: "/robot/camera", type: "sensor_msgs/msg/CompressedImage" }),
    );
    clientB.ws.close();
    await expect.poll(() => bridge.clientCount).toBe(0);
    expect(bridge.topicCount).toBe(before);
  });

  it("bounds remembered goals by bytes, forgetting the oldest finished ones first", async () => {
    const bridge = await server({ goalMemoryBytes: 50_000 });
    bridge.advertiseAction("/echo", "x/action/Echo", async (args: { n: number }) => ({
      status: "succeeded",
      values: { n: args.n, pad: "p".repeat(4000) },
    }));
    const client = await BridgeClient.connect(bridge.url);
    cleanups.push(() => client.close());
    for (let n = 0; n < 20; n++) await client.sendGoal("/echo", "x/action/Echo", { n }, { goalId: `echo-${n}` }).result;
    expect(bridge.rememberedGoalBytes).toBeLessThanOrEqual(50_000);
    expect(await client.callService("/robograph/goal_status", { id: "echo-0" })).toEqual({ known: false });
    expect(await client.callService("/robograph/goal_status", { id: "echo-19" })).toMatchObject({
      known: true,
      values: { n: 19 },
    });
  });

  it("disconnects a client whose service responses pile up unread, and keeps serving the others", async () => {
    const bridge = await server({ maxBufferedBytes: 256 * 1024 });
    bridge.advertiseService("/big", "x/srv/Big", () => ({ data: "b".repeat(100_000) }));
    const reader = await BridgeClient.connect(bridge.url, { reconnect: false });
    cleanups.push(() => reader.close());
    const hog = await raw(bridge.url);
    // Never read: the kernel's buffers fill first, then the server's own.
    (hog.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let i = 0; i < 400; i++) hog.ws.send(JSON.stringify({ op: "call_service", id: `c${i}`, service: "/big" }));
    await expect.poll(() => bridge.slowClientsDisconnected, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => bridge.clientCount).toBe(1);
    expect(((await reader.callService("/big")) as { data: string }).data).toHaveLength(100_000);
  });

  it("refuses connections beyond its cap with 503 and takes new ones once a client leaves", async () => {
    const bridge = await server({ maxConnections: 2 });
    const first = await raw(bridge.url);
    await raw(bridge.url);
    await expect(raw(bridge.url)).rejects.toThrow(/503/);
    first.ws.close();
    await expect.poll(() => bridge.clientCount).toBe(1);
    await raw(bridge.url);
  });
});

describe("work a client can make the server do", () => {
  it("finds too-deep nesting without parsing, skipping brackets inside strings", () => {
    expect(nestingExceeds("[".repeat(200_000) + "]".repeat(200_000), 100)).toBe(true);
    // Depth counts every object and array: { [ [ { is four.
    expect(nestingExceeds(JSON.stringify({ a: [[{ b: "[[[[[[[[[[[[" }]] }), 4)).toBe(false);
    // An escaped quote does not end the string; the brackets after it are still inside it.
    expect(nestingExceeds(JSON.stringify({ a: '\\"[[[[', b: [[[[1]]]] }), 5)).toBe(false);
    expect(nestingExceeds(JSON.stringify({ a: '\\"[[[[', b: [[[[1]]]] }), 4)).toBe(true);
  });

  it("answers a 200,000-deep message with an error before parsing it", async () => {
    const bridge = await server();
    const peer = await raw(bridge.url);
    peer.ws.send("[".repeat(200_000) + "]".repeat(200_000));
    expect((await peer.next((m) => m.op === "status")).msg).toBe("message nests deeper than 100 levels");
  });

  it("pauses a client that keeps the event loop busy, serves it again afterwards, and answers others meanwhile", async () => {
    // A tiny share and burst so a few expensive messages are enough to cross them.
    const bridge = await server({ clientWorkShare: 0.1, clientWorkBurstMs: 5 });
    bridge.advertiseService("/work", "x/srv/Work", (args) => {
      // Stands in for an expensive message: busy for as long as the client asks, in the message's handling.
      const until = performance.now() + (args as { ms: number }).ms;
      while (performance.now() < until);
      return {};
    });
    const hog = await raw(bridge.url);
    for (let i = 0; i < 20; i++)
      hog.ws.send(JSON.stringify({ op: "call_service", id: `w${i}`, service: "/work", args: { ms: 10 } }));
    const other = await BridgeClient.connect(bridge.url);
    cleanups.push(() => other.close());
    await expect.poll(() => bridge.throttled.times).toBeGreaterThan(0);
    // While the hog waits its turn, another client is answered.
    const answeredBefore = hog.inbox.length;
    await other.callService("/robograph/goal_status", { id: "x" });
    expect(answeredBefore).toBeLessThan(20);
    // Nothing the hog sent is lost: it is served once it is back within its share.
    await expect.poll(() => hog.inbox.filter((m) => m.op === "service_response").length, { timeout: 20_000 }).toBe(20);
  });
});
