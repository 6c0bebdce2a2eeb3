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
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { WebSocketServer, WebSocket, type RawData } from "ws";
import type { z } from "zod";
import {
  ClientMessage,
  DEFAULT_MAX_MESSAGE_BYTES,
  FragmentAssembler,
  fragmentMessage,
  FragmentPool,
  GoalStatus,
  MAX_ID_LENGTH,
  MAX_JSON_DEPTH,
  MAX_NAME_LENGTH,
  nestingExceeds,
  type CallServiceMsg,
  type SendActionGoalMsg,
  type SubscribeMsg,
} from "./protocol";
import { allows, type Allowlists } from "./allowlist";

/** Who called a service: the connection, its peer address, and whether that is this machine. */
export interface Caller {
  clientId: number;
  remoteAddress?: string;
  loopback: boolean;
}
export type ServiceHandler = (args: unknown, caller: Caller) => unknown | Promise<unknown>;

/** Thrown by a service handler to answer `result:false` with this message (any other throw does the same). */
export class ServiceRefusal extends Error {}

export interface ActionContext {
  goalId: string;
  /** Aborted when a client cancels the goal or the server closes. */
  signal: AbortSignal;
  feedback(values: unknown): void;
}
export type ActionOutcome = { status: "succeeded" | "aborted" | "canceled"; values: unknown };
export type ActionHandler<A = unknown> = (args: A, ctx: ActionContext) => Promise<ActionOutcome>;

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

interface Subscription {
  id?: string;
  throttleMs: number;
  fragmentSize?: number;
  lastSentAt: number;
  pending?: unknown;
  timer?: NodeJS.Timeout;
}

interface Connection {
  id: number;
  ws: WebSocket;
  remoteAddress?: string;
  loopback: boolean;
  subscriptions: Map<string, Subscription>;
  advertised: Map<string, string>;
  fragments: FragmentAssembler;
  level: "info" | "warning" | "error" | "none";
  /** Milliseconds of handling work not yet paid back at the client's share of the loop. */
  debtMs: number;
  debtAt: number;
  /** Set while the client's socket is not read because it used more than its share. */
  resumeTimer?: NodeJS.Timeout;
  /** Messages `ws` had already read when the client was paused; handled, in order, when its turn comes again. */
  backlog: [RawData, boolean][];
}

interface TopicEntry {
  type: string;
  latched: boolean;
  last?: unknown;
  onSubscribe?: (topic: string) => void;
  onMessage?: (msg: unknown, clientId: number) => void;
  /** Clients that advertised it; absent for the server's own topics. The topic goes when the last of them does. */
  advertisers?: Set<Connection>;
}

interface GoalRecord {
  id: string;
  action: string;
  status: number;
  values?: unknown;
  controller: AbortController;
  listeners: Set<Connection>;
  feedbackTo: Set<Connection>;
  fragmentSize?: number;
  /** What remembering it costs (id, action, result), counted against `goalMemoryBytes`. */
  bytes: number;
}

const LEVELS = { info: 0, warning: 1, error: 2, none: 3 } as const;
/** Longest status text sent back: an error about a hostile message never echoes it whole. */
const MAX_STATUS_CHARS = 2000;
/** Handling cost charged per received megabyte besides the measured time (ws's framing and decoding happen before). */
const MS_PER_MB = 1;
const short = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n)}… (${text.length} characters)` : text);
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** A peer address on this machine (IPv4 loopback, IPv6 loopback, or IPv4 loopback mapped into IPv6). */
export const isLoopbackAddress = (a?: string) => !!a && (a === "::1" || /^(?:::ffff:)?127\./.test(a));
/** The service that cancels every goal in flight (std_srvs/srv/Trigger's shape). */
export const STOP_SERVICE = "/robograph/stop";
/** ROS resolves a relative name in the root namespace (roslib calls rosapi as `rosapi/topics`). */
const absolute = (name: string) => (name.startsWith("/") ? name : `/${name}`);

export class BridgeServer {
  private http?: HttpServer;
  private wss?: WebSocketServer;
  private connections = new Set<Connection>();
  private nextClientId = 1;
  private services = new Map<string, { type: string; handler: ServiceHandler }>();
  private topics = new Map<string, TopicEntry>();
  private actions = new Map<string, { type: string; handler: ActionHandler<any>; schema?: z.ZodType }>();
  private goals = new Map<string, GoalRecord>();
  private goalBytes = 0;
  private readonly fragmentPool: FragmentPool;
  private readonly opts: Required<Omit<BridgeServerOptions, "token" | "allow" | "nodes">> & { token?: string; nodes: string[] };
  private readonly allowed: { topic: (n: string) => boolean; service: (n: string) => boolean; action: (n: string) => boolean };
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
    this.allowed = { topic: allows(options.allow?.topics), service: allows(options.allow?.services), action: allows(options.allow?.actions) };
    this.fragmentPool = new FragmentPool(this.opts.maxFragmentBytes);
    if (!LOOPBACK.has(this.opts.host) && !this.opts.token) {
      throw new Error(
        `refusing to bind ${this.opts.host} without a token: pass a token (clients present it as ?token=… or Authorization: Bearer …) or bind 127.0.0.1`,
      );
    }
    this.advertiseService("/robograph/goal_status", "robograph_msgs/srv/GoalStatus", (args) => {
      const id = (args as { id?: unknown } | undefined)?.id;
      if (typeof id !== "string") throw new ServiceRefusal("args.id (the goal id) must be a string");
      const g = this.goals.get(id);
      return g ? { known: true, action: g.action, status: g.status, values: g.values ?? null } : { known: false };
    });
    this.advertiseService(STOP_SERVICE, "std_srvs/srv/Trigger", () => {
      const canceled = this.cancelAll();
      return { success: true, message: canceled.length ? `canceled ${canceled.length} goal${canceled.length === 1 ? "" : "s"}: ${canceled.join(", ")}` : "no goal was running" };
    });
    this.advertiseRosapi();
  }

  /** Cancels every goal in flight (the robots stop); returns their ids. */
  cancelAll(): string[] {
    const ids: string[] = [];
    for (const g of this.goals.values()) {
      if (g.status > GoalStatus.EXECUTING) continue;
      g.status = GoalStatus.CANCELING;
      g.controller.abort();
      ids.push(g.id);
    }
    if (ids.length) this.opts.log(`stop: canceled ${ids.join(", ")}`);
    return ids;
  }

  /** Resolves once no goal is running (accepted, executing or being canceled), or after `timeoutMs`; true if none is. */
  async goalsEnded(timeoutMs = 10_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    const busy = () => [...this.goals.values()].some((g) => g.status <= GoalStatus.CANCELING);
    while (busy() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    return !busy();
  }

  /** Forgets every finished goal (a world restarted for a new episode: no goal id of the last one re-attaches). */
  forgetFinishedGoals(): number {
    let n = 0;
    for (const [id, g] of this.goals) {
      if (g.status < GoalStatus.SUCCEEDED) continue;
      this.goals.delete(id);
      this.goalBytes -= g.bytes;
      n++;
    }
    return n;
  }

  /**
   * rosapi's discovery services, in the request/response shapes of rosapi_msgs (what roslib's getTopics, getServices,
   * getTopicType, getServiceType, getActionServers, getNodes, … read). They list only what the allowlists let a
   * client reach, as rosapi does when rosbridge is launched with globs.
   */
  private advertiseRosapi(): void {
    const topics = () => [...this.topics.keys()].filter(this.allowed.topic).sort();
    const services = () => [...this.services.keys()].filter(this.allowed.service).sort();
    const actions = () => [...this.actions.keys()].filter(this.allowed.action).sort();
    const str = (args: unknown, key: string) => {
      const v = (args as Record<string, unknown> | undefined)?.[key];
      if (typeof v !== "string") throw new ServiceRefusal(`args.${key} must be a string`);
      return v;
    };
    const srv = (name: string, handler: ServiceHandler) => this.advertiseService(`/rosapi/${name}`, `rosapi_msgs/srv/${name.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("")}`, handler);
    srv("topics", () => {
      const names = topics();
      return { topics: names, types: names.map((t) => this.topics.get(t)!.type) };
    });
    srv("topic_type", (args) => {
      const t = absolute(str(args, "topic"));
      return { type: this.allowed.topic(t) ? this.topics.get(t)?.type ?? "" : "" };
    });
    srv("topics_for_type", (args) => {
      const type = str(args, "type");
      return { topics: topics().filter((t) => this.topics.get(t)!.type === type) };
    });
    srv("services", () => ({ services: services() }));
    srv("service_type", (args) => {
      const name = absolute(str(args, "service"));
      return { type: this.allowed.service(name) ? this.services.get(name)?.type ?? "" : "" };
    });
    srv("services_for_type", (args) => {
      const type = str(args, "type");
      return { services: services().filter((n) => this.services.get(n)!.type === type) };
    });
    srv("action_servers", () => ({ action_servers: actions() }));
    srv("nodes", () => ({ nodes: ["/rosapi", "/rosbridge_websocket", ...this.opts.nodes].sort() }));
    srv("node_details", (args) => {
      const node = absolute(str(args, "node"));
      // A robot's node owns the names under its namespace; the bridge's own node publishes and serves the rest.
      const mine = (n: string) => (this.opts.nodes.includes(node) ? n.startsWith(`${node}/`) : node === "/rosbridge_websocket" && !this.opts.nodes.some((r) => n.startsWith(`${r}/`)));
      return { subscribing: [], publishing: topics().filter(mine), services: services().filter(mine) };
    });
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
        if (!this.authorized(info.req)) return done(false, 401, "Unauthorized");
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
    for (const g of this.goals.values()) if (g.status <= GoalStatus.CANCELING) g.controller.abort();
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
    this.services.set(name, { type, handler });
  }

  /** Registers an action server. With `schema`, goal arguments are validated before the handler runs. */
  advertiseAction<A>(name: string, type: string, handler: ActionHandler<A>, schema?: z.ZodType<A>): void {
    this.actions.set(name, { type, handler, schema });
  }

  /**
   * Declares a topic this server publishes. `latched` keeps the last message and hands it to new subscribers
   * (ROS "transient local"); `onSubscribe` lets a producer render on demand for a new subscriber.
   */
  advertiseTopic(
    name: string,
    type: string,
    opts: { latched?: boolean; onSubscribe?: (topic: string) => void; onMessage?: (msg: unknown, clientId: number) => void } = {},
  ): (msg: unknown) => void {
    this.topics.set(name, { type, latched: !!opts.latched, onSubscribe: opts.onSubscribe, onMessage: opts.onMessage });
    return (msg: unknown) => this.publish(name, msg);
  }

  /** Drops a latched topic's last message (a world started over: a new subscriber must not get a frame of before). */
  clearLatched(topic: string): void {
    const t = this.topics.get(topic);
    if (t) t.last = undefined;
  }

  subscriberCount(topic: string): number {
    let n = 0;
    for (const c of this.connections) if (c.subscriptions.has(topic)) n++;
    return n;
  }

  publish(topic: string, msg: unknown): void {
    const t = this.topics.get(topic);
    if (t?.latched) t.last = msg;
    for (const c of this.connections) {
      const sub = c.subscriptions.get(topic);
      if (sub) this.deliver(c, topic, sub, msg);
    }
  }

  // ---- connection handling ------------------------------------------------------------------------------------

  private authorized(req: IncomingMessage): boolean {
    const token = this.opts.token;
    if (!token) return true;
    let query: string | null = null;
    try {
      query = new URL(req.url ?? "/", "http://x").searchParams.get("token");
    } catch {
      return false; // a request line that is not a URL never authenticates
    }
    // The auth scheme is case-insensitive (RFC 7235); an empty `?token=` is no credential and hides no header.
    const header = /^\s*bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    const b = Buffer.from(token);
    return [query, header].some((presented) => {
      if (!presented) return false;
      const a = Buffer.from(presented);
      return a.length === b.length && timingSafeEqual(a, b);
    });
  }

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
    ws.on("message", (data, isBinary) => {
      // Paused: what ws had already read waits its turn (bounded: the socket itself is no longer read).
      if (conn.resumeTimer || conn.backlog.length) conn.backlog.push([data, isBinary]);
      else this.handle(conn, data, isBinary);
    });
    ws.on("close", () => {
      this.connections.delete(conn);
      for (const s of conn.subscriptions.values()) clearTimeout(s.timer);
      clearTimeout(conn.resumeTimer);
      conn.backlog = [];
      conn.fragments.clear();
      for (const topic of conn.advertised.keys()) this.unadvertiseFor(conn, topic);
      for (const g of this.goals.values()) {
        g.listeners.delete(conn);
        g.feedbackTo.delete(conn);
      }
      this.opts.log(`client ${conn.id} disconnected`);
    });
    ws.on("error", (err) => this.opts.log(`client ${conn.id} socket error: ${err.message}`));
  }

  private handle(conn: Connection, data: RawData, isBinary: boolean): void {
    const t0 = performance.now();
    try {
      this.onRaw(conn, data, isBinary);
    } catch (err) {
      // Nothing a client sends may take the server down.
      this.status(conn, "error", `internal error: ${(err as Error).message}`);
    }
    this.charge(conn, performance.now() - t0 + (rawLength(data) / 1e6) * MS_PER_MB);
  }

  /** A paused client's turn again: its backlog first (until it is over its share again), then its socket. */
  private resumeClient(conn: Connection): void {
    conn.resumeTimer = undefined;
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    while (conn.backlog.length && !conn.resumeTimer) {
      const [data, isBinary] = conn.backlog.shift()!;
      this.handle(conn, data, isBinary);
    }
    if (!conn.resumeTimer) conn.ws.resume();
  }

  /**
   * Meters a client's handling work: its debt grows by what a message cost and is paid back at its share of the loop.
   * Past the burst, the socket is not read until the debt is back at the burst — the client waits, nobody else does.
   */
  private charge(conn: Connection, costMs: number): void {
    const now = performance.now();
    const share = this.opts.clientWorkShare;
    conn.debtMs = Math.max(0, conn.debtMs - (now - conn.debtAt) * share) + costMs;
    conn.debtAt = now;
    if (conn.debtMs <= this.opts.clientWorkBurstMs || conn.resumeTimer || conn.ws.readyState !== WebSocket.OPEN) return;
    const waitMs = (conn.debtMs - this.opts.clientWorkBurstMs) / share;
    this.throttled.times++;
    this.throttled.ms += waitMs;
    conn.ws.pause();
    conn.resumeTimer = setTimeout(() => this.resumeClient(conn), waitMs);
  }

  /** A client stops advertising `topic`; a topic only clients advertised goes with the last of them. */
  private unadvertiseFor(conn: Connection, topic: string): void {
    conn.advertised.delete(topic);
    const t = this.topics.get(topic);
    if (!t?.advertisers) return;
    t.advertisers.delete(conn);
    if (t.advertisers.size === 0) this.topics.delete(topic);
  }

  private onRaw(conn: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.status(conn, "error", "binary frames (CBOR/BSON) are not supported; send JSON text frames");
      return;
    }
    // Measured on the bytes as received: an oversized message is refused without decoding it whole.
    const bytes = rawLength(data);
    if (bytes > this.opts.maxMessageBytes) {
      const first = Array.isArray(data) ? data[0] : Buffer.isBuffer(data) ? data : Buffer.from(data);
      const head = first.subarray(0, 4096).toString();
      const id = /"id"\s*:\s*"([^"]{1,200})"/.exec(head)?.[1];
      this.status(conn, "error", `message of ${bytes} bytes exceeds the ${this.opts.maxMessageBytes}-byte limit`, id);
      return;
    }
    this.onText(conn, data.toString());
  }

  private onText(conn: Connection, text: string): void {
    if (nestingExceeds(text, MAX_JSON_DEPTH)) {
      this.status(conn, "error", `message nests deeper than ${MAX_JSON_DEPTH} levels`);
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      this.status(conn, "error", `invalid JSON: ${(err as Error).message}`);
      return;
    }
    const rawId = typeof (raw as { id?: unknown })?.id === "string" ? ((raw as { id: string }).id as string) : undefined;
    const rawAction = (raw as { action?: unknown })?.action;
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success) {
      const op = (raw as { op?: unknown })?.op;
      const known = ClientMessage.options.some((o) => o.shape.op.value === op);
      const msg = known
        ? `invalid ${String(op)} message: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`
        : `unknown op ${short(JSON.stringify(op) ?? "undefined")}`;
      this.status(conn, "error", msg, rawId);
      // A refused goal also gets its result, so a client waiting on it stops waiting — when it can be addressed.
      if (op === "send_action_goal" && rawId && rawId.length <= MAX_ID_LENGTH && typeof rawAction === "string" && rawAction.length <= MAX_NAME_LENGTH) {
        this.send(conn, { op: "action_result", id: rawId, action: rawAction, values: msg, status: GoalStatus.ABORTED, result: false });
      }
      return;
    }
    const m = parsed.data;
    switch (m.op) {
      case "fragment": {
        let whole: string | undefined;
        try {
          whole = conn.fragments.add(m);
        } catch (err) {
          this.status(conn, "error", (err as Error).message, m.id);
          return;
        }
        if (whole !== undefined) this.onText(conn, whole);
        return;
      }
      case "call_service":
        void this.onCallService(conn, m);
        return;
      case "subscribe":
        if (!this.allowed.topic(m.topic)) return this.refuse(conn, "topic", m.topic, m.id);
        this.onSubscribe(conn, m);
        return;
      case "unsubscribe": {
        const s = conn.subscriptions.get(m.topic);
        if (s) clearTimeout(s.timer);
        conn.subscriptions.delete(m.topic);
        return;
      }
      case "advertise": {
        if (!this.allowed.topic(m.topic)) return this.refuse(conn, "topic", m.topic, m.id);
        const existing = this.topics.get(m.topic);
        if (existing && existing.type !== m.type) {
          this.status(conn, "error", `topic ${m.topic} already has type ${existing.type}, not ${m.type}`, m.id);
          return;
        }
        if (!conn.advertised.has(m.topic) && conn.advertised.size >= this.opts.maxTopicsPerClient) {
          this.status(conn, "error", `a client may advertise at most ${this.opts.maxTopicsPerClient} topics`, m.id);
          return;
        }
        if (!existing) this.topics.set(m.topic, { type: m.type, latched: false, advertisers: new Set([conn]) });
        else existing.advertisers?.add(conn);
        conn.advertised.set(m.topic, m.type);
        return;
      }
      case "unadvertise":
        this.unadvertiseFor(conn, m.topic);
        return;
      case "publish": {
        if (!this.allowed.topic(m.topic)) return this.refuse(conn, "topic", m.topic, m.id);
        const t = this.topics.get(m.topic);
        // Only topics this client advertised: a client may not speak for the robot's own topics.
        if (!t || !conn.advertised.has(m.topic)) {
          this.status(conn, "error", `publish to ${m.topic} before advertise`, m.id);
          return;
        }
        t.onMessage?.(m.msg, conn.id);
        this.publish(m.topic, m.msg);
        return;
      }
      case "send_action_goal":
        this.onSendGoal(conn, m);
        return;
      case "cancel_action_goal": {
        if (!this.allowed.action(m.action)) return this.refuse(conn, "action", m.action, m.id);
        const g = this.goals.get(m.id);
        if (!g || g.action !== m.action) {
          this.status(conn, "warning", `no goal ${m.id} on ${m.action} to cancel`, m.id);
          return;
        }
        if (g.status <= GoalStatus.EXECUTING) {
          g.status = GoalStatus.CANCELING;
          g.controller.abort();
        }
        return;
      }
      case "set_level":
        conn.level = m.level;
        return;
      case "service_response":
        // We never call services on clients; tolerate and ignore.
        return;
    }
  }

  /** A name the allowlists keep this client from: said in a status error (the answer rosbridge gives is a warning). */
  private refuse(conn: Connection, kind: "topic" | "service" | "action", name: string, id?: string): void {
    this.status(conn, "error", `${kind} ${short(name, 200)} is not allowed by this bridge's ${kind}s allowlist`, id);
  }

  private async onCallService(conn: Connection, m: CallServiceMsg): Promise<void> {
    const reply = (values: unknown, result: boolean) =>
      this.send(conn, { op: "service_response", id: m.id, service: m.service, values, result }, m.fragment_size, m.id);
    const name = absolute(m.service);
    if (!this.allowed.service(name)) {
      reply(`service ${short(name, 200)} is not allowed by this bridge's services allowlist`, false);
      return;
    }
    const svc = this.services.get(name);
    if (!svc) {
      reply(`service ${m.service} does not exist`, false);
      return;
    }
    try {
      const values = await svc.handler(m.args ?? {}, { clientId: conn.id, remoteAddress: conn.remoteAddress, loopback: conn.loopback });
      reply(values ?? {}, true);
    } catch (err) {
      reply((err as Error).message ?? String(err), false);
    }
  }

  private onSubscribe(conn: Connection, m: SubscribeMsg): void {
    const t = this.topics.get(m.topic);
    if (t && m.type && m.type !== t.type) {
      this.status(conn, "error", `topic ${m.topic} has type ${t.type}, not ${m.type}`, m.id);
      return;
    }
    if (m.compression && m.compression !== "none") {
      this.status(conn, "warning", `compression ${m.compression} is not supported; sending plain JSON`, m.id);
    }
    const prev = conn.subscriptions.get(m.topic);
    if (!prev && conn.subscriptions.size >= this.opts.maxTopicsPerClient) {
      this.status(conn, "error", `a client may subscribe to at most ${this.opts.maxTopicsPerClient} topics`, m.id);
      return;
    }
    if (prev) clearTimeout(prev.timer);
    const sub: Subscription = { id: m.id, throttleMs: m.throttle_rate ?? 0, fragmentSize: m.fragment_size, lastSentAt: 0 };
    conn.subscriptions.set(m.topic, sub);
    if (t?.latched && t.last !== undefined) this.deliver(conn, m.topic, sub, t.last);
    t?.onSubscribe?.(m.topic);
  }

  private deliver(conn: Connection, topic: string, sub: Subscription, msg: unknown): void {
    const now = Date.now();
    if (sub.throttleMs > 0 && now - sub.lastSentAt < sub.throttleMs) {
      // Keep only the newest message and send it when the throttle window ends (rosbridge's throttle_rate).
      sub.pending = msg;
      sub.timer ??= setTimeout(() => {
        sub.timer = undefined;
        const p = sub.pending;
        sub.pending = undefined;
        if (p !== undefined && conn.subscriptions.get(topic) === sub) this.deliver(conn, topic, sub, p);
      }, sub.throttleMs - (now - sub.lastSentAt));
      return;
    }
    sub.lastSentAt = now;
    this.send(conn, { op: "publish", topic, msg }, sub.fragmentSize, sub.id ?? topic, true);
  }

  private onSendGoal(conn: Connection, m: SendActionGoalMsg): void {
    const goalId = m.id ?? `goal:${m.action}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
    const fail = (msg: string) => {
      this.status(conn, "error", msg, goalId);
      this.send(conn, { op: "action_result", id: goalId, action: m.action, values: msg, status: GoalStatus.ABORTED, result: false });
    };
    // Before anything else, a re-attach by goal id included: the allowlist decides what a client may reach.
    if (!this.allowed.action(m.action)) return fail(`action ${short(m.action, 200)} is not allowed by this bridge's actions allowlist`);
    const existing = this.goals.get(goalId);
    if (existing) {
      // Same goal id again: re-attach instead of executing twice.
      if (existing.action !== m.action) return fail(`goal id ${goalId} is already used by ${existing.action}`);
      if (existing.status >= GoalStatus.SUCCEEDED) this.sendResult(conn, existing);
      else {
        existing.listeners.add(conn);
        if (m.feedback !== false) existing.feedbackTo.add(conn);
      }
      return;
    }
    const action = this.actions.get(m.action);
    if (!action) return fail(`action ${m.action} does not exist`);
    if (m.action_type !== action.type) return fail(`action ${m.action} has type ${action.type}, not ${m.action_type}`);
    let args: unknown = m.args ?? {};
    if (action.schema) {
      const p = action.schema.safeParse(args);
      if (!p.success) {
        return fail(`invalid arguments for ${m.action}: ${p.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ")}`);
      }
      args = p.data;
    }
    const rec: GoalRecord = {
      id: goalId,
      action: m.action,
      status: GoalStatus.EXECUTING,
      controller: new AbortController(),
      listeners: new Set([conn]),
      feedbackTo: new Set(m.feedback === false ? [] : [conn]),
      fragmentSize: m.fragment_size,
      bytes: 2 * (goalId.length + m.action.length),
    };
    this.remember(rec);
    const ctx: ActionContext = {
      goalId,
      signal: rec.controller.signal,
      feedback: (values) => {
        for (const c of rec.feedbackTo) this.send(c, { op: "action_feedback", id: goalId, action: m.action, values }, rec.fragmentSize, goalId, true);
      },
    };
    // Whatever the handler does — throw at once, reject, resolve with nothing — the goal ends with a result.
    Promise.resolve()
      .then(() => action.handler(args, ctx))
      .then(
        (out) => {
          if (!out) throw new Error(`action ${m.action} ended without an outcome`);
          this.finish(rec, out.status === "succeeded" ? GoalStatus.SUCCEEDED : out.status === "canceled" ? GoalStatus.CANCELED : GoalStatus.ABORTED, out.values);
        },
      )
      .catch((err) => {
        if (rec.status >= GoalStatus.SUCCEEDED) return this.opts.log(`goal ${goalId}: ${(err as Error).message}`);
        this.finish(rec, GoalStatus.ABORTED, { success: false, message: `internal error: ${(err as Error).message}` });
      });
  }

  private finish(rec: GoalRecord, status: number, values: unknown): void {
    rec.status = status;
    rec.values = values;
    for (const c of rec.listeners) this.sendResult(c, rec);
    rec.listeners.clear();
    rec.feedbackTo.clear();
    // The result is what a finished goal costs to remember.
    let size = 0;
    try {
      size = 2 * (JSON.stringify(values)?.length ?? 0);
    } catch {
      size = 0;
    }
    if (this.goals.get(rec.id) === rec) {
      this.goalBytes += size;
      rec.bytes += size;
      this.prune();
    }
  }

  private sendResult(conn: Connection, rec: GoalRecord): void {
    this.send(conn, { op: "action_result", id: rec.id, action: rec.action, values: rec.values, status: rec.status, result: true }, rec.fragmentSize, rec.id);
  }

  private remember(rec: GoalRecord): void {
    this.goals.set(rec.id, rec);
    this.goalBytes += rec.bytes;
    this.prune();
  }

  /** Forgets the oldest finished goals while more are remembered than the count or the bytes allow. */
  private prune(): void {
    const over = () => this.goals.size > this.opts.goalMemory || this.goalBytes > this.opts.goalMemoryBytes;
    if (!over()) return;
    for (const [id, g] of this.goals) {
      if (g.status < GoalStatus.SUCCEEDED) continue; // a running goal is never forgotten
      this.goals.delete(id);
      this.goalBytes -= g.bytes;
      if (!over()) return;
    }
  }

  /** Bytes the remembered goals take (ids, actions and results), for diagnostics and tests. */
  get rememberedGoalBytes(): number {
    return this.goalBytes;
  }

  /** Topics known to the server: its own and those clients advertise. */
  get topicCount(): number {
    return this.topics.size;
  }

  private status(conn: Connection, level: "info" | "warning" | "error", msg: string, id?: string): void {
    if (LEVELS[level] < LEVELS[conn.level]) return;
    // An id too long to be one of ours is not echoed; the text is bounded whatever it quotes.
    const text = msg.length > MAX_STATUS_CHARS ? `${msg.slice(0, MAX_STATUS_CHARS)}…` : msg;
    this.send(conn, { op: "status", level, msg: text, ...(id && id.length <= MAX_ID_LENGTH ? { id } : {}) });
  }

  /**
   * Sends one message, fragmented when asked. Every send respects the client's buffer cap: what may be dropped
   * (topic messages, feedback) is dropped; anything else to a client that far behind ends its connection.
   */
  private send(conn: Connection, msg: object, fragmentSize?: number, fragmentId?: string, droppable = false): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    if (conn.ws.bufferedAmount > this.opts.maxBufferedBytes) {
      if (droppable) {
        this.droppedMessages++;
        return;
      }
      this.slowClientsDisconnected++;
      this.opts.log(`client ${conn.id} has ${conn.ws.bufferedAmount} bytes unread; disconnecting it`);
      conn.ws.terminate();
      return;
    }
    let text: string;
    try {
      text = JSON.stringify(msg);
    } catch (err) {
      this.opts.log(`cannot serialize a message for client ${conn.id}: ${(err as Error).message}`);
      return;
    }
    if (fragmentSize && text.length > fragmentSize) {
      for (const f of fragmentMessage(fragmentId ?? "fragment", text, fragmentSize)) conn.ws.send(JSON.stringify(f));
      return;
    }
    conn.ws.send(text);
  }
}

/** Bytes of a received message, whatever shape `ws` delivered it in. */
function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return (data as Buffer | ArrayBuffer).byteLength;
}
