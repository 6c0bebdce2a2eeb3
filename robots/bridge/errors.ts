/** Typed errors of the bridge: callers branch on the class, never on message text. */
export class BridgeError extends Error {
  override name = "BridgeError";
}
/** The connection could not be made (after retries) or was lost while a request was outstanding. */
export class BridgeConnectionError extends BridgeError {
  override name = "BridgeConnectionError";
}
/** The server refused the connection's credentials (HTTP 401/403): retrying with the same token cannot help. */
export class BridgeAuthError extends BridgeConnectionError {
  override name = "BridgeAuthError";
  constructor(
    readonly url: string,
    readonly statusCode: number,
  ) {
    super(`${url} refused this client's credentials (HTTP ${statusCode}): check the bridge token`);
  }
}
/**
 * A ROS 1 rosbridge run with `authenticate:=true` closed the socket: on this client's `auth` op (see ./rosauth), or
 * on its first request when it had no secret to send. Retrying with the same secret cannot help.
 */
export class RosAuthError extends BridgeConnectionError {
  override name = "RosAuthError";
  constructor(
    readonly url: string,
    readonly sentSecret: boolean,
  ) {
    super(
      sentSecret
        ? `authentication refused by rosbridge at ${url} (check ROBOGRAPH_ROS_SECRET or ROBOGRAPH_ROS_SECRET_FILE: it ` +
            `must hold the robot's rosauth secret; rosauth also refuses a clock more than its allowed_time_delta, 5 s ` +
            `by default, from the robot's, and everyone when its ros_mac_authentication node is not running)`
        : `authentication required by rosbridge at ${url}: it closed the connection at this client's first request, ` +
            `which carried no credentials (set ROBOGRAPH_ROS_SECRET or ROBOGRAPH_ROS_SECRET_FILE to the robot's ` +
            `16-character rosauth secret)`,
    );
  }
}
/** A request got no answer within its time limit. */
export class BridgeTimeoutError extends BridgeError {
  override name = "BridgeTimeoutError";
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what}: no answer within ${timeoutMs} ms`);
  }
}
/** The server answered a service call with result:false. */
export class ServiceCallError extends BridgeError {
  override name = "ServiceCallError";
  constructor(
    readonly service: string,
    readonly detail: unknown,
  ) {
    super(`service ${service} failed: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
}
/** The server reported an error `status` about one of our requests (malformed, unknown action, invalid arguments…). */
export class BridgeProtocolError extends BridgeError {
  override name = "BridgeProtocolError";
  constructor(
    readonly requestId: string | undefined,
    msg: string,
  ) {
    super(msg);
  }
}
/** An action goal ended other than SUCCEEDED: aborted by the robot (with its reason) or canceled. */
export class SkillFailedError extends BridgeError {
  override name = "SkillFailedError";
  constructor(
    readonly action: string,
    readonly goalId: string,
    readonly status: number,
    readonly reason: string,
    readonly values: unknown,
  ) {
    super(`${action} (goal ${goalId}) ${status === 5 ? "was canceled" : "failed"}: ${reason}`);
  }
}
/**
 * A robot gave no sign of life for its liveness window while something waited on it: its action's status stopped
 * (actionlib publishes it at a steady rate, 5 Hz by default, whether or not a goal runs), the bridge's socket closed and
 * did not come back, or its node no longer answers (after a crash the ROS 1 master still lists the dead node's topics
 * and services, so rosapi cannot tell). It may come back (a restarted process): whoever waited pauses, it does not fail.
 */
export class RobotLostError extends BridgeError {
  override name = "RobotLostError";
  /** The goal that was running when the robot went, if one was. */
  readonly goalId?: string;
  constructor(
    /** What went silent: `action /base/move_base`, `the bridge at ws://…`, `service /base/dock`. */
    readonly what: string,
    /** How long it had been silent when it was taken for lost (ms). */
    readonly silentMs: number,
    /** What is known of it, from "robot lost — …". */
    detail: string,
    options: { goalId?: string; cause?: unknown } = {},
  ) {
    super(`${what}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.goalId = options.goalId;
  }
}
