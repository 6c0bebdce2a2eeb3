/**
 * Sending a request again after a transport failure (timeouts, 429, 5xx, refused connections): which failures are
 * worth retrying, the wait a server asked for (Retry-After), exponential backoff with jitter, and the loop that
 * retries a bounded number of times, never past the run's wall budget, counting every request it sent.
 */
import { ModelRequestError, ModelUnavailableError } from "./errors";
import type { ModelConfig, Role } from "./roles";
import type { ModelScope } from "./usage";

/**
 * The outcome of a request that failed in transport — worth sending again — or undefined for any other failure (a
 * refused key, a 400, an abort), which is thrown as it is.
 */
export function transportFailure(err: unknown): string | undefined {
  const failure = err as {
    name?: string;
    status?: unknown;
    constructor?: { name?: string };
    code?: string;
    cause?: { code?: string };
  };
  if (!failure || typeof failure !== "object") return undefined;
  const kind = failure.constructor?.name;
  if (failure.name === "AbortError" || kind === "APIUserAbortError") return undefined;
  if (failure.name === "TimeoutError" || kind === "APIConnectionTimeoutError") return "timeout";
  if (typeof failure.status === "number")
    return failure.status === 408 || failure.status === 429 || failure.status >= 500
      ? `http_${failure.status}`
      : undefined;
  if (kind === "APIConnectionError" || failure.name === "APIConnectionError") return "connection";
  if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"].includes(failure.code ?? failure.cause?.code ?? ""))
    return "connection";
  return undefined;
}

/** The wait a server asked for (Retry-After in seconds or as a date, or OpenAI's retry-after-ms), in milliseconds. */
export function retryAfterMs(err: unknown, now = Date.now()): number | undefined {
  const headers = (err as { headers?: unknown })?.headers;
  if (!headers || typeof headers !== "object") return undefined;
  const get = (name: string): string | undefined => {
    const value =
      typeof (headers as Headers).get === "function"
        ? (headers as Headers).get(name)
        : (headers as Record<string, unknown>)[name];
    return typeof value === "string" && value.trim() ? value.trim() : undefined;
  };
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = get("retry-after");
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Exponential backoff with jitter (half fixed, half random, so retries from many workers spread out). */
export function backoffMs(
  config: Pick<ModelConfig, "backoffMs" | "maxBackoffMs">,
  retry: number,
  random = Math.random,
): number {
  const ceiling = Math.min(config.maxBackoffMs, config.backoffMs * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random();
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason ?? new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * Sends one request, again after a transport failure: at most `maxRetries` more times, waiting as the server asked
 * (Retry-After) or by backoff, and never past the run's wall budget. Each failed request is counted; the last failure
 * becomes a ModelUnavailableError. Other failures are reported as before, naming the role and the endpoint.
 */
export async function sendWithRetries<R>(
  config: ModelConfig,
  role: Role,
  endpoint: string,
  count: (outcome: string) => void,
  scope: ModelScope | undefined,
  send: () => Promise<R>,
): Promise<R> {
  for (let retry = 0; ; retry++) {
    try {
      return await send();
    } catch (err) {
      const outcome = transportFailure(err);
      const message = (err as Error).message ?? String(err);
      if (!outcome) {
        if (scope?.signal?.aborted) throw err;
        // Sent and refused: it counts, by its HTTP status where it has one.
        const status = (err as { status?: unknown }).status;
        count(typeof status === "number" ? `http_${status}` : "error");
        throw new ModelRequestError(`the ${role} model (${config.models[role]} at ${endpoint}) failed: ${message}`);
      }
      count(outcome);
      const unavailable = (why: string) =>
        new ModelUnavailableError(
          role,
          config.models[role],
          endpoint,
          retry + 1,
          `${outcome.replace("http_", "HTTP ")}: ${message}`,
          why,
        );
      if (retry >= config.maxRetries) throw unavailable(config.maxRetries ? ` (${config.maxRetries} retries)` : "");
      const asked = retryAfterMs(err);
      const wait = asked ?? backoffMs(config, retry);
      if (scope?.deadline !== undefined && Date.now() + wait > scope.deadline) {
        throw unavailable(
          ` (the run's wall budget leaves no time for a retry${asked !== undefined ? ` after the ${Math.ceil(asked / 1000)} s the server asked for` : ""})`,
        );
      }
      await sleep(wait, scope?.signal);
    }
  }
}
