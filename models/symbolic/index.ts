/**
 * The symbolic backend as a LangChain chat model: same interface and same structured answers as a real VLM, so
 * every graph runs offline, in tests and in Studio. It reads only the context block of the prompt.
 */
import { requestTokens, tokens } from "../tokens";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { readContext } from "../context";
import { readModelView } from "./view";
import { KeyedDraw, NO_NOISE, ReadWatch, type Draw, type NoiseKnobs, type Task } from "./noise";
import { readKey } from "./meaning";

/**
 * The offline reasoner of one method (or several: their task tables merged): each method's folder holds its part
 * (graphs/<id>/reasoner), keyed by the task names its nodes' context blocks carry; the method hands it to its runs.
 */
export class SymbolicChatModel extends BaseChatModel {
  constructor(
    readonly tasks: Record<string, Task>,
    readonly seed = 0,
    readonly noise: NoiseKnobs = NO_NOISE,
  ) {
    super({});
  }

  /** Which reasoning each node's task calls for; noise reaches only the roles the knobs describe. */
  private answer(ctx: { task: string } & Record<string, unknown>, rng: Draw): unknown {
    const task = this.tasks[ctx.task];
    if (!task)
      throw new Error(
        `the symbolic reasoner has no task ${ctx.task}; it knows ${Object.keys(this.tasks).join(", ") || "none"}`,
      );
    return task(ctx, this.noise, rng);
  }

  _llmType(): string {
    return "robograph-symbolic";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const ctx = readModelView(readContext(messages));
    // Faults are drawn from what the request asks that the reasoner reads, not how it is worded (models/symbolic/meaning.ts):
    // a dry pass (its draws keyed on the seed and the role alone) finds the fields the reasoner reads, and the answer's
    // draws are keyed on those. A field it never reads moves no draw; with every field read the key is the whole context's.
    const watch = new ReadWatch(this.seed, ctx);
    // The analyst's offline reading of a plot image is asynchronous (it decodes the PNG).
    await this.answer(watch.context, watch);
    const answer = await this.answer(ctx, new KeyedDraw(readKey(this.seed, ctx, watch.fields), this.seed));
    const text = JSON.stringify(answer);
    // No provider reports its usage: the request and the answer are counted with the bench's tokenizer (models/tokens.ts).
    const input = requestTokens(messages);
    const output = tokens(text).length;
    const usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
    return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata: usage }) }] };
  }
}
