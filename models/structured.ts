/**
 * The one way nodes ask a model for a structured answer: the request (with images for an endpoint that takes them)
 * goes out through the retries, the answer's JSON is found wherever the model put it (a code fence, prose around it)
 * and validated against its zod schema, and only an answer that does not fit goes back for repair, a bounded number
 * of times. Every request sent is counted with its outcome.
 */
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { parseJsonMarkdown } from "@langchain/core/output_parsers";
import sharp from "sharp";
import type { z } from "zod";
import { contextBlock } from "./context";
import type { ModelConfig, Role } from "./roles";
import { SymbolicChatModel } from "./symbolic";
import type { RoleModels } from "./backends";
import { ModelOutputError } from "./errors";
import { addRole, addUsage, scopes, type RoleUsage, type Usage } from "./usage";
import { sendWithRetries } from "./retries";

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
      schema: toJsonSchema(schema, {
        cycles: "ref",
        reused: "ref",
        override: (ctx: { jsonSchema: Record<string, unknown> }) => void (ctx.jsonSchema.title = name),
      } as never) as Record<string, unknown>,
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
export async function imagePart(
  png: Buffer,
  maxSide: number,
): Promise<{ type: "image_url"; image_url: { url: string } }> {
  const meta = await sharp(png).metadata();
  const scaled =
    (meta.width ?? 0) > maxSide || (meta.height ?? 0) > maxSide
      ? await sharp(png).resize(maxSide, maxSide, { fit: "inside" }).png().toBuffer()
      : png;
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
export async function askStructured<T>(
  models: RoleModels,
  config: ModelConfig,
  ask: Ask<T>,
): Promise<{ value: T; usage: Usage }> {
  const model = models[ask.role];
  const scope = scopes.getStore();
  const human = new HumanMessage({
    content: [
      { type: "text", text: contextBlock(ask.task, ask.context) },
      ...(config.backend === "openai" ? (ask.images ?? []) : []),
    ],
  });
  const messages: BaseMessage[] = [new SystemMessage(ask.system), human];
  const usage: RoleUsage = { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 };
  const images = config.backend === "openai" ? (ask.images?.length ?? 0) : 0;
  /** Counts one request sent, here and in the node's ledger. */
  const count = (outcome: string, raw?: AIMessage) => {
    const requestUsage: RoleUsage = {
      calls: 1,
      inputTokens: raw?.usage_metadata?.input_tokens ?? 0,
      outputTokens: raw?.usage_metadata?.output_tokens ?? 0,
      images,
      outcomes: { [outcome]: 1 },
    };
    Object.assign(usage, addRole(usage, requestUsage));
    if (scope) scope.usage = addUsage(scope.usage, { [ask.role]: requestUsage });
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
      raw = (await sendWithRetries(config, ask.role, endpoint, count, scope, () =>
        model.invoke(messages, { ...options, response_format: jsonSchemaFormat(ask.schema, ask.schemaName) } as never),
      )) as AIMessage;
      candidate = extractJson(rawText(raw));
    } else {
      const structured = model.withStructuredOutput(ask.schema as z.ZodType<Record<string, unknown>>, {
        name: ask.schemaName,
        method: config.structuredMethod,
        includeRaw: true,
      });
      const out = (await sendWithRetries(config, ask.role, endpoint, count, scope, () =>
        structured.invoke(messages, options),
      )) as { raw: BaseMessage; parsed: unknown };
      raw = out.raw as AIMessage;
      // jsonMode's own parser completes a truncated answer; the strict extraction does not.
      candidate =
        config.structuredMethod === "jsonMode" ? extractJson(rawText(raw)) : (out.parsed ?? extractJson(rawText(raw)));
    }
    const parsed = ask.schema.safeParse(candidate);
    count(parsed.success ? "ok" : "invalid", raw);
    if (parsed.success) return { value: parsed.data, usage: { [ask.role]: usage } };
    const text = rawText(raw);
    // Not JSON at all says more than "expected object, received undefined".
    lastIssue =
      candidate === undefined && text
        ? `the answer is not valid JSON: ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)}`
        : parsed.error.issues
            .slice(0, 5)
            .map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`)
            .join("; ");
    messages.push(
      new AIMessage(rawText(raw) || "(no answer)"),
      new HumanMessage(
        `That answer does not fit the ${ask.schemaName} schema (${lastIssue}). Answer again with JSON that fits it.`,
      ),
    );
  }
  throw new ModelOutputError(ask.role, ask.schemaName, `${lastIssue} (after ${config.repairAttempts + 1} attempts)`);
}

function rawText(message: AIMessage): string {
  if (typeof message.content === "string" && message.content) return message.content;
  const call = message.tool_calls?.[0];
  if (call) return JSON.stringify(call.args);
  // Tool-call arguments that are not JSON are kept as written, so the repair request can quote them.
  const invalid = message.invalid_tool_calls?.[0];
  if (invalid?.args) return invalid.args;
  return Array.isArray(message.content) ? message.content.map((p) => (p as { text?: string }).text ?? "").join("") : "";
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
    const char = text[i];
    if ((char === "{" || char === "[") && opens.length < MAX_SPAN_ENDS) opens.push(i);
  }
  for (let j = text.length - 1; j >= 0 && closes.length < MAX_SPAN_ENDS; j--)
    if (text[j] === "}" || text[j] === "]") closes.push(j);
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
