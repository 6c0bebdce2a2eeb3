/**
 * Token counts as a provider would bill them, with the tokenizer the latency bench uses (js-tiktoken, o200k): a
 * request is each message's role tag, its text, and a short stand-in per image (the same picture is the same stand-in).
 * The offline reasoner has no provider to report its usage, so it counts its requests this way; the ranks load once,
 * on the first count.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";

let tokenizer: Tiktoken | undefined;

/** The o200k tokens of a text. */
export function tokens(text: string): number[] {
  tokenizer ??= new Tiktoken(o200k);
  return tokenizer.encode(text);
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
