/**
 * The suite-time rows from a real vitest run: a child vitest over one small file with the test-times reporter (what
 * `npm run test:times` uses) and vitest's own JSON reporter, read back by the bench's suite section; a whole-suite
 * report held to the 15-minute target; no report says how to make one.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Figure } from "../../../evals/bench/agent";
import { readTestTimes, suiteFiles, suiteTimeBenchmarks, type TestTimesReport } from "../../../evals/bench/suite";

const SMALL = "test/evals/bench/options.test.ts";

function collect() {
  const figures: Figure[] = [];
  const unmeasured: { rows: string; why: string }[] = [];
  return {
    figures,
    unmeasured,
    sink: {
      report: (f: Figure) => figures.push(f),
      unmeasured: (rows: string, why: string) => unmeasured.push({ rows, why }),
    },
  };
}

describe("the suite-time rows", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "robograph-test-times-"));
    const child = spawn(
      process.execPath,
      [
        "node_modules/vitest/vitest.mjs",
        "run",
        SMALL,
        "--reporter=./evals/bench/suite.ts",
        "--reporter=json",
        `--outputFile.json=${join(dir, "vitest.json")}`,
      ],
      { env: { ...process.env, ROBOGRAPH_TEST_TIMES: join(dir, "times.json") }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let said = "";
    child.stdout.on("data", (d) => (said += d));
    child.stderr.on("data", (d) => (said += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`the child vitest exited with ${code}: ${said}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the reporter's file: one file, its tests, its whole cost", () => {
    const report = readTestTimes(join(dir, "times.json"));
    expect(report.testSpansOnly).toBe(false);
    expect(report.files.map((f) => [f.file, f.state])).toEqual([[SMALL, "passed"]]);
    expect(report.files[0].tests).toBe(6);
    expect(report.files[0].seconds).toBeGreaterThan(0);
    expect(report.wallSeconds).toBeGreaterThan(0);
  });

  it("reads vitest's own JSON report too, saying its file times leave setup out", () => {
    const report = readTestTimes(join(dir, "vitest.json"));
    expect(report.testSpansOnly).toBe(true);
    expect(report.files.map((f) => [f.file, f.state, f.tests])).toEqual([[SMALL, "passed", 6]]);
  });

  it("prints a partial run's wall time without the target, and its slowest files", async () => {
    const { figures, sink } = collect();
    await suiteTimeBenchmarks(sink, join(dir, "times.json"));
    expect(figures.map((f) => f.name)).toEqual(["vitest run of 1 files: wall time", `slowest test file 1: ${SMALL}`]);
    expect(figures[0].ok).toBeUndefined();
  });

  it("holds a whole-suite report to 15 minutes and lists ten files, slowest first", async () => {
    const files = suiteFiles();
    expect(files).toContain(SMALL);
    const report: TestTimesReport = {
      kind: "robograph-test-times",
      startedAt: new Date(0).toISOString(),
      wallSeconds: 1000,
      files: files.map((file, i) => ({ file, seconds: i, state: i === 0 ? "failed" : "passed", tests: 1 })),
    };
    writeFileSync(join(dir, "whole.json"), JSON.stringify(report));
    const { figures, sink } = collect();
    await suiteTimeBenchmarks(sink, join(dir, "whole.json"));
    expect(figures[0]).toMatchObject({ name: "npm test: whole suite wall time", value: 1000, ok: false });
    expect(figures.slice(1).map((f) => f.value)).toEqual([...Array(10)].map((_, i) => files.length - 1 - i));
    writeFileSync(join(dir, "whole.json"), JSON.stringify({ ...report, wallSeconds: 899 }));
    const again = collect();
    await suiteTimeBenchmarks(again.sink, join(dir, "whole.json"));
    expect(again.figures[0].ok).toBe(true);
  });

  it("says how to make a report when there is none, and goes on", async () => {
    const { figures, unmeasured, sink } = collect();
    await suiteTimeBenchmarks(sink, join(dir, "absent.json"));
    expect(figures).toEqual([]);
    expect(unmeasured).toHaveLength(1);
    expect(unmeasured[0].why).toMatch(
      /^skipped: no test-times report at .*absent\.json; make one with `npm run test:times`/,
    );
  });
});
