/** The local OpenAI-compatible server the tests drive `@langchain/openai` against (shared with the latency benchmark). */
import { afterAll, beforeAll } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { contextBlock, readContext } from "../../models/context";
import { SymbolicChatModel } from "../../models/symbolic";
import { allReasoners } from "../../graphs";
import { startFakeOpenAI, type ChatRequest, type FakeOpenAI } from "../../evals/bench/openaiServer";

export { startFakeOpenAI, type ChatRequest, type FakeOpenAI, type Responder } from "../../evals/bench/openaiServer";

/** The text part of a request's user message: the context block a node sent. */
export const contextText = (req: ChatRequest) =>
  (req.messages.find((m) => m.role === "user")!.content as { type: string; text?: string }[]).find(
    (p) => p.type === "text",
  )!.text!;

/** A request's context block read back: the node's task and its data (a test may edit it before answering). */
export type RequestContext = Record<string, unknown> & { task: string };
export const contextOf = (req: ChatRequest) => readContext([new HumanMessage(contextText(req))]) as RequestContext;

const reasoner = new SymbolicChatModel(allReasoners());

/** What the built-in symbolic reasoner answers to a context: a hosted VLM's stand-in behind the local endpoint. */
export async function reasonerAnswer(ctx: RequestContext): Promise<string> {
  const { task, ...data } = ctx;
  return (await reasoner._generate([new HumanMessage(contextBlock(task, data))])).generations[0].text;
}

/** The reasoner's answer to a request's context text as sent. */
export const answerAsReasoner = async (req: ChatRequest) => ({
  arguments: (await reasoner._generate([new HumanMessage(contextText(req))])).generations[0].text,
});

/**
 * A local endpoint for this test file, started before its tests and closed after: `endpoint.fake.respond` is what it
 * answers, and `endpoint.use()` points this process's runs at it (no retries, so a bad answer shows at once).
 */
export function localModelEndpoint(): { readonly fake: FakeOpenAI; use(): void } {
  let fake: FakeOpenAI | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAI(() => ({ arguments: "{}" }));
  });
  afterAll(async () => {
    await fake?.close();
  });
  return {
    get fake() {
      if (!fake) throw new Error("the local model endpoint starts in beforeAll");
      return fake;
    },
    use() {
      Object.assign(process.env, {
        OPENAI_API_KEY: "sk-local",
        OPENAI_BASE_URL: this.fake.baseURL,
        ROBOGRAPH_MODEL: "local-vlm",
        ROBOGRAPH_MODEL_RETRIES: "0",
      });
    },
  };
}
