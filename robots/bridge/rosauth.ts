/**
 * rosauth, as a ROS 1 rosbridge run with `authenticate:=true` expects it (rosbridge_server/autobahn_websocket.py and
 * rosauth/src/ros_mac_authentication.cpp in the reference kit). A client's first message must be the `auth` op
 * `{mac, client, dest, rand, t, level, end}`; rosbridge hands it to rosauth's `/authenticate` service and answers a
 * good MAC with nothing and anything else (a wrong MAC, another op first, no rosauth node to ask) by closing the socket
 * without a status code. The MAC is the SHA-512 hex digest of the 16-character secret followed by client, dest, rand,
 * t's whole seconds, level and end's whole seconds, concatenated as text. rosauth also refuses a `t` more than its
 * `~allowed_time_delta` (5 s by default) from the robot's clock, or an `end` already past.
 *
 * The secret comes from ROBOGRAPH_ROS_SECRET or from the file ROBOGRAPH_ROS_SECRET_FILE names (its first line, as
 * rosauth reads its own), never from a command line, where other users of the machine could read it.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { WebSocket } from "ws";
import { BridgeConnectionError, RosAuthError } from "./errors";

/** rosauth refuses to start with a secret of any other length, so no other secret can match. */
export const ROS_SECRET_LENGTH = 16;

/** The WebSocket close code for a close frame without one: what rosbridge's refusal (autobahn's bare `sendClose`) sends. */
const CLOSED_WITHOUT_STATUS = 1005;

/** rosbridge checks `end` only when the client authenticates and never ends a session, so any later time will do. */
const SESSION_SECONDS = 24 * 3600;

/** rosbridge passes the user level to rosauth, which only hashes it. */
const USER_LEVEL = "user";

/** What rosauth hashes and what the `auth` op carries besides the MAC; `t` and `end` in whole seconds. */
export interface RosAuthFields {
  client: string;
  dest: string;
  rand: string;
  t: number;
  level: string;
  end: number;
}

/** rosauth's MAC over `fields`, as its C++ computes it (a stream of the strings and the times' seconds). */
export function rosauthMac(secret: string, fields: RosAuthFields): string {
  for (const time of [fields.t, fields.end])
    if (!Number.isInteger(time)) throw new Error(`rosauth hashes whole seconds, got ${time}`);
  const hashed = `${secret}${fields.client}${fields.dest}${fields.rand}${fields.t}${fields.level}${fields.end}`;
  return createHash("sha512").update(hashed, "utf8").digest("hex");
}

/** The `auth` op for a connection from `client` to `dest`, stamped with this machine's clock. */
export function authOp(secret: string, peers: { client: string; dest: string }, nowMs = Date.now()) {
  const sentAt = Math.floor(nowMs / 1000);
  const fields: RosAuthFields = {
    ...peers,
    rand: randomBytes(16).toString("hex"),
    t: sentAt,
    level: USER_LEVEL,
    end: sentAt + SESSION_SECONDS,
  };
  return { op: "auth", mac: rosauthMac(secret, fields), ...fields };
}

/** `secret` if it can be a rosauth secret; `source` names where it came from in the error. */
export function checkedRosSecret(secret: string, source: string): string {
  const length = Buffer.byteLength(secret, "utf8");
  if (length !== ROS_SECRET_LENGTH)
    throw new Error(`${source} holds ${length} characters; rosauth's secret is exactly ${ROS_SECRET_LENGTH}`);
  return secret;
}

/** The rosauth secret this process was given (ROBOGRAPH_ROS_SECRET or ROBOGRAPH_ROS_SECRET_FILE), if any. */
export function rosSecretFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const inline = env.ROBOGRAPH_ROS_SECRET;
  const file = env.ROBOGRAPH_ROS_SECRET_FILE;
  if (inline && file) throw new Error("ROBOGRAPH_ROS_SECRET and ROBOGRAPH_ROS_SECRET_FILE are both set: keep one");
  if (inline) return checkedRosSecret(inline, "ROBOGRAPH_ROS_SECRET");
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read ROBOGRAPH_ROS_SECRET_FILE ${file}: ${(err as Error).message}`, { cause: err });
  }
  // The first line, as rosauth's getline reads its own copy of the file.
  return checkedRosSecret(text.split("\n")[0], `the first line of ROBOGRAPH_ROS_SECRET_FILE ${file}`);
}

/**
 * One socket's authentication to a rosbridge: made before the socket opens, so it sees the addresses it connects
 * between and every message the server sends on it.
 */
export class RosbridgeAuthentication {
  /** Whether the server has sent anything on this socket: rosbridge refuses before it says a word. */
  private answered = false;
  private localAddress?: string;

  constructor(
    private readonly ws: WebSocket,
    private readonly url: string,
    private readonly secret: string | undefined,
  ) {
    ws.once("upgrade", (response) => (this.localAddress = response.socket.localAddress));
    ws.once("message", () => (this.answered = true));
  }

  /**
   * Once the socket is open: sends the `auth` op and a rosapi call behind it, and resolves when that call is answered
   * — rosbridge handles a client's messages in order and closes the socket on a refused `auth` before reading on.
   * Rejects with RosAuthError when the socket closes instead. No answer within `timeoutMs` with the socket still open
   * counts as accepted (rosbridge's services_glob may keep rosapi from this client); a refusal that comes later is
   * still reported by `refusal`. Without a secret it has nothing to do.
   */
  authenticate(timeoutMs: number): Promise<void> {
    const secret = this.secret;
    if (!secret) return Promise.resolve();
    const ws = this.ws;
    const probeId = `rosauth:${randomUUID()}`;
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        ws.off("message", onMessage);
        ws.off("close", onClose);
        ws.off("error", onError);
        if (error) reject(error);
        else resolve();
      };
      const onMessage = (data: Buffer) => {
        try {
          if ((JSON.parse(data.toString()) as { id?: unknown }).id === probeId) settle();
        } catch {
          // Not JSON: the client's own handler reports it once the socket is handed over.
        }
      };
      const onClose = (code: number) =>
        settle(
          this.refusal(code) ??
            new BridgeConnectionError(`connection to ${this.url} closed (code ${code}) while authenticating`),
        );
      const onError = (err: Error) => settle(err);
      const timer = setTimeout(() => settle(), timeoutMs);
      ws.on("message", onMessage);
      ws.once("close", onClose);
      ws.once("error", onError);
      const peers = { client: this.localAddress ?? "", dest: new URL(this.url).hostname };
      ws.send(JSON.stringify(authOp(secret, peers)));
      ws.send(JSON.stringify({ op: "call_service", id: probeId, service: "/rosapi/get_time", args: {} }));
    });
  }

  /** The error a close with `code` means when it is rosbridge refusing this client, else undefined. */
  refusal(code: number): RosAuthError | undefined {
    return code === CLOSED_WITHOUT_STATUS && !this.answered ? new RosAuthError(this.url, !!this.secret) : undefined;
  }
}
