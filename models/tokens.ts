/**
 * Token counts as a provider would bill them, with the tokenizer the latency bench uses (gpt-tokenizer, o200k): a
 * request is each message's role tag, its text, and a short stand-in per image (the same picture is the same stand-in).
 * The offline reasoner has no provider to report its usage, so it counts its requests this way. gpt-tokenizer's ids
 * are js-tiktoken's (which it replaced: equal on the repository's 1.7M tokens) at a quarter of the start-up and a fifth
 * of the time per request, and every agent process pays both. Its ranks are built when its module loads, so it is
 * loaded on the first count.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { createRequire } from "node:module";

interface O200k {
  encode(text: string, options: { allowedSpecial: Set<string>; disallowedSpecial: Set<string> }): number[];
}
let o200k: O200k | undefined;
/**
 * A special token's spelling in a text (an instruction holding "<|endoftext|>") is text: a provider reads a user's words
 * that way, and a tokenizer's default — refuse the text — would fail the run over how it is counted.
 */
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** The o200k tokens of a text. */
export function tokens(text: string): number[] {
  o200k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200k;
  return o200k.encode(text, AS_TEXT);
}

/** A picture in a request: its size and last characters, so the same image is the same stand-in. */
export const imageStandIn = (url: string) => `<image ${url.length}:${url.slice(-24)}>`;

/** What a provider reads of one message: its role tag, its text parts, a stand-in per image. */
export function messageText(role: string, content: unknown): string {
  const parts = [`<|${role}|>`];
  const items =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : ((content ?? []) as { type: string; text?: string; image_url?: string | { url: string } }[]);
  for (const p of items) {
    if (p.type === "text") parts.push(p.text ?? "");
    else if (p.type === "image_url")
      parts.push(imageStandIn(typeof p.image_url === "string" ? p.image_url : (p.image_url?.url ?? "")));
  }
  return parts.join("\n");
}

/** The input tokens of a request of LangChain messages. */
export function requestTokens(messages: BaseMessage[]): number {
  return tokens(messages.map((m) => messageText(roleOf(m), m.content)).join("\n")).length;
}

const ROLES: Record<string, string> = { human: "user", ai: "assistant", system: "system", tool: "tool" };
const roleOf = (m: BaseMessage) => ROLES[m.getType()] ?? m.getType();
