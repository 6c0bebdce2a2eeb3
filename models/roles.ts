/** Model roles and how each is configured: which backend, which model, and the symbolic reasoner's noise. */
import type { NoiseKnobs } from "./symbolic/noise";
import { NO_NOISE, noiseLevel } from "./symbolic/noise";

// writer: the behaviour critics' policy writer (primitive programs); proposer, decomposer, retriever, analyst: Game On's
// curriculum (task proposal, decomposition, skill retrieval, learning-curve analysis).
export const ROLES = [
  "planner",
  "perceiver",
  "verifier",
  "critic",
  "summarizer",
  "writer",
  "proposer",
  "decomposer",
  "retriever",
  "analyst",
] as const;
export type Role = (typeof ROLES)[number];

export interface ModelConfig {
  backend: "openai" | "symbolic";
  /** OpenAI-compatible endpoint (hosted, vLLM, Ollama, LM Studio). */
  baseURL?: string;
  apiKey?: string;
  /** Model name per role. */
  models: Record<Role, string>;
  /** How structured output is requested: many local servers want functionCalling. */
  structuredMethod: "functionCalling" | "jsonSchema" | "jsonMode";
  timeoutMs: number;
  /**
   * Retries of a request that failed in transport (timeout, 429, 5xx, connection refused), with exponential backoff
   * and jitter, honouring Retry-After; ours, not the HTTP client's, so every request sent is counted and the run's
   * wall budget bounds the waiting.
   */
  maxRetries: number;
  /** First retry delay (doubles each retry, with jitter) and the longest one. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Times an answer that fails its schema is sent back for repair before the node fails. */
  repairAttempts: number;
  /** Longest image side sent to a VLM (pixels). */
  imageMaxSide: number;
  /** Symbolic backend: seed of its noise draws and the noise itself. */
  seed: number;
  noise: NoiseKnobs;
}

export interface ModelOverrides {
  backend?: "openai" | "symbolic";
  model?: string;
  /** Model names per role, over `model` and the environment. */
  roleModels?: Partial<Record<Role, string>>;
  seed?: number;
  noise?: number;
  /** Individual knobs on top of the level (tests and ablation studies). */
  noiseKnobs?: Partial<NoiseKnobs>;
}

/** Reads the configuration from the environment; `openai` when a key is configured, `symbolic` otherwise. */
export function modelConfig(env: NodeJS.ProcessEnv = process.env, overrides: ModelOverrides = {}): ModelConfig {
  const apiKey = env.OPENAI_API_KEY || undefined;
  const requested = overrides.backend ?? (env.ROBOGRAPH_MODEL_BACKEND as ModelConfig["backend"] | undefined);
  if (requested && requested !== "openai" && requested !== "symbolic")
    throw new Error(`unknown model backend ${requested}: use openai or symbolic`);
  const backend = requested ?? (apiKey ? "openai" : "symbolic");
  if (backend === "openai" && !apiKey)
    throw new Error("the openai backend needs OPENAI_API_KEY (any non-empty value for a local server)");
  const fallback = overrides.model ?? env.ROBOGRAPH_MODEL ?? "gpt-4o-mini";
  const models = Object.fromEntries(
    ROLES.map((r) => [r, overrides.roleModels?.[r] ?? env[`ROBOGRAPH_MODEL_${r.toUpperCase()}`] ?? fallback]),
  ) as Record<Role, string>;
  const method = (env.ROBOGRAPH_STRUCTURED_METHOD ?? "functionCalling") as ModelConfig["structuredMethod"];
  const noise = overrides.noise ?? Number(env.ROBOGRAPH_NOISE ?? 0);
  return {
    backend,
    baseURL: env.OPENAI_BASE_URL || undefined,
    apiKey,
    models,
    structuredMethod: method,
    timeoutMs: Number(env.ROBOGRAPH_MODEL_TIMEOUT_MS ?? 60_000),
    maxRetries: Number(env.ROBOGRAPH_MODEL_RETRIES ?? 4),
    backoffMs: Number(env.ROBOGRAPH_MODEL_BACKOFF_MS ?? 1000),
    maxBackoffMs: Number(env.ROBOGRAPH_MODEL_MAX_BACKOFF_MS ?? 30_000),
    repairAttempts: 2,
    imageMaxSide: Number(env.ROBOGRAPH_IMAGE_MAX_SIDE ?? 512),
    seed: overrides.seed ?? Number(env.ROBOGRAPH_SEED ?? 0),
    noise: { ...(noise > 0 ? noiseLevel(noise) : NO_NOISE), ...overrides.noiseKnobs },
  };
}
