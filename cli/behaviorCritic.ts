/** `robograph eval --dataset critic`: the behaviour-critic benchmark's Tables 1–4 and the refinement loop's results. */
import { existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runCriticExperiment, writeCriticReport } from "../evals/behaviorCritic";
import { runRefinement, type RefineRun } from "../evals/behaviorCriticRefine";
import { DEFAULT_BENCHMARK_DIR, generateCriticBenchmark } from "../evals/datasets/behaviorCriticBenchmark";

export const CRITIC_EVAL_HELP = `usage: robograph eval --dataset critic [options]      (npm run eval -- --dataset critic [options])

Critiques every rollout of the behaviour-critic benchmark (generated first if it is missing) without grounding, with
the detector's grounding and with perfect grounding; compares rollouts in pairs; then runs the refinement loop on
each case's first negative program in a workbench simulator. Writes runs/experiments/<name>/report.json (Tables 1–4 and
the refinement as data, with every scored critique and preference), report.md and report.html.

options:
  --benchmark DIR       the benchmark (default data/critic-benchmark, made by npm run make:critic-benchmark if missing;
                        the generated set: npm run make:critic-benchmark -- --generated, in data/critic-benchmark-generated)
  --seeds N             seeds of the critic's noise per rollout (default 3)
  --noise P             symbolic critic's noise level, 0..1 (default 0.3)
  --limit N             only the first N cases
  --refine-limit N      refinement loop on at most N cases (default: all; 0 skips it)
  --grounding G         refinement loop's grounding: detector (default) | events
  --max-rewrites N      rewrites per refinement loop (default 5)
  --name NAME           experiment name (default critic-noise<P>-<seeds>seeds)
  --root DIR            where experiments go (default runs/experiments)
`;

/** A progress line: rewritten in place on a terminal, one line per tenth when piped to a file. */
function progress(label: string): (done: number, total: number, note?: string) => void {
  let shown = -1;
  return (done, total, note = "") => {
    if (process.stdout.isTTY) {
      process.stdout.write(`\r${label}: ${done}/${total}${note}\x1b[K${done === total ? "\n" : ""}`);
      return;
    }
    const tenth = Math.floor((10 * done) / total);
    if (tenth === shown && done !== total) return;
    shown = tenth;
    process.stdout.write(`${label}: ${done}/${total}${note}\n`);
  };
}

export async function criticEvalCommand(argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string" },
      benchmark: { type: "string", default: DEFAULT_BENCHMARK_DIR },
      seeds: { type: "string", default: "3" },
      noise: { type: "string", default: "0.3" },
      limit: { type: "string" },
      "refine-limit": { type: "string" },
      grounding: { type: "string", default: "detector" },
      "max-rewrites": { type: "string", default: "5" },
      name: { type: "string" },
      root: { type: "string", default: "runs/experiments" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    process.stdout.write(CRITIC_EVAL_HELP);
    return 0;
  }
  const num = (name: string, text: string, min: number, max: number, int = true) => {
    const value = Number(text);
    if (!Number.isFinite(value) || (int && !Number.isInteger(value)) || value < min || value > max)
      throw new Error(`--${name} must be ${int ? "an integer" : "a number"} in [${min}, ${max}], got ${text}`);
    return value;
  };
  const seeds = num("seeds", flags.seeds!, 1, 100);
  const noise = num("noise", flags.noise!, 0, 1, false);
  if (flags.grounding !== "detector" && flags.grounding !== "events")
    throw new Error(`--grounding must be detector or events, not ${flags.grounding}`);
  const dir = resolve(flags.benchmark!);
  if (!existsSync(join(dir, "cases.jsonl"))) {
    // Only the default place is filled in unasked: any other directory may be meant for the generated set.
    if (dir !== resolve(DEFAULT_BENCHMARK_DIR))
      throw new Error(
        `no benchmark at ${dir}: make it first with npm run make:critic-benchmark -- --out ${flags.benchmark} (the hand-made set) or -- --generated --out ${flags.benchmark} (the generated set)`,
      );
    process.stdout.write(`no benchmark at ${dir}: generating it (npm run make:critic-benchmark)\n`);
    await generateCriticBenchmark({ out: dir, log: (s) => process.stdout.write(`${s}\n`) });
  }
  const name = flags.name ?? `critic-noise${noise}-${seeds}seeds`;
  const out = resolve(flags.root!, name);
  const t0 = Date.now();
  const results = await runCriticExperiment({
    dir,
    out,
    seeds,
    noise,
    limit: flags.limit ? num("limit", flags.limit, 1, 100000) : undefined,
    onProgress: progress("critiques and preferences (cases × seeds)"),
  });
  const refineLimit =
    flags["refine-limit"] !== undefined ? num("refine-limit", flags["refine-limit"], 0, 100000) : undefined;
  const maxRewrites = num("max-rewrites", flags["max-rewrites"]!, 0, 50);
  const limit = flags.limit ? num("limit", flags.limit, 1, 100000) : undefined;
  const settings = {
    benchmark: relative(out, dir) || ".",
    seeds,
    noise,
    limit: limit ?? null,
    refineLimit: refineLimit ?? null,
    grounding: flags.grounding,
    maxRewrites,
  };
  // The critiques' report first (refinement still to come), so a stopped refinement leaves Tables 1–4 on disk.
  writeCriticReport(out, name, results, null, settings);
  let refinement: RefineRun[] | null = null;
  if (refineLimit !== 0) {
    const show = progress("refinement loops");
    refinement = await runRefinement({
      dir,
      out,
      seed: 0,
      noise,
      grounding: flags.grounding,
      maxRewrites,
      limit: refineLimit,
      onProgress: (done, total, last) =>
        show(
          done,
          total,
          last ? ` (last: ${last.case} ${last.status} after ${last.iterations.length} program(s))` : "",
        ),
    });
  }
  const files = writeCriticReport(out, name, results, refinement, settings);
  process.stdout.write(
    `${files.markdown}\nreport: ${files.md}\n        ${files.html} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`,
  );
  return 0;
}
