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
