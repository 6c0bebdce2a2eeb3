/**
 * A small OpenAI-compatible chat-completions server on loopback, for testing the real `@langchain/openai` client code:
 * it records every request and answers with whatever the test's responder returns (a structured answer goes back
 * as a tool call, the way function-calling structured output expects it; `content` answers as plain message text, the
 * way json_schema and json_object modes expect it). It can also answer with an HTTP status (and headers, such as
 * Retry-After), or stall — say nothing until the client gives up — as a misbehaving endpoint does.
 */
import { createServer, type Server } from "node:http";

export interface ChatRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
  response_format?: { type: string; json_schema?: { name: string } };
}

type Answer = { arguments: string } | { content: string } | { status: number; body: string; headers?: Record<string, string> } | { stall: true };
export type Responder = (req: ChatRequest, n: number) => Answer | Promise<Answer>;

export interface FakeOpenAI {
  baseURL: string;
  requests: ChatRequest[];
  /** When each request arrived (ms since the epoch), in the order of `requests`. */
  arrivals: number[];
  respond: Responder;
  close(): Promise<void>;
}

export async function startFakeOpenAI(respond: Responder): Promise<FakeOpenAI> {
  const requests: ChatRequest[] = [];
  const fake: FakeOpenAI = { baseURL: "", requests, arrivals: [], respond, close: async () => {} };
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
      const out = await fake.respond(parsed, requests.length);
      // A stall: nothing is sent; the client's own time limit ends the request (and closes the socket).
      if ("stall" in out) return;
      if ("status" in out) {
        res.writeHead(out.status, { "content-type": "application/json", ...out.headers }).end(out.body);
        return;
      }
      const name = parsed.tools?.[0]?.function.name ?? "answer";
      const choice =
        "content" in out
          ? { index: 0, finish_reason: "stop", message: { role: "assistant", content: out.content } }
          : { index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [{ id: `call_${requests.length}`, type: "function", function: { name, arguments: out.arguments } }] } };
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: parsed.model,
          choices: [choice],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address() as { port: number };
  fake.baseURL = `http://127.0.0.1:${addr.port}/v1`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      // Stalled requests hold their sockets open; a closed endpoint drops them.
      server.closeAllConnections();
    });
  return fake;
}
