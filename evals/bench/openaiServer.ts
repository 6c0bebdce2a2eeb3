/**
 * A small OpenAI-compatible chat-completions server on loopback: it records every request (when it arrived and when
 * its answer left) and answers with whatever its responder returns (a structured answer goes back as a tool call,
 * the way function-calling structured output expects it; `content` answers as plain message text, the way
 * json_schema and json_object modes expect it). It can also answer with an HTTP status (and headers, such as
 * Retry-After), or stall — say nothing until the client gives up — as a misbehaving endpoint does.
 * The tests drive the real `@langchain/openai` client code against it; the latency benchmark puts the symbolic
 * reasoner behind it, after a fixed delay, to stand in for a hosted VLM.
 */
import { createServer, type Server } from "node:http";

export interface ChatRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
  response_format?: { type: string; json_schema?: { name: string } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** Token counts the answer reports (defaults: 100 in, 20 out). */
type Reported = { usage?: { prompt_tokens: number; completion_tokens: number } };
type Answer =
  | (({ arguments: string } | { content: string }) & Reported)
  | { status: number; body: string; headers?: Record<string, string> }
  | { stall: true };
export type Responder = (req: ChatRequest, n: number) => Answer | Promise<Answer>;

export interface FakeOpenAI {
  baseURL: string;
  requests: ChatRequest[];
  /** When each request arrived (ms since the epoch), in the order of `requests`. */
  arrivals: number[];
  /** When each answer was sent (performance.now() at arrival and at answer, ms), in the order of `requests`. */
  intervals: { start: number; end?: number }[];
  respond: Responder;
  close(): Promise<void>;
}

export async function startFakeOpenAI(respond: Responder): Promise<FakeOpenAI> {
  const requests: ChatRequest[] = [];
  const fake: FakeOpenAI = { baseURL: "", requests, arrivals: [], intervals: [], respond, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as ChatRequest;
      requests.push(parsed);
      fake.arrivals.push(Date.now());
      const interval: { start: number; end?: number } = { start: performance.now() };
      fake.intervals.push(interval);
      const requestNumber = requests.length;
      const out = await fake.respond(parsed, requestNumber);
      // A stall: nothing is sent; the client's own time limit ends the request (and closes the socket).
      if ("stall" in out) return;
      interval.end = performance.now();
      if ("status" in out) {
        res.writeHead(out.status, { "content-type": "application/json", ...out.headers }).end(out.body);
        return;
      }
      const name = parsed.tools?.[0]?.function.name ?? "answer";
      const message:
        | { content: string }
        | { tool_calls: { id: string; type: "function"; function: { name: string; arguments: string } }[] } =
        "content" in out
          ? { content: out.content }
          : {
              tool_calls: [
                { id: `call_${requestNumber}`, type: "function", function: { name, arguments: out.arguments } },
              ],
            };
      const finish = "content" in out ? "stop" : "tool_calls";
      const choice = { index: 0, finish_reason: finish, message: { role: "assistant", content: null, ...message } };
      const usage = out.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
      // A streamed request (what a chat model does under the LangGraph server, which streams every model's tokens)
      // gets server-sent events: the whole answer in one delta, then the finish, the usage, and [DONE].
      if (parsed.stream) {
        const chunk = (delta: object, finish: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ id: `chatcmpl-${requestNumber}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: parsed.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
        const delta =
          "content" in message
            ? { role: "assistant", content: message.content }
            : { role: "assistant", content: null, tool_calls: message.tool_calls.map((t, index) => ({ index, ...t })) };
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk(delta, null));
        res.write(chunk({}, finish));
        if (parsed.stream_options?.include_usage)
          res.write(
            `data: ${JSON.stringify({ id: `chatcmpl-${requestNumber}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: parsed.model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
          );
        res.end("data: [DONE]\n\n");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${requestNumber}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: parsed.model,
          choices: [choice],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address() as { port: number };
  fake.baseURL = `http://127.0.0.1:${addr.port}/v1`;
  fake.close = () =>
    new Promise<void>((closed) => {
      server.close(() => closed());
      // Stalled requests hold their sockets open; a closed endpoint drops them.
      server.closeAllConnections();
    });
  return fake;
}
