/** Token counts as a provider bills them (models/tokens.ts): o200k ids, a special token's spelling counted as text. */
import { describe, expect, it } from "vitest";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { imageStandIn, messageText, requestTokens, tokens } from "../../models/tokens";

describe("o200k token counts", () => {
  it("are o200k's ids (the latency bench's figures and every offline report's usage are counted in them)", () => {
    expect(tokens("hello world")).toEqual([24912, 2375]);
    expect(tokens("")).toEqual([]);
  });

  it("count a special token's spelling in a user's words as text, as a provider reads it, instead of refusing the text", () => {
    const spelled = [27, 91, 419, 1440, 919, 91, 29]; // "<|endoftext|>" as plain characters
    expect(tokens("<|endoftext|>")).toEqual(spelled);
    expect(tokens("<|endofprompt|>").length).toBeGreaterThan(1);
    const request = [new SystemMessage("Plan the next skill."), new HumanMessage("Find the <|endoftext|> tea.")];
    expect(requestTokens(request)).toBe(
      tokens(["<|system|>\nPlan the next skill.", "<|user|>\nFind the <|endoftext|> tea."].join("\n")).length,
    );
  });

  it("read an image as a short stand-in, the same picture the same one", () => {
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(5000)}` } };
    const text = messageText("user", [{ type: "text", text: "What is on the table?" }, image]);
    expect(text).toBe(`<|user|>\nWhat is on the table?\n<image ${image.image_url.url.length}:${"A".repeat(24)}>`);
    expect(tokens(text).length).toBeLessThan(30);
    expect(imageStandIn(image.image_url.url)).toBe(imageStandIn(`${image.image_url.url}`));
    expect(imageStandIn(`${image.image_url.url.slice(0, -1)}B`)).not.toBe(imageStandIn(image.image_url.url));
  });
});
