/**
 * Model backends behind the roles, and the one way nodes ask a model for a structured answer: validated against
 * its zod schema, repaired a bounded number of times, then failing with an error naming the role and the schema.
 */
import { ChatOpenAI } from "@langchain/openai";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
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

export interface RoleUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
}
export type Usage = Partial<Record<Role, RoleUsage>>;

export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = { ...a };
  for (const [role, u] of Object.entries(b) as [Role, RoleUsage][]) {
    const p = out[role] ?? { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 };
    out[role] = { calls: p.calls + u.calls, inputTokens: p.inputTokens + u.inputTokens, outputTokens: p.outputTokens + u.outputTokens, images: p.images + u.images };
  }
  return out;
}

export function totalUsage(u: Usage): RoleUsage {
  return Object.values(u).reduce((t, x) => ({ calls: t.calls + x.calls, inputTokens: t.inputTokens + x.inputTokens, outputTokens: t.outputTokens + x.outputTokens, images: t.images + x.images }), { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 });
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
        maxRetries: config.maxRetries,
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
    $parseRaw: { value: (content: string) => safeJson(content) ?? null, enumerable: false },
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

/** Asks `models[role]` for an answer of `schema`; returns it with the usage it cost. */
export async function askStructured<T>(models: RoleModels, config: ModelConfig, ask: Ask<T>): Promise<{ value: T; usage: Usage }> {
  const model = models[ask.role];
  const human = new HumanMessage({
    content: [{ type: "text", text: contextBlock(ask.task, ask.context) }, ...(config.backend === "openai" ? ask.images ?? [] : [])],
  });
  const messages: BaseMessage[] = [new SystemMessage(ask.system), human];
  const usage: RoleUsage = { calls: 0, inputTokens: 0, outputTokens: 0, images: config.backend === "openai" ? ask.images?.length ?? 0 : 0 };
  let lastIssue = "";
  for (let attempt = 0; attempt <= config.repairAttempts; attempt++) {
    let raw: AIMessage;
    let candidate: unknown;
    if (model instanceof SymbolicChatModel) {
      raw = (await model.invoke(messages)) as AIMessage;
      candidate = safeJson(String(raw.content));
    } else if (config.structuredMethod === "jsonSchema") {
      try {
        raw = (await model.invoke(messages, { response_format: jsonSchemaFormat(ask.schema, ask.schemaName) } as never)) as AIMessage;
      } catch (err) {
        throw new Error(`the ${ask.role} model (${config.models[ask.role]} at ${config.baseURL ?? "the OpenAI API"}) failed: ${(err as Error).message}`);
      }
      candidate = safeJson(rawText(raw));
    } else {
      const structured = model.withStructuredOutput(ask.schema as z.ZodType<Record<string, unknown>>, { name: ask.schemaName, method: config.structuredMethod, includeRaw: true });
      let out: { raw: BaseMessage; parsed: unknown };
      try {
        out = (await structured.invoke(messages)) as { raw: BaseMessage; parsed: unknown };
      } catch (err) {
        throw new Error(`the ${ask.role} model (${config.models[ask.role]} at ${config.baseURL ?? "the OpenAI API"}) failed: ${(err as Error).message}`);
      }
      raw = out.raw as AIMessage;
      candidate = out.parsed ?? safeJson(rawText(raw));
    }
    usage.calls++;
    usage.inputTokens += raw.usage_metadata?.input_tokens ?? 0;
    usage.outputTokens += raw.usage_metadata?.output_tokens ?? 0;
    const p = ask.schema.safeParse(candidate);
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

function rawText(m: AIMessage): string {
  if (typeof m.content === "string" && m.content) return m.content;
  const call = m.tool_calls?.[0];
  if (call) return JSON.stringify(call.args);
  // Tool-call arguments that are not JSON are kept as written, so the repair request can quote them.
  const invalid = m.invalid_tool_calls?.[0];
  if (invalid?.args) return invalid.args;
  return Array.isArray(m.content) ? m.content.map((p) => ((p as { text?: string }).text ?? "")).join("") : "";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ""));
  } catch {
    return undefined;
  }
}
