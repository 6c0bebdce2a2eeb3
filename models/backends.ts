/**
 * The model backends behind the roles: the offline symbolic reasoner (one for every role) or an OpenAI-compatible
 * endpoint per role, with LangChain's own retries off (askStructured retries, counted and bounded). Building the
 * endpoint models also replaces a misleading LangChain notice that a malformed tool-call answer causes.
 */
import { ChatOpenAI } from "@langchain/openai";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ROLES, type ModelConfig, type Role } from "./roles";
import { SymbolicChatModel } from "./symbolic";
import type { Task } from "./symbolic/noise";

export type RoleModels = Record<Role, BaseChatModel>;

/** The offline reasoner's answer to each task a method's nodes ask (by the name their context block carries). */
export type Reasoner = Record<string, Task>;

/** The models of every role: the offline reasoner knowing `reasoner`'s tasks, or an endpoint's model per role. */
export function createModels(config: ModelConfig, reasoner: Reasoner): RoleModels {
  if (config.backend === "symbolic") {
    const model = new SymbolicChatModel(reasoner, config.seed, config.noise);
    return Object.fromEntries(ROLES.map((r) => [r, model])) as unknown as RoleModels;
  }
  explainToolCallNotice();
  return Object.fromEntries(
    ROLES.map((role) => [
      role,
      new ChatOpenAI({
        model: config.models[role],
        apiKey: config.apiKey,
        // Retries are askStructured's own: counted, backed off, bounded by the wall budget.
        maxRetries: 0,
        timeout: config.timeoutMs,
        temperature: 0.2,
        configuration: config.baseURL ? { baseURL: config.baseURL } : undefined,
      }),
    ]),
  ) as unknown as RoleModels;
}

const NOTICE = "New LangChain packages are available";
let noticeFilter = false;

/**
 * @langchain/core prints "New LangChain packages are available … upgrade" each time it builds a message that carries
 * a provider's tool calls but no parsed ones (`AIMessage`'s constructor, messages/ai.js) — which is what
 * @langchain/openai builds when a model's tool-call arguments are not valid JSON. The packages are current; the answer
 * was malformed, and it goes back for repair. The notice is replaced by that explanation, once per process.
 */
function explainToolCallNotice(): void {
  if (noticeFilter) return;
  noticeFilter = true;
  const warn = console.warn.bind(console);
  let explained = false;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith(NOTICE)) {
      if (!explained)
        warn(
          "note: a model answered with tool-call arguments that are not valid JSON; the answer goes back for repair. (LangChain's notice about new packages, which this causes, is not shown.)",
        );
      explained = true;
      return;
    }
    warn(...args);
  };
}
