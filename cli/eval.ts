/** `robograph eval` (npm run eval): an experiment — variants × examples × seeds — and its report. */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { basename, dirname, join, resolve } from "node:path";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { METHODS, method, methodOfWorld } from "../graphs";
import { courseExamplesPath, GENERATED_CACHE, loadDataset, type DatasetRow } from "../evals/datasets";
import {
  GENERATED_COURSES,
  GENERATED_KINDS,
  generatedSet,
  toJsonl,
  type GeneratedKind,
} from "../evals/datasets/generated";
import { makeCourseExamples } from "../evals/datasets/courseExamples";
import { FIRST_SCORED_SEED } from "../robots/sim/generated";
import type { Step } from "../robots/sim/course/scenarios";
import { experimentDir, experimentSettings, runExperiment, type Progress } from "../evals/runner";
import { buildReport, writeReport } from "../evals/experimentReport";
import {
  langsmithDatasetName,
  langsmithEnabled,
  openLangSmithExperiment,
  scoreEpisodes,
  uploadDataset,
  type LangSmithRow,
} from "../evals/langsmith";
import { loadCriticBenchmark } from "../evals/datasets/behaviorCritic";
import { DEFAULT_BENCHMARK_DIR } from "../evals/datasets/behaviorCriticBenchmark";
import {
  datasetKey,
  enqueueExperiment,
  loadQueuedExperiment,
  openQueue,
  waitForExperiment,
  type QueueProgress,
} from "../evals/queue";
import { databaseUrl } from "../memory/checkpointer";
import { ownSettingValues } from "../runtime/settings";
import { settingFlagHelp, settingFlagOptions, settingsFromFlags } from "./settingFlags";

/** The methods an experiment measures. */
const MEASURED = METHODS.filter((m) => m.report.experiment);
/** Own settings an experiment does not take as flags: speculation is a row ("pipelined"); what each row's scenario decides. */
const EXPERIMENT_ROWS = ["pipeline", ...MEASURED.flatMap((m) => m.scenarioSettings?.keys ?? [])];
import { PostgresBlobStore } from "../memory/blobs";

export const EVAL_HELP = `usage: robograph eval [options]      (npm run eval -- [options])

Runs graph variants × dataset examples × seeds, each episode against its own simulator process, and writes
runs/experiments/<name>/report.{json,md,html}. Interrupted experiments resume: run again with the same --name and
only the missing episodes run.

options:
  --dataset NAME|FILE   dataset: kitchen (CLEA, default), tabletop (RePLan's tasks 1–8), course (VLM-PC's six
                        obstacle courses), course-generated (procedurally generated courses, each checked
                        solvable within 100 s by a search over the true layout), kitchen-generated (generated
                        kitchen scenarios, each checked by a plan from the true state run on the world), tabletop-generated
                        (generated RePLan scenes with composed obstacles, each checked by the generator's solution run
                        through the MPC), critic (the behaviour-critic
                        benchmark: see --dataset critic --help), or a .jsonl file
  --count N             course-generated, kitchen-generated, tabletop-generated: how many worlds (default 50)
  --course-seed S       course-generated: the first course seed (default ${FIRST_SCORED_SEED}); seeds below ${FIRST_SCORED_SEED} are the
                        tuning range, looked at while improving the reasoners; ${FIRST_SCORED_SEED} and up are scored
  --kitchen-seed S      kitchen-generated: the first scenario seed (default ${FIRST_SCORED_SEED}; the same two ranges)
  --scene-seed S        tabletop-generated: the first scene seed (default ${FIRST_SCORED_SEED}; the same two ranges)
  --method ID           the method that runs the rows (default: the one of the rows' world): ${METHODS.filter(
    (m) => m.report.experiment,
  )
    .map((m) => `${m.id} (${m.world})`)
    .join(", ")}
  --variants LIST       comma-separated, of the method's variants (default: its experiment's):
                        ${METHODS.filter((m) => m.report.experiment)
                          .map(
                            (listed) =>
                              `${listed.world}: ${listed.variants.join(", ")}${listed.report.experiment?.defaults?.variants ? ` (default ${listed.report.experiment.defaults.variants.join(",")})` : ""}`,
                          )
                          .join(";\n                        ")}
  --seeds N             seeds per example (default 3; course: 5, the paper's five trials; course-generated: 1)
  --noise P             symbolic backend noise level, 0..1, the same for every variant (default 0)
  --concurrency N       episodes at once, each with its own simulator (default 2; at most the machine's cores)
  --fresh-simulators    start a simulator process for every episode (default: kitchen, tabletop and course simulators
                        are kept and reset between episodes — the same results, faster)
  --limit N             only the first N examples
  --examples LIST       only these examples (comma-separated ids, <task>__<condition>, as in the report)
  --name NAME           experiment name (default <dataset>-noise<P>-<seeds>seeds)
  --root DIR            where experiments go (default runs/experiments)
  --model B             symbolic | openai (default symbolic)
  --max-steps N         skills per episode before it stops (default 40; course: 200 — its 100 s of skill time binds)
  --max-wall S          wall seconds per episode before it stops (default 300)
  --grasp-sensing on|off  whether the simulated grippers sense a grasp (default on; off models grippers without
                        force feedback, whose missed grasps only a camera can catch — CLEA's setting)

The measured method's own settings (the same for every variant; a pipelined row is the variant "pipelined"):
${settingFlagHelp(MEASURED, (m) => m.id, EXPERIMENT_ROWS, 24)}

Many machines (ROBOGRAPH_DATABASE_URL set to one Postgres; see README "Running on many machines"):
  --queue               enqueue one job per episode (the same episodes this command would run here) for
                        \`npm run worker\` processes anywhere, then wait printing progress and write the report
  --detach              with --queue: return once the jobs are queued
  --lease S             with --queue: seconds a worker holds an episode before another may take it over
                        (default --max-wall + 60; must exceed --max-wall)
  --report NAME         build the report of queued experiment NAME from the database (from any machine); with
                        --wait, first wait for its episodes to finish
  --wait                with --report: wait for the experiment to finish first

LangSmith (LANGSMITH_API_KEY set; LANGSMITH_ENDPOINT for a self-hosted one):
  the dataset is created once (later runs add only the examples it lacks) and each variant is one experiment,
  <name>-<variant>, with a row per episode linked to its dataset example and our evaluators' scores as feedback;
  a resumed experiment records only what is not there yet. Without a key the same evaluators run locally.
  LANGSMITH_TRACING=true    also traces each episode's graph run under its row (named after the episode, tagged
                        method:, variant:, seed:, world:); frames are left out unless ROBOGRAPH_TRACE_FRAMES=true
  --upload-dataset NAME push the dataset's examples (any --dataset: hand-made, generated with --count/--*-seed, a
                        .jsonl file) to LangSmith as dataset NAME and stop; run again, only missing ones are added
`;

function bar(progress: Progress): string {
  const width = 30;
  const filled = Math.round((progress.done / Math.max(1, progress.total)) * width);
  const eta =
    progress.etaSeconds === null
      ? ""
      : ` ETA ${Math.floor(progress.etaSeconds / 60)}m${String(Math.round(progress.etaSeconds % 60)).padStart(2, "0")}s`;
  const last = progress.last ? ` last: ${progress.last.id} ${progress.last.success ? "✓" : "✗"}` : "";
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${progress.done}/${progress.total}${progress.skipped ? ` (${progress.skipped} from before)` : ""}${eta}${last}`;
}

export async function evalCommand(argv: string[]): Promise<number> {
  // The critic benchmark is not episodes of variants × examples: it has its own experiment and options.
  const datasetAt = argv.indexOf("--dataset");
  if ((datasetAt >= 0 && argv[datasetAt + 1] === "critic") || argv.includes("--dataset=critic")) {
    const uploadAt = argv.indexOf("--upload-dataset");
    if (uploadAt < 0) return (await import("./behaviorCritic")).criticEvalCommand(argv);
    // Its cases are examples in LangSmith's shape too: pushed as they are, keyed by case.
    const benchmarkAt = argv.indexOf("--benchmark");
    const cases = loadCriticBenchmark(benchmarkAt >= 0 ? argv[benchmarkAt + 1] : DEFAULT_BENCHMARK_DIR).cases;
    return pushDataset(
      argv[uploadAt + 1],
      cases.map((c) => ({ id: c.metadata.case, example: c })),
    );
  }
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string", default: "kitchen" },
      variants: { type: "string" },
      method: { type: "string" },
      seeds: { type: "string" },
      noise: { type: "string", default: "0" },
      concurrency: { type: "string", default: "2" },
      limit: { type: "string" },
      examples: { type: "string" },
      name: { type: "string" },
      root: { type: "string", default: "runs/experiments" },
      model: { type: "string", default: "symbolic" },
      "max-steps": { type: "string" },
      "max-wall": { type: "string", default: "300" },
      "grasp-sensing": { type: "string", default: "on" },
      "fresh-simulators": { type: "boolean", default: false },
      count: { type: "string", default: "50" },
      "course-seed": { type: "string", default: String(FIRST_SCORED_SEED) },
      "kitchen-seed": { type: "string", default: String(FIRST_SCORED_SEED) },
      "scene-seed": { type: "string", default: String(FIRST_SCORED_SEED) },
      queue: { type: "boolean", default: false },
      detach: { type: "boolean", default: false },
      lease: { type: "string" },
      report: { type: "string" },
      wait: { type: "boolean", default: false },
      "upload-dataset": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      ...settingFlagOptions(MEASURED, EXPERIMENT_ROWS),
    },
  });
  if (flags.help) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  const int = (name: string, text: string, min: number, max = Infinity) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`--${name} must be an integer in [${min}, ${max}], got ${text}`);
    return value;
  };
  if (flags.report !== undefined) {
    if (flags.queue || flags.detach)
      throw new Error(
        "--report builds the report of an experiment already queued: it does not go with --queue or --detach",
      );
    return queuedReportCommand(flags.report, resolve(flags.root!), flags.wait!);
  }
  if (flags.detach && !flags.queue)
    throw new Error("--detach goes with --queue (a local experiment runs in this process)");
  if ((flags.lease !== undefined || flags.wait) && !flags.queue && flags.report === undefined)
    throw new Error("--lease goes with --queue, --wait with --report");
  const url = flags.queue ? databaseUrl() : undefined;
  if (flags.queue && !url)
    throw new Error(
      "--queue needs ROBOGRAPH_DATABASE_URL: the Postgres the workers share (see README, Running on many machines)",
    );
  if (flags.queue && argv.some((a) => a === "--concurrency" || a.startsWith("--concurrency=")))
    throw new Error(
      "--concurrency is how many episodes this machine runs at once; queued episodes run as workers take them (npm run worker -- --concurrency N)",
    );
  const noise = Number(flags.noise);
  if (!(noise >= 0 && noise <= 1)) throw new Error(`--noise must be in [0, 1], got ${flags.noise}`);
  const kind = GENERATED_KINDS.find((k) => k.dataset === flags.dataset);
  const generated = !!kind;
  const seedFlags = GENERATED_KINDS.map((k) => k.seedFlag);
  const given = (flag: string) => argv.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  if (!generated && (given("count") || seedFlags.some(given))) {
    throw new Error(
      `--count, ${seedFlags.map((f) => `--${f}`).join(", ")} choose generated worlds: they go with --dataset ${GENERATED_KINDS.map((k) => k.dataset).join(", ")}`,
    );
  }
  const seedFlag = kind?.seedFlag ?? "kitchen-seed";
  const wrong = seedFlags.find((f) => f !== seedFlag && given(f));
  if (generated && wrong)
    throw new Error(`--dataset ${kind.dataset} takes its first seed as --${seedFlag}, not --${wrong}`);
  const count = int("count", flags.count!, 1);
  const firstSeed = int(seedFlag, flags[seedFlag]!, 0);
  let datasetName = flags.dataset!;
  let rows = generated ? [] : loadDataset(datasetName);
  const only = flags.examples?.split(",").map((s) => s.trim());
  // Generated worlds are known once built (below): their ids are checked then.
  if (!generated) checkExamples(datasetName, rows, only);
  // The method measured: the one named, or the one of the rows' world; its experiment defaults fill what is not given.
  const world = kind ? kind.row(0).inputs.world : rows[0]?.example.inputs.world;
  if (!world) throw new Error(`${datasetName} has no rows`);
  const measured = flags.method ? method(flags.method) : methodOfWorld(world);
  const defaults = measured.report.experiment?.defaults ?? {};
  // Its own settings given as flags (one it does not have is refused); the rest are its defaults, recorded as such.
  const ownGiven = settingsFromFlags(measured, flags, MEASURED, (m) => m.id, EXPERIMENT_ROWS);
  const seeds = int("seeds", flags.seeds ?? (generated ? "1" : String(defaults.seeds ?? 3)), 1);
  const variants = (flags.variants ?? (defaults.variants ?? measured.variants).join(","))
    .split(",")
    .map((s) => s.trim()) as string[];
  const setName = kind
    ? `${kind.dataset.replace(/\W+/g, "_")}-s${firstSeed}-n${count}`
    : datasetName.replace(/\W+/g, "_");
  const name =
    flags.name ??
    `${setName}${flags.method ? `-${measured.id}` : ""}-noise${noise}-${seeds}seeds${flags["grasp-sensing"] === "off" ? "-nograsp" : ""}${Object.entries(
      ownGiven,
    )
      .map(([key, value]) => `-${key}${value}`)
      .join("")}`;
  if (kind) {
    // The worlds, each checked doable, become this experiment's dataset file (so it resumes and reports as any other).
    ({ datasetName, rows } = await buildGeneratedDataset(
      kind,
      join(resolve(flags.root!), name),
      count,
      firstSeed,
      variants.includes("full+ic"),
    ));
    checkExamples(`${kind.dataset} (${count} from seed ${firstSeed})`, rows, only);
  }
  const opts = {
    name,
    dataset: datasetName,
    variants,
    seeds,
    noise,
    concurrency: int("concurrency", flags.concurrency!, 1),
    limit: flags.limit ? int("limit", flags.limit, 1) : undefined,
    only,
    root: resolve(flags.root!),
    backend: flags.model as "symbolic" | "openai",
    maxSteps: int("max-steps", flags["max-steps"] ?? String(defaults.maxSteps ?? 40), 1),
    maxWallSeconds: int("max-wall", flags["max-wall"]!, 1),
    graspSensing: flags["grasp-sensing"] !== "off",
    settings: ownSettingValues(measured.configuration, ownGiven),
    reuseSimulators: !flags["fresh-simulators"],
    ...(flags.method ? { method: measured.id } : {}),
  };
  if (!["on", "off"].includes(flags["grasp-sensing"]!)) throw new Error(`--grasp-sensing must be on or off`);
  if (flags["upload-dataset"] !== undefined) return pushDataset(flags["upload-dataset"], rows);
  if (url) {
    const jobQueue = await openQueue(url);
    try {
      const lease = flags.lease === undefined ? undefined : int("lease", flags.lease, 1);
      const { episodes, queue } = await enqueueExperiment(jobQueue, opts, lease);
      process.stderr.write(
        `experiment ${name}: ${episodes} episodes queued on ${queue} (workers: npm run worker -- --datasets ${datasetKey(opts.dataset)})\n`,
      );
      if (flags.detach) {
        process.stdout.write(
          `queued ${episodes} episodes; the report, once they are done: npm run eval -- --report ${name}\n`,
        );
        return 0;
      }
    } finally {
      await jobQueue.close();
    }
    return queuedReportCommand(name, opts.root, true);
  }
  const controller = new AbortController();
  const stop = () => {
    if (controller.signal.aborted) return;
    process.stderr.write(
      `\nemergency stop: canceling the robots' goals in flight, then stopping the simulators; run again with --name ${name} to resume\n`,
    );
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const tty = process.stderr.isTTY;
  process.stderr.write(
    `experiment ${name}: ${variants.join(", ")} × ${opts.only?.length ?? opts.limit ?? rows.length} examples × ${seeds} seeds, noise ${noise}, ${opts.concurrency} at a time; LangSmith ${langsmithEnabled() ? "on" : "off (local evaluators)"}\n`,
  );
  // With a key: the dataset and the variants' experiments first, so each episode is recorded as it ends.
  const langsmith = langsmithEnabled()
    ? await openLangSmithExperiment({
        name,
        datasetName: langsmithDatasetName(datasetName, name),
        rows,
        variants,
        method: opts.method,
        settings: experimentSettings(opts),
      })
    : undefined;
  const t0 = performance.now();
  let fromBefore = 0;
  const results = await runExperiment({
    ...opts,
    signal: controller.signal,
    ...(langsmith ? { aroundEpisode: langsmith.aroundEpisode } : {}),
    onProgress: (progress) => {
      fromBefore = progress.skipped;
      process.stderr.write(tty ? `\r${bar(progress)}\u001b[K` : `${bar(progress)}\n`);
    },
  }).finally(() => {
    // The experiment's stop ends with it (what follows is the report; a caller may run another experiment).
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  });
  const runSeconds = (performance.now() - t0) / 1000;
  if (tty) process.stderr.write("\n");
  if (controller.signal.aborted) return 130;
  const scores = await scoreEpisodes(name, datasetName, rows, results, opts.concurrency, langsmith);
  const report = buildReport(
    // A generated set's rows carry their goal kinds as families, which name no method: the method measured is named.
    {
      ...(opts.method ? { method: opts.method } : kind ? { method: measured.id } : {}),
      name,
      dataset: datasetName,
      noise,
      seeds,
      settings: experimentSettings(opts),
      variants,
      durationSeconds: (performance.now() - t0) / 1000,
      episodesRun: results.length - fromBefore,
      runSeconds,
      concurrency: Math.min(opts.concurrency, availableParallelism()),
    },
    results.map((r) => ({ ...r, scores: scores.get(r.id) ?? {} })),
  );
  const files = writeReport(experimentDir(opts), report);
  if (report.throughput)
    process.stdout.write(
      `\n${report.throughput.episodes} episodes run in ${Math.round(report.throughput.seconds)} s: ${report.throughput.episodesPerMinute.toFixed(1)} episodes per minute\n`,
    );
  process.stdout.write(
    `\n${variants.map((x) => `${x.padEnd(14)} success ${Math.round(report.table[x].all.successRate * 100)}% (${report.table[x].all.successes}/${report.table[x].all.trials}), average score ${report.table[x].all.averageScore.toFixed(2)}`).join("\n")}\n\nreport: ${files.md}\n        ${files.html}\n`,
  );
  return 0;
}

/** `--examples`: every id named is one of the dataset's, or the run is refused naming the ones it has. */
function checkExamples(dataset: string, rows: { id: string }[], only: string[] | undefined): void {
  for (const id of only ?? []) {
    if (!rows.some((r) => r.id === id))
      throw new Error(`--examples: ${dataset} has no example ${id}; its examples: ${rows.map((r) => r.id).join(", ")}`);
  }
}

/** `--upload-dataset NAME`: the rows as LangSmith dataset NAME (only the examples it lacks are added). */
async function pushDataset(name: string | undefined, rows: LangSmithRow[]): Promise<number> {
  if (!name || name.startsWith("--")) throw new Error("--upload-dataset needs the dataset's name in LangSmith");
  if (!langsmithEnabled())
    throw new Error("--upload-dataset needs LANGSMITH_API_KEY (and LANGSMITH_ENDPOINT for a self-hosted LangSmith)");
  const pushed = await uploadDataset(name, rows);
  process.stdout.write(
    `dataset ${name} in LangSmith (${pushed.datasetId}): ${pushed.added} example(s) added, ${pushed.updated} updated, ${pushed.total} in all\n`,
  );
  return 0;
}

const progressLine = (progress: QueueProgress) =>
  `done ${progress.done}, running ${progress.running}, failed ${progress.failed}, left ${progress.left} of ${progress.total}${progress.perMinute === null ? "" : `; ${progress.perMinute.toFixed(1)} episodes/min`}`;

/**
 * The report of a queued experiment, from the database: waits for its episodes first with `wait`, writes the report
 * under `root/<name>` and into the database beside the episodes' records (so the viewer finds it from any machine).
 */
async function queuedReportCommand(name: string, root: string, wait: boolean): Promise<number> {
  const url = databaseUrl();
  if (!url) throw new Error("--report reads a queued experiment from ROBOGRAPH_DATABASE_URL, which is not set");
  const jobQueue = await openQueue(url);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const tty = process.stderr.isTTY;
    if (wait) {
      const progress = await waitForExperiment(
        jobQueue,
        name,
        (p) => process.stderr.write(tty ? `\r${progressLine(p)}\u001b[K` : `${progressLine(p)}\n`),
        { signal: controller.signal },
      );
      if (tty) process.stderr.write("\n");
      if (controller.signal.aborted && progress.done + progress.failed < progress.total) {
        process.stderr.write(
          `stopped waiting; the workers go on. The report later: npm run eval -- --report ${name}\n`,
        );
        return 130;
      }
    }
    const ex = await loadQueuedExperiment(jobQueue, name);
    const options = ex.options;
    if (ex.progress.done + ex.progress.failed < ex.progress.total)
      process.stderr.write(
        `experiment ${name} is not finished (${progressLine(ex.progress)}): the report covers the episodes finished so far\n`,
      );
    const scores = await scoreEpisodes(name, options.dataset, ex.rows, ex.results);
    const report = buildReport(
      {
        ...(options.method ? { method: options.method } : {}),
        name,
        dataset: options.dataset,
        noise: options.noise,
        seeds: options.seeds,
        settings: experimentSettings(options),
        variants: options.variants,
        durationSeconds: ex.runSeconds,
        episodesRun: ex.results.length,
        runSeconds: ex.runSeconds,
      },
      ex.results.map((r) => ({ ...r, scores: scores.get(r.id) ?? {} })),
    );
    const dir = experimentDir({ root, name });
    mkdirSync(dir, { recursive: true });
    const files = writeReport(dir, report);
    const blobs = await PostgresBlobStore.open(url);
    try {
      for (const f of Object.values(files)) await blobs.putFile(`experiments/${name}`, basename(f), readFileSync(f));
    } finally {
      await blobs.close();
    }
    const failed = ex.results.filter((r) => r.status === "error");
    for (const f of failed) process.stdout.write(`failed: ${f.id}: ${f.error}\n`);
    if (report.throughput)
      process.stdout.write(
        `\n${report.throughput.episodes} episodes in ${Math.round(report.throughput.seconds)} s: ${report.throughput.episodesPerMinute.toFixed(1)} episodes per minute\n`,
      );
    process.stdout.write(
      `\n${options.variants.map((x) => `${x.padEnd(14)} success ${Math.round((report.table[x]?.all.successRate ?? 0) * 100)}% (${report.table[x]?.all.successes ?? 0}/${report.table[x]?.all.trials ?? 0}), average score ${(report.table[x]?.all.averageScore ?? 0).toFixed(2)}`).join("\n")}\n\nreport: ${files.md}\n        ${files.html}\n`,
    );
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await jobQueue.close();
  }
}

/**
 * Writes `<dir>/dataset.jsonl`: the first `count` doable generated worlds from `from` (for full+ic, with each course's
 * labelled examples, taken on the course with the solver's way through, at a seed no trial uses).
 */
async function buildGeneratedDataset<Row>(
  kind: GeneratedKind<Row>,
  dir: string,
  count: number,
  from: number,
  examples: boolean,
): Promise<{ datasetName: string; rows: DatasetRow[] }> {
  process.stderr.write(
    `${kind.dataset} from seed ${from} (${from >= FIRST_SCORED_SEED ? "the scored range" : `the tuning range: seeds below ${FIRST_SCORED_SEED} are looked at while tuning`}): checking each can be done\n`,
  );
  const set = await generatedSet(kind, count, from, {
    cacheDir: join(GENERATED_CACHE, kind.dataset, "verdicts"),
    onProgress: (v, kept) => process.stderr.write(`  generated_${v.seed}: ${kind.describe(v)} — ${kept}/${count}\n`),
  });
  if (examples && kind.dataset === GENERATED_COURSES.dataset) {
    for (const v of set.verdicts.filter((x) => x.solvable)) {
      const file = courseExamplesPath(`generated_${v.seed}`);
      // Kept with the course's fingerprint: a changed generator makes another course under the same name.
      if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { hash?: string }).hash === v.hash) continue;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(
        file,
        JSON.stringify({ ...(await makeCourseExamples(`generated_${v.seed}`, 10, v.steps as Step[])), hash: v.hash }) +
          "\n",
      );
      process.stderr.write(`  labelled examples of generated_${v.seed} → ${file}\n`);
    }
  }
  mkdirSync(dir, { recursive: true });
  const datasetName = join(dir, "dataset.jsonl");
  writeFileSync(datasetName, toJsonl(set.rows));
  return { datasetName, rows: loadDataset(datasetName) };
}
