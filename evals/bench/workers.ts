/**
 * Queued experiments against the local pool (`npm run bench -- --workers-only`): the same kitchen slice run by the
 * local runner (two simulators at once) and queued for one and for two `robograph worker` processes (one episode at a
 * time each); episodes per minute of each, whether every episode came out the same, and the queue's own cost per
 * episode — an idle worker's pickup of a new job (enqueue → start), a worker's turnaround between two jobs, and
 * finish → recorded. Uses ROBOGRAPH_DATABASE_URL, or a throwaway cluster of Debian's Postgres.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { programArgs } from "../../robots/programs";
import { runExperiment, type ExperimentOptions } from "../runner";
import { enqueueExperiment, loadQueuedExperiment, openQueue, waitForExperiment } from "../queue";
import { databaseUrl } from "../../memory/checkpointer";
import type { EpisodeResult } from "../metrics";
import type { Figure } from "./agent";
import { startPostgres } from "./postgres";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const scratch = () => mkdtempSync(join(tmpdir(), "robograph-workers-"));
const outcome = (e: EpisodeResult) => [e.id, e.status, e.success, e.steps, e.modelCalls, e.score, e.goal];

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length
    ? sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2
    : NaN;
}

/** A worker process, resolved once it takes jobs. */
async function startWorker(url: string): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    programArgs("cli/robograph.ts", ["worker", "--concurrency", "1", "--poll", "1", "--work-dir", scratch()]),
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ROBOGRAPH_DATABASE_URL: url },
    },
  );
  let out = "";
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      if (/taking episodes/.test(out)) resolve();
    });
    child.stderr!.on("data", (d) => (out += d));
    void exited.then(() => reject(new Error(`worker exited before taking jobs: ${out}`)));
  });
  return {
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export async function workerBenchmarks(quick: boolean): Promise<Figure[]> {
  const figures: Figure[] = [];
  const slice: Omit<ExperimentOptions, "root" | "name"> = {
    dataset: "kitchen",
    variants: ["full"],
    seeds: quick ? 1 : 2,
    noise: 0.15,
    concurrency: 2,
    limit: 4,
    maxSteps: 40,
    maxWallSeconds: 120,
  };
  let t0 = performance.now();
  const local = await runExperiment({ ...slice, name: "local", root: scratch() });
  const localPerMinute = local.length / ((performance.now() - t0) / 60_000);
  figures.push({
    name: `local pool, 2 simulators (${local.length} kitchen episodes): episodes per minute`,
    value: localPerMinute,
    unit: "ep/min",
  });

  const own = databaseUrl() ? undefined : await startPostgres();
  const url = databaseUrl() ?? own!.url;
  const jobQueue = await openQueue(url);
  const run = `${Date.now().toString(36)}`;
  try {
    const turnaround: number[] = [];
    const recording: number[] = [];
    for (const n of [1, 2]) {
      const workers = await Promise.all(Array.from({ length: n }, () => startWorker(url)));
      try {
        const name = `bench-${run}-${n}w`;
        t0 = performance.now();
        await enqueueExperiment(jobQueue, { ...slice, name, root: scratch() });
        await waitForExperiment(jobQueue, name, () => {}, { intervalMs: 100 });
        const minutes = (performance.now() - t0) / 60_000;
        const ex = await loadQueuedExperiment(jobQueue, name);
        const same = JSON.stringify(ex.results.map(outcome)) === JSON.stringify(local.map(outcome));
        const perMinute = ex.results.length / minutes;
        figures.push({
          name: `${n} worker${n > 1 ? "s" : ""} (concurrency 1 each): episodes per minute`,
          value: perMinute,
          unit: "ep/min",
        });
        figures.push({
          name: `${n} worker${n > 1 ? "s" : ""} / local pool`,
          value: perMinute / localPerMinute,
          unit: "x",
          ...(n === 2 ? { target: "≥ 0.9", ok: perMinute / localPerMinute >= 0.9 } : {}),
        });
        figures.push({
          name: `${n} worker${n > 1 ? "s" : ""}: every episode as the local run's (1 = yes)`,
          value: same ? 1 : 0,
          unit: "",
          target: "1",
          ok: same,
        });
        for (const o of ex.overhead) if (o.recordMs !== null) recording.push(o.recordMs);
        // A worker's next start after its last record: completing the job and fetching the next.
        const byWorker = new Map<string, typeof ex.overhead>();
        for (const o of ex.overhead) if (o.worker) byWorker.set(o.worker, [...(byWorker.get(o.worker) ?? []), o]);
        for (const list of byWorker.values()) {
          const sorted = list
            .filter((o) => o.startedAt !== null && o.recordedAt !== null)
            .sort((a, b) => a.startedAt! - b.startedAt!);
          for (let i = 1; i < sorted.length; i++) turnaround.push(sorted[i].startedAt! - sorted[i - 1].recordedAt!);
        }
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    }
    // An idle worker and one new episode at a time: how soon it starts.
    const pickup: number[] = [];
    const worker = await startWorker(url);
    try {
      for (let i = 0; i < (quick ? 3 : 5); i++) {
        const name = `bench-${run}-pickup${i}`;
        await enqueueExperiment(jobQueue, { ...slice, seeds: 1, limit: 1, name, root: scratch() });
        await waitForExperiment(jobQueue, name, () => {}, { intervalMs: 100 });
        const [overhead] = (await loadQueuedExperiment(jobQueue, name)).overhead;
        if (overhead.waitMs !== null) pickup.push(overhead.waitMs);
      }
    } finally {
      await worker.stop();
    }
    figures.push({
      name: "queue overhead: enqueue → start, idle worker (median)",
      value: median(pickup),
      unit: "ms",
      target: "≤ 100",
      ok: median(pickup) <= 100,
    });
    figures.push({
      name: "queue overhead: a worker's record → its next start (median)",
      value: median(turnaround),
      unit: "ms",
      target: "≤ 100",
      ok: median(turnaround) <= 100,
    });
    figures.push({
      name: "queue overhead: finish → recorded, with its frames (median)",
      value: median(recording),
      unit: "ms",
      target: "≤ 100",
      ok: median(recording) <= 100,
    });
  } finally {
    await jobQueue.close();
    await own?.stop();
  }
  return figures;
}
