/** `robograph mcp` as a desktop client starts it (stdio, spawned by the MCP SDK's transport), and the SDK's client on it. */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { scratchDir } from "./episode";
import { ROOT } from "./processes";
import { PRECOMPILED, programArgs } from "../../robots/programs";

export interface McpServer {
  client: Client;
  /** Where the server keeps its run records. */
  runs: string;
}

export interface McpServerOptions {
  /** The checkout whose CLI runs (default this one). */
  root?: string;
  /** Set: the client supports elicitation and answers each question so (or hears it, and accepts). */
  answer?: "accept" | "decline" | ((message: string) => void);
  /** Variables over this process's environment. */
  env?: Record<string, string>;
  /** Node's arguments to run `root`'s CLI (default: this checkout's from the suite's build; another's under tsx). */
  program?: string[];
}

/**
 * A server with `args` (e.g. --bridge-url URL --manifest FILE), its data and run records in a scratch folder. Close the
 * client to stop the server.
 */
export async function mcpServer(args: string[], options: McpServerOptions = {}): Promise<McpServer> {
  const root = options.root ?? ROOT;
  const dir = scratchDir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    // This checkout's CLI from the suite's precompiled build (half the CPU of a start under tsx); another's under tsx.
    args: [
      ...(options.program ??
        (root === ROOT ? programArgs("cli/robograph.ts") : ["--import", "tsx", join(root, "cli", "robograph.ts")])),
      "mcp",
      "--data-dir",
      join(dir, "data"),
      "--runs-dir",
      join(dir, "runs"),
      ...args,
    ],
    cwd: root,
    stderr: "ignore",
    // Otherwise the SDK's filtered environment, as a desktop client gives it, with the suite's build named in it: the
    // simulators the server starts then start from the build too (a second each instead of two and a half under tsx).
    ...(options.env
      ? { env: { ...(process.env as Record<string, string>), ...options.env } }
      : process.env[PRECOMPILED]
        ? { env: { [PRECOMPILED]: process.env[PRECOMPILED] } }
        : {}),
  });
  const { answer } = options;
  const client = new Client({ name: "test", version: "1" }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      if (typeof answer === "function") answer(request.params.message);
      return answer === "decline" ? { action: "decline" } : { action: "accept", content: { approve: true } };
    });
  await client.connect(transport);
  return { client, runs: join(dir, "runs") };
}

/** A tool result's text parts, joined. */
export const textOf = (result: CallToolResult) =>
  result.content
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("\n");
