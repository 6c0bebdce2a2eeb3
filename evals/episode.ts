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
export async function runClosedLoopEpisode(o: EpisodeOptions): Promise<EpisodeRun<any>> {
  const m = method(o.mode ?? "clea");
  const graph = m.compile(o.checkpointer ?? memoryCheckpointer(), o.store);
  // The episode's run: its settings parsed once, its robots' session its own, closed when the episode is over.
  const run = openRun(m.runtime, {
    bridgeUrl: o.url,
    variant: o.variant ?? "full",
    backend: o.backend ?? "symbolic",
    noise: o.noise ?? 0,
    noiseKnobs: o.noiseKnobs,
    seed: o.seed ?? 0,
    maxSteps: o.maxSteps ?? 40,
    maxWallSeconds: o.maxWallSeconds ?? 900,
    dataDir: o.dataDir,
    ...(o.diagnosisPhrasings ? { diagnosisPhrasings: o.diagnosisPhrasings } : {}),
    ...(o.maxProcedures ? { maxProcedures: o.maxProcedures } : {}),
    ...(o.historyWindow ? { historyWindow: o.historyWindow } : {}),
    ...(o.examples ? { examples: o.examples } : {}),
    ...(o.pipeline ? { pipeline: true } : {}),
    ...(o.pausedSeconds ? { pausedSeconds: o.pausedSeconds } : {}),
  });
  const config = {
    // Durable before the next step: a goal id is on disk before its goal is sent (the pg test's lesson, TOOLCHAIN.md).
    ...(o.checkpointer ? { durability: "sync" as const } : {}),
    configurable: { thread_id: o.thread },
    context: run.context,
  };
  // A resumed episode's record starts with what its checkpoints hold of the steps before (another process ran them).
  const trace: TraceStep<any>[] = o.resume ? await traceFromCheckpoints(graph, config) : [];
  if (o.eventsFile) {
    mkdirSync(join(o.eventsFile, ".."), { recursive: true });
    writeFileSync(
      o.eventsFile,
      trace.map((s) => `${JSON.stringify({ t: null, node: s.node, update: s.update })}\n`).join(""),
    );
  }
  const t0 = performance.now();
  try {
    for await (const chunk of await graph.stream(o.resume ? null : { goal: o.goal }, {
      ...config,
      streamMode: "updates",
      signal: o.signal,
    })) {
      for (const [node, update] of Object.entries(chunk as Record<string, unknown>)) {
        trace.push({ node, update: update as Partial<ClosedLoopStateType & ReplanStateType> });
        if (o.eventsFile)
          appendFileSync(o.eventsFile, `${JSON.stringify({ t: Math.round(performance.now() - t0), node, update })}\n`);
      }
    }
  } finally {
    await run.close();
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const state = (await graph.getState(config)).values;
  const c = await BridgeClient.connect(o.url);
  try {
    const truth = await c.callService<EpisodeRun["truth"]>("/evaluator/check");
    const { events } = await c.callService<{ events: EpisodeRun["events"] }>("/evaluator/events");
    return { trace, state, truth, events, wallSeconds };
  } finally {
    await c.close();
  }
}

/**
 * The node updates a thread's checkpoints record, oldest first: each checkpoint keeps the writes of the tasks that ran
 * from it, which are the updates the graph streamed when they ran.
 */
async function traceFromCheckpoints(
  graph: MethodGraph,
  config: { configurable: { thread_id: string }; context: unknown },
): Promise<TraceStep<any>[]> {
  const snapshots = [];
  for await (const s of graph.getStateHistory(config)) snapshots.push(s);
  // History comes newest first. A task of an older checkpoint ran (one that wrote nothing too); of the newest, only one
  // that wrote has run (the others are what the resume runs).
  return snapshots
    .reverse()
    .flatMap((s, i) =>
      s.tasks
        .filter((t) => !t.name.startsWith("__") && (t.result !== undefined || i < snapshots.length - 1))
        .map((t) => ({ node: t.name, update: (t.result ?? {}) as Partial<ClosedLoopStateType> })),
    );
}

/** The skill calls an episode executed, in order, with their outcome. */
export function executedCalls(trace: TraceStep[]): { call: string; ok: boolean; message: string }[] {
  return trace.flatMap((t) =>
    t.node === "executor" && t.update.history?.[0]?.kind === "action"
      ? [{ call: callText(t.update.history[0].call), ok: t.update.history[0].ok, message: t.update.history[0].message }]
      : [],
  );
}

export const callText = (c: { robot: string; skill: string; args: Record<string, string> }) =>
  `${c.robot}.${c.skill}(${Object.values(c.args).join(", ")})`;
