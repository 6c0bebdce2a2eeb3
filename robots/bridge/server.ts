/**
 * A rosbridge v2 server over `ws`: services, topics and ROS 2 actions, with the protocol's `status` and `fragment` ops.
 *
 * Security: binds 127.0.0.1 unless told otherwise; refuses any other address without a token, and then requires
 * every client to present it, either as `?token=<token>` in the URL or as an `Authorization: Bearer <token>` header.
 *
 * Goals keep running when the client that sent them disconnects (a robot does not stop mid-motion because a laptop
 * slept); their results are remembered by goal id, so a client that comes back can re-attach by sending the same goal
 * id again (the goal is not executed twice) or ask `/robograph/goal_status`.
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
  GoalStatus,
  type CallServiceMsg,
  type SendActionGoalMsg,
  type SubscribeMsg,
} from "./protocol";

export type ServiceHandler = (args: unknown, caller: { clientId: number }) => unknown | Promise<unknown>;

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
  /** Outgoing bytes queued for one client above which topic messages to it are dropped (slow consumer). */
  maxBufferedBytes?: number;
  /** How many finished goals are remembered for re-attach and `/robograph/goal_status`. */
  goalMemory?: number;
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
  subscriptions: Map<string, Subscription>;
  advertised: Map<string, string>;
  fragments: FragmentAssembler;
  level: "info" | "warning" | "error" | "none";
}

interface TopicEntry {
  type: string;
  latched: boolean;
  last?: unknown;
  onSubscribe?: (topic: string) => void;
  onMessage?: (msg: unknown, clientId: number) => void;
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
}

const LEVELS = { info: 0, warning: 1, error: 2, none: 3 } as const;
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export class BridgeServer {
  private http?: HttpServer;
  private wss?: WebSocketServer;
  private connections = new Set<Connection>();
  private nextClientId = 1;
  private services = new Map<string, { type: string; handler: ServiceHandler }>();
  private topics = new Map<string, TopicEntry>();
  private actions = new Map<string, { type: string; handler: ActionHandler<any>; schema?: z.ZodType }>();
  private goals = new Map<string, GoalRecord>();
  private readonly opts: Required<Omit<BridgeServerOptions, "token">> & { token?: string };
  /** Messages dropped because a client could not keep up; visible for diagnostics. */
  droppedMessages = 0;

  constructor(options: BridgeServerOptions = {}) {
    this.opts = {
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 9090,
      token: options.token,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      maxBufferedBytes: options.maxBufferedBytes ?? 32 * 1024 * 1024,
      goalMemory: options.goalMemory ?? 1000,
      log: options.log ?? (() => {}),
    };
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
      verifyClient: (info: { req: IncomingMessage }) => this.authorized(info.req),
    });
    wss.on("connection", (ws) => this.onConnection(ws));
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
    const presented = query ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const a = Buffer.from(presented);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private onConnection(ws: WebSocket): void {
    const conn: Connection = {
      id: this.nextClientId++,
      ws,
      subscriptions: new Map(),
      advertised: new Map(),
      fragments: new FragmentAssembler(this.opts.maxMessageBytes),
      level: "error",
    };
    this.connections.add(conn);
    this.opts.log(`client ${conn.id} connected`);
    ws.on("message", (data, isBinary) => {
      try {
        this.onRaw(conn, data, isBinary);
      } catch (err) {
        // Nothing a client sends may take the server down.
        this.status(conn, "error", `internal error: ${(err as Error).message}`);
      }
    });
    ws.on("close", () => {
      this.connections.delete(conn);
      for (const s of conn.subscriptions.values()) clearTimeout(s.timer);
      for (const g of this.goals.values()) {
        g.listeners.delete(conn);
        g.feedbackTo.delete(conn);
      }
      this.opts.log(`client ${conn.id} disconnected`);
    });
    ws.on("error", (err) => this.opts.log(`client ${conn.id} socket error: ${err.message}`));
  }

  private onRaw(conn: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.status(conn, "error", "binary frames (CBOR/BSON) are not supported; send JSON text frames");
      return;
    }
    const text = data.toString();
    if (Buffer.byteLength(text) > this.opts.maxMessageBytes) {
      const id = /"id"\s*:\s*"([^"]{1,200})"/.exec(text.slice(0, 4096))?.[1];
      this.status(conn, "error", `message of ${Buffer.byteLength(text)} bytes exceeds the ${this.opts.maxMessageBytes}-byte limit`, id);
      return;
    }
    this.onText(conn, text);
  }

  private onText(conn: Connection, text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      this.status(conn, "error", `invalid JSON: ${(err as Error).message}`);
      return;
    }
    const rawId = typeof (raw as { id?: unknown })?.id === "string" ? ((raw as { id: string }).id as string) : undefined;
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success) {
      const op = (raw as { op?: unknown })?.op;
      const known = ClientMessage.options.some((o) => o.shape.op.value === op);
      const msg = known
        ? `invalid ${String(op)} message: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`
        : `unknown op ${JSON.stringify(op)}`;
      this.status(conn, "error", msg, rawId);
      if (op === "send_action_goal" && rawId && typeof (raw as { action?: unknown }).action === "string") {
        this.send(conn, { op: "action_result", id: rawId, action: (raw as { action: string }).action, values: msg, status: GoalStatus.ABORTED, result: false });
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
        this.onSubscribe(conn, m);
        return;
      case "unsubscribe": {
        const s = conn.subscriptions.get(m.topic);
        if (s) clearTimeout(s.timer);
        conn.subscriptions.delete(m.topic);
        return;
      }
      case "advertise": {
        const existing = this.topics.get(m.topic);
        if (existing && existing.type !== m.type) {
          this.status(conn, "error", `topic ${m.topic} already has type ${existing.type}, not ${m.type}`, m.id);
          return;
        }
        if (!existing) this.topics.set(m.topic, { type: m.type, latched: false });
        conn.advertised.set(m.topic, m.type);
        return;
      }
      case "unadvertise":
        conn.advertised.delete(m.topic);
        return;
      case "publish": {
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

  private async onCallService(conn: Connection, m: CallServiceMsg): Promise<void> {
    const reply = (values: unknown, result: boolean) =>
      this.send(conn, { op: "service_response", id: m.id, service: m.service, values, result }, m.fragment_size, m.id);
    const svc = this.services.get(m.service);
    if (!svc) {
      reply(`service ${m.service} does not exist`, false);
      return;
    }
    try {
      const values = await svc.handler(m.args ?? {}, { clientId: conn.id });
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
    if (conn.ws.bufferedAmount > this.opts.maxBufferedBytes) {
      this.droppedMessages++;
      return;
    }
    sub.lastSentAt = now;
    this.send(conn, { op: "publish", topic, msg }, sub.fragmentSize, sub.id ?? topic);
  }

  private onSendGoal(conn: Connection, m: SendActionGoalMsg): void {
    const goalId = m.id ?? `goal:${m.action}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
    const fail = (msg: string) => {
      this.status(conn, "error", msg, goalId);
      this.send(conn, { op: "action_result", id: goalId, action: m.action, values: msg, status: GoalStatus.ABORTED, result: false });
    };
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
    };
    this.remember(rec);
    const ctx: ActionContext = {
      goalId,
      signal: rec.controller.signal,
      feedback: (values) => {
        for (const c of rec.feedbackTo) this.send(c, { op: "action_feedback", id: goalId, action: m.action, values }, rec.fragmentSize, goalId);
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
  }

  private sendResult(conn: Connection, rec: GoalRecord): void {
    this.send(conn, { op: "action_result", id: rec.id, action: rec.action, values: rec.values, status: rec.status, result: true }, rec.fragmentSize, rec.id);
  }

  private remember(rec: GoalRecord): void {
    this.goals.set(rec.id, rec);
    if (this.goals.size <= this.opts.goalMemory) return;
    for (const [id, g] of this.goals) {
      if (g.status >= GoalStatus.SUCCEEDED) {
        this.goals.delete(id);
        if (this.goals.size <= this.opts.goalMemory) return;
      }
    }
  }

  private status(conn: Connection, level: "info" | "warning" | "error", msg: string, id?: string): void {
    if (LEVELS[level] < LEVELS[conn.level]) return;
    this.send(conn, { op: "status", level, msg, ...(id ? { id } : {}) });
  }

  private send(conn: Connection, msg: object, fragmentSize?: number, fragmentId?: string): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
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
