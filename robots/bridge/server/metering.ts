/**
 * Metering each client's message handling: every message's cost (the time it took, plus a charge per megabyte for the
 * framing and decoding `ws` did before) is a debt paid back at the client's share of the event loop. A client past
 * its burst is paused — its socket is not read, and what `ws` had already read waits in its backlog — until its debt
 * is back within the burst, so a client that keeps the loop busy slows only itself.
 */
import { WebSocket, type RawData } from "ws";
import type { Connection, Outbox } from "./connection";

/** Handling cost charged per received megabyte besides the measured time (ws's framing and decoding happen before). */
const MS_PER_MB = 1;

export class Meter {
  constructor(
    private readonly opts: { clientWorkShare: number; clientWorkBurstMs: number },
    /** The server's diagnostics: times a client was paused, and for how long in total. */
    private readonly stats: { throttled: { times: number; ms: number } },
    /** Handles one message (what is metered). */
    private readonly onRaw: (conn: Connection, data: RawData, isBinary: boolean) => void,
    private readonly out: Outbox,
  ) {}

  /** A message `ws` read from the client: handled now, or after the backlog while the client is paused. */
  receive(conn: Connection, data: RawData, isBinary: boolean): void {
    // Paused: what ws had already read waits its turn (bounded: the socket itself is no longer read).
    if (conn.resumeTimer || conn.backlog.length) conn.backlog.push([data, isBinary]);
    else this.handle(conn, data, isBinary);
  }

  private handle(conn: Connection, data: RawData, isBinary: boolean): void {
    const t0 = performance.now();
    try {
      this.onRaw(conn, data, isBinary);
    } catch (err) {
      // Nothing a client sends may take the server down.
      this.out.status(conn, "error", `internal error: ${(err as Error).message}`);
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
    this.stats.throttled.times++;
    this.stats.throttled.ms += waitMs;
    conn.ws.pause();
    conn.resumeTimer = setTimeout(() => this.resumeClient(conn), waitMs);
  }
}

/** Bytes of a received message, whatever shape `ws` delivered it in. */
export function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return (data as Buffer | ArrayBuffer).byteLength;
}
