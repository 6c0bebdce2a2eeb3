/**
 * The order the suite's files start in: longest first, by the seconds committed in test/durations.json. With two
 * workers, a file that starts last is the run's tail. Vitest's own order needs a cache of earlier runs, and a fresh
 * clone (CI) has none, so it starts the largest files first. The two `reproduce` files are small files of several
 * minutes each: they started last and ran alone at the end, 3 minutes longer than the longest-first order.
 *
 * Files the committed list does not know (new ones) start first, as vitest starts the files it has no history of. A
 * file that failed in this checkout's last run also starts first, as vitest does. Projects keep vitest's own order.
 *
 * `npm run test:order` rewrites test/durations.json from a whole-suite `npm run test:times` report.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";
// With its extension: vitest.config.ts imports this file, and Vite's config loader warns at an import without one.
import { DEFAULT_TEST_TIMES, readTestTimes, suiteFiles } from "../../evals/bench/suite.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Each test file's whole cost in seconds, from the last whole-suite timing run committed. */
export const DURATIONS_FILE = join(ROOT, "test", "durations.json");

export function readDurations(file = DURATIONS_FILE): Record<string, number> {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, number>) : {};
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => {
      const file = relative(root, spec.moduleId);
      if (this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.failed) return Infinity;
      return durations[file] ?? Number.MAX_VALUE;
    };
    return [...files].sort((first, second) => {
      const group = first.project.config.sequence.groupOrder - second.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (first.project.name !== second.project.name) return first.project.name < second.project.name ? -1 : 1;
      const [one, other] = [rank(first), rank(second)];
      return one === other ? 0 : one > other ? -1 : 1;
    });
  }
}

/** test/durations.json from a whole-suite timing report: refuses a partial or failed run, whose times would mislead. */
export function writeDurations(report = join(ROOT, DEFAULT_TEST_TIMES), out = DURATIONS_FILE): number {
  const { files, testSpansOnly } = readTestTimes(report);
  const seen = new Set(files.map((f) => f.file));
  const missing = suiteFiles().filter((f) => !seen.has(f));
  if (testSpansOnly)
    throw new Error(`${report}: vitest's JSON report leaves out setup; make one with npm run test:times`);
  if (missing.length) throw new Error(`${report} is not the whole suite: it lacks ${missing.join(", ")}`);
  const failed = files.filter((f) => f.state !== "passed").map((f) => f.file);
  if (failed.length) throw new Error(`${report}: ${failed.join(", ")} did not pass`);
  const sorted = [...files].sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : 1));
  writeFileSync(out, JSON.stringify(Object.fromEntries(sorted.map((f) => [f.file, round(f.seconds)])), null, 2) + "\n");
  return sorted.length;
}

const round = (s: number) => Math.round(s * 10) / 10;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const report = process.argv[2] ?? join(ROOT, DEFAULT_TEST_TIMES);
  const count = writeDurations(report);
  process.stdout.write(`${relative(process.cwd(), DURATIONS_FILE)}: ${count} files from ${report}\n`);
}
