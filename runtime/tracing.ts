/**
 * LangSmith tracing of a run: off unless LANGSMITH_TRACING=true (never needed offline). A traced run's camera frames
 * — base64 images in model inputs and skill results — are replaced by a short stand-in before upload unless
 * ROBOGRAPH_TRACE_FRAMES=true asks for them: an episode sends hundreds, and a trace reads fine without them.
 */
import { Client } from "langsmith";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import type { Callbacks } from "@langchain/core/callbacks/manager";

const truthy = (value: string | undefined) => value === "true" || value === "1";

/** Whether this process traces runs to LangSmith (the SDK's own switch). */
export const tracingOn = (env: NodeJS.ProcessEnv = process.env) =>
  truthy(env.LANGSMITH_TRACING) || truthy(env.LANGCHAIN_TRACING_V2);

/** Whether traced runs keep their frames. */
export const framesTraced = (env: NodeJS.ProcessEnv = process.env) => truthy(env.ROBOGRAPH_TRACE_FRAMES);

const DATA_URL = /^data:(image\/[\w.+-]+);base64,/;
/** A bare base64 blob this long is an image (a CompressedImage's data), not text anyone reads in a trace. */
const BARE_BASE64 = /^[A-Za-z0-9+/]{2048,}={0,2}$/;

/** What stands in for a frame in a trace. */
export const frameStandIn = (kind: string, chars: number) =>
  `[${kind}: ${chars} base64 characters not uploaded; ROBOGRAPH_TRACE_FRAMES=true uploads frames]`;

/** A copy of `value` with every base64 image replaced by its stand-in (messages are read through their toJSON). */
export function redactFrames<T>(value: T): T {
  const walk = (part: unknown, depth: number): unknown => {
    if (depth > 40) return part;
    if (typeof part === "string") {
      const url = part.match(DATA_URL);
      if (url) return frameStandIn(url[1], part.length - url[0].length);
      return part.length >= 2048 && BARE_BASE64.test(part) ? frameStandIn("image", part.length) : part;
    }
    if (Array.isArray(part)) return part.map((item) => walk(item, depth + 1));
    if (part && typeof part === "object") {
      if (part instanceof Date) return part;
      const plain =
        typeof (part as { toJSON?: unknown }).toJSON === "function" ? (part as { toJSON(): unknown }).toJSON() : part;
      if (plain !== part) return walk(plain, depth + 1);
      return Object.fromEntries(Object.entries(part).map(([key, item]) => [key, walk(item, depth + 1)]));
    }
    return part;
  };
  return walk(value, 0) as T;
}

/** A LangSmith client whose uploads leave frames out (unless they are asked for). */
export function tracingClient(env: NodeJS.ProcessEnv = process.env): Client {
  return framesTraced(env)
    ? new Client()
    : new Client({
        hideInputs: (inputs) => redactFrames(inputs),
        hideOutputs: (outputs) => redactFrames(outputs),
      });
}

/** What names a traced episode: the run's name and what it is tagged with. */
export interface EpisodeTrace {
  /** The root run's name (the episode's id). */
  runName?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  /** Callbacks that nest the run under a parent (an experiment's row); without them, a tracer of its own. */
  callbacks?: Callbacks;
}

type TraceConfig = { runName?: string; tags?: string[]; metadata?: Record<string, unknown>; callbacks?: Callbacks };

/**
 * The LangGraph config entries that trace a run as `trace` names it (nothing when tracing is off), and `flush`, which
 * waits until LangChain's callbacks have handed every run over (and, with a tracer of its own, uploaded them).
 */
export function traceRun(trace: EpisodeTrace | undefined, env: NodeJS.ProcessEnv = process.env) {
  if (!tracingOn(env)) return { config: {} as TraceConfig, flush: async () => {} };
  // A tracer of our own (LangChain finds it and adds no default one), so frames stay out.
  const client = trace?.callbacks ? undefined : tracingClient(env);
  return {
    config: <TraceConfig>{
      ...(trace?.runName ? { runName: trace.runName } : {}),
      ...(trace?.tags ? { tags: trace.tags } : {}),
      ...(trace?.metadata ? { metadata: trace.metadata } : {}),
      callbacks: trace?.callbacks ?? [new LangChainTracer({ client })],
    },
    flush: async () => {
      await awaitAllCallbacks();
      await client?.awaitPendingTraceBatches();
    },
  };
}
