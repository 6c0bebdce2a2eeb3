/**
 * One episode: the closed-loop graph in this process against a simulator reached over the bridge, with its trace,
 * final state, the simulator's verdict and event log. Experiments and tests both run episodes through here.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph";
import { compileClosedLoop, type Mode } from "../graphs/closedLoop";
import type { ClosedLoopStateType } from "../nodes/clea/state";
import type { ReplanStateType } from "../nodes/replan/state";
import type { NoiseKnobs } from "../models/symbolic/noise";
import { memoryCheckpointer } from "../memory/checkpointer";
import { BridgeClient } from "../robots/bridge/client";

export interface TraceStep<S = ClosedLoopStateType> {
  node: string;
  update: Partial<S>;
}

export type { Mode };

/** The mode a world's robots call for: reward-driven motion means the hierarchical mode. */
export const modeForWorld = (world: string): Mode => (world === "tabletop" ? "replan" : "clea");

export interface EpisodeRun<S = ClosedLoopStateType> {
  trace: TraceStep<S>[];
  state: S;
  truth: { success: boolean; goal: { literal: string; holds: boolean }[]; state: Record<string, string> };
  events: { kind: string; robot?: string; skill?: string; goalId?: string; detail?: string; step: number }[];
  wallSeconds: number;
}

export interface EpisodeOptions {
  mode?: Mode;
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
}

export function runClosedLoopEpisode(o: EpisodeOptions & { mode?: "clea" }): Promise<EpisodeRun>;
export function runClosedLoopEpisode(o: EpisodeOptions & { mode: "replan" }): Promise<EpisodeRun<ReplanStateType>>;
export function runClosedLoopEpisode(o: EpisodeOptions): Promise<EpisodeRun<ClosedLoopStateType> | EpisodeRun<ReplanStateType>>;
export async function runClosedLoopEpisode(o: EpisodeOptions): Promise<EpisodeRun<any>> {
  const graph = compileClosedLoop(memoryCheckpointer(), o.store, o.mode ?? "clea");
  const config = {
    configurable: {
      thread_id: o.thread,
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
    },
  };
  if (o.eventsFile) {
    mkdirSync(join(o.eventsFile, ".."), { recursive: true });
    writeFileSync(o.eventsFile, "");
  }
  const trace: TraceStep<any>[] = [];
  const t0 = performance.now();
  for await (const chunk of await graph.stream({ goal: o.goal }, { ...config, streamMode: "updates", signal: o.signal })) {
    for (const [node, update] of Object.entries(chunk)) {
      trace.push({ node, update: update as Partial<ClosedLoopStateType & ReplanStateType> });
      if (o.eventsFile) appendFileSync(o.eventsFile, `${JSON.stringify({ t: Math.round(performance.now() - t0), node, update })}\n`);
    }
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

/** The skill calls an episode executed, in order, with their outcome. */
export function executedCalls(trace: TraceStep[]): { call: string; ok: boolean; message: string }[] {
  return trace.flatMap((t) =>
    t.node === "executor" && t.update.history?.[0]?.kind === "action"
      ? [{ call: callText(t.update.history[0].call), ok: t.update.history[0].ok, message: t.update.history[0].message }]
      : [],
  );
}

export const callText = (c: { robot: string; skill: string; args: Record<string, string> }) => `${c.robot}.${c.skill}(${Object.values(c.args).join(", ")})`;
