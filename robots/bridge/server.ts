/**
 * A rosbridge v2 server over `ws`: services, topics and ROS 2 actions, with the protocol's `status` and `fragment` ops.
 *
 * Security: binds 127.0.0.1 unless told otherwise; refuses any other address without a token, and then requires
 * every client to present it, either as `?token=<token>` in the URL or as an `Authorization: Bearer <token>` header.
 *
 * Goals keep running when the client that sent them disconnects (a robot does not stop mid-motion because a laptop
 * slept); their results are remembered by goal id, so a client that comes back can re-attach by sending the same goal
 * id again (the goal is not executed twice) or ask `/robograph/goal_status`.
 *
 * Memory and time a client can make the server spend are bounded (see `BridgeServerOptions`): connections, message
 * size, nesting depth, name and id lengths, unfinished fragments per connection and in total, topics and
 * subscriptions per client, remembered goals by count and bytes, and queued outgoing bytes per client. Each client's
 * message handling is metered: one that keeps the event loop busy is paused (its socket is not read) until its share
 * of the loop has recovered, so a hostile client slows only itself.
 *
 * Discovery and control as a rosbridge deployment offers them: rosapi's services (`/rosapi/topics`, `topic_type`,
 * `services`, `service_type`, `action_servers`, `nodes`, …, in rosapi_msgs' shapes, so roslib's `getTopics()` and
 * friends work), allowlists like rosbridge's `topics_glob` / `services_glob` / `actions_glob` (a client reaches only
 * what they allow, and rosapi lists only that), and `/robograph/stop`, which cancels every goal in flight.
 *
 * This file is the server itself — its options, listening and closing, each connection's setup and teardown, and
 * its public calls — wiring the parts in server/: auth (token, loopback, allowlists), connection (a client's state and
 * what goes back to it: status, buffer caps, fragmenting), metering, dispatch (incoming messages, refused or handed on
 * by op), topics, services, actions (goals) and rosapi.
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import type { z } from "zod";
import { DEFAULT_MAX_MESSAGE_BYTES, FragmentAssembler, FragmentPool, GoalStatus } from "./protocol";
import type { Allowlists } from "./allowlist";
import { allowedBy, authorized, isLoopbackAddress, refuseOpenBind, type Allowed } from "./server/auth";
import { Outbox, type Connection } from "./server/connection";
import { Meter } from "./server/metering";
import { Topics } from "./server/topics";
import { ServiceRefusal, Services, type ServiceHandler } from "./server/services";
import { Actions, type ActionHandler } from "./server/actions";
import { advertiseRosapi } from "./server/rosapi";
import { Dispatcher } from "./server/dispatch";

export { isLoopbackAddress } from "./server/auth";
export { ServiceRefusal, type Caller, type ServiceHandler } from "./server/services";
export type { ActionContext, ActionHandler, ActionOutcome } from "./server/actions";

export interface BridgeServerOptions {
  host?: string;
  port?: number;
  /** Required when host is not loopback. */
  token?: string;
  maxMessageBytes?: number;
  /**
   * Outgoing bytes queued for one client above which topic messages and feedback to it are dropped (slow consumer);
   * a reply that cannot be dropped (service response, result, status) to a client this far behind disconnects it —
   * it reconciles by goal id when it comes back — instead of being queued without end.
   */
  maxBufferedBytes?: number;
  /** How many finished goals are remembered for re-attach and `/robograph/goal_status`. */
  goalMemory?: number;
  /** Bytes of remembered goals (ids and results); the oldest finished goals are forgotten first. */
  goalMemoryBytes?: number;
  /** Open connections; further ones are refused with HTTP 503. */
  maxConnections?: number;
  /** Bytes of unfinished fragmented messages over all connections (each connection may hold one message's worth). */
  maxFragmentBytes?: number;
  /** Topics one client may advertise, and topics it may subscribe to. */
  maxTopicsPerClient?: number;
  /**
   * Share of the event loop one client's messages may keep busy, sustained (0–1), and the burst in milliseconds it may
   * use before that share applies. A client over it is not read from until it is back within it.
   */
  clientWorkShare?: number;
  clientWorkBurstMs?: number;
  /** Globs of the topics, services and actions clients may reach (rosbridge's *_glob parameters); default: all. */
  allow?: Allowlists;
  /** ROS node names rosapi reports besides the bridge's own (e.g. one per robot: `/mobile`). */
  nodes?: string[];
  log?: (line: string) => void;
}

/** The service that cancels every goal in flight (std_srvs/srv/Trigger's shape). */
export const STOP_SERVICE = "/robograph/stop";

export class BridgeServer {
  private http?: HttpServer;
  private wss?: WebSocketServer;
  private connections = new Set<Connection>();
  private nextClientId = 1;
  private readonly fragmentPool: FragmentPool;
  private readonly opts: Required<Omit<BridgeServerOptions, "token" | "allow" | "nodes">> & {
    token?: string;
    nodes: string[];
  };
  private readonly allowed: Allowed;
  private readonly out: Outbox;
  private readonly topics: Topics;
  private readonly services: Services;
  private readonly actions: Actions;
  private readonly meter: Meter;
  /** Messages dropped because a client could not keep up; visible for diagnostics. */
  droppedMessages = 0;
  /** Clients disconnected because replies to them piled up unread. */
  slowClientsDisconnected = 0;
  /** Times a client was paused for using more than its share of the event loop, and for how long in total. */
  throttled = { times: 0, ms: 0 };

  constructor(options: BridgeServerOptions = {}) {
    this.opts = {
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 9090,
      token: options.token,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      maxBufferedBytes: options.maxBufferedBytes ?? 32 * 1024 * 1024,
      goalMemory: options.goalMemory ?? 1000,
      goalMemoryBytes: options.goalMemoryBytes ?? 16 * 1024 * 1024,
      maxConnections: options.maxConnections ?? 100,
      maxFragmentBytes: options.maxFragmentBytes ?? 64 * 1024 * 1024,
      maxTopicsPerClient: options.maxTopicsPerClient ?? 1000,
      clientWorkShare: options.clientWorkShare ?? 0.1,
      clientWorkBurstMs: options.clientWorkBurstMs ?? 50,
      nodes: options.nodes ?? [],
      log: options.log ?? (() => {}),
    };
    this.allowed = allowedBy(options.allow);
    this.fragmentPool = new FragmentPool(this.opts.maxFragmentBytes);
    refuseOpenBind(this.opts.host, this.opts.token);
    this.out = new Outbox(this.opts, this);
    this.topics = new Topics(this.connections, this.opts, this.out);
    this.services = new Services(this.allowed, this.out);
    this.actions = new Actions(this.opts, this.allowed, this.out);
    const dispatch = new Dispatcher(this.opts, this.allowed, this.out, this.topics, this.services, this.actions);
    this.meter = new Meter(this.opts, this, (conn, data, isBinary) => dispatch.onRaw(conn, data, isBinary), this.out);
    this.advertiseService("/robograph/goal_status", "robograph_msgs/srv/GoalStatus", (args) => {
      const id = (args as { id?: unknown } | undefined)?.id;
      if (typeof id !== "string") throw new ServiceRefusal("args.id (the goal id) must be a string");
      const goal = this.actions.goals.get(id);
      return goal
        ? { known: true, action: goal.action, status: goal.status, values: goal.values ?? null }
        : { known: false };
    });
    this.advertiseService(STOP_SERVICE, "std_srvs/srv/Trigger", () => {
      const canceled = this.cancelAll();
      return {
        success: true,
        message: canceled.length
          ? `canceled ${canceled.length} goal${canceled.length === 1 ? "" : "s"}: ${canceled.join(", ")}`
          : "no goal was running",
      };
    });
    advertiseRosapi({
      topics: this.topics.byName,
      services: this.services.byName,
      actions: this.actions.byName,
      allowed: this.allowed,
      nodes: this.opts.nodes,
      advertiseService: (name, type, handler) => this.advertiseService(name, type, handler),
    });
  }

  /** Cancels every goal in flight (the robots stop); returns their ids. */
  cancelAll(): string[] {
    return this.actions.cancelAll();
  }

  /** Resolves once no goal is running (accepted, executing or being canceled), or after `timeoutMs`; true if none is. */
  goalsEnded(timeoutMs = 10_000): Promise<boolean> {
    return this.actions.goalsEnded(timeoutMs);
  }

  /** Forgets every finished goal (a world restarted for a new episode: no goal id of the last one re-attaches). */
  forgetFinishedGoals(): number {
    return this.actions.forgetFinishedGoals();
  }

  get url(): string {
    const addr = this.http?.address();
    if (!addr || typeof addr === "string") throw new Error("server is not listening");
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    return `ws://${host}:${addr.port}`;
  }

  get port(): number {
    const addr = this.http?.address();
    if (!addr || typeof addr === "string") throw new Error("server is not listening");
    return addr.port;
  }

  async start(): Promise<this> {
    const http = createServer((_req, res) => {
      res.writeHead(426, { "content-type": "text/plain" }).end("rosbridge v2 WebSocket endpoint\n");
    });
    const wss = new WebSocketServer({
      server: http,
      // Hard guard; messages between maxMessageBytes and this are answered with a status error instead of a close.
      maxPayload: this.opts.maxMessageBytes * 2 + 1024,
      // One message per turn of the event loop, so a client that sends many at once does not hold the others back.
      allowSynchronousEvents: false,
      verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => {
        if (!authorized(info.req, this.opts.token)) return done(false, 401, "Unauthorized");
        if (this.connections.size >= this.opts.maxConnections) return done(false, 503, "Too many connections");
        done(true);
      },
    });
    wss.on("connection", (ws, req) => this.onConnection(ws, req));
    this.http = http;
    this.wss = wss;
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(this.opts.port, this.opts.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
    return this;
  }

  async close(): Promise<void> {
    for (const g of this.actions.goals.values()) if (g.status <= GoalStatus.CANCELING) g.controller.abort();
    for (const c of this.connections) {
      for (const s of c.subscriptions.values()) clearTimeout(s.timer);
      clearTimeout(c.resumeTimer);
      c.ws.terminate();
    }
    this.connections.clear();
    await new Promise<void>((r) => (this.wss ? this.wss.close(() => r()) : r()));
    await new Promise<void>((r) => (this.http ? this.http.close(() => r()) : r()));
  }

  get clientCount(): number {
    return this.connections.size;
  }

  // ---- registration -------------------------------------------------------------------------------------------

  advertiseService(name: string, type: string, handler: ServiceHandler): void {
    this.services.byName.set(name, { type, handler });
  }

  /** Registers an action server. With `schema`, goal arguments are validated before the handler runs. */
  advertiseAction<A>(name: string, type: string, handler: ActionHandler<A>, schema?: z.ZodType<A>): void {
    // The table holds every action's handler alike; the caller's `A` is what its goals' arguments are (checked by `schema`).
    this.actions.byName.set(name, { type, handler: handler as ActionHandler, schema });
  }

  /**
   * Declares a topic this server publishes. `latched` keeps the last message and hands it to new subscribers
   * (ROS "transient local"); `onSubscribe` lets a producer render on demand for a new subscriber.
   */
  advertiseTopic(
    name: string,
    type: string,
    opts: {
      latched?: boolean;
      onSubscribe?: (topic: string) => void;
      onMessage?: (msg: unknown, clientId: number) => void;
    } = {},
  ): (msg: unknown) => void {
    this.topics.byName.set(name, {
      type,
      latched: !!opts.latched,
      onSubscribe: opts.onSubscribe,
      onMessage: opts.onMessage,
    });
    return (msg: unknown) => this.publish(name, msg);
  }

  /** Drops a latched topic's last message (a world started over: a new subscriber must not get a frame of before). */
  clearLatched(topic: string): void {
    this.topics.clearLatched(topic);
  }

  subscriberCount(topic: string): number {
    return this.topics.subscriberCount(topic);
  }

  publish(topic: string, msg: unknown): void {
    this.topics.publish(topic, msg);
  }

  // ---- connection handling ------------------------------------------------------------------------------------

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const conn: Connection = {
      id: this.nextClientId++,
      ws,
      remoteAddress: req.socket.remoteAddress,
      loopback: isLoopbackAddress(req.socket.remoteAddress),
      subscriptions: new Map(),
      advertised: new Map(),
      fragments: new FragmentAssembler(this.opts.maxMessageBytes, 64, this.opts.maxMessageBytes, this.fragmentPool),
      level: "error",
      debtMs: 0,
      debtAt: performance.now(),
      backlog: [],
    };
    this.connections.add(conn);
    this.opts.log(`client ${conn.id} connected`);
    ws.on("message", (data, isBinary) => this.meter.receive(conn, data, isBinary));
    ws.on("close", () => {
      this.connections.delete(conn);
      for (const s of conn.subscriptions.values()) clearTimeout(s.timer);
      clearTimeout(conn.resumeTimer);
      conn.backlog = [];
      conn.fragments.clear();
      for (const topic of conn.advertised.keys()) this.topics.unadvertiseFor(conn, topic);
      for (const g of this.actions.goals.values()) {
        g.listeners.delete(conn);
        g.feedbackTo.delete(conn);
      }
      this.opts.log(`client ${conn.id} disconnected`);
    });
    ws.on("error", (err) => this.opts.log(`client ${conn.id} socket error: ${err.message}`));
  }

  /** Bytes the remembered goals take (ids, actions and results), for diagnostics and tests. */
  get rememberedGoalBytes(): number {
    return this.actions.rememberedGoalBytes;
  }

  /** Topics known to the server: its own and those clients advertise. */
  get topicCount(): number {
    return this.topics.byName.size;
  }
}
