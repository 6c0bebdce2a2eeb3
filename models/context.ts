/**
 * The structured context a node hands a model: one fenced JSON block inside the user message, tagged with the task.
 * A VLM reads it as text (plus any images); the symbolic reasoner parses it and sees nothing else.
 */
import type { BaseMessage } from "@langchain/core/messages";

const OPEN = "```json robograph-context";

export function contextBlock(task: string, data: Record<string, unknown>): string {
  return `${OPEN}\n${JSON.stringify({ task, ...data })}\n\`\`\``;
}

export function readContext(messages: BaseMessage[]): { task: string } & Record<string, unknown> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i].content;
    const texts = typeof content === "string" ? [content] : content.flatMap((p) => ((p as { type?: string }).type === "text" ? [(p as { text: string }).text] : []));
    for (const t of texts) {
      const start = t.indexOf(OPEN);
      if (start < 0) continue;
      const body = t.slice(start + OPEN.length, t.indexOf("\n```", start + OPEN.length));
      return JSON.parse(body);
    }
  }
  throw new Error("no robograph context block in the messages");
}
