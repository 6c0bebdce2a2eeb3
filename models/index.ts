/**
 * Model backends behind the roles, and the one way nodes ask a model for a structured answer: the request is retried
 * when it fails in transport (timeouts, 429, 5xx, refused connections: exponential backoff with jitter, Retry-After
 * honoured, bounded in count and by the run's wall budget), the answer's JSON is found wherever the model put it
 * (a code fence, prose around it) and validated against its zod schema, and only an answer that does not fit goes
 * back for repair, a bounded number of times. Every request sent is counted with its outcome.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { ChatOpenAI } from "@langchain/openai";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { parseJsonMarkdown } from "@langchain/core/output_parsers";
import sharp from "sharp";
import type { z } from "zod";
import { contextBlock } from "./context";
import { ROLES, type ModelConfig, type Role } from "./roles";
import { SymbolicChatModel } from "./symbolic";

export { modelConfig, ROLES, type ModelConfig, type Role } from "./roles";

export class ModelOutputError extends Error {
  override name = "ModelOutputError";
  constructor(readonly role: Role, readonly schemaName: string, detail: string) {
    super(`the ${role} model's answer does not fit the ${schemaName} schema: ${detail}`);
  }
}

/**
 * A role's endpoint did not answer after the bounded retries (or the run's wall budget left no time for another):
 * the run is paused, not failed — the node ends `interrupted` and the thread resumes once the endpoint is back.
 */
export class ModelUnavailableError extends Error {
  override name = "ModelUnavailableError";
  constructor(readonly role: Role, readonly model: string, readonly endpoint: string, readonly attempts: number, readonly lastError: string, why: string) {
    super(`the ${role} model (${model} at ${endpoint}) failed ${attempts} time${attempts === 1 ? "" : "s"}${why}; last error: ${lastError}`);
  }
}

/** A request the endpoint refused for a reason a retry cannot fix (a 400, a refused key, a model it does not have). */
export class ModelRequestError extends Error {
  override name = "ModelRequestError";
}

export interface RoleUsage {
  /** Requests sent, whatever came of them. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  /** Requests by outcome: ok, invalid (did not fit the schema), timeout, http_429, http_503, connection, … */
  outcomes?: Record<string, number>;
}
export type Usage = Partial<Record<Role, RoleUsage>>;

function addOutcomes(a?: Record<string, number>, b?: Record<string, number>): Record<string, number> | undefined {
  if (!a && !b) return undefined;
  const out = { ...a };
  for (const [k, n] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

const addRole = (p: RoleUsage, u: RoleUsage): RoleUsage => {
  const outcomes = addOutcomes(p.outcomes, u.outcomes);
  return { calls: p.calls + u.calls, inputTokens: p.inputTokens + u.inputTokens, outputTokens: p.outputTokens + u.outputTokens, images: p.images + u.images, ...(outcomes ? { outcomes } : {}) };
};

export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = { ...a };
  for (const [role, u] of Object.entries(b) as [Role, RoleUsage][]) out[role] = addRole(out[role] ?? { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 }, u);
  return out;
}

export function totalUsage(u: Usage): RoleUsage {
  return Object.values(u).reduce(addRole, { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 });
}

/**
 * What one node's model calls share: the time by which retrying must stop (the run's wall budget), the run's abort
 * signal (an emergency stop ends a request in flight), and a ledger of every request sent — so a node that ends
 * early still accounts for the calls it made.
 */
export interface ModelScope {
  deadline?: number;
  signal?: AbortSignal;
  usage: Usage;
}
const scopes = new AsyncLocalStorage<ModelScope>();

export function withModelScope<T>(scope: ModelScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}

export type RoleModels = Record<Role, BaseChatModel>;

export function createModels(config: ModelConfig): RoleModels {
  if (config.backend === "symbolic") {
    const m = new SymbolicChatModel(config.seed, config.noise);
    return Object.fromEntries(ROLES.map((r) => [r, m])) as unknown as RoleModels;
  }
  explainToolCallNotice();
  return Object.fromEntries(
    ROLES.map((r) => [
      r,
      new ChatOpenAI({
        model: config.models[r],
        apiKey: config.apiKey,
        // Retries are askStructured's own: counted, backed off, bounded by the wall budget.
        maxRetries: 0,
        timeout: config.timeoutMs,
        temperature: 0.2,
        configuration: config.baseURL ? { baseURL: config.baseURL } : undefined,
      }),
    ]),
  ) as unknown as RoleModels;
}

const NOTICE = "New LangChain packages are available";
let noticeFilter = false;

/**
 * @langchain/core prints "New LangChain packages are available … upgrade" each time it builds a message that carries
 * a provider's tool calls but no parsed ones (`AIMessage`'s constructor, messages/ai.js) — which is what
 * @langchain/openai builds when a model's tool-call arguments are not valid JSON. The packages are current; the answer
 * was malformed, and it goes back for repair. The notice is replaced by that explanation, once per process.
 */
function explainToolCallNotice(): void {
  if (noticeFilter) return;
  noticeFilter = true;
  const warn = console.warn.bind(console);
  let explained = false;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith(NOTICE)) {
      if (!explained) warn("note: a model answered with tool-call arguments that are not valid JSON; the answer goes back for repair. (LangChain's notice about new packages, which this causes, is not shown.)");
      explained = true;
      return;
    }
    warn(...args);
  };
}

/**
 * The json_schema response format, with the same schema @langchain/openai would send, whose parse never throws.
 * @langchain/openai sends json_schema requests through the OpenAI SDK's `parse`, which throws on an answer that is not
 * JSON or does not fit — a throw the HTTP layer retries as a transport failure and then reports without the schema.
 * With this format the answer's text comes back as it is, and a bad one goes to the repair loop like any other.
 */
function jsonSchemaFormat(schema: z.ZodType, name: string) {
  const format = {
    type: "json_schema" as const,
    json_schema: {
      name,
      strict: true,
      schema: toJsonSchema(schema, { cycles: "ref", reused: "ref", override: (ctx: { jsonSchema: Record<string, unknown> }) => void (ctx.jsonSchema.title = name) } as never) as Record<string, unknown>,
    },
  };
  // The SDK looks for these (non-enumerable, so never sent) to parse the answer itself.
  Object.defineProperties(format, {
    $brand: { value: "auto-parseable-response-format", enumerable: false },
    $parseRaw: { value: (content: string) => extractJson(content) ?? null, enumerable: false },
  });
  return format;
}

/** A PNG as a data URL with its longest side capped, ready to be an image content part. */
export async function imagePart(png: Buffer, maxSide: number): Promise<{ type: "image_url"; image_url: { url: string } }> {
  const meta = await sharp(png).metadata();
  const scaled = (meta.width ?? 0) > maxSide || (meta.height ?? 0) > maxSide ? await sharp(png).resize(maxSide, maxSide, { fit: "inside" }).png().toBuffer() : png;
  return { type: "image_url", image_url: { url: `data:image/png;base64,${scaled.toString("base64")}` } };
}

export interface Ask<T> {
  role: Role;
  schema: z.ZodType<T>;
  schemaName: string;
  /** The node's instructions, in its own words. */
  system: string;
  task: string;
  context: Record<string, unknown>;
  images?: { type: "image_url"; image_url: { url: string } }[];
}

/** Asks `models[ask.role]` for an answer of `schema`; returns it with the usage it cost. */
export async function askStructured<T>(models: RoleModels, config: ModelConfig, ask: Ask<T>): Promise<{ value: T; usage: Usage }> {
  const model = models[ask.role];
  const scope = scopes.getStore();
  const human = new HumanMessage({
    content: [{ type: "text", text: contextBlock(ask.task, ask.context) }, ...(config.backend === "openai" ? ask.images ?? [] : [])],
  });
  const messages: BaseMessage[] = [new SystemMessage(ask.system), human];
  const usage: RoleUsage = { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 };
  const images = config.backend === "openai" ? ask.images?.length ?? 0 : 0;
  /** Counts one request sent, here and in the node's ledger. */
  const count = (outcome: string, raw?: AIMessage) => {
    const u: RoleUsage = { calls: 1, inputTokens: raw?.usage_metadata?.input_tokens ?? 0, outputTokens: raw?.usage_metadata?.output_tokens ?? 0, images, outcomes: { [outcome]: 1 } };
    Object.assign(usage, addRole(usage, u));
    if (scope) scope.usage = addUsage(scope.usage, { [ask.role]: u });
  };
  const endpoint = config.baseURL ?? "the OpenAI API";
  const options = scope?.signal ? { signal: scope.signal } : {};
  let lastIssue = "";
  for (let attempt = 0; attempt <= config.repairAttempts; attempt++) {
    let raw: AIMessage;
    let candidate: unknown;
    if (model instanceof SymbolicChatModel) {
      raw = (await model.invoke(messages)) as AIMessage;
      candidate = extractJson(String(raw.content));
    } else if (config.structuredMethod === "jsonSchema") {
      raw = (await sendWithRetries(config, ask.role, endpoint, count, scope, () => model.invoke(messages, { ...options, response_format: jsonSchemaFormat(ask.schema, ask.schemaName) } as never))) as AIMessage;
      candidate = extractJson(rawText(raw));
    } else {
      const structured = model.withStructuredOutput(ask.schema as z.ZodType<Record<string, unknown>>, { name: ask.schemaName, method: config.structuredMethod, includeRaw: true });
      const out = (await sendWithRetries(config, ask.role, endpoint, count, scope, () => structured.invoke(messages, options))) as { raw: BaseMessage; parsed: unknown };
      raw = out.raw as AIMessage;
      // jsonMode's own parser completes a truncated answer; the strict extraction does not.
      candidate = config.structuredMethod === "jsonMode" ? extractJson(rawText(raw)) : out.parsed ?? extractJson(rawText(raw));
    }
    const p = ask.schema.safeParse(candidate);
    count(p.success ? "ok" : "invalid", raw);
    if (p.success) return { value: p.data, usage: { [ask.role]: usage } };
    const text = rawText(raw);
    // Not JSON at all says more than "expected object, received undefined".
    lastIssue = candidate === undefined && text
      ? `the answer is not valid JSON: ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)}`
      : p.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`).join("; ");
    messages.push(new AIMessage(rawText(raw) || "(no answer)"), new HumanMessage(`That answer does not fit the ${ask.schemaName} schema (${lastIssue}). Answer again with JSON that fits it.`));
  }
  throw new ModelOutputError(ask.role, ask.schemaName, `${lastIssue} (after ${config.repairAttempts + 1} attempts)`);
}

/**
 * The outcome of a request that failed in transport — worth sending again — or undefined for any other failure (a
 * refused key, a 400, an abort), which is thrown as it is.
 */
export function transportFailure(err: unknown): string | undefined {
  const e = err as { name?: string; status?: unknown; constructor?: { name?: string }; code?: string; cause?: { code?: string } };
  if (!e || typeof e !== "object") return undefined;
  const kind = e.constructor?.name;
  if (e.name === "AbortError" || kind === "APIUserAbortError") return undefined;
  if (e.name === "TimeoutError" || kind === "APIConnectionTimeoutError") return "timeout";
  if (typeof e.status === "number") return e.status === 408 || e.status === 429 || e.status >= 500 ? `http_${e.status}` : undefined;
  if (kind === "APIConnectionError" || e.name === "APIConnectionError") return "connection";
  if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"].includes(e.code ?? e.cause?.code ?? "")) return "connection";
  return undefined;
}

/** The wait a server asked for (Retry-After in seconds or as a date, or OpenAI's retry-after-ms), in milliseconds. */
export function retryAfterMs(err: unknown, now = Date.now()): number | undefined {
  const h = (err as { headers?: unknown })?.headers;
  if (!h || typeof h !== "object") return undefined;
  const get = (name: string): string | undefined => {
    const v = typeof (h as Headers).get === "function" ? (h as Headers).get(name) : (h as Record<string, unknown>)[name];
    return typeof v === "string" && v.trim() ? v.trim() : undefined;
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
export function backoffMs(config: Pick<ModelConfig, "backoffMs" | "maxBackoffMs">, retry: number, random = Math.random): number {
  const ceiling = Math.min(config.maxBackoffMs, config.backoffMs * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random();
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason ?? new Error("aborted"));
    };
    const t = setTimeout(() => {
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
async function sendWithRetries<R>(config: ModelConfig, role: Role, endpoint: string, count: (outcome: string) => void, scope: ModelScope | undefined, send: () => Promise<R>): Promise<R> {
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
      const unavailable = (why: string) => new ModelUnavailableError(role, config.models[role], endpoint, retry + 1, `${outcome.replace("http_", "HTTP ")}: ${message}`, why);
      if (retry >= config.maxRetries) throw unavailable(config.maxRetries ? ` (${config.maxRetries} retries)` : "");
      const asked = retryAfterMs(err);
      const wait = asked ?? backoffMs(config, retry);
      if (scope?.deadline !== undefined && Date.now() + wait > scope.deadline) {
        throw unavailable(` (the run's wall budget leaves no time for a retry${asked !== undefined ? ` after the ${Math.ceil(asked / 1000)} s the server asked for` : ""})`);
      }
      await sleep(wait, scope?.signal);
    }
  }
}

function rawText(m: AIMessage): string {
  if (typeof m.content === "string" && m.content) return m.content;
  const call = m.tool_calls?.[0];
  if (call) return JSON.stringify(call.args);
  // Tool-call arguments that are not JSON are kept as written, so the repair request can quote them.
  const invalid = m.invalid_tool_calls?.[0];
  if (invalid?.args) return invalid.args;
  return Array.isArray(m.content) ? m.content.map((p) => ((p as { text?: string }).text ?? "")).join("") : "";
}

/**
 * The JSON value in a model's answer, or undefined: @langchain/core's `parseJsonMarkdown` takes it out of a code fence,
 * and inside (or without) one, JSON surrounded by prose is found as the longest span between a brace or bracket and
 * its closing counterpart that parses strictly. A truncated answer is not completed (LangChain's default partial
 * parser would complete it, and a cut-off plan would then pass as a shorter one).
 */
export function extractJson(text: string): unknown {
  try {
    return parseJsonMarkdown(text, strictJsonIn);
  } catch {
    return undefined;
  }
}

/** Most candidate starts and ends tried in an answer with prose around its JSON. */
const MAX_SPAN_ENDS = 20;

function strictJsonIn(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Prose around it: look for the span.
  }
  const opens: number[] = [];
  const closes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((c === "{" || c === "[") && opens.length < MAX_SPAN_ENDS) opens.push(i);
  }
  for (let j = text.length - 1; j >= 0 && closes.length < MAX_SPAN_ENDS; j--) if (text[j] === "}" || text[j] === "]") closes.push(j);
  for (const i of opens) {
    for (const j of closes) {
      if (j <= i || (text[i] === "{") !== (text[j] === "}")) continue;
      try {
        return JSON.parse(text.slice(i, j + 1));
      } catch {
        // not this span
      }
    }
  }
  throw new Error("no JSON value in the answer");
}
