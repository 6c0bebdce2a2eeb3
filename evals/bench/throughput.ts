/**
 * Experiment throughput: the same slice of an experiment run with a simulator process per episode and with
 * simulators kept and reset between episodes (evals/runner.ts), back to back; episodes per minute of each, and
 * whether every episode came out the same (they must: a reset starts the world as a new process would).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runExperiment, type ExperimentOptions } from "../runner";
import type { EpisodeResult } from "../metrics";
import type { Figure } from "./agent";

/** The tabletop slice (RePLan mode): `limit` scenes, one seed, no detector noise. */
const TABLETOP_SLICE = (limit: number): Omit<ExperimentOptions, "root" | "name"> => ({
  dataset: "tabletop",
  variants: ["full"],
  seeds: 1,
  noise: 0,
  concurrency: 2,
  limit,
  maxSteps: 40,
  maxWallSeconds: 300,
});

/** What must not change between two runs of the same episode (whatever the simulator's speed). */
const episodeOutcome = (episode: EpisodeResult) => {
  const withCounts = episode as EpisodeResult & { motions?: number; visionSteps?: number; procedures?: number };
  return [
    episode.id,
    episode.success,
    episode.steps,
    withCounts.motions,
    withCounts.visionSteps,
    episode.modelCalls,
    episode.inputTokens,
    episode.outputTokens,
    episode.status,
    episode.statusReason,
    episode.goal,
    episode.score,
    episode.failedActions,
    episode.replans,
    withCounts.procedures,
    episode.skillSeconds,
  ];
};

async function sweep(options: Omit<ExperimentOptions, "root" | "name">, reuse: boolean) {
  const t0 = performance.now();
  const results = await runExperiment({
    ...options,
    name: reuse ? "reused" : "fresh",
    root: mkdtempSync(join(tmpdir(), "robograph-throughput-")),
    reuseSimulators: reuse,
  });
  const minutes = (performance.now() - t0) / 60_000;
  return { perMinute: results.length / minutes, results };
}

export async function throughputBenchmarks(quick: boolean): Promise<Figure[]> {
  const figures: Figure[] = [];
  const slices: [string, Omit<ExperimentOptions, "root" | "name">][] = [
    [
      "kitchen",
      {
        dataset: "kitchen",
        variants: ["full", "open-loop"],
        seeds: 1,
        noise: 0.15,
        concurrency: 2,
        limit: quick ? 3 : 6,
        maxSteps: 40,
        maxWallSeconds: 300,
        graspSensing: false,
      },
    ],
    ["tabletop", TABLETOP_SLICE(quick ? 2 : 4)],
  ];
  for (const [world, o] of slices) {
    const fresh = await sweep(o, false);
    const reused = await sweep(o, true);
    const outcome = (r: typeof fresh) => JSON.stringify(r.results.map(episodeOutcome));
    const same = outcome(fresh) === outcome(reused);
    const episodeCount = fresh.results.length;
    figures.push({
      name: `${world} sweep (${episodeCount} episodes): episodes per minute, a process per episode`,
      value: fresh.perMinute,
      unit: "ep/min",
    });
    figures.push({
      name: `${world} sweep (${episodeCount} episodes): episodes per minute, simulators reset`,
      value: reused.perMinute,
      unit: "ep/min",
    });
    figures.push({
      name: `${world} sweep: reset / process per episode`,
      value: reused.perMinute / fresh.perMinute,
      unit: "x",
    });
    figures.push({
      name: `${world} sweep: episodes identical either way (1 = yes)`,
      value: same ? 1 : 0,
      unit: "",
      target: "1",
      ok: same,
    });
  }
  return figures;
}
