/**
 * rosbridge v2 wire protocol: the JSON operations exchanged over a WebSocket.
 * Shapes follow rosbridge_suite 2.x (ROS 2) so that roslib and a real rosbridge_server interoperate with ours.
 * Every inbound message is validated here before anything acts on it.
 */
import { z } from "zod";

/**
 * Longest topic, service, action or type name the bridge accepts. ROS names are short; a bound keeps a client from
 * parking megabytes in the server's tables under one name.
 */
export const MAX_NAME_LENGTH = 256;
/** Longest request, goal or fragment id (our own ids are a name plus a UUID). */
export const MAX_ID_LENGTH = 512;

const name = z.string().min(1).max(MAX_NAME_LENGTH);
const typeName = z.string().min(1).max(MAX_NAME_LENGTH);
const id = z.string().max(MAX_ID_LENGTH).optional();
const compression = z.enum(["none", "png", "cbor", "cbor-raw"]).optional();

export const CallService = z.object({
  op: z.literal("call_service"),
  id,
  service: name,
  args: z.unknown().optional(),
  type: typeName.optional(),
  fragment_size: z.number().int().positive().optional(),
  compression,
  timeout: z.number().nonnegative().optional(),
});
export const ServiceResponse = z.object({
  op: z.literal("service_response"),
  id,
  service: z.string(),
  values: z.unknown().optional(),
  result: z.boolean(),
});
export const Advertise = z.object({ op: z.literal("advertise"), id, topic: name, type: typeName });
export const Unadvertise = z.object({ op: z.literal("unadvertise"), id, topic: name });
export const Publish = z.object({ op: z.literal("publish"), id, topic: name, msg: z.unknown() });
export const Subscribe = z.object({
  op: z.literal("subscribe"),
  id,
  topic: name,
  type: typeName.optional(),
  throttle_rate: z.number().int().nonnegative().optional(),
  queue_length: z.number().int().nonnegative().optional(),
  fragment_size: z.number().int().positive().optional(),
  compression,
});
export const Unsubscribe = z.object({ op: z.literal("unsubscribe"), id, topic: name });
export const SendActionGoal = z.object({
  op: z.literal("send_action_goal"),
  id,
  action: name,
  action_type: typeName,
  args: z.unknown().optional(),
  feedback: z.boolean().optional(),
  fragment_size: z.number().int().positive().optional(),
  compression,
});
export const CancelActionGoal = z.object({
  op: z.literal("cancel_action_goal"),
  id: z.string().max(MAX_ID_LENGTH),
  action: name,
});
export const ActionFeedback = z.object({
  op: z.literal("action_feedback"),
  id: z.string(),
  action: z.string(),
  values: z.unknown(),
});
export const ActionResult = z.object({
  op: z.literal("action_result"),
  id: z.string(),
  action: z.string(),
  values: z.unknown().optional(),
  status: z.number().int().optional(),
  result: z.boolean(),
});
export const Status = z.object({
  op: z.literal("status"),
  id,
  level: z.enum(["info", "warning", "error", "none"]),
  msg: z.string(),
});
export const SetLevel = z.object({
  op: z.literal("set_level"),
  id,
  level: z.enum(["info", "warning", "error", "none"]),
});
export const Fragment = z.object({
  op: z.literal("fragment"),
  id: z.string().max(MAX_ID_LENGTH),
  data: z.string(),
  num: z.number().int().nonnegative(),
  total: z.number().int().positive(),
});

/** Everything a client may send to a server. */
export const ClientMessage = z.discriminatedUnion("op", [
  CallService,
  ServiceResponse,
  Advertise,
  Unadvertise,
  Publish,
  Subscribe,
  Unsubscribe,
  SendActionGoal,
  CancelActionGoal,
  SetLevel,
  Fragment,
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Everything a server may send to a client. */
export const ServerMessage = z.discriminatedUnion("op", [
  ServiceResponse,
  Publish,
  ActionFeedback,
  ActionResult,
  Status,
  Fragment,
  CallService,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;

export type CallServiceMsg = z.infer<typeof CallService>;
export type SubscribeMsg = z.infer<typeof Subscribe>;
export type SendActionGoalMsg = z.infer<typeof SendActionGoal>;
export type FragmentMsg = z.infer<typeof Fragment>;

/** ROS 2 action_msgs/msg/GoalStatus codes, as rosbridge reports them in `action_result.status`. */
export const GoalStatus = {
  UNKNOWN: 0,
  ACCEPTED: 1,
  EXECUTING: 2,
  CANCELING: 3,
  SUCCEEDED: 4,
  CANCELED: 5,
  ABORTED: 6,
} as const;

/** rosbridge's default cap on one inbound message (bytes). */
export const DEFAULT_MAX_MESSAGE_BYTES = 10_000_000;

/** Splits a serialized message into rosbridge `fragment` messages of at most `size` characters of data each. */
export function fragmentMessage(id: string, serialized: string, size: number): FragmentMsg[] {
  const total = Math.max(1, Math.ceil(serialized.length / size));
  const out: FragmentMsg[] = [];
  for (let num = 0; num < total; num++) {
    out.push({ op: "fragment", id, data: serialized.slice(num * size, (num + 1) * size), num, total });
  }
  return out;
}

/**
 * Bytes of unfinished fragmented messages, shared by every connection of a server: one budget for all of them, so
 * many connections each within their own cap cannot add up to more than the server means to hold.
 */
export class FragmentPool {
  bytes = 0;
  constructor(readonly maxBytes: number) {}
}

/**
 * Collects `fragment` messages per id and yields the reassembled text once every piece has arrived.
 * Bounded: at most `maxPending` partial messages, `maxBytes` buffered per message, `maxTotalBytes` buffered over all
 * of them, and (with a pool) the server-wide total — so a peer cannot grow it without end.
 */
export class FragmentAssembler {
  private pending = new Map<string, { parts: (string | undefined)[]; received: number; bytes: number }>();
  private total = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxPending = 64,
    private readonly maxTotalBytes = maxBytes,
    private readonly pool?: FragmentPool,
  ) {}

  /** Bytes held in unfinished messages. */
  get pendingBytes(): number {
    return this.total;
  }

  /** Returns the full text when `frag` completes its message, otherwise undefined. Throws on inconsistent fragments. */
  add(frag: FragmentMsg): string | undefined {
    if (frag.num >= frag.total)
      throw new Error(`fragment ${frag.id}: num ${frag.num} is not below total ${frag.total}`);
    let entry = this.pending.get(frag.id);
    if (!entry) {
      if (this.pending.size >= this.maxPending) this.drop(this.pending.keys().next().value as string);
      entry = { parts: new Array(frag.total), received: 0, bytes: 0 };
      this.pending.set(frag.id, entry);
    }
    if (entry.parts.length !== frag.total) {
      this.drop(frag.id);
      throw new Error(`fragment ${frag.id}: total changed from ${entry.parts.length} to ${frag.total}`);
    }
    if (entry.parts[frag.num] === undefined) {
      const size = frag.data.length;
      // Refused before it is kept: the partial message is dropped whole, since it can no longer complete.
      if (entry.bytes + size > this.maxBytes) {
        this.drop(frag.id);
        throw new Error(`fragment ${frag.id}: reassembled message exceeds ${this.maxBytes} bytes`);
      }
      if (this.total + size > this.maxTotalBytes) {
        this.drop(frag.id);
        throw new Error(
          `fragment ${frag.id}: unfinished fragmented messages on this connection exceed ${this.maxTotalBytes} bytes; finish one before starting another`,
        );
      }
      if (this.pool && this.pool.bytes + size > this.pool.maxBytes) {
        this.drop(frag.id);
        throw new Error(
          `fragment ${frag.id}: the server holds its limit of ${this.pool.maxBytes} bytes of unfinished fragmented messages; try again later`,
        );
      }
      entry.parts[frag.num] = frag.data;
      entry.received++;
      entry.bytes += size;
      this.total += size;
      if (this.pool) this.pool.bytes += size;
    }
    if (entry.received < frag.total) return undefined;
    const whole = entry.parts.join("");
    this.drop(frag.id);
    return whole;
  }

  /** Forgets every unfinished message (the connection closed), returning its bytes to the pool. */
  clear(): void {
    for (const id of [...this.pending.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    this.total -= entry.bytes;
    if (this.pool) this.pool.bytes -= entry.bytes;
  }
}

/** Deepest JSON nesting a message may have. ROS messages nest a handful of levels; a bound keeps parse work linear. */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether `text` nests arrays and objects deeper than `max`, found with one pass that skips over strings. Cheap next
 * to JSON.parse (which would build every level of a hostile 200,000-deep array first), so it runs before it.
 */
export function nestingExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 34 /* " */) {
      // Jump to the closing quote: one not preceded by an odd number of backslashes.
      for (;;) {
        const closing = text.indexOf('"', i + 1);
        if (closing < 0) return false; // unterminated: JSON.parse reports it
        let k = closing - 1;
        while (text.charCodeAt(k) === 92 /* \ */) k--;
        i = closing;
        if ((closing - 1 - k) % 2 === 0) break;
      }
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > max) return true;
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return false;
}
