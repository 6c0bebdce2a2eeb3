/**
 * One episode as an experiment runs it: a method's graph (any of graphs/index.ts but the curriculum, whose runs are
 * campaigns) run by the one episode runner (runtime/episode.ts) against a simulator, with its trace, final state, the
 * simulator's verdict and event log. Experiments, their queue workers and tests run episodes through here.
 */
import type { BaseStore } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { VlmpcStateType } from "../graphs/vlmpc/state";
import type { ClosedLoopStateType } from "../graphs/clea/state";
import type { ReplanStateType } from "../graphs/replan/state";
import type { NoiseKnobs } from "../models/symbolic/noise";
import { memoryCheckpointer } from "../memory/checkpointer";
import { method, type MethodId } from "../graphs";
import { runEpisode } from "../runtime/episode";
import type { EpisodeTrace } from "../runtime/tracing";
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
  /** The episode's own emergency stop: its nodes cancel the robot's goal and end it `interrupted`. */
  signal?: AbortSignal;
  /** The method's own settings, by their keys in its configuration (graphs/<id>/configuration.ts). */
  settings?: Record<string, unknown>;
  /**
   * Where checkpoints go (default: memory, forgotten with the process). A durable one (Postgres) makes every step
   * durable before the next starts, so an episode killed anywhere resumes with `resume`.
   */
  checkpointer?: BaseCheckpointSaver;
  /** Continue the thread from its last checkpoint instead of starting it (a goal in flight is re-attached to). */
  resume?: boolean;
  /** Seconds the run lay stopped before this resume, not counted against its wall budget. */
  pausedSeconds?: number;
  /** How the graph run is named and nested in a LangSmith trace (with LANGSMITH_TRACING=true). */
  trace?: EpisodeTrace;
}

export function runMethodEpisode(options: EpisodeOptions & { mode?: "clea" }): Promise<EpisodeRun>;
export function runMethodEpisode(options: EpisodeOptions & { mode: "replan" }): Promise<EpisodeRun<ReplanStateType>>;
export function runMethodEpisode(options: EpisodeOptions & { mode: "vlmpc" }): Promise<EpisodeRun<VlmpcStateType>>;
export function runMethodEpisode(
  options: EpisodeOptions,
): Promise<EpisodeRun<ClosedLoopStateType> | EpisodeRun<ReplanStateType> | EpisodeRun<VlmpcStateType>>;
export async function runMethodEpisode(options: EpisodeOptions): Promise<EpisodeRun<unknown>> {
  const outcome = await runEpisode({
    method: method(options.mode ?? "clea"),
    settings: {
      bridgeUrl: options.url,
      variant: options.variant ?? "full",
      backend: options.backend ?? "symbolic",
      noise: options.noise ?? 0,
      noiseKnobs: options.noiseKnobs,
      seed: options.seed ?? 0,
      maxSteps: options.maxSteps ?? 40,
      maxWallSeconds: options.maxWallSeconds ?? 900,
      dataDir: options.dataDir,
      ...options.settings,
      ...(options.pausedSeconds ? { pausedSeconds: options.pausedSeconds } : {}),
    },
    goal: options.goal,
    thread: options.thread,
    checkpointer: options.checkpointer ?? memoryCheckpointer(),
    store: options.store,
    resume: options.resume,
    signal: options.signal,
    eventsFile: options.eventsFile,
    trace: options.trace,
  });
  // An experiment's episode is a trial of the method on a simulator: one that crashed, or whose world could not say
  // whether its goal holds, is an error on record, never a trial scored as failed.
  if (outcome.crash) throw outcome.crash;
  if (!outcome.truth || !outcome.events)
    throw new Error(`the simulator at ${options.url} did not answer its evaluator's check after the episode`);
  return {
    trace: outcome.trace as TraceStep<unknown>[],
    state: outcome.state,
    truth: outcome.truth as EpisodeRun["truth"],
    events: outcome.events as EpisodeRun["events"],
    wallSeconds: outcome.wallSeconds,
  };
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
