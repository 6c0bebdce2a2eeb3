/**
 * The structured context a node hands a model: one fenced JSON block inside the user message, tagged with the task.
 * A VLM reads it as text (plus any images); the symbolic reasoner parses it and sees nothing else.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { WorldDescription } from "../robots/manifests/schema";

/**
 * The lists of the world an argument's values may be, by the name a context block gives them (nodes/modelContext.ts
 * writes them, models/symbolic/view.ts reads them back).
 */
export const WORLD_LISTS: Record<string, (w: WorldDescription) => string[]> = {
  "one of world.labels": (w) => w.labels,
  "one of the names in world.places": (w) => w.places.map((p) => p.name),
  "one of the names in world.places with openable true": (w) => w.places.filter((p) => p.openable).map((p) => p.name),
  "one of world.navigationPoints": (w) => w.navigationPoints,
};

const OPEN = "```json robograph-context";

export function contextBlock(task: string, data: Record<string, unknown>): string {
  return `${OPEN}\n${JSON.stringify({ task, ...data })}\n\`\`\``;
}

export function readContext(messages: BaseMessage[]): { task: string } & Record<string, unknown> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i].content;
    const texts =
      typeof content === "string"
        ? [content]
        : content.flatMap((p) => ((p as { type?: string }).type === "text" ? [(p as { text: string }).text] : []));
    for (const t of texts) {
      const start = t.indexOf(OPEN);
      if (start < 0) continue;
      const body = t.slice(start + OPEN.length, t.indexOf("\n```", start + OPEN.length));
      return JSON.parse(body);
    }
  }
  throw new Error("no robograph context block in the messages");
}
