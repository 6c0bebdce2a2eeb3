/** What a LangSmith trace keeps of a frame (runtime/tracing.ts): a note of its size, never its pixels, unless asked. */
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { frameStandIn, redactFrames, traceRun, tracingOn } from "../../runtime/tracing";

const png = Buffer.alloc(3000, 7).toString("base64");

describe("frames in traces", () => {
  it("replaces data URLs and bare base64 images, in messages too, and leaves text alone", () => {
    const message = new HumanMessage({
      content: [
        { type: "text", text: "what is on the table?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      ],
    });
    const out = redactFrames({ messages: [[message]], frame: { format: "png", data: png }, note: "short text" });
    const text = JSON.stringify(out);
    expect(text).not.toContain(png);
    expect(text).toContain(frameStandIn("image/png", png.length));
    expect(text).toContain(frameStandIn("image", png.length));
    expect(text).toContain("what is on the table?");
    expect(out.note).toBe("short text");
    // A short base64-looking word is text.
    expect(redactFrames({ id: "abc123" })).toEqual({ id: "abc123" });
  });

  it("traces nothing unless LANGSMITH_TRACING is on", () => {
    expect(tracingOn({})).toBe(false);
    expect(traceRun({ runName: "x" }, {}).config).toEqual({});
    const on = traceRun(
      { runName: "x", tags: ["variant:full"] },
      { LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: "k" },
    );
    expect(on.config).toMatchObject({ runName: "x", tags: ["variant:full"] });
    expect(on.config.callbacks).toHaveLength(1);
  });
});
