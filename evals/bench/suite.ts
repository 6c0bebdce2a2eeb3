/**
 * How long a developer waits for `npm test`: the bench's suite section reads the timing report `npm run test:times`
 * writes (this file is also that run's vitest reporter) and prints the suite's wall seconds against the 15-minute
 * target and its slowest ten files. A report of part of the suite is said to be partial and not held to the target.
 * Without a report it says how to make one and the bench goes on.
 *
 * Each file's seconds are the whole of what it costs: environment, harness, import and collection (where MuJoCo and
 * `beforeAll` processes land) and every test and hook — vitest's own JSON reporter counts only the tests' spans.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reporter, TestModule, TestRunEndReason, Vitest } from "vitest/node";
import type { BenchSink } from "./ros";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Where `npm run test:times` writes the report and the bench reads it (runs/ is not committed). */
export const DEFAULT_TEST_TIMES = join("runs", "test-times.json");
export const SUITE_TARGET_SECONDS = 15 * 60;

export interface TestTimesReport {
  kind: "robograph-test-times";
  /** When the run started (ISO). */
  startedAt: string;
  /** The run's wall time, first file started to the end. */
  wallSeconds: number;
  /** Files of the run, relative to the repository root; seconds are each file's whole cost. */
  files: { file: string; seconds: number; state: string; tests: number }[];
}

/** The vitest reporter of `npm run test:times`: writes a TestTimesReport (ROBOGRAPH_TEST_TIMES or runs/test-times.json). */
export default class TestTimesReporter implements Reporter {
  private startedAt = Date.now();
  private root = ROOT;

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunStart(): void {
    this.startedAt = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    const files = modules.map((module) => {
      const cost = module.diagnostic();
      const ms =
        cost.environmentSetupDuration +
        cost.prepareDuration +
        cost.collectDuration +
        cost.setupDuration +
        cost.duration;
      return {
        file: relative(this.root, module.moduleId),
        seconds: ms / 1000,
        state: module.state(),
        tests: [...module.children.allTests()].length,
      };
    });
    const report: TestTimesReport = {
      kind: "robograph-test-times",
      startedAt: new Date(this.startedAt).toISOString(),
      wallSeconds: (Date.now() - this.startedAt) / 1000,
      files,
    };
    const out = resolve(this.root, process.env.ROBOGRAPH_TEST_TIMES ?? DEFAULT_TEST_TIMES);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
    process.stdout.write(`test times (${reason}) written to ${relative(process.cwd(), out)}\n`);
  }
}

interface VitestJsonReport {
  startTime: number;
  testResults: { name: string; startTime: number; endTime: number; status: string; assertionResults: unknown[] }[];
}

/** A report as the bench reads it: ours, or vitest's own JSON reporter's (whose per-file spans leave out setup). */
export function readTestTimes(file: string): TestTimesReport & { testSpansOnly: boolean } {
  const data = JSON.parse(readFileSync(file, "utf8")) as Partial<TestTimesReport> & Partial<VitestJsonReport>;
  if (data.kind === "robograph-test-times" && Array.isArray(data.files) && typeof data.wallSeconds === "number")
    return { ...(data as TestTimesReport), testSpansOnly: false };
  if (typeof data.startTime === "number" && Array.isArray(data.testResults)) {
    const end = Math.max(data.startTime, ...data.testResults.map((r) => r.endTime));
    return {
      kind: "robograph-test-times",
      startedAt: new Date(data.startTime).toISOString(),
      wallSeconds: (end - data.startTime) / 1000,
      files: data.testResults.map((result) => ({
        file: relative(ROOT, result.name),
        seconds: (result.endTime - result.startTime) / 1000,
        state: result.status,
        tests: result.assertionResults.length,
      })),
      testSpansOnly: true,
    };
  }
  throw new Error(`${file} is neither a test-times report (npm run test:times) nor vitest's JSON report`);
}

/** Every test file in the tree (what a whole `npm test` runs), relative to the root. */
export function suiteFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".test.ts")) out.push(relative(root, path));
    }
  };
  walk(join(root, "test"));
  return out.sort();
}

/** The suite-time rows: wall seconds against 15 minutes (for a whole-suite report) and the slowest ten files. */
export async function suiteTimeBenchmarks(sink: BenchSink, file = DEFAULT_TEST_TIMES): Promise<void> {
  const path = resolve(ROOT, file);
  if (!existsSync(path)) {
    sink.unmeasured(
      "suite time",
      `skipped: no test-times report at ${file}; make one with \`npm run test:times\` (the whole suite, ~15-35 min) ` +
        `or \`npx vitest run FILES --reporter=default --reporter=./evals/bench/suite.ts\` for some files`,
    );
    return;
  }
  const report = readTestTimes(path);
  const all = suiteFiles();
  const covered = new Set(report.files.map((f) => f.file));
  const whole = all.every((f) => covered.has(f));
  const failed = report.files.filter((f) => f.state === "failed").length;
  console.log(
    `test-times report ${file}: run started ${report.startedAt}, ${report.files.length} of the ${all.length} test files` +
      `${whole ? " (the whole suite)" : " (partial: not held to the target)"}, ${failed} failed` +
      `${report.testSpansOnly ? "; vitest's JSON reporter: file times are the tests' spans, without setup and imports" : ""}`,
  );
  sink.report({
    name: whole ? "npm test: whole suite wall time" : `vitest run of ${report.files.length} files: wall time`,
    value: report.wallSeconds,
    unit: "s",
    ...(whole
      ? { target: `<= ${SUITE_TARGET_SECONDS} s (15 min)`, ok: report.wallSeconds <= SUITE_TARGET_SECONDS }
      : {}),
  });
  const slowest = [...report.files].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
  slowest.forEach((slow, i) =>
    sink.report({
      name: `slowest test file ${i + 1}: ${slow.file}${slow.state === "passed" ? "" : ` (${slow.state})`}`,
      value: slow.seconds,
      unit: "s",
    }),
  );
}
