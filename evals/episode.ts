/**
 * One episode: a method's graph (any of graphs/index.ts but the curriculum, whose runs are campaigns) in this process against a simulator reached over the
 * bridge, with its trace, final state, the simulator's verdict and event log. Experiments and tests both run episodes
 * through here.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { VlmpcStateType } from "../graphs/vlmpc/state";
import type { ClosedLoopStateType } from "../graphs/clea/state";
import type { ReplanStateType } from "../graphs/replan/state";
import type { NoiseKnobs } from "../models/symbolic/noise";
import { memoryCheckpointer } from "../memory/checkpointer";
import { BridgeClient } from "../robots/bridge/client";
import { method, type MethodGraph, type MethodId } from "../graphs";
import { openRun } from "../runtime/run";
import type { EpisodeRun as Run, TraceStep as Step } from "../graphs/report";

/** One node's update of an episode (graphs/report.ts); CLEA's by default. */
export type TraceStep<S = ClosedLoopStateType> = Step<S>;
/** One episode as it ran (graphs/report.ts); CLEA's by default. */
export type EpisodeRun<S = ClosedLoopStateType> = Run<S>;

export interface EpisodeOptions {
  /** Which method runs (graphs/index.ts; default CLEA's). */
  mode?: MethodId;
  url: string;
  goal: string;
  thread: string;
  dataDir: string;
  variant?: string;
  backend?: "symbolic" | "openai";
  noise?: number;
  noiseKnobs?: Partial<NoiseKnobs>;
  seed?: number;
  maxSteps?: number;
  maxWallSeconds?: number;
  store?: BaseStore;
  /** Writes every node update here (JSON lines) as it happens; a previous attempt's file is replaced. */
  eventsFile?: string;
  /** Stops the episode between nodes. */
  signal?: AbortSignal;
  /** RePLan: perceiver phrasings per diagnosis and new-procedure budget. */
  diagnosisPhrasings?: number;
  maxProcedures?: number;
  /** VLM-PC: steps the planner sees with images (0: all) and the labelled examples of full+ic. */
  historyWindow?: number;
  examples?: string;
  /** CLEA, RePLan: speculate beside each skill (configurable.pipeline). */
  pipeline?: boolean;
  /**
   * Where checkpoints go (default: memory, forgotten with the process). A durable one (Postgres) makes every step
   * durable before the next starts, so an episode killed anywhere resumes with `resume`.
   */
  checkpointer?: BaseCheckpointSaver;
  /** Continue the thread from its last checkpoint instead of starting it (a goal in flight is re-attached to). */
  resume?: boolean;
  /** Seconds the run lay stopped before this resume, not counted against its wall budget. */
  pausedSeconds?: number;
}

export function runClosedLoopEpisode(o: EpisodeOptions & { mode?: "clea" }): Promise<EpisodeRun>;
export function runClosedLoopEpisode(o: EpisodeOptions & { mode: "replan" }): Promise<EpisodeRun<ReplanStateType>>;
export function runClosedLoopEpisode(o: EpisodeOptions & { mode: "vlmpc" }): Promise<EpisodeRun<VlmpcStateType>>;
export function runClosedLoopEpisode(
  o: EpisodeOptions,
): Promise<EpisodeRun<ClosedLoopStateType> | EpisodeRun<ReplanStateType> | EpisodeRun<VlmpcStateType>>;
export async function runClosedLoopEpisode(options: EpisodeOptions): Promise<EpisodeRun<unknown>> {
  const episodeMethod = method(options.mode ?? "clea");
  const graph = episodeMethod.compile(options.checkpointer ?? memoryCheckpointer(), options.store);
  // The episode's run: its settings parsed once, its robots' session its own, closed when the episode is over.
  const run = openRun(episodeMethod.runtime, {
    bridgeUrl: options.url,
    variant: options.variant ?? "full",
    backend: options.backend ?? "symbolic",
    noise: options.noise ?? 0,
    noiseKnobs: options.noiseKnobs,
    seed: options.seed ?? 0,
    maxSteps: options.maxSteps ?? 40,
    maxWallSeconds: options.maxWallSeconds ?? 900,
    dataDir: options.dataDir,
    ...(options.diagnosisPhrasings ? { diagnosisPhrasings: options.diagnosisPhrasings } : {}),
    ...(options.maxProcedures ? { maxProcedures: options.maxProcedures } : {}),
    ...(options.historyWindow ? { historyWindow: options.historyWindow } : {}),
    ...(options.examples ? { examples: options.examples } : {}),
    ...(options.pipeline ? { pipeline: true } : {}),
    ...(options.pausedSeconds ? { pausedSeconds: options.pausedSeconds } : {}),
  });
  const config = {
    // Durable before the next step: a goal id is on disk before its goal is sent (the pg test's lesson, TOOLCHAIN.md).
    ...(options.checkpointer ? { durability: "sync" as const } : {}),
    configurable: { thread_id: options.thread },
    context: run.context,
  };
  // A resumed episode's record starts with what its checkpoints hold of the steps before (another process ran them).
  const trace: TraceStep<unknown>[] = options.resume ? await traceFromCheckpoints(graph, config) : [];
  if (options.eventsFile) {
    mkdirSync(join(options.eventsFile, ".."), { recursive: true });
    writeFileSync(
      options.eventsFile,
      trace.map((s) => `${JSON.stringify({ t: null, node: s.node, update: s.update })}\n`).join(""),
    );
  }
  const t0 = performance.now();
  try {
    for await (const chunk of await graph.stream(options.resume ? null : { goal: options.goal }, {
      ...config,
      streamMode: "updates",
      signal: options.signal,
    })) {
      for (const [node, update] of Object.entries(chunk as Record<string, unknown>)) {
        trace.push({ node, update: update as Partial<ClosedLoopStateType & ReplanStateType> });
        if (options.eventsFile)
          appendFileSync(
            options.eventsFile,
            `${JSON.stringify({ t: Math.round(performance.now() - t0), node, update })}\n`,
          );
      }
    }
  } finally {
    await run.close();
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const state = (await graph.getState(config)).values;
  const client = await BridgeClient.connect(options.url);
  try {
    const truth = await client.callService<EpisodeRun["truth"]>("/evaluator/check");
    const { events } = await client.callService<{ events: EpisodeRun["events"] }>("/evaluator/events");
    return { trace, state, truth, events, wallSeconds };
  } finally {
    await client.close();
  }
}

/**
 * The node updates a thread's checkpoints record, oldest first: each checkpoint keeps the writes of the tasks that ran
 * from it, which are the updates the graph streamed when they ran.
 */
async function traceFromCheckpoints(
  graph: MethodGraph,
  config: { configurable: { thread_id: string }; context: unknown },
): Promise<TraceStep[]> {
  const snapshots = [];
  for await (const s of graph.getStateHistory(config)) snapshots.push(s);
  // History comes newest first. A task of an older checkpoint ran (one that wrote nothing too); of the newest, only one
  // that wrote has run (the others are what the resume runs).
  return snapshots
    .reverse()
    .flatMap((snapshot, i) =>
      snapshot.tasks
        .filter((t) => !t.name.startsWith("__") && (t.result !== undefined || i < snapshots.length - 1))
        .map((t) => ({ node: t.name, update: (t.result ?? {}) as Partial<ClosedLoopStateType> })),
    );
}

/** The skill calls an episode executed, in order, with their outcome. */
export function executedCalls(trace: TraceStep[]): { call: string; ok: boolean; message: string }[] {
  return trace.flatMap((step) =>
    step.node === "executor" && step.update.history?.[0]?.kind === "action"
      ? [
          {
            call: callText(step.update.history[0].call),
            ok: step.update.history[0].ok,
            message: step.update.history[0].message,
          },
        ]
      : [],
  );
}

export const callText = (call: { robot: string; skill: string; args: Record<string, string> }) =>
  `${call.robot}.${call.skill}(${Object.values(call.args).join(", ")})`;
