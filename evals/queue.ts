/**
 * Experiments as durable jobs on Postgres (pg-boss): one job per episode — exactly the episodes a local run makes —
 * taken by `robograph worker` processes on any number of machines sharing ROBOGRAPH_DATABASE_URL.
 *
 * The database holds, besides pg-boss's own tables (schema `pgboss`):
 * - robograph.experiments: one row per queued experiment (its settings and options); the name is the key, so an
 *   experiment cannot be queued twice or topped up with episodes made under other settings.
 * - robograph.episodes: one row per episode — its plan (the dataset row, variant, seed: workers need no dataset
 *   file), its thread id (`<experiment>/<episode id>`, unique in the shared checkpoint tables), where its simulator
 *   runs, its result once recorded (exactly once: only a row not yet `done` is written), or its last error.
 * - checkpoints (memory/checkpointer.ts), so a job whose worker died — its lease (pg-boss's expiry) run out — is taken
 *   by another worker that resumes the thread on the same simulator, re-attaching to the goal in flight by its id.
 * - artifacts and run records (memory/blobs.ts), so reports and the viewer work from any machine with the URL.
 */
import { hostname } from "node:os";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import PgBoss from "pg-boss";
import pg from "pg";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { clearEmergencyStop, emergencyStop } from "../runtime/estop";
import { openPersistence, type Persistence } from "../memory/checkpointer";
import { PostgresBlobStore, uploadRecord } from "../memory/blobs";
import { ArtifactStore } from "../memory/artifacts";
import { BridgeClient } from "../robots/bridge/client";
import type { SimProcess } from "../robots/sim/process";
import {
  experimentSettings,
  exampleHash,
  planEpisodes,
  runPlannedEpisode,
  failedTrial,
  SimPool,
  type ExperimentOptions,
  type PlannedEpisode,
} from "./runner";
import type { EpisodeResult } from "./metrics";

/** pg-boss: three attempts in all, then the job is failed with its last error. */
export const RETRY_LIMIT = 2;
/** A lease beyond the episode's wall budget: time to start a simulator and record the result. */
export const LEASE_MARGIN_SECONDS = 60;

const QUEUE_PREFIX = "robograph-episodes";
/** LISTEN/NOTIFY channel: new jobs (or jobs to retry) wake idle workers at once; polling is only the fallback. */
const CHANNEL = "robograph_jobs";

/** The queue of a dataset: a built-in name as it is, a file by its base name. Workers choose datasets by this name. */
export function datasetKey(dataset: string): string {
  const base = dataset.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "");
  return base.replace(/[^A-Za-z0-9_-]+/g, "_") || "dataset";
}
export const queueFor = (dataset: string) => `${QUEUE_PREFIX}-${datasetKey(dataset)}`;

/** The episode's thread: unique across experiments in the shared checkpoint tables. */
export const threadFor = (experiment: string, episode: string) => `${experiment}/${episode}`;

/** A job id made from the experiment and episode: the same episode can never be two jobs. */
function jobId(experiment: string, episode: string): string {
  const digest = createHash("sha256").update(`${experiment}\u0000${episode}`).digest("hex");
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-${((parseInt(digest[16], 16) & 3) | 8).toString(16)}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}

/** Refused: the experiment is already queued (or queued under other settings). */
export class QueueRefusal extends Error {
  override name = "QueueRefusal";
}

const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS robograph;
CREATE TABLE IF NOT EXISTS robograph.experiments (
  name text PRIMARY KEY, dataset text NOT NULL, queue text NOT NULL, settings jsonb NOT NULL, options jsonb NOT NULL,
  episodes int NOT NULL, lease_seconds int NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
-- json, not jsonb, for plans and results: jsonb reorders keys, and a dataset row's fingerprint hashes its text.
CREATE TABLE IF NOT EXISTS robograph.episodes (
  experiment text NOT NULL REFERENCES robograph.experiments(name) ON DELETE CASCADE, id text NOT NULL, seq int NOT NULL,
  thread text NOT NULL UNIQUE, job_id uuid NOT NULL UNIQUE, plan json NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'retry', 'done', 'failed')),
  attempts int NOT NULL DEFAULT 0, resumed int NOT NULL DEFAULT 0, paused_seconds double precision NOT NULL DEFAULT 0, worker text, host text, sim_url text, sim_pid int, work_dir text,
  result json, error text, enqueued_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz,
  finished_at timestamptz, recorded_at timestamptz, PRIMARY KEY (experiment, id));
`;

export interface Queue {
  boss: PgBoss;
  db: pg.Pool;
  close(): Promise<void>;
}

/**
 * Connects to the queue: pg-boss (its tables installed or migrated on first use) and our tables. `supervise`: this
 * process also runs pg-boss's maintenance (expiring the jobs of dead workers) every `maintenanceSeconds`.
 */
export async function openQueue(
  url: string,
  opts: { supervise?: boolean; maintenanceSeconds?: number; connections?: number } = {},
): Promise<Queue> {
  const db = new pg.Pool({ connectionString: url, max: opts.connections ?? 4 });
  const client = await db.connect().catch((err: Error) => {
    void db.end();
    throw new Error(`cannot reach the queue's database: ${err.message}`);
  });
  try {
    await client.query("SELECT pg_advisory_lock(727276)");
    await client.query(SCHEMA);
  } finally {
    await client.query("SELECT pg_advisory_unlock(727276)").catch(() => {});
    client.release();
  }
  const boss = new PgBoss({
    connectionString: url,
    max: opts.connections ?? 4,
    supervise: !!opts.supervise,
    schedule: false,
    ...(opts.supervise ? { maintenanceIntervalSeconds: opts.maintenanceSeconds ?? 10 } : {}),
  });
  // pg-boss reports connection trouble as events; without a listener Node would crash on them.
  boss.on("error", (err) => process.stderr.write(`queue: ${err.message}\n`));
  await boss.start();
  return {
    boss,
    db,
    close: async () => {
      await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {});
      await db.end().catch(() => {});
    },
  };
}

/** What a worker needs to run an episode of this experiment; where experiments live is the worker's own business. */
const storedOptions = (options: ExperimentOptions) => {
  const { onProgress: _p, signal: _s, root: _r, concurrency: _c, ...rest } = options;
  return rest;
};

const differences = (before: Record<string, unknown>, current: Record<string, unknown>) =>
  Object.keys(current)
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(current[k]))
    .map((k) => `${k} ${JSON.stringify(before[k])} (now ${JSON.stringify(current[k])})`);

/**
 * Queues one job per planned episode, all or none (one transaction). Refuses an experiment name already queued: with
 * the same settings and episodes it is the same experiment (wait for it or build its report); otherwise the two would
 * mix in one report.
 */
export async function enqueueExperiment(
  jobQueue: Queue,
  options: ExperimentOptions,
  leaseSeconds = options.maxWallSeconds + LEASE_MARGIN_SECONDS,
): Promise<{ episodes: number; queue: string }> {
  if (!(leaseSeconds > options.maxWallSeconds))
    throw new Error(
      `the lease (${leaseSeconds} s) must be longer than an episode's wall budget (--max-wall ${options.maxWallSeconds} s): a worker still running an episode would lose it to another`,
    );
  const plan = planEpisodes(options);
  if (!plan.length)
    throw new Error(
      `experiment ${options.name} has no episodes: check --limit/--examples against dataset ${options.dataset}`,
    );
  const queue = queueFor(options.dataset);
  const settings = experimentSettings(options);
  await jobQueue.boss.createQueue(queue, {
    name: queue,
    retryLimit: RETRY_LIMIT,
    retryDelay: 0,
    expireInSeconds: leaseSeconds,
  });
  const client = await jobQueue.db.connect();
  try {
    await client.query("BEGIN");
    const inserted = await client.query(
      `INSERT INTO robograph.experiments (name, dataset, queue, settings, options, episodes, lease_seconds) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (name) DO NOTHING`,
      [
        options.name,
        options.dataset,
        queue,
        JSON.stringify(settings),
        JSON.stringify(storedOptions(options)),
        plan.length,
        leaseSeconds,
      ],
    );
    if (!inserted.rowCount) {
      await client.query("ROLLBACK");
      const { rows } = await client.query<{ settings: Record<string, unknown>; episodes: number }>(
        "SELECT settings, episodes FROM robograph.experiments WHERE name = $1",
        [options.name],
      );
      const ids = (
        await client.query<{ id: string; plan: PlannedEpisode }>(
          "SELECT id, plan FROM robograph.episodes WHERE experiment = $1",
          [options.name],
        )
      ).rows;
      const diff = differences(rows[0].settings, settings);
      const before = new Map(ids.map((r) => [r.id, exampleHash(r.plan.row)]));
      const sameEpisodes = before.size === plan.length && plan.every((p) => before.get(p.id) === exampleHash(p.row));
      const done = (
        await client.query<{ n: string }>(
          "SELECT count(*) AS n FROM robograph.episodes WHERE experiment = $1 AND state IN ('done', 'failed')",
          [options.name],
        )
      ).rows[0].n;
      if (diff.length)
        throw new QueueRefusal(
          `experiment ${options.name} is already queued with ${diff.join(", ")}: its episodes and these would mix in one report; give this run another --name`,
        );
      if (!sameEpisodes)
        throw new QueueRefusal(
          `experiment ${options.name} is already queued with other episodes (${rows[0].episodes} of them, from other examples, variants, seeds or dataset rows): give this run another --name`,
        );
      throw new QueueRefusal(
        `experiment ${options.name} is already queued (${done} of ${rows[0].episodes} episodes finished): follow it with npm run eval -- --report ${options.name} --wait, or give this run another --name`,
      );
    }
    const values: unknown[] = [];
    const tuples = plan.map((planned, i) => {
      values.push(
        options.name,
        planned.id,
        i,
        threadFor(options.name, planned.id),
        jobId(options.name, planned.id),
        JSON.stringify(planned),
      );
      const base = i * 6;
      return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6})`;
    });
    await client.query(
      `INSERT INTO robograph.episodes (experiment, id, seq, thread, job_id, plan) VALUES ${tuples.join(", ")}`,
      values,
    );
    // pg-boss inserts through this transaction's connection: the jobs exist if and only if the experiment does.
    const db = { executeSql: (text: string, params: unknown[]) => client.query(text, params) };
    await jobQueue.boss.insert(
      plan.map((planned) => ({
        id: jobId(options.name, planned.id),
        name: queue,
        data: { experiment: options.name, episode: planned.id },
        singletonKey: threadFor(options.name, planned.id),
        retryLimit: RETRY_LIMIT,
        retryDelay: 0,
        expireInSeconds: leaseSeconds,
      })),
      { db },
    );
    // Idle workers wake on this (delivered at commit) instead of waiting for their next poll.
    await client.query(`NOTIFY ${CHANNEL}`);
    await client.query("COMMIT");
    return { episodes: plan.length, queue };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export interface QueueProgress {
  total: number;
  done: number;
  running: number;
  failed: number;
  left: number;
  /** Episodes recorded per minute since the first started (null before two are done). */
  perMinute: number | null;
}

/** Where an experiment's episodes are, from our rows and pg-boss's job states (a job expired for good is failed). */
export async function queueProgress(jobQueue: Queue, name: string): Promise<QueueProgress> {
  const exp = await jobQueue.db.query<{ episodes: number }>(
    "SELECT episodes FROM robograph.experiments WHERE name = $1",
    [name],
  );
  if (!exp.rowCount) throw new Error(`no experiment ${name} in the queue's database`);
  const { rows } = await jobQueue.db.query<{
    done: string;
    failed: string;
    running: string;
    first: Date | null;
    last: Date | null;
  }>(
    `WITH jobs AS (SELECT id, state FROM pgboss.job UNION ALL SELECT id, state FROM pgboss.archive)
     SELECT count(*) FILTER (WHERE e.state = 'done') AS done,
            count(*) FILTER (WHERE e.state = 'failed' OR (e.state <> 'done' AND j.state = 'failed')) AS failed,
            count(*) FILTER (WHERE e.state <> 'done' AND e.state <> 'failed' AND j.state = 'active') AS running,
            min(e.started_at) AS first, max(e.recorded_at) AS last
     FROM robograph.episodes e LEFT JOIN jobs j ON j.id = e.job_id WHERE e.experiment = $1`,
    [name],
  );
  const counts = rows[0];
  const [total, done, failed, running] = [
    exp.rows[0].episodes,
    Number(counts.done),
    Number(counts.failed),
    Number(counts.running),
  ];
  const minutes = counts.first && counts.last ? (counts.last.getTime() - counts.first.getTime()) / 60_000 : 0;
  return {
    total,
    done,
    failed,
    running,
    left: total - done - failed - running,
    perMinute: done >= 2 && minutes > 0 ? done / minutes : null,
  };
}

/** Polls until every episode is done or failed; resolves with the last progress (or early when `signal` aborts). */
export async function waitForExperiment(
  jobQueue: Queue,
  name: string,
  onProgress: (p: QueueProgress) => void,
  opts: { intervalMs?: number; signal?: AbortSignal } = {},
): Promise<QueueProgress> {
  let last = "";
  for (;;) {
    const progress = await queueProgress(jobQueue, name);
    const line = JSON.stringify(progress);
    if (line !== last) onProgress(progress);
    last = line;
    if (progress.done + progress.failed >= progress.total || opts.signal?.aborted) return progress;
    await sleep(opts.intervalMs ?? 1000, opts.signal);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export interface QueuedExperiment {
  options: Omit<ExperimentOptions, "root" | "concurrency">;
  /** Every episode in plan order: recorded results, and the failed ones as error results (as a local run records them). */
  results: EpisodeResult[];
  progress: QueueProgress;
  /** The dataset rows its episodes were planned from (workers and reports need no dataset file). */
  rows: PlannedEpisode["row"][];
  /** From the first episode started to the last recorded. */
  runSeconds: number;
  /** Per episode: enqueue → started by a worker, and finished → recorded, in ms (for the bench). */
  overhead: {
    id: string;
    waitMs: number | null;
    recordMs: number | null;
    attempts: number;
    resumed: number;
    startedAt: number | null;
    recordedAt: number | null;
    worker: string | null;
  }[];
}

/** An experiment as the database has it, for its report: from any machine with the URL. */
export async function loadQueuedExperiment(jobQueue: Queue, name: string): Promise<QueuedExperiment> {
  const exp = await jobQueue.db.query<{ options: QueuedExperiment["options"] }>(
    "SELECT options FROM robograph.experiments WHERE name = $1",
    [name],
  );
  if (!exp.rowCount)
    throw new Error(
      `no experiment ${name} in the queue's database (queued ones: ${(await jobQueue.db.query<{ name: string }>("SELECT name FROM robograph.experiments ORDER BY created_at")).rows.map((r) => r.name).join(", ") || "none"})`,
    );
  const progress = await queueProgress(jobQueue, name);
  const { rows } = await jobQueue.db.query<{
    id: string;
    plan: PlannedEpisode;
    state: string;
    result: EpisodeResult | null;
    error: string | null;
    job_state: string | null;
    job_output: { message?: string } | null;
    enqueued_at: Date;
    started_at: Date | null;
    finished_at: Date | null;
    recorded_at: Date | null;
    attempts: number;
    resumed: number;
    worker: string | null;
  }>(
    `WITH jobs AS (SELECT id, state, output FROM pgboss.job UNION ALL SELECT id, state, output FROM pgboss.archive)
     SELECT e.id, e.plan, e.state, e.result, e.error, j.state AS job_state, j.output AS job_output, e.enqueued_at,
            e.started_at, e.finished_at, e.recorded_at, e.attempts, e.resumed, e.worker
     FROM robograph.episodes e LEFT JOIN jobs j ON j.id = e.job_id
     WHERE e.experiment = $1 ORDER BY e.seq`,
    [name],
  );
  const options = exp.rows[0].options;
  const results: EpisodeResult[] = [];
  for (const r of rows) {
    if (r.state === "done" && r.result) results.push(r.result);
    else if (r.state === "failed" || r.job_state === "failed") {
      const error = r.error ?? r.job_output?.message ?? "failed";
      results.push(failedTrial(r.plan, options, `failed after ${r.attempts} attempt(s): ${error}`));
    }
  }
  const started = rows.map((r) => r.started_at?.getTime()).filter((x): x is number => !!x);
  const recorded = rows.map((r) => r.recorded_at?.getTime()).filter((x): x is number => !!x);
  return {
    options,
    results,
    progress,
    rows: [...new Map(rows.map((r) => [r.plan.row.id, r.plan.row])).values()],
    runSeconds: started.length && recorded.length ? (Math.max(...recorded) - Math.min(...started)) / 1000 : 0,
    overhead: rows.map((row) => ({
      id: row.id,
      waitMs: row.started_at ? row.started_at.getTime() - row.enqueued_at.getTime() : null,
      startedAt: row.started_at?.getTime() ?? null,
      recordedAt: row.recorded_at?.getTime() ?? null,
      worker: row.worker,
      recordMs: row.finished_at && row.recorded_at ? row.recorded_at.getTime() - row.finished_at.getTime() : null,
      attempts: row.attempts,
      resumed: row.resumed,
    })),
  };
}

// ---- the worker ---------------------------------------------------------------------------------------------------

export interface WorkerOptions {
  url: string;
  /** Episodes at once, each with its own simulator. */
  concurrency: number;
  /** Only these datasets' queues (datasetKey names); default: every experiment's. */
  datasets?: string[];
  /** Where episodes run: their scenario files, events, frames (uploaded to the database after each episode). */
  workDir: string;
  /** `signal`: take no more jobs, finish the running ones. `stopNow`: emergency stop, hand the running jobs back. */
  signal?: AbortSignal;
  stopNow?: AbortSignal;
  /** Poll interval for new jobs when the queues are empty. */
  pollMs?: number;
  /** pg-boss maintenance interval: how soon after its lease a dead worker's job is handed on. */
  maintenanceSeconds?: number;
  log?: (line: string) => void;
  /** Stop after this many jobs (tests and the bench). */
  maxJobs?: number;
}

interface EpisodeRow {
  plan: PlannedEpisode;
  thread: string;
  state: string;
  host: string | null;
  sim_url: string | null;
  sim_pid: number | null;
  paused_seconds: number;
  work_dir: string | null;
}

/**
 * Takes jobs until stopped: each episode with a simulator from this worker's pool (reset between episodes as the local
 * runner's pool does), checkpoints in Postgres, its result written once. Resolves with the number of jobs handled.
 */
export async function runWorker(options: WorkerOptions): Promise<number> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const me = `${hostname()}:${process.pid}`;
  const jobQueue = await openQueue(options.url, {
    supervise: true,
    maintenanceSeconds: options.maintenanceSeconds,
    connections: options.concurrency + 3,
  });
  let persistence: Persistence | undefined;
  let blobs: PostgresBlobStore | undefined;
  const running = new Set<SimProcess>();
  const pools = new Map<number, SimPool>();
  let handled = 0;
  let wake: Awaited<ReturnType<typeof listen>> | undefined;
  const inner = new AbortController();
  const onStopNow = () => {
    // The robots stop first (their goals canceled over the bridge): each running episode ends `interrupted`.
    emergencyStop("the worker was stopped");
    inner.abort();
  };
  options.stopNow?.addEventListener("abort", onStopNow);
  try {
    persistence = await openPersistence(options.workDir, {
      forget: true,
      env: { ...process.env, ROBOGRAPH_DATABASE_URL: options.url },
    });
    blobs = await PostgresBlobStore.open(options.url);
    wake = await listen(options.url);
    const ctx = {
      q: jobQueue,
      checkpointer: persistence.checkpointer,
      blobs,
      me,
      log,
      w: options,
      running,
      pools,
      inner: inner.signal,
    };
    const stopping = () =>
      !!options.signal?.aborted ||
      !!options.stopNow?.aborted ||
      (options.maxJobs !== undefined && handled >= options.maxJobs);
    const slot = async () => {
      while (!stopping()) {
        const queues = await queuesToWatch(jobQueue, options.datasets);
        let job: PgBoss.JobWithMetadata<{ experiment: string; episode: string }> | undefined;
        for (const name of queues) {
          [job] = await jobQueue.boss.fetch<{ experiment: string; episode: string }>(name, {
            batchSize: 1,
            includeMetadata: true,
          });
          if (job) break;
        }
        if (!job) {
          await wake!.wait(options.pollMs ?? 2000, options.signal);
          continue;
        }
        handled++;
        await handleJob(ctx, job, new Date());
      }
    };
    log(
      `worker ${me}: taking episodes${options.datasets ? ` of ${options.datasets.join(", ")}` : ""}, ${options.concurrency} at a time`,
    );
    if (options.datasets) {
      // A misspelt name would leave the worker waiting for nothing: say which have no experiment yet.
      const queued = new Set(await queuesToWatch(jobQueue));
      const none = options.datasets.filter((d) => !queued.has(queueFor(d)));
      if (none.length)
        log(
          `no experiment is queued on ${none.join(", ")} yet (queued: ${[...queued].map((n) => n.slice(QUEUE_PREFIX.length + 1)).join(", ") || "none"}); waiting for one`,
        );
    }
    await Promise.all(Array.from({ length: options.concurrency }, slot));
    return handled;
  } finally {
    options.stopNow?.removeEventListener("abort", onStopNow);
    await Promise.all([...running].map((s) => s.stop()));
    if (options.stopNow?.aborted) clearEmergencyStop();
    await wake?.close();
    await blobs?.close();
    await persistence?.close();
    await jobQueue.close();
  }
}

/** Wakes the waiting slots when jobs are queued (NOTIFY on CHANNEL), else after the poll interval. */
async function listen(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const waiting = new Set<() => void>();
  client.on("notification", () => {
    for (const f of [...waiting]) f();
  });
  // A lost listening connection only makes the worker fall back to polling.
  client.on("error", () => {});
  await client.query(`LISTEN ${CHANNEL}`);
  return {
    wait: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiting.add(done);
        signal?.addEventListener("abort", done, { once: true });
      }),
    close: () => client.end().catch(() => {}),
  };
}

async function queuesToWatch(jobQueue: Queue, datasets?: string[]): Promise<string[]> {
  const { rows } = await jobQueue.db.query<{ queue: string }>(
    "SELECT DISTINCT queue FROM robograph.experiments ORDER BY queue",
  );
  const wanted = datasets?.map((d) => queueFor(d));
  return rows.map((r) => r.queue).filter((n) => !wanted || wanted.includes(n));
}

interface WorkerContext {
  q: Queue;
  checkpointer: BaseCheckpointSaver;
  blobs: PostgresBlobStore;
  me: string;
  log: (line: string) => void;
  w: WorkerOptions;
  running: Set<SimProcess>;
  pools: Map<number, SimPool>;
  inner: AbortSignal;
}

/**
 * The simulator the episode was running on, if this machine can still reach it (a dead worker's robot), and the
 * episode's folder is here too (its frames: the checkpoints name them, and nodes read them back).
 */
async function reachable(row: EpisodeRow): Promise<{ url: string } | undefined> {
  if (!row.sim_url || row.host !== hostname() || !row.work_dir || !existsSync(row.work_dir)) return undefined;
  try {
    const client = await BridgeClient.connect(row.sim_url, { connectAttempts: 1, reconnect: false });
    await client.close();
    return { url: row.sim_url };
  } catch {
    return undefined;
  }
}

async function handleJob(
  ctx: WorkerContext,
  job: PgBoss.JobWithMetadata<{ experiment: string; episode: string }>,
  fetchedAt: Date,
): Promise<void> {
  const { q: jobQueue, me, log } = ctx;
  const { experiment, episode } = job.data;
  const attempt = job.retryCount + 1;
  const last = job.retryCount >= job.retryLimit;
  const fail = async (message: string) => {
    await jobQueue.db.query(
      `UPDATE robograph.episodes SET state = $3, error = $4 WHERE experiment = $1 AND id = $2 AND state <> 'done'`,
      [experiment, episode, last ? "failed" : "retry", message],
    );
    await jobQueue.boss.fail(job.name, job.id, { message });
    // A retry is takeable at once (no delay): wake an idle worker for it.
    if (!last) await jobQueue.db.query(`NOTIFY ${CHANNEL}`);
    log(`${episode}: attempt ${attempt} failed${last ? " (no attempts left)" : ""}: ${message}`);
  };
  try {
    const exp = await jobQueue.db.query<{
      options: Omit<ExperimentOptions, "root" | "concurrency">;
      lease_seconds: number;
    }>("SELECT options, lease_seconds FROM robograph.experiments WHERE name = $1", [experiment]);
    const rows = await jobQueue.db.query<EpisodeRow>(
      "SELECT plan, thread, state, host, sim_url, sim_pid, paused_seconds, work_dir FROM robograph.episodes WHERE experiment = $1 AND id = $2",
      [experiment, episode],
    );
    if (!exp.rowCount || !rows.rowCount)
      return await fail(`no episode ${episode} of experiment ${experiment} in the database (deleted?)`);
    const row = rows.rows[0];
    // Recorded by a worker that died before it could complete the job: it is reported once, so just complete it.
    if (row.state === "done") return void (await jobQueue.boss.complete(job.name, job.id));
    const options: ExperimentOptions = {
      ...exp.rows[0].options,
      root: ctx.w.workDir,
      concurrency: 1,
      signal: ctx.inner,
    };

    // A checkpoint and the simulator it was made on: resume there. A checkpoint whose robot is gone (another machine,
    // or the simulator gave up waiting) cannot be continued on a fresh world: the episode starts over.
    const checkpoint = await ctx.checkpointer.getTuple({ configurable: { thread_id: row.thread, checkpoint_ns: "" } });
    const adopt = checkpoint ? await reachable(row) : undefined;
    if (checkpoint && !adopt) await ctx.checkpointer.deleteThread(row.thread);
    // A resumed episode goes on in the folder it ran in (another worker's on this machine): its frames are there.
    const dir = adopt ? row.work_dir! : join(ctx.w.workDir, experiment);
    mkdirSync(join(dir, "scenarios"), { recursive: true });
    // From its last checkpoint to now the episode was not running (the step after it is run again).
    const paused = adopt
      ? row.paused_seconds + Math.max(0, (Date.now() - Date.parse(checkpoint!.checkpoint.ts)) / 1000)
      : 0;
    await jobQueue.db.query(
      `UPDATE robograph.episodes SET state = 'running', attempts = $3, worker = $4, started_at = coalesce(started_at, $6), resumed = resumed + $5, paused_seconds = $7 WHERE experiment = $1 AND id = $2`,
      [experiment, episode, attempt, me, adopt ? 1 : 0, fetchedAt, paused],
    );
    log(`${episode}: attempt ${attempt}${adopt ? `, resuming thread ${row.thread} on ${adopt.url}` : ""}`);

    const orphanSeconds = exp.rows[0].lease_seconds + LEASE_MARGIN_SECONDS;
    let pool = ctx.pools.get(orphanSeconds);
    if (!pool)
      ctx.pools.set(
        orphanSeconds,
        (pool = new SimPool(ctx.running, options.reuseSimulators !== false, [
          "--orphan-timeout",
          String(orphanSeconds),
        ])),
      );
    let robotEvents: unknown[] = [];
    const result = await runPlannedEpisode(row.plan, options, dir, pool, {
      onRun: async (run) => {
        robotEvents = run.events;
      },
      checkpointer: ctx.checkpointer,
      thread: row.thread,
      resume: !!adopt,
      adopt,
      pausedSeconds: paused,
      onSimulator: async (sim) => {
        await jobQueue.db.query(
          "UPDATE robograph.episodes SET host = $3, sim_url = $4, sim_pid = $5, work_dir = $6 WHERE experiment = $1 AND id = $2",
          [experiment, episode, hostname(), sim.url, sim.child.pid ?? null, dir],
        );
      },
    });
    const finished = new Date();
    // The dead worker's simulator has served its episode; nobody else will come back to it.
    if (adopt && row.sim_pid && row.host === hostname()) {
      try {
        process.kill(row.sim_pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    if (result.status === "interrupted" || ctx.inner.aborted) {
      // Released: its simulator stops with this worker, so whoever takes the job next starts the episode over.
      return await fail(`interrupted on ${me}: ${result.statusReason || result.error || "the worker stopped"}`);
    }
    if (result.status === "error") return await fail(result.error ?? result.statusReason);

    // The record and the frames it mentions go to the database first, then the result, then the job is completed:
    // a crash in between leaves a job whose episode is already recorded, which the next worker only completes.
    const local = new ArtifactStore(join(dir, "data", "artifacts"));
    const eventsFile = join(dir, result.record);
    const scope = `experiments/${experiment}`;
    if (existsSync(eventsFile))
      await uploadRecord(ctx.blobs, scope, `episodes/${episode}/events.jsonl`, readFileSync(eventsFile), local);
    await ctx.blobs.putFile(scope, `episodes/${episode}/result.json`, Buffer.from(JSON.stringify(result, null, 2)));
    // What the robot itself logged (skills started, by goal id): a resumed episode shows each goal started once.
    await ctx.blobs.putFile(scope, `episodes/${episode}/robot-events.json`, Buffer.from(JSON.stringify(robotEvents)));
    const recorded = await jobQueue.db.query(
      `UPDATE robograph.episodes SET state = 'done', result = $3, error = NULL, finished_at = $4, recorded_at = clock_timestamp() WHERE experiment = $1 AND id = $2 AND state <> 'done'`,
      [experiment, episode, JSON.stringify(result), finished],
    );
    await jobQueue.boss.complete(job.name, job.id);
    log(
      `${episode}: ${result.status}${recorded.rowCount ? "" : " (already recorded by another worker: kept the first)"}`,
    );
  } catch (err) {
    await fail((err as Error).message).catch((recordError: Error) =>
      log(`${episode}: could not record the failure: ${recordError.message}`),
    );
  }
}
