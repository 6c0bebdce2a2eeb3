/**
 * rosbridge v2 wire protocol: the JSON operations exchanged over a WebSocket.
 * Shapes follow rosbridge_suite 2.x (ROS 2) so that roslib and a real rosbridge_server interoperate with ours.
 * Every inbound message is validated here before anything acts on it.
 */
import { z } from "zod";

const id = z.string().optional();
const compression = z.enum(["none", "png", "cbor", "cbor-raw"]).optional();

export const CallService = z.object({
  op: z.literal("call_service"),
  id,
  service: z.string().min(1),
  args: z.unknown().optional(),
  type: z.string().optional(),
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
export const Advertise = z.object({ op: z.literal("advertise"), id, topic: z.string().min(1), type: z.string().min(1) });
export const Unadvertise = z.object({ op: z.literal("unadvertise"), id, topic: z.string().min(1) });
export const Publish = z.object({ op: z.literal("publish"), id, topic: z.string().min(1), msg: z.unknown() });
export const Subscribe = z.object({
  op: z.literal("subscribe"),
  id,
  topic: z.string().min(1),
  type: z.string().optional(),
  throttle_rate: z.number().int().nonnegative().optional(),
  queue_length: z.number().int().nonnegative().optional(),
  fragment_size: z.number().int().positive().optional(),
  compression,
});
export const Unsubscribe = z.object({ op: z.literal("unsubscribe"), id, topic: z.string().min(1) });
export const SendActionGoal = z.object({
  op: z.literal("send_action_goal"),
  id,
  action: z.string().min(1),
  action_type: z.string().min(1),
  args: z.unknown().optional(),
  feedback: z.boolean().optional(),
  fragment_size: z.number().int().positive().optional(),
  compression,
});
export const CancelActionGoal = z.object({ op: z.literal("cancel_action_goal"), id: z.string(), action: z.string() });
export const ActionFeedback = z.object({ op: z.literal("action_feedback"), id: z.string(), action: z.string(), values: z.unknown() });
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
export const SetLevel = z.object({ op: z.literal("set_level"), id, level: z.enum(["info", "warning", "error", "none"]) });
export const Fragment = z.object({
  op: z.literal("fragment"),
  id: z.string(),
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
 * Collects `fragment` messages per id and yields the reassembled text once every piece has arrived.
 * Bounded: at most `maxPending` partial messages and `maxBytes` buffered per message, so a peer cannot grow it without end.
 */
export class FragmentAssembler {
  private pending = new Map<string, { parts: (string | undefined)[]; received: number; bytes: number }>();
  constructor(private readonly maxBytes: number, private readonly maxPending = 64) {}

  /** Returns the full text when `frag` completes its message, otherwise undefined. Throws on inconsistent fragments. */
  add(frag: FragmentMsg): string | undefined {
    if (frag.num >= frag.total) throw new Error(`fragment ${frag.id}: num ${frag.num} is not below total ${frag.total}`);
    let entry = this.pending.get(frag.id);
    if (!entry) {
      if (this.pending.size >= this.maxPending) {
        const oldest = this.pending.keys().next().value as string;
        this.pending.delete(oldest);
      }
      entry = { parts: new Array(frag.total), received: 0, bytes: 0 };
      this.pending.set(frag.id, entry);
    }
    if (entry.parts.length !== frag.total) {
      this.pending.delete(frag.id);
      throw new Error(`fragment ${frag.id}: total changed from ${entry.parts.length} to ${frag.total}`);
    }
    if (entry.parts[frag.num] === undefined) {
      entry.parts[frag.num] = frag.data;
      entry.received++;
      entry.bytes += frag.data.length;
    }
    if (entry.bytes > this.maxBytes) {
      this.pending.delete(frag.id);
      throw new Error(`fragment ${frag.id}: reassembled message exceeds ${this.maxBytes} bytes`);
    }
    if (entry.received < frag.total) return undefined;
    this.pending.delete(frag.id);
    return entry.parts.join("");
  }
}
