/**
 * A rosbridge v2 client over `ws`: service calls with time limits, subscriptions that survive a reconnect,
 * publishing, and ROS 2 action goals with a feedback stream and cancel. Errors are typed (see ./errors).
 */
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { WebSocket } from "ws";
import { ServerMessage, FragmentAssembler, GoalStatus, DEFAULT_MAX_MESSAGE_BYTES } from "./protocol";
import {
  BridgeAuthError,
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
  RobotLostError,
  RosAuthError,
  ServiceCallError,
} from "./errors";
import { fromRos1, toRos1, JSON_SERVICE_TYPE } from "./ros1Messages";
import { RosbridgeAuthentication, checkedRosSecret, rosSecretFromEnvironment } from "./rosauth";

export interface BridgeClientOptions {
  /** Presented as `Authorization: Bearer <token>` when the server requires one. */
  token?: string;
  /**
   * rosauth's 16-character secret, for a ROS 1 rosbridge run with `authenticate:=true`: sent as the `auth` op first
   * on every connection (./rosauth). Defaults to ROBOGRAPH_ROS_SECRET or ROBOGRAPH_ROS_SECRET_FILE.
   */
  rosSecret?: string;
  /** Attempts for the first connection and for each reconnection. */
  connectAttempts?: number;
  /** First retry delay; doubles each attempt up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Default time limit of a service call. */
  callTimeoutMs?: number;
  /** Reconnect after the connection drops (subscriptions are restored). */
  reconnect?: boolean;
  maxMessageBytes?: number;
}

export interface GoalResult<R = unknown> {
  goalId: string;
  action: string;
  /** ROS 2 GoalStatus code (4 succeeded, 5 canceled, 6 aborted). */
  status: number;
  succeeded: boolean;
  values: R;
  /** The robot's words on how the goal ended, where the protocol carries them apart from the result (actionlib's status text). */
  statusText?: string;
  /** When the robot says the goal ended (its result's stamp, seconds), where the protocol carries it. */
  endedAt?: number;
}

export interface GoalHandle<R = unknown> {
  goalId: string;
  result: Promise<GoalResult<R>>;
  cancel(): void;
}

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}
interface PendingGoal {
  action: string;
  onFeedback?: (values: unknown) => void;
  resolve(v: GoalResult): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}
interface ClientSubscription {
  type?: string;
  throttleRate?: number;
  queueLength?: number;
  handlers: Set<(msg: unknown) => void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How ROS 1's rosbridge says a service's node is gone (rospy's words, the only ones it has): the master still lists a
 * crashed node's services, and calling one fails within milliseconds with one of these.
 */
const NODE_UNREACHABLE = /Unable to communicate with service|unable to connect to service/i;

/** A failed call as its error: a node that is gone is a lost robot, anything else the service's own failure. */
function serviceFailure(service: string, detail: unknown): Error {
  const failure = new ServiceCallError(service, detail);
  if (typeof detail !== "string" || !NODE_UNREACHABLE.test(detail)) return failure;
  return new RobotLostError(`service ${service}`, 0, `robot lost — its node does not answer: ${detail}`, {
    cause: failure,
  });
}

export class BridgeClient extends EventEmitter {
  private ws?: WebSocket;
  private calls = new Map<string, PendingCall>();
  private goals = new Map<string, PendingGoal>();
  private subs = new Map<string, ClientSubscription>();
  private advertised = new Map<string, { type: string; latch?: boolean }>();
  private services = new Map<string, { type: string; handler: (args: unknown) => unknown }>();
  private serviceTypes = new Map<string, Promise<string>>();
  /** Each subscribed topic's newest header stamp (seconds), and who waits for a later one. */
  private stamps = new Map<string, number>();
  private stampWaits = new Set<{ topic: string; atLeast: number; done(): void }>();
  /**
   * Which rosbridge this is: ours and ROS 2's (`ros2`), or ROS 1's reference server (`ros1`), where type names have no
   * `/msg/` part, headers stamp in secs/nsecs, and services of type robograph_msgs/Json carry their values as JSON
   * text. Set by discovery (tools/skills.ts: from how the manifest came, or from rosapi's type names); nothing above
   * the client sees the difference.
   */
  dialect: "ros2" | "ros1" = "ros2";
  private fragments: FragmentAssembler;
  private closedByUser = false;
  /** Why rosbridge would not have this client, once it refused it: every later request says so too. */
  private refusedBy?: RosAuthError;
  private reconnecting?: Promise<void>;
  /** When the socket last closed while this client meant to stay connected (Date.now()); undefined while it is open. */
  disconnectedSince?: number;
  private readonly o: Required<Omit<BridgeClientOptions, "token" | "rosSecret">> & {
    token?: string;
    rosSecret?: string;
  };

  private constructor(
    readonly url: string,
    options: BridgeClientOptions,
  ) {
    super();
    this.o = {
      token: options.token,
      rosSecret:
        options.rosSecret === undefined
          ? rosSecretFromEnvironment()
          : checkedRosSecret(options.rosSecret, "the rosSecret option"),
      connectAttempts: options.connectAttempts ?? 5,
      backoffMs: options.backoffMs ?? 100,
      maxBackoffMs: options.maxBackoffMs ?? 2000,
      callTimeoutMs: options.callTimeoutMs ?? 10_000,
      reconnect: options.reconnect ?? true,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    };
    // Several subscriptions may arrive fragmented at once; the server is trusted further than a client would be.
    this.fragments = new FragmentAssembler(this.o.maxMessageBytes, 64, 4 * this.o.maxMessageBytes);
  }

  /** Connects with bounded retries and exponential backoff; throws BridgeConnectionError when all attempts fail. */
  static async connect(url: string, options: BridgeClientOptions = {}): Promise<BridgeClient> {
    const client = new BridgeClient(url, options);
    await client.open();
    return client;
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /**
   * Closed for good: by `close()`, because reconnecting ran out of attempts, or because rosbridge refused this client's
   * authentication (then it emitted `close` with why).
   */
  get closed(): boolean {
    return this.closedByUser;
  }

  private async open(): Promise<void> {
    let delay = this.o.backoffMs;
    let lastErr: Error | undefined;
    for (let attempt = 1; attempt <= this.o.connectAttempts; attempt++) {
      if (this.closedByUser) throw new BridgeConnectionError("client was closed");
      try {
        await this.openOnce();
        return;
      } catch (err) {
        lastErr = err as Error;
        // A refused token or secret stays refused: no point in knocking again (and a server may count the attempts).
        if (err instanceof BridgeAuthError || err instanceof RosAuthError) throw err;
        if (attempt < this.o.connectAttempts) {
          await sleep(delay);
          delay = Math.min(delay * 2, this.o.maxBackoffMs);
        }
      }
    }
    throw new BridgeConnectionError(
      `cannot connect to ${this.url} after ${this.o.connectAttempts} attempts: ${lastErr?.message}`,
    );
  }

  private openOnce(): Promise<void> {
    return new Promise((resolve, reject) => {
      const headers = this.o.token ? { authorization: `Bearer ${this.o.token}` } : undefined;
      const ws = new WebSocket(this.url, {
        headers,
        maxPayload: this.o.maxMessageBytes * 2 + 1024,
        handshakeTimeout: this.o.callTimeoutMs,
      });
      const rosauth = new RosbridgeAuthentication(ws, this.url, this.o.rosSecret);
      const onError = (err: Error) => {
        ws.removeAllListeners();
        ws.on("error", () => {});
        ws.terminate();
        reject(err);
      };
      ws.once("error", onError);
      ws.once("unexpected-response", (_req, res) => {
        const code = res.statusCode ?? 0;
        onError(
          code === 401 || code === 403
            ? new BridgeAuthError(this.url, code)
            : new Error(`server answered HTTP ${code}`),
        );
      });
      const onOpen = () => {
        ws.off("error", onError);
        if (this.closedByUser) {
          // close() was called while this attempt was in flight.
          ws.on("error", () => {});
          ws.close(1000);
          reject(new BridgeConnectionError("client was closed"));
          return;
        }
        ws.on("error", (err) => this.emit("socket-error", err));
        ws.on("message", (data) => this.onText(data.toString()));
        ws.on("close", (code) => this.onClose(ws, rosauth.refusal(code)));
        this.ws = ws;
        // Restore what this client had set up before a reconnect.
        for (const [topic, a] of this.advertised) this.sendAdvertise(topic, a);
        for (const [service, a] of this.services)
          this.sendRaw({ op: "advertise_service", service, type: this.typeName(a.type) });
        for (const [topic, s] of this.subs) this.sendSubscribe(topic, s);
        resolve();
      };
      // With a rosauth secret nothing else may go first: rosbridge closes the socket on any other op.
      ws.once("open", () =>
        this.o.rosSecret ? rosauth.authenticate(this.o.callTimeoutMs).then(onOpen, onError) : onOpen(),
      );
    });
  }

  /** `refused`: rosbridge closed the socket for want of authentication (RosAuthError), which reconnecting cannot mend. */
  private onClose(ws: WebSocket, refused?: RosAuthError): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    this.disconnectedSince = Date.now();
    const lost = refused ?? new BridgeConnectionError(`connection to ${this.url} was lost`);
    for (const [id, c] of this.calls) {
      clearTimeout(c.timer);
      c.reject(lost);
      this.calls.delete(id);
    }
    for (const [id, g] of this.goals) {
      clearTimeout(g.timer);
      // The goal may still be running on the robot; the caller reconciles by goal id.
      g.reject(new BridgeConnectionError(`connection lost while goal ${id} on ${g.action} was running`));
      this.goals.delete(id);
    }
    if (refused) {
      // Reconnecting would replay the same unauthenticated requests to the same refusal, forever.
      this.closedByUser = true;
      this.refusedBy = refused;
      this.emit("close", refused);
      return;
    }
    if (this.closedByUser || !this.o.reconnect) {
      this.emit("close");
      return;
    }
    this.emit("disconnect");
    this.reconnecting = this.open().then(
      () => {
        this.reconnecting = undefined;
        this.disconnectedSince = undefined;
        this.emit("reconnect");
      },
      (err) => {
        this.reconnecting = undefined;
        this.closedByUser = true;
        if (err instanceof RosAuthError) this.refusedBy = err;
        this.emit("close", err);
      },
    );
  }

  private onText(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.emit("protocol-error", new BridgeProtocolError(undefined, "server sent invalid JSON"));
      return;
    }
    const parsed = ServerMessage.safeParse(raw);
    if (!parsed.success) {
      this.emit(
        "protocol-error",
        new BridgeProtocolError(undefined, `unexpected message from server: ${text.slice(0, 200)}`),
      );
      return;
    }
    const message = parsed.data;
    switch (message.op) {
      case "fragment": {
        try {
          const whole = this.fragments.add(message);
          if (whole !== undefined) this.onText(whole);
        } catch (err) {
          this.emit("protocol-error", new BridgeProtocolError(message.id, (err as Error).message));
        }
        return;
      }
      case "publish": {
        const subscription = this.subs.get(message.topic);
        const msg = this.dialect === "ros1" ? fromRos1(message.msg) : message.msg;
        const stamp = (msg as { header?: { stamp?: { sec?: unknown; nanosec?: unknown } } })?.header?.stamp;
        if (typeof stamp?.sec === "number") this.stamped(message.topic, stamp.sec + Number(stamp.nanosec ?? 0) / 1e9);
        if (subscription) for (const h of subscription.handlers) this.safely(() => h(msg));
        return;
      }
      case "service_response": {
        const call = message.id ? this.calls.get(message.id) : undefined;
        if (!call) return;
        this.calls.delete(message.id!);
        clearTimeout(call.timer);
        if (message.result) call.resolve(message.values);
        else call.reject(serviceFailure(message.service, message.values));
        return;
      }
      case "action_feedback": {
        const goal = this.goals.get(message.id);
        if (goal?.onFeedback) this.safely(() => goal.onFeedback!(message.values));
        return;
      }
      case "action_result": {
        const goal = this.goals.get(message.id);
        if (!goal) return;
        this.goals.delete(message.id);
        clearTimeout(goal.timer);
        const status = message.status ?? (message.result ? GoalStatus.SUCCEEDED : GoalStatus.ABORTED);
        goal.resolve({
          goalId: message.id,
          action: message.action,
          status,
          succeeded: message.result && status === GoalStatus.SUCCEEDED,
          values: message.values,
        });
        return;
      }
      case "status": {
        if (message.level === "error" && message.id) {
          const err = new BridgeProtocolError(message.id, message.msg);
          const call = this.calls.get(message.id);
          if (call) {
            this.calls.delete(message.id);
            clearTimeout(call.timer);
            call.reject(err);
            return;
          }
          const goal = this.goals.get(message.id);
          if (goal) {
            this.goals.delete(message.id);
            clearTimeout(goal.timer);
            goal.reject(err);
            return;
          }
        }
        this.emit("status", message);
        return;
      }
      case "call_service": {
        const offered = this.services.get(message.service);
        if (!offered) {
          this.emit(
            "protocol-error",
            new BridgeProtocolError(
              message.id,
              `server called service ${message.service}, which this client does not offer`,
            ),
          );
          return;
        }
        void this.answer(message.id, message.service, offered.handler, message.args);
        return;
      }
    }
  }

  /** Runs a caller's handler; its exception is reported as an event, never thrown into the socket's listener. */
  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.emit("handler-error", err);
    }
  }

  private async ready(timeoutMs: number): Promise<void> {
    if (this.connected) return;
    if (this.closedByUser) throw this.refusedBy ?? new BridgeConnectionError("client is closed");
    if (!this.reconnecting) throw new BridgeConnectionError(`not connected to ${this.url}`);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.reconnecting,
        new Promise(
          (_, rej) =>
            (timer = setTimeout(
              () => rej(new BridgeTimeoutError(`reconnecting to ${this.url}`, timeoutMs)),
              timeoutMs,
            )),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
    if (!this.connected) throw this.refusedBy ?? new BridgeConnectionError(`not connected to ${this.url}`);
  }

  /** Whether a closed socket is opened again: this client reconnects, and was neither closed nor gave up. */
  get reconnects(): boolean {
    return this.o.reconnect && !this.closedByUser;
  }

  /**
   * Resolves true once the socket is open (at once if it is), false if it is not back within `timeoutMs` or the client
   * gave up reconnecting: how a caller gives a robot its liveness window after the socket closed.
   */
  async whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.connected) return true;
    try {
      await this.ready(timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  private sendRaw(msg: object): void {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN)
      throw this.refusedBy ?? new BridgeConnectionError(`not connected to ${this.url}`);
    this.ws.send(JSON.stringify(msg));
  }

  /** Sends any protocol message as is (tools and tests that need a raw op). */
  sendMessage(msg: object): void {
    this.sendRaw(msg);
  }

  async callService<T = unknown>(
    service: string,
    args: unknown = {},
    opts: { timeoutMs?: number; type?: string } = {},
  ): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.o.callTimeoutMs;
    await this.ready(timeoutMs);
    if (
      this.dialect === "ros1" &&
      !service.startsWith("/rosapi/") &&
      (await this.serviceType(service, timeoutMs)) === JSON_SERVICE_TYPE
    ) {
      const { json } = await this.callRaw<{ json: string }>(
        service,
        { json: JSON.stringify(args ?? {}) },
        timeoutMs,
        opts.type,
      );
      return JSON.parse(json) as T;
    }
    return this.callRaw<T>(service, args, timeoutMs, opts.type);
  }

  /** A service's type as rosapi says (cached): how a ROS 1 client learns which services carry JSON text. */
  private serviceType(service: string, timeoutMs: number): Promise<string> {
    let lookup = this.serviceTypes.get(service);
    if (!lookup) {
      lookup = this.callRaw<{ type: string }>("/rosapi/service_type", { service }, timeoutMs).then((r) => r.type);
      lookup.catch(() => this.serviceTypes.delete(service));
      this.serviceTypes.set(service, lookup);
    }
    return lookup;
  }

  private callRaw<T>(service: string, args: unknown, timeoutMs: number, type?: string): Promise<T> {
    const id = `call_service:${service}:${randomUUID()}`;
    return new Promise<T>((resolve, reject) => {
      const pending: PendingCall = { resolve: resolve as (v: unknown) => void, reject };
      pending.timer = setTimeout(() => {
        this.calls.delete(id);
        reject(new BridgeTimeoutError(`service ${service}`, timeoutMs));
      }, timeoutMs);
      this.calls.set(id, pending);
      try {
        this.sendRaw({ op: "call_service", id, service, args, ...(type ? { type: this.typeName(type) } : {}) });
      } catch (err) {
        clearTimeout(pending.timer);
        this.calls.delete(id);
        reject(err);
      }
    });
  }

  /** Subscribes `handler` to `topic`; returns the function that unsubscribes it. Restored after a reconnect. */
  subscribe<T = unknown>(
    topic: string,
    type: string | undefined,
    handler: (msg: T) => void,
    opts: { throttleRate?: number; queueLength?: number } = {},
  ): () => void {
    let subscription = this.subs.get(topic);
    if (!subscription) {
      subscription = { type, throttleRate: opts.throttleRate, queueLength: opts.queueLength, handlers: new Set() };
      this.subs.set(topic, subscription);
      if (this.connected) this.sendSubscribe(topic, subscription);
    }
    const listener = handler as (msg: unknown) => void;
    subscription.handlers.add(listener);
    return () => {
      const cur = this.subs.get(topic);
      if (!cur) return;
      cur.handlers.delete(listener);
      if (cur.handlers.size === 0) {
        this.subs.delete(topic);
        if (this.connected) this.sendRaw({ op: "unsubscribe", id: `subscribe:${topic}`, topic });
      }
    };
  }

  private stamped(topic: string, seconds: number): void {
    this.stamps.set(topic, Math.max(seconds, this.stamps.get(topic) ?? -Infinity));
    for (const w of this.stampWaits) if (w.topic === topic && seconds >= w.atLeast) w.done();
  }

  /**
   * Resolves true once a message stamped `atLeast` (seconds) or later has arrived on `topic`, false after
   * `timeoutMs`. Only for topics this client is subscribed to (others resolve true at once: nobody reads them).
   */
  stampedBy(topic: string, atLeast: number, timeoutMs: number): Promise<boolean> {
    if (!this.subs.has(topic) || (this.stamps.get(topic) ?? -Infinity) >= atLeast) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wait = {
        topic,
        atLeast,
        done: () => {
          clearTimeout(timer);
          this.stampWaits.delete(wait);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.stampWaits.delete(wait);
        resolve(false);
      }, timeoutMs);
      this.stampWaits.add(wait);
    });
  }

  /** Resolves with the next message on `topic` (subscribing only for as long as it waits). */
  nextMessage<T = unknown>(topic: string, type?: string, timeoutMs = this.o.callTimeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new BridgeTimeoutError(`waiting for a message on ${topic}`, timeoutMs));
      }, timeoutMs);
      const off = this.subscribe<T>(topic, type, (msg) => {
        clearTimeout(timer);
        off();
        resolve(msg);
      });
    });
  }

  private sendSubscribe(topic: string, subscription: ClientSubscription): void {
    this.sendRaw({
      op: "subscribe",
      id: `subscribe:${topic}`,
      topic,
      ...(subscription.type ? { type: this.typeName(subscription.type) } : {}),
      ...(subscription.throttleRate ? { throttle_rate: subscription.throttleRate } : {}),
      ...(subscription.queueLength ? { queue_length: subscription.queueLength } : {}),
    });
  }

  /** Advertises a topic this client publishes; `latch` keeps the last message for late subscribers (ROS 1). */
  advertise(topic: string, type: string, opts: { latch?: boolean } = {}): void {
    const advertisement = { type, latch: opts.latch };
    this.advertised.set(topic, advertisement);
    if (this.connected) this.sendAdvertise(topic, advertisement);
  }

  private sendAdvertise(topic: string, advertisement: { type: string; latch?: boolean }): void {
    this.sendRaw({
      op: "advertise",
      id: `advertise:${topic}`,
      topic,
      type: this.typeName(advertisement.type),
      ...(advertisement.latch ? { latch: true } : {}),
    });
  }

  publish(topic: string, msg: unknown): void {
    if (!this.advertised.has(topic))
      throw new BridgeProtocolError(undefined, `advertise ${topic} before publishing to it`);
    this.sendRaw({ op: "publish", topic, msg: this.dialect === "ros1" ? toRos1(msg) : msg });
  }

  /**
   * Offers a service from this client (the robot's side of a bridge: rosbridge's `advertise_service`). The handler's
   * value is the response; a throw answers `result: false` with its message. With a robograph_msgs/Json type the
   * handler sees and returns plain values; the JSON text is this client's business. Restored after a reconnect.
   */
  advertiseService(service: string, type: string, handler: (args: unknown) => unknown): void {
    this.services.set(service, { type, handler });
    if (this.connected) this.sendRaw({ op: "advertise_service", service, type: this.typeName(type) });
  }

  private async answer(
    id: string | undefined,
    service: string,
    handler: (args: unknown) => unknown,
    args: unknown,
  ): Promise<void> {
    const json = this.services.get(service)?.type === JSON_SERVICE_TYPE;
    let reply: object;
    try {
      const input = json
        ? JSON.parse(String((args as { json?: unknown })?.json || "{}"))
        : this.dialect === "ros1"
          ? fromRos1(args)
          : args;
      const values = await handler(input);
      reply = {
        op: "service_response",
        id,
        service,
        result: true,
        values: json ? { json: JSON.stringify(values ?? {}) } : values,
      };
    } catch (err) {
      reply = { op: "service_response", id, service, result: false, values: (err as Error).message };
    }
    if (this.connected) this.sendRaw(reply);
  }

  /** A type's name as this bridge spells it: ROS 1 has no `msg/`, `srv/` or `action/` part. */
  typeName(type: string): string {
    return this.dialect === "ros1" ? type.replace(/\/(msg|srv|action)\//, "/") : type;
  }

  /**
   * Sends an action goal. `result` resolves with the goal's end state whatever its status; it rejects only when the
   * goal could not be followed: refused by the server (BridgeProtocolError), no result in time (BridgeTimeoutError,
   * the goal is canceled), or the connection dropped (BridgeConnectionError; the goal may still be running).
   */
  sendGoal<R = unknown, F = unknown>(
    action: string,
    actionType: string,
    args: unknown,
    opts: { goalId?: string; onFeedback?: (f: F) => void; timeoutMs?: number; signal?: AbortSignal } = {},
  ): GoalHandle<R> {
    const goalId = opts.goalId ?? `send_action_goal:${action}:${randomUUID()}`;
    const cancel = () => {
      if (this.connected && this.goals.has(goalId)) this.sendRaw({ op: "cancel_action_goal", id: goalId, action });
    };
    const result = new Promise<GoalResult<R>>((resolve, reject) => {
      const detach = () => opts.signal?.removeEventListener("abort", cancel);
      const pending: PendingGoal = {
        action,
        onFeedback: opts.onFeedback as ((v: unknown) => void) | undefined,
        resolve: (outcome: GoalResult) => {
          detach();
          (resolve as (v: GoalResult) => void)(outcome);
        },
        reject: (error: Error) => {
          detach();
          reject(error);
        },
      };
      const start = () => {
        if (opts.signal?.aborted) {
          reject(new BridgeConnectionError(`goal on ${action} aborted before it was sent`));
          return;
        }
        if (opts.timeoutMs) {
          pending.timer = setTimeout(() => {
            cancel();
            this.goals.delete(goalId);
            pending.reject(new BridgeTimeoutError(`action ${action} (goal ${goalId})`, opts.timeoutMs!));
          }, opts.timeoutMs);
        }
        this.goals.set(goalId, pending);
        opts.signal?.addEventListener("abort", cancel, { once: true });
        try {
          this.sendRaw({ op: "send_action_goal", id: goalId, action, action_type: actionType, args, feedback: true });
        } catch (err) {
          clearTimeout(pending.timer);
          this.goals.delete(goalId);
          reject(err);
        }
      };
      if (this.connected) start();
      else this.ready(opts.timeoutMs ?? this.o.callTimeoutMs).then(start, reject);
    });
    return { goalId, result, cancel };
  }

  async close(): Promise<void> {
    this.closedByUser = true;
    const ws = this.ws;
    if (!ws) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      ws.close(1000);
    });
  }
}
