/**
 * A client's connection as the server keeps it (its subscriptions, the topics it advertised, its fragment assembler,
 * the status level it asked for, its metering), and what goes back over it: the `Outbox` sends status messages at
 * the client's level, bounded in length, and every other message through one `send` that fragments when asked and
 * respects the client's buffer cap — a message that may be dropped (topic message, feedback) is dropped, anything
 * else to a client that far behind ends its connection.
 */
import { WebSocket, type RawData } from "ws";
import { fragmentMessage, MAX_ID_LENGTH, type ClientMessage, type FragmentAssembler } from "../protocol";

/** A client message of one op. */
export type Msg<Op extends ClientMessage["op"]> = Extract<ClientMessage, { op: Op }>;

export interface Subscription {
  id?: string;
  throttleMs: number;
  fragmentSize?: number;
  lastSentAt: number;
  pending?: unknown;
  timer?: NodeJS.Timeout;
}

export interface Connection {
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

const LEVELS = { info: 0, warning: 1, error: 2, none: 3 } as const;
/** Longest status text sent back: an error about a hostile message never echoes it whole. */
const MAX_STATUS_CHARS = 2000;
export const short = (text: string, limit = 120) =>
  text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;

export class Outbox {
  constructor(
    private readonly opts: { maxBufferedBytes: number; log: (line: string) => void },
    /** The server's diagnostics counters, counted here. */
    private readonly counters: { droppedMessages: number; slowClientsDisconnected: number },
  ) {}

  status(conn: Connection, level: "info" | "warning" | "error", msg: string, id?: string): void {
    if (LEVELS[level] < LEVELS[conn.level]) return;
    // An id too long to be one of ours is not echoed; the text is bounded whatever it quotes.
    const text = msg.length > MAX_STATUS_CHARS ? `${msg.slice(0, MAX_STATUS_CHARS)}…` : msg;
    this.send(conn, { op: "status", level, msg: text, ...(id && id.length <= MAX_ID_LENGTH ? { id } : {}) });
  }

  /**
   * Sends one message, fragmented when asked. Every send respects the client's buffer cap: what may be dropped
   * (topic messages, feedback) is dropped; anything else to a client that far behind ends its connection.
   */
  send(conn: Connection, msg: object, fragmentSize?: number, fragmentId?: string, droppable = false): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    if (conn.ws.bufferedAmount > this.opts.maxBufferedBytes) {
      if (droppable) {
        this.counters.droppedMessages++;
        return;
      }
      this.counters.slowClientsDisconnected++;
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
