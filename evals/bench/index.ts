/**
 * `npm run bench`: prints figures and their ratio to targets. Nothing here is asserted in tests — machines are shared
 * and noisy — so the figures live where a person reads them. A group of rows that cannot be measured prints why and the
 * bench goes on; `--help` lists the options and the sections `--only` picks. Sections are imported when they run, so
 * `--help` and a single section start at once.
 */
import { writeFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Figure } from "./agent";
import type { BenchSink } from "./ros";

/** What each section measures, in the order a whole run takes them. */
export const BENCH_SECTIONS = {
  core: "our bridge's no-op round trip beside roslib, the kitchen camera's render, physics step rate, agent overhead",
  ros: "through the reference ROS 1 rosbridge (needs npm run ros:setup): skill round trips and the camera rows",
  "ros-camera":
    "the ROS camera rows alone: a rospy camera (Image raw, CompressedImage JPEG) to our client and roslib, and the WebSocket-publisher rows (our simulators under --ros)",
  latency:
    "what a hosted model costs per skill: round trips the robot waits, tokens, images (--latency-ms, --kitchens)",
  throughput: "experiment episodes per minute, a simulator per episode against kept and reset simulators",
  workers:
    "queued experiments on Postgres with one and two worker processes (ROBOGRAPH_DATABASE_URL or Debian's Postgres)",
  course: "VLM-PC's obstacle course: simulation speed, head-camera frame, the planner's prompt size",
  mpc: "the tabletop MPC controller on RePLan's controller checks",
  blocks: "Game On's blocks world and learner (--blocks-learn adds the learnability run, minutes)",
  suite: "the test suite's wall time against 15 minutes and its slowest ten files, from npm run test:times's report",
} as const;
export type BenchSection = keyof typeof BENCH_SECTIONS;

export const BENCH_HELP = `usage: npm run bench -- [options]      (or: robograph bench [options])

Runs the benchmarks and prints each figure beside its target. A group of rows that cannot be measured says why and the
rest still run; the exit code is 1 when any group was not measured (a section skipped for a missing prerequisite,
such as ROS or Postgres not installed, is not a failure).

options:
  --only SECTION[,SECTION…]  run only these sections (default: all)
  --quick                    fewer repetitions (shorter, noisier)
  --json FILE                write every figure as [{ name, value, unit, target, ok }]
  --latency-ms MS            the hosted model's delay per answer in the latency section (default 300)
  --kitchens N               generated tuning kitchens CLEA's pipelined idle is averaged over (default 20; 0: none)
  --blocks-learn             add the blocks learnability run (minutes)
  --test-times FILE          the timing report the suite section reads (default runs/test-times.json, written by
                             npm run test:times; vitest's own JSON report is read too)
  --<section>-only           the same as --only <section> (e.g. --ros-only, --latency-only)
  -h, --help                 print this and exit

sections:
${Object.entries(BENCH_SECTIONS)
  .map(([name, what]) => `  ${name.padEnd(11)} ${what}`)
  .join("\n")}
`;

export interface BenchOptions {
  help: boolean;
  quick: boolean;
  /** Sections to run; undefined: every one. */
  only?: BenchSection[];
  json?: string;
  latencyMs: number;
  kitchens?: number;
  blocksLearn: boolean;
  testTimes?: string;
}

/** A command line the bench cannot run: the message says what is wrong. */
export class BenchUsageError extends Error {
  override name = "BenchUsageError";
}

const isSection = (name: string): name is BenchSection => Object.hasOwn(BENCH_SECTIONS, name);

/** The bench's flags for node's parseArgs: its options and a `--<section>-only` for each section. */
const BENCH_FLAGS = {
  help: { type: "boolean", short: "h" },
  quick: { type: "boolean" },
  "blocks-learn": { type: "boolean" },
  json: { type: "string" },
  "test-times": { type: "string" },
  "latency-ms": { type: "string" },
  kitchens: { type: "string" },
  only: { type: "string", multiple: true },
  ...Object.fromEntries(Object.keys(BENCH_SECTIONS).map((name) => [`${name}-only`, { type: "boolean" }])),
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/** parseArgs's refusals in the bench's words (its messages name the flag in quotes). */
function usageError(err: unknown): BenchUsageError {
  const { code, message } = err as { code?: string; message: string };
  const flag = /'(-[^' ]+)/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return new BenchUsageError(`unknown option ${flag}`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
    return new BenchUsageError(
      /does not take an argument/.test(message) ? `${flag} takes no value` : `${flag} needs a value`,
    );
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return new BenchUsageError(`unexpected argument ${/'([^']*)'/.exec(message)?.[1]}: sections go in --only`);
  return new BenchUsageError(message);
}

/** Reads the bench's command line; throws BenchUsageError naming what is wrong. */
export function parseBenchOptions(argv: string[]): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: BENCH_FLAGS, strict: true, allowPositionals: false, tokens: true });
  } catch (err) {
    throw usageError(err);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const text = (flag: string) => values[flag] as string | undefined;
  const options: BenchOptions = {
    help: !!values.help,
    quick: !!values.quick,
    latencyMs: 300,
    blocksLearn: !!values["blocks-learn"],
  };
  if (text("json") !== undefined) options.json = text("json");
  if (text("test-times") !== undefined) options.testTimes = text("test-times");
  const latency = text("latency-ms");
  if (latency !== undefined) {
    options.latencyMs = Number(latency);
    if (latency.trim() === "" || !Number.isFinite(options.latencyMs) || options.latencyMs < 0)
      throw new BenchUsageError(`--latency-ms must be a number of milliseconds, got ${latency}`);
  }
  const kitchens = text("kitchens");
  if (kitchens !== undefined) {
    options.kitchens = Number(kitchens);
    if (kitchens.trim() === "" || !Number.isInteger(options.kitchens) || options.kitchens < 0)
      throw new BenchUsageError(`--kitchens must be a whole number, got ${kitchens}`);
  }
  // Sections in the order given, whichever spelling picked them.
  const only = new Set<BenchSection>();
  for (const token of parsed.tokens) {
    if (token.kind !== "option") continue;
    const section = /^(.+)-only$/.exec(token.name)?.[1];
    if (section && isSection(section)) only.add(section);
    if (token.name !== "only") continue;
    for (const name of (token.value ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!isSection(name))
        throw new BenchUsageError(`unknown section ${name}; sections: ${Object.keys(BENCH_SECTIONS).join(", ")}`);
      only.add(name);
    }
  }
  if (only.size) options.only = [...only];
  return options;
}

function quantile(xs: number[], fraction: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

async function bridgeRoundTrip(count: number, report: (f: Figure) => void): Promise<void> {
  const { Action, Ros } = await import("roslib");
  const { BridgeClient } = await import("../../robots/bridge/client");
  const { PING_ACTION, PING_TYPE } = await import("../../robots/sim/serve");
  const { startSimProcess } = await import("../../robots/sim/process");
  const sim = await startSimProcess("kitchen", ["--speed", "max"]);
  try {
    const client = await BridgeClient.connect(sim.url);
    const ros = new Ros({ url: sim.url });
    await new Promise<void>((connected, j) => {
      ros.once("connection", () => connected());
      ros.once("error", j);
    });
    const ping = new Action<Record<string, never>, unknown, unknown>({ ros, name: PING_ACTION, actionType: PING_TYPE });
    const oursOnce = () => client.sendGoal(PING_ACTION, PING_TYPE, {}).result;
    const roslibOnce = () =>
      new Promise((resolve, reject) => {
        const id = ping.sendGoal(
          {},
          (result) => {
            ros.removeAllListeners(id!); // roslib never removes its per-goal listener
            resolve(result);
          },
          undefined,
          reject,
        );
      });
    const ours: number[] = [];
    const theirs: number[] = [];
    // Interleaved batches, after a warm-up of both, so neither client profits from a server the other warmed.
    const batch = 100;
    for (let round = -2; round < Math.ceil(count / batch); round++) {
      for (const [once, into] of [
        [oursOnce, ours],
        [roslibOnce, theirs],
      ] as const) {
        for (let i = 0; i < batch; i++) {
          const startedAt = performance.now();
          await once();
          if (round >= 0) into.push(performance.now() - startedAt);
        }
      }
    }
    ros.close();
    await client.close();
    const med = quantile(ours, 0.5);
    report({
      name: "no-op action round trip, our client: median",
      value: med,
      unit: "ms",
      target: "<= 0.3 ms",
      ok: med <= 0.3,
    });
    report({ name: "no-op action round trip, our client: p99", value: quantile(ours, 0.99), unit: "ms" });
    report({ name: "no-op action round trip, roslib: median", value: quantile(theirs, 0.5), unit: "ms" });
    report({ name: "no-op action round trip, roslib: p99", value: quantile(theirs, 0.99), unit: "ms" });
    const ratio = med / quantile(theirs, 0.5);
    report({ name: "our median / roslib median", value: ratio, unit: "x", target: "<= 1.2x", ok: ratio <= 1.2 });
  } finally {
    await sim.stop();
  }
}

async function camera(count: number, report: (f: Figure) => void): Promise<void> {
  const { KitchenWorld, loadScenario } = await import("../../robots/sim/kitchen");
  const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash") });
  try {
    for (const robot of ["mobile", "arm"] as const) {
      const times: number[] = [];
      for (let i = 0; i < count + 3; i++) {
        const startedAt = performance.now();
        await world.renderCamera(robot);
        if (i >= 3) times.push(performance.now() - startedAt);
      }
      const med = quantile(times, 0.5);
      report({
        name: `camera 320x240 RGB+depth+detections (${robot}): median`,
        value: med,
        unit: "ms",
        target: "<= 30 ms",
        ok: med <= 30,
      });
    }
  } finally {
    await world.close();
  }
}

async function stepRate(report: (f: Figure) => void): Promise<void> {
  const { KitchenWorld, loadScenario } = await import("../../robots/sim/kitchen");
  const scenario = loadScenario("integration_tea_to_trash");
  const world = await KitchenWorld.create({ scenario, speed: Infinity });
  try {
    const ctx = { goalId: "bench", signal: new AbortController().signal, feedback: () => {} };
    const startedAt = performance.now();
    const sim0 = world.clock.time;
    for (const nav of ["in_front_of_sink", "in_front_of_refrigerator", "in_front_of_oven", "in_front_of_table"]) {
      await world.runSkill("mobile", "go_to", { navigation_point: nav }, ctx);
    }
    const wall = (performance.now() - startedAt) / 1000;
    const simulated = world.clock.time - sim0;
    report({
      name: "kitchen simulation (physics + controllers), x real time",
      value: simulated / wall,
      unit: "x",
      target: ">= 1x",
      ok: simulated / wall >= 1,
    });
    report({
      name: "kitchen physics step (2 ms of simulated time)",
      value: (wall * 1e6) / (simulated / 0.002),
      unit: "us",
    });
  } finally {
    await world.close();
  }
}

/**
 * Runs the bench; returns the process's exit code (0: every group measured or skipped for a missing prerequisite;
 * 1: some group could not be measured; 2: a bad command line).
 */
export async function runBenchmarks(argv: string[] = []): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(argv);
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err;
    process.stderr.write(`robograph bench: ${err.message}\n\n${BENCH_HELP}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(BENCH_HELP);
    return 0;
  }
  const { quick } = options;
  const figures: Figure[] = [];
  const failed: { rows: string; why: string }[] = [];
  const sink: BenchSink = {
    report(figure) {
      figures.push(figure);
      const verdict = figure.ok === undefined ? "" : figure.ok ? "  ok" : "  MISSES TARGET";
      console.log(
        `${figure.name.padEnd(58)} ${figure.value.toFixed(3).padStart(10)} ${figure.unit.padEnd(10)}${figure.target ? ` (target ${figure.target})` : ""}${verdict}`,
      );
    },
    unmeasured(rows, why) {
      // A prerequisite that is not installed is a skip, said as such; anything else is a row that failed.
      if (why.startsWith("skipped:")) console.log(`${rows}: ${why}`);
      else {
        failed.push({ rows, why });
        console.log(`${rows}: NOT MEASURED: ${why}`);
      }
    },
  };
  const report = (figure: Figure) => sink.report(figure);
  const wanted = (name: BenchSection) => !options.only || options.only.includes(name);
  let current = "";
  // A stray error from a timer or socket of a finished row must not end the run: it is charged to the running section.
  const stray = (err: unknown) => sink.unmeasured(`${current} (a stray error)`, (err as Error)?.message ?? String(err));
  process.on("uncaughtException", stray);
  process.on("unhandledRejection", stray);
  const section = async (name: string, run: () => Promise<void>) => {
    current = name;
    console.log(`\n[${name}]`);
    try {
      await run();
    } catch (err) {
      sink.unmeasured(`${name} rows`, (err as Error).message);
    }
  };
  console.log(`robograph benchmarks (node ${process.version}, ${quick ? "quick" : "full"})`);
  try {
    if (wanted("core"))
      await section("core", async () => {
        await bridgeRoundTrip(quick ? 300 : 2000, report);
        await camera(quick ? 10 : 30, report);
        await stepRate(report);
        const { agentBenchmarks } = await import("./agent");
        for (const f of await agentBenchmarks()) report(f);
      });
    if (wanted("ros") || wanted("ros-camera"))
      await section(wanted("ros") ? "ros" : "ros-camera", async () => {
        const { rosBenchmarks } = await import("./ros");
        await rosBenchmarks(quick, sink, { skills: wanted("ros"), camera: true });
      });
    if (wanted("latency"))
      await section("latency", async () => {
        const { latencyBenchmarks } = await import("./latency");
        for (const f of await latencyBenchmarks(options.latencyMs, console.log, options.kitchens)) report(f);
      });
    if (wanted("throughput"))
      await section("throughput", async () => {
        const { throughputBenchmarks } = await import("./throughput");
        for (const f of await throughputBenchmarks(quick)) report(f);
      });
    if (wanted("workers"))
      await section("workers", async () => {
        const { databaseUrl } = await import("../../memory/checkpointer");
        const { postgresBin } = await import("./postgres");
        if (!options.only && !databaseUrl() && !postgresBin())
          return sink.unmeasured("queued experiments", "skipped: no ROBOGRAPH_DATABASE_URL and no Postgres installed");
        const { workerBenchmarks } = await import("./workers");
        for (const f of await workerBenchmarks(quick)) report(f);
      });
    if (wanted("course"))
      await section("course", async () => {
        const { courseBenchmarks } = await import("./course");
        for (const f of await courseBenchmarks(quick)) report(f);
      });
    if (wanted("mpc"))
      await section("mpc", async () => {
        const { mpcBenchmarks } = await import("./mpc");
        for (const f of await mpcBenchmarks(quick ? 5 : 20)) report(f);
      });
    if (wanted("blocks"))
      await section("blocks", async () => {
        const { blocksBenchmarks } = await import("./blocks");
        for (const f of await blocksBenchmarks(quick, options.blocksLearn)) report(f);
      });
    if (wanted("suite"))
      await section("suite", async () => {
        const { suiteTimeBenchmarks } = await import("./suite");
        await suiteTimeBenchmarks(sink, options.testTimes);
      });
  } finally {
    process.off("uncaughtException", stray);
    process.off("unhandledRejection", stray);
  }
  const missed = figures.filter((f) => f.ok === false).length;
  console.log(`\n${figures.length} figures, ${missed} miss their target, ${failed.length} groups of rows not measured`);
  for (const { rows, why } of failed) console.log(`  not measured: ${rows}: ${why}`);
  if (options.json) {
    writeFileSync(
      options.json,
      JSON.stringify(
        figures.map((figure) => ({
          name: figure.name,
          value: figure.value,
          unit: figure.unit,
          target: figure.target ?? null,
          ok: figure.ok ?? null,
        })),
        null,
        2,
      ),
    );
    console.log(`figures written to ${options.json}`);
  }
  return failed.length ? 1 : 0;
}
