/**
 * Topics: the server's own (declared with `advertiseTopic`, optionally latched) and those clients advertise (a topic
 * only clients advertised goes with the last of them), subscriptions with rosbridge's throttle_rate (only the newest
 * message is kept for the end of the throttle window) and fragment_size, and publishing to every subscriber. A client
 * may publish only on topics it advertised, and advertise or subscribe to a bounded number of them.
 */
import type { SubscribeMsg } from "../protocol";
import type { Connection, Msg, Outbox, Subscription } from "./connection";

export interface TopicEntry {
  type: string;
  latched: boolean;
  last?: unknown;
  onSubscribe?: (topic: string) => void;
  onMessage?: (msg: unknown, clientId: number) => void;
  /** Clients that advertised it; absent for the server's own topics. The topic goes when the last of them does. */
  advertisers?: Set<Connection>;
}

export class Topics {
  /** Every topic known to the server by name: its own and those clients advertise. */
  readonly byName = new Map<string, TopicEntry>();

  constructor(
    private readonly connections: Set<Connection>,
    private readonly opts: { maxTopicsPerClient: number },
    private readonly out: Outbox,
  ) {}

  clearLatched(topic: string): void {
    const entry = this.byName.get(topic);
    if (entry) entry.last = undefined;
  }

  subscriberCount(topic: string): number {
    let count = 0;
    for (const c of this.connections) if (c.subscriptions.has(topic)) count++;
    return count;
  }

  publish(topic: string, msg: unknown): void {
    const entry = this.byName.get(topic);
    if (entry?.latched) entry.last = msg;
    for (const c of this.connections) {
      const sub = c.subscriptions.get(topic);
      if (sub) this.deliver(c, topic, sub, msg);
    }
  }

  /** A client stops advertising `topic`; a topic only clients advertised goes with the last of them. */
  unadvertiseFor(conn: Connection, topic: string): void {
    conn.advertised.delete(topic);
    const entry = this.byName.get(topic);
    if (!entry?.advertisers) return;
    entry.advertisers.delete(conn);
    if (entry.advertisers.size === 0) this.byName.delete(topic);
  }

  onUnsubscribe(conn: Connection, message: Msg<"unsubscribe">): void {
    const subscription = conn.subscriptions.get(message.topic);
    if (subscription) clearTimeout(subscription.timer);
    conn.subscriptions.delete(message.topic);
  }

  onAdvertise(conn: Connection, message: Msg<"advertise">): void {
    const existing = this.byName.get(message.topic);
    if (existing && existing.type !== message.type) {
      this.out.status(
        conn,
        "error",
        `topic ${message.topic} already has type ${existing.type}, not ${message.type}`,
        message.id,
      );
      return;
    }
    if (!conn.advertised.has(message.topic) && conn.advertised.size >= this.opts.maxTopicsPerClient) {
      this.out.status(
        conn,
        "error",
        `a client may advertise at most ${this.opts.maxTopicsPerClient} topics`,
        message.id,
      );
      return;
    }
    if (!existing) this.byName.set(message.topic, { type: message.type, latched: false, advertisers: new Set([conn]) });
    else existing.advertisers?.add(conn);
    conn.advertised.set(message.topic, message.type);
  }

  onPublish(conn: Connection, message: Msg<"publish">): void {
    const entry = this.byName.get(message.topic);
    // Only topics this client advertised: a client may not speak for the robot's own topics.
    if (!entry || !conn.advertised.has(message.topic)) {
      this.out.status(conn, "error", `publish to ${message.topic} before advertise`, message.id);
      return;
    }
    entry.onMessage?.(message.msg, conn.id);
    this.publish(message.topic, message.msg);
  }

  onSubscribe(conn: Connection, message: SubscribeMsg): void {
    const entry = this.byName.get(message.topic);
    if (entry && message.type && message.type !== entry.type) {
      this.out.status(conn, "error", `topic ${message.topic} has type ${entry.type}, not ${message.type}`, message.id);
      return;
    }
    if (message.compression && message.compression !== "none") {
      this.out.status(
        conn,
        "warning",
        `compression ${message.compression} is not supported; sending plain JSON`,
        message.id,
      );
    }
    const prev = conn.subscriptions.get(message.topic);
    if (!prev && conn.subscriptions.size >= this.opts.maxTopicsPerClient) {
      this.out.status(
        conn,
        "error",
        `a client may subscribe to at most ${this.opts.maxTopicsPerClient} topics`,
        message.id,
      );
      return;
    }
    if (prev) clearTimeout(prev.timer);
    const sub: Subscription = {
      id: message.id,
      throttleMs: message.throttle_rate ?? 0,
      fragmentSize: message.fragment_size,
      lastSentAt: 0,
    };
    conn.subscriptions.set(message.topic, sub);
    if (entry?.latched && entry.last !== undefined) this.deliver(conn, message.topic, sub, entry.last);
    entry?.onSubscribe?.(message.topic);
  }

  private deliver(conn: Connection, topic: string, sub: Subscription, msg: unknown): void {
    const now = Date.now();
    if (sub.throttleMs > 0 && now - sub.lastSentAt < sub.throttleMs) {
      // Keep only the newest message and send it when the throttle window ends (rosbridge's throttle_rate).
      sub.pending = msg;
      sub.timer ??= setTimeout(
        () => {
          sub.timer = undefined;
          const pending = sub.pending;
          sub.pending = undefined;
          if (pending !== undefined && conn.subscriptions.get(topic) === sub) this.deliver(conn, topic, sub, pending);
        },
        sub.throttleMs - (now - sub.lastSentAt),
      );
      return;
    }
    sub.lastSentAt = now;
    this.out.send(conn, { op: "publish", topic, msg }, sub.fragmentSize, sub.id ?? topic, true);
  }
}
