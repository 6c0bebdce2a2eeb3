/**
 * Experiments: graph variants × dataset examples × seeds, each episode against a simulator process of its own on a
 * free port — kept between episodes and reset for the next where the world serves a reset — a bounded number at a time. Resumable — an episode with a result on disk is not run again — and it leaves
 * nothing running when it stops (normally or on SIGINT). Aborting an experiment is an emergency stop: every robot goal
 * in flight is canceled on its simulator and each running episode ends `interrupted` (and, with no result written,
 * runs again when the experiment is resumed); simulators still running after a grace period are stopped regardless.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearEmergencyStop, emergencyStop } from "../runtime/estop";
import { totalUsage } from "../models";
import { availableParallelism } from "node:os";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { BridgeClient } from "../robots/bridge/client";
import { world as worldOf } from "../robots/sim/worlds";
import { RESET_SERVICE } from "../robots/msgs/rollout";
import { courseExamplesPath, EXAMPLE_SEEDS_FROM, loadDataset, type DatasetRow } from "./datasets";
import { runMethodEpisode, type EpisodeRun } from "./episode";
import {
  NO_PIPELINE,
  revocations,
  sentAgainstTheLook,
  sentAgainstTheReport,
  type PipelineCounts,
} from "../nodes/speculation";
import { method, methodOfWorld, type Method } from "../graphs";
import type { EpisodeResult } from "./metrics";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { EpisodeTrace } from "../runtime/tracing";

/** A pipelined episode's speculation with what its trace measures: why work was revoked, and skills sent against what was seen. */
function pipelineRecord(
  counts: PipelineCounts,
  trace: readonly { node: string; update: unknown }[],
  speculator: Method,
) {
  const nodes = speculator.speculation;
  if (!nodes) throw new Error(`${speculator.title} declares no speculating nodes: it has no pipelined variant`);
  const look = sentAgainstTheLook(trace, nodes);
  return {
    ...counts,
    revokedBecause: revocations(trace, nodes),
    againstTheLook: look.all,
    preparedAgainstTheLook: look.prepared,
    preparedAfterFailedMotion: sentAgainstTheReport(trace, nodes),
  };
}

export interface ExperimentOptions {
  name: string;
  dataset: string;
  variants: string[];
  seeds: number;
  /** Symbolic backend noise level (the same for every variant). */
  noise: number;
  concurrency: number;
  /** Run only the first N examples. */
  limit?: number;
  /** Run only these example ids (`<task>__<condition>`). */
  only?: string[];
  /** Where experiments live (runs/experiments by default). */
  root: string;
  backend?: "symbolic" | "openai";
  maxSteps: number;
  maxWallSeconds: number;
  /** Whether the simulated grippers sense a grasp (an environment condition, the same for every variant). */
  graspSensing?: boolean;
  /**
   * The measured method's own settings with their defaults filled in (runtime/settings.ts `ownSettingValues`), the same
   * for every variant; a row another method runs (a dataset of two worlds) is given those of them it has.
   */
  settings?: Record<string, unknown>;
  /** Which method runs the rows (default: the method of each row's world); it must live in the rows' world. */
  method?: string;
  onProgress?: (p: Progress) => void;
  /** Aborting it stops the experiment (an emergency stop for the episodes running). */
  signal?: AbortSignal;
  /** Simulator speed (simulated seconds per wall second; default max). */
  speed?: string;
  /** How long episodes get to end `interrupted` after an abort before their simulators are stopped (default 10 s). */
  abortGraceMs?: number;
  /**
   * Keep simulator processes between episodes and start each episode with the bridge's reset (a new scenario and
   * seed, every goal canceled, the last episode forgotten) instead of a new process — worlds that serve a reset
   * (kitchen, tabletop, course). Default true; false starts a process per episode.
   */
  reuseSimulators?: boolean;
  /**
   * Wraps each episode as it runs (LangSmith's experiment row, evals/langsmith.ts): `run` runs it traced as `trace`
   * says; `kept` is called once its result is on disk (an episode that is not kept — interrupted — is never called).
   */
  aroundEpisode?: (
    planned: PlannedEpisode,
    run: (trace?: EpisodeTrace) => Promise<EpisodeResult>,
  ) => Promise<{ result: EpisodeResult; kept?: () => Promise<void> }>;
}

export interface Progress {
  done: number;
  total: number;
  skipped: number;
  etaSeconds: number | null;
  last?: EpisodeResult;
}

export interface PlannedEpisode {
  id: string;
  variant: string;
  row: DatasetRow;
  seed: number;
}

/** The method that runs a row of this world: the one the experiment names (in that world), or the world's own. */
function methodFor(options: Pick<ExperimentOptions, "method">, world: string): Method {
  if (!options.method) return methodOfWorld(world);
  const chosen = method(options.method);
  if (chosen.world !== world)
    throw new Error(
      `method ${chosen.id} runs in the ${chosen.world} world, not ${world}: this dataset's rows are not its tasks`,
    );
  if (!chosen.report.experiment)
    throw new Error(
      `method ${chosen.id} is not measured by the experiment runner (its report is written by a runner of its own)`,
    );
  return chosen;
}

export function experimentDir(options: Pick<ExperimentOptions, "root" | "name">): string {
  return join(options.root, options.name);
}

/**
 * A row beside the variants: the full method with speculation on (configurable.pipeline). Not a variant of the method:
 * the same loop, its model work started earlier.
 */
export const PIPELINED = "pipelined";

export function planEpisodes(options: ExperimentOptions): PlannedEpisode[] {
  const rows = loadDataset(options.dataset)
    .filter((r) => !options.only || options.only.includes(r.id))
    .slice(0, options.limit ?? undefined);
  for (const w of new Set(rows.map((r) => r.example.inputs.world))) {
    const rowMethod = methodFor(options, w);
    const known = [...rowMethod.variants, ...("pipeline" in rowMethod.configuration.shape ? [PIPELINED] : [])];
    for (const v of options.variants)
      if (!known.includes(v))
        throw new Error(`unknown variant ${v} for the ${w} world (${rowMethod.id} mode); one of ${known.join(", ")}`);
  }
  if (options.variants.includes("full+ic")) {
    for (const r of rows.filter((x) => x.example.inputs.world === "course")) {
      const file = courseExamplesPath(r.example.inputs.scenario as string);
      const seed = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { seed?: number }).seed : undefined;
      // Examples taken on a trial's own seed would show the planner that very trial's views.
      if (seed === undefined || seed < options.seeds)
        throw new Error(
          `full+ic's labelled examples of ${r.example.inputs.scenario} (${file}) were taken at ${seed === undefined ? "an unrecorded seed" : `seed ${seed}`}, which this experiment's trials (seeds 0–${options.seeds - 1}) may use: make them again with npm run make:course-examples (they take seeds from ${EXAMPLE_SEEDS_FROM})`,
        );
    }
  }
  const out: PlannedEpisode[] = [];
  // Seeds outermost, so an interrupted experiment has complete early seeds rather than half of every one.
  for (let seed = 0; seed < options.seeds; seed++)
    for (const row of rows)
      for (const variant of options.variants) out.push({ id: `${variant}__${row.id}__s${seed}`, variant, row, seed });
  return out;
}

const resultPath = (dir: string, id: string) => join(dir, "episodes", id, "result.json");

/**
 * What makes episodes of one experiment comparable: every setting an episode's outcome depends on besides its variant
 * and seed (which are in its id). Which episodes run, and how many at once, are not settings.
 */
export function experimentSettings(options: Partial<ExperimentOptions>) {
  return {
    dataset: options.dataset,
    backend: options.backend ?? "symbolic",
    noise: options.noise ?? 0,
    graspSensing: options.graspSensing !== false,
    maxSteps: options.maxSteps,
    maxWallSeconds: options.maxWallSeconds,
    ...options.settings,
    // The method is named only when the experiment chose one other than its world's.
    ...(options.method ? { method: options.method } : {}),
  };
}

/** A dataset row's fingerprint: an edited row is another example, whatever its id. */
export const exampleHash = (row: DatasetRow) =>
  createHash("sha256").update(JSON.stringify(row.example)).digest("hex").slice(0, 16);

/** An experiment resumed under settings other than those its episodes were made under. */
export class ExperimentMismatchError extends Error {
  override name = "ExperimentMismatchError";
}

const differences = (before: Record<string, unknown>, current: Record<string, unknown>) =>
  Object.keys(current)
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(current[k]))
    .map((k) => `${k} ${JSON.stringify(before[k])} (now ${JSON.stringify(current[k])})`);

/**
 * Episodes on disk are reused only when they were made under this run's settings and from the same dataset rows:
 * otherwise one report would mix, say, noise 0.15 episodes under a noise 0.3 heading. A mismatch refuses the run.
 */
function checkResumable(
  options: ExperimentOptions,
  dir: string,
  plan: PlannedEpisode[],
  results: Map<string, EpisodeResult>,
): void {
  const settings = experimentSettings(options);
  const fix = `give this run another --name, or delete ${dir} to start the experiment over`;
  const file = join(dir, "experiment.json");
  if (existsSync(file) && results.size) {
    const before = experimentSettings(JSON.parse(readFileSync(file, "utf8")) as Partial<ExperimentOptions>);
    const diff = differences(before, settings);
    if (diff.length)
      throw new ExperimentMismatchError(
        `experiment ${options.name} holds episodes made with ${diff.join(", ")}: ${fix}`,
      );
  }
  const stale: string[] = [];
  for (const p of plan) {
    const result = results.get(p.id);
    if (!result) continue;
    const diff = result.settings
      ? differences(result.settings, settings)
      : result.noise !== options.noise
        ? [`noise ${result.noise} (now ${options.noise})`]
        : [];
    if (diff.length)
      throw new ExperimentMismatchError(
        `episode ${p.id} of experiment ${options.name} was made with ${diff.join(", ")}: ${fix}`,
      );
    if (result.exampleHash && result.exampleHash !== exampleHash(p.row)) stale.push(p.id);
  }
  if (stale.length)
    throw new ExperimentMismatchError(
      `experiment ${options.name} holds ${stale.length} episode(s) made from another version of their dataset rows (${stale.slice(0, 3).join(", ")}${stale.length > 3 ? ", …" : ""}): ${fix}`,
    );
}

/** Runs every planned episode that has no result yet; returns all results (old and new) in plan order. */
export async function runExperiment(options: ExperimentOptions): Promise<EpisodeResult[]> {
  const dir = experimentDir(options);
  mkdirSync(join(dir, "scenarios"), { recursive: true });
  const plan = planEpisodes(options);
  const results = new Map<string, EpisodeResult>();
  for (const p of plan)
    if (existsSync(resultPath(dir, p.id))) results.set(p.id, JSON.parse(readFileSync(resultPath(dir, p.id), "utf8")));
  // Before anything is written: a refused resume leaves the experiment as it was.
  checkResumable(options, dir, plan, results);
  writeFileSync(
    join(dir, "experiment.json"),
    JSON.stringify(
      {
        ...options,
        onProgress: undefined,
        signal: undefined,
        episodes: plan.length,
        settings: experimentSettings(options),
      },
      null,
      2,
    ),
  );
  const todo = plan.filter((p) => !results.has(p.id));
  const skipped = plan.length - todo.length;
  const started = performance.now();
  let done = 0;
  options.onProgress?.({ done: skipped, total: plan.length, skipped, etaSeconds: null });

  const running = new Set<SimProcess>();
  const pool = new SimPool(running, options.reuseSimulators !== false);
  let grace: NodeJS.Timeout | undefined;
  const onAbort = () => {
    // The robots stop first (their goals canceled over the bridge), so each episode ends `interrupted` on its own.
    emergencyStop("the experiment was aborted");
    grace = setTimeout(
      () => void Promise.all([...running].map((s) => s.stop("SIGTERM"))),
      options.abortGraceMs ?? 10_000,
    );
  };
  options.signal?.addEventListener("abort", onAbort);
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !options.signal?.aborted) {
      const planned = todo[next++];
      const wrapped = options.aroundEpisode
        ? await options.aroundEpisode(planned, (trace) => runOne(planned, options, dir, pool, { trace }))
        : { result: await runOne(planned, options, dir, pool) };
      const result = wrapped.result;
      if (options.signal?.aborted && result.error) return; // interrupted mid-episode: leave no result, it reruns on resume
      // Paused (stopped, or a model endpoint down): no result, so it runs again when the experiment is resumed.
      if (result.status === "interrupted") {
        options.onProgress?.({ done: skipped + done, total: plan.length, skipped, etaSeconds: null, last: result });
        if (options.signal?.aborted) return;
        continue;
      }
      // Write then rename: a crash never leaves a half-written result that would stop the resume.
      const file = resultPath(dir, planned.id);
      writeFileSync(`${file}.tmp`, JSON.stringify(result, null, 2));
      renameSync(`${file}.tmp`, file);
      await wrapped.kept?.();
      results.set(planned.id, result);
      done++;
      const perEpisode = (performance.now() - started) / 1000 / done;
      options.onProgress?.({
        done: skipped + done,
        total: plan.length,
        skipped,
        etaSeconds: (todo.length - done) * perEpisode,
        last: result,
      });
    }
  };
  try {
    // Bounded by the machine's cores: each episode's simulator and agent keep about one core busy.
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.concurrency, availableParallelism())) }, worker),
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    clearTimeout(grace);
    await Promise.all([...running].map((s) => s.stop()));
    // The stop was this experiment's: whatever this process runs next starts unstopped.
    if (options.signal?.aborted) clearEmergencyStop();
  }
  return plan.filter((p) => results.has(p.id)).map((p) => results.get(p.id)!);
}

/**
 * Simulator processes kept between episodes, by world and start-up settings: an episode takes an idle one and resets
 * it to its scenario and seed, or starts one. Every process is in `running`, so an abort or the end stops it.
 */
export class SimPool {
  private idle = new Map<string, SimProcess[]>();
  /** `extraArgs`: given to every simulator this pool starts (a worker's --orphan-timeout). */
  constructor(
    private readonly running: Set<SimProcess>,
    private readonly reuse: boolean,
    private readonly extraArgs: string[] = [],
  ) {}

  async acquire(
    world: string,
    settings: string[],
    episode: string[],
    reset: { scenario: unknown; seed: number },
  ): Promise<{ sim: SimProcess; key: string }> {
    const key = JSON.stringify([world, settings]);
    const reusable = this.reuse && worldOf(world).resets;
    const sim = reusable ? this.idle.get(key)?.pop() : undefined;
    if (sim && sim.child.exitCode === null && sim.child.signalCode === null) {
      const client = await BridgeClient.connect(sim.url);
      try {
        await client.callService(RESET_SERVICE, reset);
        return { sim, key };
      } catch (err) {
        await this.discard(sim);
        throw err;
      } finally {
        await client.close();
      }
    }
    // In its own process group: a terminal's Ctrl-C reaches the runner, which cancels the goals and then stops it.
    const fresh = await startSimProcess(world, [...episode, ...settings, ...this.extraArgs], undefined, {
      ownProcessGroup: true,
    });
    this.running.add(fresh);
    return { sim: fresh, key };
  }

  /** Back to the pool after a clean episode; stopped otherwise (or when simulators are not reused). */
  async release(world: string, key: string, sim: SimProcess, clean: boolean): Promise<void> {
    if (this.reuse && clean && worldOf(world).resets) {
      const list = this.idle.get(key) ?? [];
      list.push(sim);
      this.idle.set(key, list);
      return;
    }
    await this.discard(sim);
  }

  private async discard(sim: SimProcess): Promise<void> {
    await sim.stop();
    this.running.delete(sim);
  }
}

/** How a queued episode runs beyond a local one: durable checkpoints, its own thread, maybe a robot to re-attach to. */
/** What every result of a planned episode says of it, whatever became of the episode. */
function plannedFacts(planned: PlannedEpisode, options: Omit<ExperimentOptions, "root" | "concurrency">) {
  const example = planned.row.example;
  return {
    id: planned.id,
    variant: planned.variant,
    example: planned.row.id,
    task: example.metadata.task,
    family: example.metadata.family,
    paperTask: "paper_task" in example.metadata ? example.metadata.paper_task : undefined,
    paperTable: "paper_table" in example.metadata ? example.metadata.paper_table : undefined,
    condition: example.metadata.condition,
    // A scenario that moves or shuts something mid-episode (a kitchen's perturbations): the pipelined row's revocations are counted on these apart.
    ...(typeof example.inputs.scenario === "object" &&
    ((example.inputs.scenario as { perturbations?: unknown[] }).perturbations?.length ?? 0) > 0
      ? { perturbed: true }
      : {}),
    seed: planned.seed,
    noise: options.noise,
    record: `episodes/${planned.id}/events.jsonl`,
    settings: experimentSettings(options),
    exampleHash: exampleHash(planned.row),
  };
}

/** An episode that crashed (or never ran: its worker gave up on it): a failed trial with its reason on record. */
export function failedTrial(
  planned: PlannedEpisode,
  options: Omit<ExperimentOptions, "root" | "concurrency">,
  error: string,
): EpisodeResult {
  return {
    ...plannedFacts(planned, options),
    status: "error",
    statusReason: error,
    success: false,
    goal: [],
    score: 0,
    steps: 0,
    failedActions: 0,
    replans: 0,
    verdicts: {},
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    skillSeconds: 0,
    wallSeconds: 0,
    error,
  };
}

export interface EpisodeHost {
  checkpointer?: BaseCheckpointSaver;
  /** Thread id (default: the episode id). */
  thread?: string;
  /** Continue the thread from its checkpoint on `adopt`, the simulator the episode was running on. */
  resume?: boolean;
  adopt?: { url: string };
  /** Seconds the episode lay stopped before this resume (not counted against its wall budget). */
  pausedSeconds?: number;
  /** Called with the finished run (a worker keeps the robot's own event log beside the record). */
  onRun?: (run: EpisodeRun<unknown>) => Promise<void>;
  /** Called once the episode has its simulator (a worker records where its robot is). */
  onSimulator?: (sim: SimProcess) => Promise<void>;
  /** How the episode's graph run is named, tagged and nested in a LangSmith trace. */
  trace?: EpisodeTrace;
}

/** Runs one planned episode with a simulator from `pool` (or the adopted one) and returns its result. */
export function runPlannedEpisode(
  planned: PlannedEpisode,
  options: ExperimentOptions,
  dir: string,
  pool: SimPool,
  host: EpisodeHost = {},
): Promise<EpisodeResult> {
  return runOne(planned, options, dir, pool, host);
}

async function runOne(
  planned: PlannedEpisode,
  options: ExperimentOptions,
  dir: string,
  pool: SimPool,
  host: EpisodeHost = {},
): Promise<EpisodeResult> {
  const ex = planned.row.example;
  const rowMethod = methodFor(options, ex.inputs.world);
  const mode = rowMethod.id;
  const episodeDir = join(dir, "episodes", planned.id);
  mkdirSync(episodeDir, { recursive: true });
  const base = plannedFacts(planned, options);
  let sim: SimProcess | undefined;
  let key = "";
  let clean = false;
  try {
    // What a simulator process is started with (the same for every episode it may serve), and what each episode sets.
    const settings = [
      "--speed",
      options.speed ?? "max",
      ...worldOf(ex.inputs.world).options({ graspSensing: options.graspSensing }),
    ];
    let scenarioArg = ex.inputs.scenario as string;
    if (ex.inputs.world === "kitchen") {
      // Written each time: the simulator plays the row as the dataset has it now.
      scenarioArg = join(dir, "scenarios", `${planned.row.id}.json`);
      writeFileSync(scenarioArg, JSON.stringify(ex.inputs.scenario, null, 2));
    }
    let url: string;
    if (host.adopt) url = host.adopt.url;
    else {
      ({ sim, key } = await pool.acquire(
        ex.inputs.world,
        settings,
        ["--scenario", scenarioArg, "--seed", String(planned.seed)],
        { scenario: ex.inputs.scenario, seed: planned.seed },
      ));
      url = sim.url;
      await host.onSimulator?.(sim);
    }
    if (options.signal?.aborted) throw new Error("experiment interrupted");
    const run = await runMethodEpisode({
      mode,
      url,
      goal: ex.inputs.goal,
      thread: host.thread ?? planned.id,
      checkpointer: host.checkpointer,
      resume: host.resume,
      pausedSeconds: host.pausedSeconds,
      dataDir: join(dir, "data"),
      variant: planned.variant === PIPELINED ? "full" : planned.variant,
      // What the row's scenario decides (VLM-PC's labelled examples), then the experiment's settings; the pipelined
      // row is the full method speculating.
      settings: {
        ...rowMethod.scenarioSettings?.of(ex.inputs.scenario as string, planned.variant),
        ...Object.fromEntries(
          Object.entries(options.settings ?? {}).filter(([key]) => key in rowMethod.configuration.shape),
        ),
        ...(planned.variant === PIPELINED ? { pipeline: true } : {}),
      },
      backend: options.backend,
      noise: options.noise,
      seed: planned.seed,
      maxSteps: options.maxSteps,
      maxWallSeconds: options.maxWallSeconds,
      eventsFile: join(episodeDir, "events.jsonl"),
      trace: host.trace,
      // No abort signal for the graph: an abort is the emergency stop (runtime/estop.ts), which ends the run
      // `interrupted` with the robot's goal canceled, rather than cutting the graph off mid-goal.
    });
    await host.onRun?.(run as EpisodeRun<unknown>);
    // An episode that ended on its own (not stopped, not crashed) leaves a simulator another episode can reset.
    clean = run.state.status !== "interrupted";
    const usage = totalUsage(run.state.usage);
    const common = {
      ...base,
      status: run.state.status,
      statusReason: run.state.statusReason + (method(mode).explain?.(run.state as Record<string, unknown>) ?? ""),
      // A run that ended on its budget did not finish, even where the world happens to satisfy the goal.
      success: run.truth.success && run.state.status !== "budget_exhausted",
      goalHeld: run.truth.success,
      goal: run.truth.goal,
      modelCalls: usage.calls,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      // Skill time where the method counts it (a method without counters spent none it knows of).
      skillSeconds:
        Math.round(((run.state as { counters?: { skillSeconds?: number } }).counters?.skillSeconds ?? 0) * 1000) / 1000,
      wallSeconds: Math.round(run.wallSeconds * 1000) / 1000,
      ...(planned.variant === PIPELINED
        ? {
            pipeline: pipelineRecord(
              (run.state as { pipeline?: PipelineCounts }).pipeline ?? NO_PIPELINE,
              run.trace,
              method(mode),
            ),
          }
        : {}),
    };
    const effort = method(mode).report.experiment?.effort;
    if (!effort)
      throw new Error(
        `the experiment runner has no measures of ${mode} episodes (its report module names no experiment part)`,
      );
    return { ...common, ...effort(run, options.maxSteps, ex.outputs) };
  } catch (err) {
    // A crashed episode is a failed trial with its reason on record, not a crashed experiment.
    return failedTrial(planned, options, (err as Error).message);
  } finally {
    // The episode's run closed its own robots' session (evals/episode.ts).
    if (sim) {
      await pool.release(ex.inputs.world, key, sim, clean && !options.signal?.aborted);
    }
  }
}
