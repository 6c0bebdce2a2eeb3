/**
 * A client's messages as they arrive: refused with a status error when binary, larger than the limit (measured before
 * decoding), nested too deep, not JSON or not a rosbridge v2 message — a refused goal also gets its result, so a
 * client waiting on it stops waiting — reassembled from fragments, and handed by op to the topics, services or
 * actions, once the allowlists say the client may reach the name.
 */
import type { RawData } from "ws";
import { ClientMessage, GoalStatus, MAX_ID_LENGTH, MAX_JSON_DEPTH, MAX_NAME_LENGTH, nestingExceeds } from "../protocol";
import type { Allowed } from "./auth";
import { short, type Connection, type Outbox } from "./connection";
import { rawLength } from "./metering";
import type { Topics } from "./topics";
import type { Services } from "./services";
import type { Actions } from "./actions";

export class Dispatcher {
  constructor(
    private readonly opts: { maxMessageBytes: number },
    private readonly allowed: Allowed,
    private readonly out: Outbox,
    private readonly topics: Topics,
    private readonly services: Services,
    private readonly actions: Actions,
  ) {}

  onRaw(conn: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.out.status(conn, "error", "binary frames (CBOR/BSON) are not supported; send JSON text frames");
      return;
    }
    // Measured on the bytes as received: an oversized message is refused without decoding it whole.
    const bytes = rawLength(data);
    if (bytes > this.opts.maxMessageBytes) {
      const first = Array.isArray(data) ? data[0] : Buffer.isBuffer(data) ? data : Buffer.from(data);
      const head = first.subarray(0, 4096).toString();
      const id = /"id"\s*:\s*"([^"]{1,200})"/.exec(head)?.[1];
      this.out.status(
        conn,
        "error",
        `message of ${bytes} bytes exceeds the ${this.opts.maxMessageBytes}-byte limit`,
        id,
      );
      return;
    }
    this.onText(conn, data.toString());
  }

  private onText(conn: Connection, text: string): void {
    if (nestingExceeds(text, MAX_JSON_DEPTH)) {
      this.out.status(conn, "error", `message nests deeper than ${MAX_JSON_DEPTH} levels`);
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      this.out.status(conn, "error", `invalid JSON: ${(err as Error).message}`);
      return;
    }
    const rawId =
      typeof (raw as { id?: unknown })?.id === "string" ? ((raw as { id: string }).id as string) : undefined;
    const rawAction = (raw as { action?: unknown })?.action;
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success) {
      const op = (raw as { op?: unknown })?.op;
      const known = ClientMessage.options.some((o) => o.shape.op.value === op);
      const msg = known
        ? `invalid ${String(op)} message: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`
        : `unknown op ${short(JSON.stringify(op) ?? "undefined")}`;
      this.out.status(conn, "error", msg, rawId);
      // A refused goal also gets its result, so a client waiting on it stops waiting — when it can be addressed.
      if (
        op === "send_action_goal" &&
        rawId &&
        rawId.length <= MAX_ID_LENGTH &&
        typeof rawAction === "string" &&
        rawAction.length <= MAX_NAME_LENGTH
      ) {
        this.out.send(conn, {
          op: "action_result",
          id: rawId,
          action: rawAction,
          values: msg,
          status: GoalStatus.ABORTED,
          result: false,
        });
      }
      return;
    }
    const message = parsed.data;
    switch (message.op) {
      case "fragment": {
        let whole: string | undefined;
        try {
          whole = conn.fragments.add(message);
        } catch (err) {
          this.out.status(conn, "error", (err as Error).message, message.id);
          return;
        }
        if (whole !== undefined) this.onText(conn, whole);
        return;
      }
      case "call_service":
        void this.services.onCallService(conn, message);
        return;
      case "subscribe":
        if (!this.allowed.topic(message.topic)) return this.refuse(conn, "topic", message.topic, message.id);
        this.topics.onSubscribe(conn, message);
        return;
      case "unsubscribe":
        this.topics.onUnsubscribe(conn, message);
        return;
      case "advertise":
        if (!this.allowed.topic(message.topic)) return this.refuse(conn, "topic", message.topic, message.id);
        this.topics.onAdvertise(conn, message);
        return;
      case "unadvertise":
        this.topics.unadvertiseFor(conn, message.topic);
        return;
      case "publish":
        if (!this.allowed.topic(message.topic)) return this.refuse(conn, "topic", message.topic, message.id);
        this.topics.onPublish(conn, message);
        return;
      case "send_action_goal":
        this.actions.onSendGoal(conn, message);
        return;
      case "cancel_action_goal":
        if (!this.allowed.action(message.action)) return this.refuse(conn, "action", message.action, message.id);
        this.actions.onCancelGoal(conn, message);
        return;
      case "set_level":
        conn.level = message.level;
        return;
      case "service_response":
        // We never call services on clients; tolerate and ignore.
        return;
    }
  }

  /** A name the allowlists keep this client from: said in a status error (the answer rosbridge gives is a warning). */
  private refuse(conn: Connection, kind: "topic" | "service" | "action", name: string, id?: string): void {
    this.out.status(
      conn,
      "error",
      `${kind} ${short(name, 200)} is not allowed by this bridge's ${kind}s allowlist`,
      id,
    );
  }
}
