import { afterEach, describe, expect, it } from "vitest";
import { connect as tcp, createServer, type AddressInfo } from "node:net";
import { WebSocket } from "ws";
import { z } from "zod";
import { BridgeServer, ServiceRefusal } from "../../../robots/bridge/server";
import { BridgeClient } from "../../../robots/bridge/client";
import {
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
  ServiceCallError,
} from "../../../robots/bridge/errors";
import { FragmentAssembler, fragmentMessage, GoalStatus, type FragmentMsg } from "../../../robots/bridge/protocol";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function server(opts: ConstructorParameters<typeof BridgeServer>[0] = {}) {
  const bridge = new BridgeServer({ port: 0, ...opts });
  bridge.advertiseService("/add", "example_interfaces/srv/AddTwoInts", (args) => {
    const { a: first, b: second } = args as { a: number; b: number };
    if (typeof first !== "number") throw new ServiceRefusal("a must be a number");
    return { sum: first + second };
  });
  bridge.advertiseAction(
    "/count",
    "robograph_msgs/action/Count",
    async (args, ctx) => {
      for (let i = 1; i <= args.to; i++) {
        if (ctx.signal.aborted) return { status: "canceled", values: { reached: i - 1 } };
        ctx.feedback({ at: i });
        await new Promise((r) => setTimeout(r, args.delayMs));
      }
      return { status: "succeeded", values: { reached: args.to } };
    },
    z.object({ to: z.number().int().min(0), delayMs: z.number().default(1) }),
  );
  await bridge.start();
  cleanups.push(() => bridge.close());
  return bridge;
}

async function client(url: string, opts: Parameters<typeof BridgeClient.connect>[1] = {}) {
  const connection = await BridgeClient.connect(url, opts);
  cleanups.push(() => connection.close());
  return connection;
}

describe("bridge server and client", () => {
  it("calls services and reports refusals as typed errors", async () => {
    const bridge = await server();
    const connection = await client(bridge.url);
    expect(await connection.callService("/add", { a: 2, b: 3 })).toEqual({ sum: 5 });
    await expect(connection.callService("/add", { a: "x", b: 3 })).rejects.toBeInstanceOf(ServiceCallError);
    await expect(connection.callService("/nope", {})).rejects.toThrow(/does not exist/);
  });

  it("times out a call that gets no answer", async () => {
    const bridge = await server();
    bridge.advertiseService("/slow", "x/srv/Slow", () => new Promise((r) => setTimeout(() => r({}), 2000)));
    const connection = await client(bridge.url);
    await expect(connection.callService("/slow", {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(BridgeTimeoutError);
  });

  it("runs an action goal with feedback and result, and cancels one", async () => {
    const bridge = await server();
    const connection = await client(bridge.url);
    const fb: unknown[] = [];
    const outcome = await connection.sendGoal(
      "/count",
      "robograph_msgs/action/Count",
      { to: 3 },
      { onFeedback: (f) => fb.push(f) },
    ).result;
    expect(outcome.succeeded).toBe(true);
    expect(outcome.values).toEqual({ reached: 3 });
    expect(fb).toEqual([{ at: 1 }, { at: 2 }, { at: 3 }]);

    const handle = connection.sendGoal(
      "/count",
      "robograph_msgs/action/Count",
      { to: 1000, delayMs: 5 },
      { onFeedback: () => handle.cancel() },
    );
    const canceled = await handle.result;
    expect(canceled.status).toBe(GoalStatus.CANCELED);
    expect(canceled.succeeded).toBe(false);
  });

  it("refuses invalid goal arguments and unknown actions with a typed error carrying the goal id", async () => {
    const bridge = await server();
    const connection = await client(bridge.url);
    const bad = connection.sendGoal("/count", "robograph_msgs/action/Count", { to: -1 });
    await expect(bad.result).rejects.toBeInstanceOf(BridgeProtocolError);
    await expect(bad.result).rejects.toThrow(/invalid arguments for \/count: to/);
    await expect(connection.sendGoal("/fly", "x/action/Fly", {}).result).rejects.toThrow(/action \/fly does not exist/);
    await expect(connection.sendGoal("/count", "wrong/Type", { to: 1 }).result).rejects.toThrow(
      /has type robograph_msgs\/action\/Count/,
    );
  });

  it("re-attaches to a goal sent again with the same id instead of running it twice", async () => {
    const bridge = await server();
    let runs = 0;
    bridge.advertiseAction("/once", "x/action/Once", async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 50));
      return { status: "succeeded", values: { runs } };
    });
    const c1 = await client(bridge.url);
    const first = c1.sendGoal("/once", "x/action/Once", {}, { goalId: "goal-42" });
    const c2 = await client(bridge.url);
    const again = await c2.sendGoal("/once", "x/action/Once", {}, { goalId: "goal-42" }).result;
    expect((await first.result).values).toEqual({ runs: 1 });
    expect(again.values).toEqual({ runs: 1 });
    const late = await c2.sendGoal("/once", "x/action/Once", {}, { goalId: "goal-42" }).result;
    expect(late.values).toEqual({ runs: 1 });
    expect(runs).toBe(1);
    expect(await c2.callService("/robograph/goal_status", { id: "goal-42" })).toMatchObject({
      known: true,
      status: GoalStatus.SUCCEEDED,
    });
  });

  it("delivers topics, honours throttle_rate, and replays a latched message to a new subscriber", async () => {
    const bridge = await server();
    const pub = bridge.advertiseTopic("/chatter", "std_msgs/msg/String", { latched: true });
    pub({ data: "before" });
    const connection = await client(bridge.url);
    const got: string[] = [];
    connection.subscribe<{ data: string }>("/chatter", "std_msgs/msg/String", (m) => got.push(m.data));
    await expect.poll(() => got).toEqual(["before"]);
    pub({ data: "a" });
    await expect.poll(() => got).toEqual(["before", "a"]);

    const throttled: string[] = [];
    const c2 = await client(bridge.url);
    c2.subscribe<{ data: string }>("/chatter", undefined, (m) => throttled.push(m.data), { throttleRate: 200 });
    await expect.poll(() => throttled.length).toBe(1);
    for (let i = 0; i < 10; i++) pub({ data: `burst${i}` });
    await expect.poll(() => throttled.at(-1), { timeout: 2000 }).toBe("burst9");
    // The burst is collapsed to its newest message.
    expect(throttled.length).toBeLessThanOrEqual(3);

    // A client can publish too, after advertising.
    connection.advertise("/chatter", "std_msgs/msg/String");
    connection.publish("/chatter", { data: "from client" });
    await expect.poll(() => got.at(-1)).toBe("from client");
  });

  it("fragments large messages when asked and reassembles fragments from clients", async () => {
    const bridge = await server();
    const pub = bridge.advertiseTopic("/big", "std_msgs/msg/String");
    const ws = new WebSocket(bridge.url);
    cleanups.push(async () => ws.close());
    await new Promise((r) => ws.once("open", r));
    const frames: { op: string; [field: string]: unknown }[] = [];
    ws.on("message", (d) => frames.push(JSON.parse(d.toString())));
    ws.send(JSON.stringify({ op: "subscribe", id: "sub1", topic: "/big", fragment_size: 100 }));
    await new Promise((r) => setTimeout(r, 50));
    pub({ data: "x".repeat(450) });
    await expect.poll(() => frames.length).toBeGreaterThanOrEqual(5);
    expect(frames.every((f) => f.op === "fragment")).toBe(true);
    const asm = new FragmentAssembler(1e6);
    let whole: string | undefined;
    for (const f of frames) whole = asm.add(f as FragmentMsg) ?? whole;
    expect(JSON.parse(whole!)).toEqual({ op: "publish", topic: "/big", msg: { data: "x".repeat(450) } });

    // Client → server: a call_service split into fragments.
    frames.length = 0;
    const call = JSON.stringify({ op: "call_service", id: "c1", service: "/add", args: { a: 40, b: 2 } });
    for (const f of fragmentMessage("c1", call, 16).reverse()) ws.send(JSON.stringify(f));
    await expect
      .poll(() => frames.find((f) => f.op === "service_response"))
      .toMatchObject({ id: "c1", values: { sum: 42 }, result: true });
  });

  it("restores subscriptions after the server restarts on the same port", async () => {
    const s1 = new BridgeServer({ port: 0 });
    await s1.start();
    const port = s1.port;
    const connection = await client(s1.url, { backoffMs: 50, connectAttempts: 40 });
    const got: unknown[] = [];
    connection.subscribe("/tick", undefined, (m) => got.push(m));
    await s1.close();
    const s2 = new BridgeServer({ port });
    const pub = s2.advertiseTopic("/tick", "std_msgs/msg/Int32");
    await s2.start();
    cleanups.push(() => s2.close());
    await new Promise<void>((r) => connection.once("reconnect", r));
    await expect.poll(() => s2.subscriberCount("/tick")).toBe(1);
    pub({ data: 7 });
    await expect.poll(() => got).toEqual([{ data: 7 }]);
  });

  it("fails to connect after bounded retries with a typed error", async () => {
    // A port that takes each connection and drops it before the handshake: the attempts are counted, not timed.
    let attempts = 0;
    const dropper = createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((r) => dropper.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise<void>((r) => dropper.close(() => r())));
    const url = `ws://127.0.0.1:${(dropper.address() as AddressInfo).port}`;
    const err = await BridgeClient.connect(url, { connectAttempts: 3, backoffMs: 20 }).catch((e) => e);
    expect(err).toBeInstanceOf(BridgeConnectionError);
    expect(err.message).toMatch(/after 3 attempts/);
    expect(attempts).toBe(3);
  });

  it("requires a token when one is set and refuses to bind beyond loopback without one", async () => {
    expect(() => new BridgeServer({ host: "0.0.0.0", port: 0 })).toThrow(/without a token/);
    const bridge = await server({ token: "s3cret" });
    await expect(BridgeClient.connect(bridge.url, { connectAttempts: 1 })).rejects.toThrow(/401/);
    const connection = await client(bridge.url, { token: "s3cret" });
    expect(await connection.callService("/add", { a: 1, b: 1 })).toEqual({ sum: 2 });
    const viaQuery = new WebSocket(`${bridge.url}/?token=s3cret`);
    cleanups.push(async () => viaQuery.close());
    await new Promise((resolve, reject) => {
      viaQuery.once("open", resolve);
      viaQuery.once("error", reject);
    });
  });

  it("survives an unparseable upgrade request in token mode", async () => {
    const bridge = await server({ token: "s3cret" });
    const { port } = new URL(bridge.url);
    const sock = tcp(Number(port), "127.0.0.1");
    await new Promise((r) => sock.once("connect", r));
    sock.write(
      "GET http://[ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    await new Promise((r) => sock.once("close", r).once("data", () => sock.destroy()));
    const connection = await client(bridge.url, { token: "s3cret" });
    expect(await connection.callService("/add", { a: 2, b: 2 })).toEqual({ sum: 4 });
  });

  it("ends a goal whose handler throws, and keeps a throwing subscriber from taking the client down", async () => {
    const bridge = await server();
    bridge.advertiseAction("/broken", "x/action/Broken", () => {
      throw new Error("controller fault");
    });
    const pub = bridge.advertiseTopic("/t", "std_msgs/msg/String");
    const connection = await client(bridge.url);
    const outcome = await connection.sendGoal("/broken", "x/action/Broken", {}).result;
    expect(outcome).toMatchObject({
      succeeded: false,
      status: GoalStatus.ABORTED,
      values: { message: "internal error: controller fault" },
    });
    const errors: unknown[] = [];
    const got: unknown[] = [];
    connection.on("handler-error", (e) => errors.push(e));
    connection.subscribe("/t", undefined, () => {
      throw new Error("subscriber bug");
    });
    connection.subscribe("/t", undefined, (m) => got.push(m));
    await expect.poll(() => bridge.subscriberCount("/t")).toBe(1);
    pub({ data: "x" });
    await expect.poll(() => got).toEqual([{ data: "x" }]);
    expect(errors).toHaveLength(1);
    expect(await connection.callService("/add", { a: 1, b: 2 })).toEqual({ sum: 3 });
  });
});
