/** The local OpenAI-compatible server the tests drive `@langchain/openai` against (shared with the latency benchmark). */
export { startFakeOpenAI, type ChatRequest, type FakeOpenAI, type Responder } from "../../evals/bench/openaiServer";
