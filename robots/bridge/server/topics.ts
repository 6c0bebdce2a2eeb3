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
    const t = this.byName.get(topic);
    if (t) t.last = undefined;
  }

  subscriberCount(topic: string): number {
    let n = 0;
    for (const c of this.connections) if (c.subscriptions.has(topic)) n++;
    return n;
  }

  publish(topic: string, msg: unknown): void {
    const t = this.byName.get(topic);
    if (t?.latched) t.last = msg;
    for (const c of this.connections) {
      const sub = c.subscriptions.get(topic);
      if (sub) this.deliver(c, topic, sub, msg);
    }
  }

  /** A client stops advertising `topic`; a topic only clients advertised goes with the last of them. */
  unadvertiseFor(conn: Connection, topic: string): void {
    conn.advertised.delete(topic);
    const t = this.byName.get(topic);
    if (!t?.advertisers) return;
    t.advertisers.delete(conn);
    if (t.advertisers.size === 0) this.byName.delete(topic);
  }

  onUnsubscribe(conn: Connection, m: Msg<"unsubscribe">): void {
    const s = conn.subscriptions.get(m.topic);
    if (s) clearTimeout(s.timer);
    conn.subscriptions.delete(m.topic);
  }

  onAdvertise(conn: Connection, m: Msg<"advertise">): void {
    const existing = this.byName.get(m.topic);
    if (existing && existing.type !== m.type) {
      this.out.status(conn, "error", `topic ${m.topic} already has type ${existing.type}, not ${m.type}`, m.id);
      return;
    }
    if (!conn.advertised.has(m.topic) && conn.advertised.size >= this.opts.maxTopicsPerClient) {
      this.out.status(conn, "error", `a client may advertise at most ${this.opts.maxTopicsPerClient} topics`, m.id);
      return;
    }
    if (!existing) this.byName.set(m.topic, { type: m.type, latched: false, advertisers: new Set([conn]) });
    else existing.advertisers?.add(conn);
    conn.advertised.set(m.topic, m.type);
  }

  onPublish(conn: Connection, m: Msg<"publish">): void {
    const t = this.byName.get(m.topic);
    // Only topics this client advertised: a client may not speak for the robot's own topics.
    if (!t || !conn.advertised.has(m.topic)) {
      this.out.status(conn, "error", `publish to ${m.topic} before advertise`, m.id);
      return;
    }
    t.onMessage?.(m.msg, conn.id);
    this.publish(m.topic, m.msg);
  }

  onSubscribe(conn: Connection, m: SubscribeMsg): void {
    const t = this.byName.get(m.topic);
    if (t && m.type && m.type !== t.type) {
      this.out.status(conn, "error", `topic ${m.topic} has type ${t.type}, not ${m.type}`, m.id);
      return;
    }
    if (m.compression && m.compression !== "none") {
      this.out.status(conn, "warning", `compression ${m.compression} is not supported; sending plain JSON`, m.id);
    }
    const prev = conn.subscriptions.get(m.topic);
    if (!prev && conn.subscriptions.size >= this.opts.maxTopicsPerClient) {
      this.out.status(conn, "error", `a client may subscribe to at most ${this.opts.maxTopicsPerClient} topics`, m.id);
      return;
    }
    if (prev) clearTimeout(prev.timer);
    const sub: Subscription = {
      id: m.id,
      throttleMs: m.throttle_rate ?? 0,
      fragmentSize: m.fragment_size,
      lastSentAt: 0,
    };
    conn.subscriptions.set(m.topic, sub);
    if (t?.latched && t.last !== undefined) this.deliver(conn, m.topic, sub, t.last);
    t?.onSubscribe?.(m.topic);
  }

  private deliver(conn: Connection, topic: string, sub: Subscription, msg: unknown): void {
    const now = Date.now();
    if (sub.throttleMs > 0 && now - sub.lastSentAt < sub.throttleMs) {
      // Keep only the newest message and send it when the throttle window ends (rosbridge's throttle_rate).
      sub.pending = msg;
      sub.timer ??= setTimeout(
        () => {
          sub.timer = undefined;
          const p = sub.pending;
          sub.pending = undefined;
          if (p !== undefined && conn.subscriptions.get(topic) === sub) this.deliver(conn, topic, sub, p);
        },
        sub.throttleMs - (now - sub.lastSentAt),
      );
      return;
    }
    sub.lastSentAt = now;
    this.out.send(conn, { op: "publish", topic, msg }, sub.fragmentSize, sub.id ?? topic, true);
  }
}
