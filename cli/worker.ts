/** `robograph worker` (npm run worker): takes queued episodes from the shared Postgres and runs them here. */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { availableParallelism } from "node:os";
import { databaseUrl } from "../memory/checkpointer";
import { runWorker } from "../evals/queue";

export const WORKER_HELP = `usage: robograph worker [options]      (npm run worker -- [options])

Takes episodes that \`npm run eval -- … --queue\` put on the queue in ROBOGRAPH_DATABASE_URL (one Postgres shared by
every machine), runs each against a simulator process of its own (kept and reset between episodes), and writes its
result, run record and frames to the database. An episode whose worker died is taken over once its lease runs out
and resumes from its last checkpoint (on the same machine, on the simulator it was running on).

options:
  --concurrency N     episodes at once, each with its own simulator (default 1; at most the machine's cores)
  --datasets LIST     only experiments on these datasets (comma-separated: kitchen, tabletop, course, or a dataset
                      file's base name); default: every experiment's
  --work-dir DIR      where episodes keep their files while they run (default runs/worker)
  --poll S            seconds between looks at empty queues (default 2; new jobs wake the worker at once)
  --max-jobs N        stop after N jobs (default: run until stopped)

Ctrl-C or SIGTERM: take no more jobs and finish the running episodes; a second one stops the robots (an emergency
stop) and hands the running episodes back to the queue (another worker runs them again from the start). A worker
killed outright (SIGKILL, a lost machine) leaves its simulators running for a while: a worker on the same machine
that takes the episode over resumes it from its last checkpoint there.
`;

export async function workerCommand(argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      concurrency: { type: "string", default: "1" },
      datasets: { type: "string" },
      "work-dir": { type: "string", default: "runs/worker" },
      poll: { type: "string", default: "2" },
      "max-jobs": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    process.stdout.write(WORKER_HELP);
    return 0;
  }
  const url = databaseUrl();
  if (!url)
    throw new Error(
      "robograph worker needs ROBOGRAPH_DATABASE_URL: the Postgres the experiments are queued on (see README, Running on many machines)",
    );
  const concurrency = Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`--concurrency must be a positive integer, got ${flags.concurrency}`);
  const poll = Number(flags.poll);
  if (!(poll >= 0.1)) throw new Error(`--poll must be at least 0.1 seconds, got ${flags.poll}`);
  const maxJobs = flags["max-jobs"] === undefined ? undefined : Number(flags["max-jobs"]);
  if (maxJobs !== undefined && !(Number.isInteger(maxJobs) && maxJobs >= 1))
    throw new Error(`--max-jobs must be a positive integer, got ${flags["max-jobs"]}`);
  const datasets = flags.datasets
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (datasets && !datasets.length) throw new Error("--datasets needs at least one dataset name");
  // Each episode's simulator and agent keep about one core busy, as in the local runner.
  const slots = Math.min(concurrency, availableParallelism());
  if (slots < concurrency)
    process.stderr.write(
      `--concurrency ${concurrency} is more than this machine's ${availableParallelism()} cores: running ${slots} at a time\n`,
    );

  const finish = new AbortController();
  const now = new AbortController();
  const onSignal = (sig: string) => {
    if (!finish.signal.aborted) {
      process.stderr.write(
        `\n${sig}: taking no more episodes, finishing the running ones (again to stop them now and hand them back)\n`,
      );
      finish.abort();
    } else if (!now.signal.aborted) {
      process.stderr.write(`\n${sig}: stopping the robots; the running episodes go back to the queue\n`);
      now.abort();
    }
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  const handled = await runWorker({
    url,
    concurrency: slots,
    datasets,
    workDir: resolve(flags["work-dir"]!),
    signal: finish.signal,
    stopNow: now.signal,
    pollMs: poll * 1000,
    maxJobs,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`worker stopped after ${handled} job(s)\n`);
  return 0;
}
