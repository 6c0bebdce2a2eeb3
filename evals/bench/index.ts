/**
 * `npm run bench`: prints figures and their ratio to targets. Nothing here is asserted in tests — machines are shared
 * and noisy — so the figures live where a person reads them.
 */
import { Action, Ros } from "roslib";
import { BridgeClient } from "../../robots/bridge/client";
import { workerBenchmarks } from "./workers";
import { postgresBin } from "./postgres";
import { databaseUrl } from "../../memory/checkpointer";
import { PING_ACTION, PING_TYPE } from "../../robots/sim/serve";
import { KitchenWorld, loadScenario } from "../../robots/sim/kitchen";
import { startSimProcess } from "../../robots/sim/process";
import { agentBenchmarks, type Figure } from "./agent";
import { mpcBenchmarks } from "./mpc";
import { courseBenchmarks } from "./course";
import { blocksBenchmarks } from "./blocks";
import { latencyBenchmarks } from "./latency";
import { throughputBenchmarks } from "./throughput";
import { rosBenchmarks } from "./ros";
import { writeFileSync } from "node:fs";

const figures: Figure[] = [];
function report(figure: Figure): void {
  figures.push(figure);
  const verdict = figure.ok === undefined ? "" : figure.ok ? "  ok" : "  MISSES TARGET";
  console.log(
    `${figure.name.padEnd(58)} ${figure.value.toFixed(3).padStart(10)} ${figure.unit.padEnd(10)}${figure.target ? ` (target ${figure.target})` : ""}${verdict}`,
  );
}

function quantile(xs: number[], fraction: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

async function bridgeRoundTrip(count: number): Promise<void> {
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

async function camera(count: number): Promise<void> {
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

async function stepRate(): Promise<void> {
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

export async function runBenchmarks(argv: string[] = []): Promise<void> {
  const quick = argv.includes("--quick");
  console.log(`robograph benchmarks (node ${process.version}, ${quick ? "quick" : "full"})\n`);
  // --mpc-only / --course-only: just the tabletop controller or the VLM-PC section.
  const only = argv.includes("--mpc-only")
    ? "mpc"
    : argv.includes("--course-only")
      ? "course"
      : argv.includes("--latency-only")
        ? "latency"
        : argv.includes("--throughput-only")
          ? "throughput"
          : argv.includes("--blocks-only")
            ? "blocks"
            : argv.includes("--ros-only")
              ? "ros"
              : argv.includes("--workers-only")
                ? "workers"
                : undefined;
  // --json FILE: every figure as { name, value, unit, target, ok }, so runs can be compared.
  const jsonAt = argv.indexOf("--json");
  const jsonFile = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  if (jsonAt >= 0 && (!jsonFile || jsonFile.startsWith("--"))) throw new Error("--json needs a file name");
  const delayAt = argv.indexOf("--latency-ms");
  const delayMs = delayAt >= 0 ? Number(argv[delayAt + 1]) : 300;
  if (!Number.isFinite(delayMs) || delayMs < 0)
    throw new Error(`--latency-ms must be a number of milliseconds, got ${argv[delayAt + 1]}`);
  if (!only) {
    await bridgeRoundTrip(quick ? 300 : 2000);
    await camera(quick ? 10 : 30);
    await stepRate();
    for (const f of await agentBenchmarks()) report(f);
  }
  // --ros-only: through the reference ROS 1 rosbridge (needs npm run ros:setup).
  if (!only || only === "ros") for (const f of await rosBenchmarks(quick)) report(f);
  if (!only || only === "latency") for (const f of await latencyBenchmarks(delayMs)) report(f);
  if (!only || only === "throughput") for (const f of await throughputBenchmarks(quick)) report(f);
  // --workers-only: queued experiments (pg-boss on Postgres) with one and two worker processes against the local pool.
  if (only === "workers" || (!only && (databaseUrl() || postgresBin())))
    for (const f of await workerBenchmarks(quick)) report(f);
  else if (!only) console.log("queued experiments: skipped (no ROBOGRAPH_DATABASE_URL and no Postgres installed)");
  if (!only || only === "course") for (const f of await courseBenchmarks(quick)) report(f);
  if (!only || only === "mpc") for (const f of await mpcBenchmarks(quick ? 5 : 20)) report(f);
  // --blocks-only: Game On's world and learner; --blocks-learn adds the lift → stack learnability run (minutes).
  if (!only || only === "blocks")
    for (const f of await blocksBenchmarks(quick, argv.includes("--blocks-learn"))) report(f);
  const missed = figures.filter((f) => f.ok === false).length;
  console.log(`\n${figures.length} figures, ${missed} miss their target`);
  if (jsonFile) {
    writeFileSync(
      jsonFile,
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
    console.log(`figures written to ${jsonFile}`);
  }
}
