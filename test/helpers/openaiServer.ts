/** The local OpenAI-compatible server the tests drive `@langchain/openai` against (shared with the latency benchmark). */
import { HumanMessage } from "@langchain/core/messages";
import { contextBlock, readContext } from "../../models/context";
import { SymbolicChatModel } from "../../models/symbolic";
import { allReasoners } from "../../methods";
import type { ChatRequest } from "../../evals/bench/openaiServer";

export { startFakeOpenAI, type ChatRequest, type FakeOpenAI, type Responder } from "../../evals/bench/openaiServer";

/** The text part of a request's user message: the context block a node sent. */
export const contextText = (req: ChatRequest) => (req.messages.find((m) => m.role === "user")!.content as { type: string; text?: string }[]).find((p) => p.type === "text")!.text!;

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
export const answerAsReasoner = async (req: ChatRequest) => ({ arguments: (await reasoner._generate([new HumanMessage(contextText(req))])).generations[0].text });
