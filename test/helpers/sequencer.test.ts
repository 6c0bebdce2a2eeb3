import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongestFirst, { readDurations, writeDurations } from "./sequencer";
import { suiteFiles } from "../../evals/bench/suite";
import { ROOT } from "./processes";

/** What the sequencer reads of vitest: the root, the cache's last results, and each file's project. */
function sequencer(failed: string[] = []) {
  const ctx = {
    config: { root: ROOT },
    cache: { getFileTestResults: (key: string) => (failed.includes(key) ? { failed: true, duration: 1 } : undefined) },
  } as unknown as Vitest;
  return new LongestFirst(ctx);
}
const spec = (project: string, file: string) =>
  ({
    moduleId: join(ROOT, file),
    project: { name: project, config: { sequence: { groupOrder: 0 } } },
  }) as unknown as TestSpecification;
const names = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

describe("the suite's order", () => {
  const durations = readDurations();
  const known = Object.keys(durations);

  it("starts the longest file first within a project, and keeps vitest's order of projects", async () => {
    const [longest, shortest] = [known[0]!, known[known.length - 1]!];
    const order = await sequencer().sort([spec("unit", shortest), spec("int", shortest), spec("int", longest)]);
    expect(names(order)).toEqual([longest, shortest, shortest]);
    expect(order.map((s) => s.project.name)).toEqual(["int", "int", "unit"]);
  });

  it("starts a file it has no time for first (a new file), and one that failed last in this checkout before that", async () => {
    const [longest, shortest] = [known[0]!, known[known.length - 1]!];
    const order = await sequencer([`int:${shortest}`]).sort([
      spec("int", longest),
      spec("int", "test/new.int.test.ts"),
      spec("int", shortest),
    ]);
    expect(names(order)).toEqual([shortest, "test/new.int.test.ts", longest]);
  });

  it("names files of the suite, longest first", () => {
    expect(known.filter((f) => !suiteFiles().includes(f))).toEqual([]);
    const seconds = Object.values(durations);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });

  it("is rewritten only from a whole suite that passed", () => {
    const dir = mkdtempSync(join(tmpdir(), "robograph-order-"));
    const report = (files: { file: string; seconds: number; state: string }[]) => {
      const path = join(dir, `report-${files.length}-${files[0]?.state}.json`);
      writeFileSync(path, JSON.stringify({ kind: "robograph-test-times", startedAt: "", wallSeconds: 1, files }));
      return path;
    };
    const all = suiteFiles().map((file, i) => ({ file, seconds: i + 0.04, state: "passed", tests: 1 }));
    const out = join(dir, "durations.json");
    expect(() => writeDurations(report(all.slice(1)), out)).toThrow(/not the whole suite: it lacks test\//);
    expect(() => writeDurations(report(all.map((f) => ({ ...f, state: "failed" }))), out)).toThrow(/did not pass/);
    expect(writeDurations(report(all), out)).toBe(all.length);
    const written = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
    expect(Object.keys(written)[0]).toBe(all[all.length - 1]!.file);
    expect(written[all[0]!.file]).toBe(0);
  });
});
