/** The bench's command line: what --help prints, which sections --only picks, and the refusals of a bad line. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { BENCH_HELP, BENCH_SECTIONS, BenchUsageError, parseBenchOptions, runBenchmarks } from "../../../evals/bench";

afterEach(() => vi.restoreAllMocks());

describe("bench options", () => {
  it("runs every section by default", () => {
    expect(parseBenchOptions([])).toEqual({ help: false, quick: false, latencyMs: 300, blocksLearn: false });
  });

  it("picks sections with --only and the --<section>-only spellings", () => {
    expect(parseBenchOptions(["--only", "ros-camera,suite"]).only).toEqual(["ros-camera", "suite"]);
    expect(parseBenchOptions(["--only=latency", "--ros-only"]).only).toEqual(["latency", "ros"]);
    expect(parseBenchOptions(["--mpc-only", "--quick"])).toMatchObject({ only: ["mpc"], quick: true });
  });

  it("reads values given apart or with =", () => {
    expect(parseBenchOptions(["--json", "a.json", "--latency-ms=0", "--kitchens", "3"])).toMatchObject({
      json: "a.json",
      latencyMs: 0,
      kitchens: 3,
    });
    expect(parseBenchOptions(["--test-times", "runs/x.json", "--blocks-learn"])).toMatchObject({
      testTimes: "runs/x.json",
      blocksLearn: true,
    });
  });

  it("refuses what it cannot run, naming it", () => {
    expect(() => parseBenchOptions(["--bogus"])).toThrow(new BenchUsageError("unknown option --bogus"));
    expect(() => parseBenchOptions(["--only", "rosx"])).toThrow(/unknown section rosx; sections: core, ros/);
    expect(() => parseBenchOptions(["--nope-only"])).toThrow(/unknown option --nope-only/);
    expect(() => parseBenchOptions(["--json"])).toThrow(/--json needs a value/);
    expect(() => parseBenchOptions(["--json", "--quick"])).toThrow(/--json needs a value/);
    expect(() => parseBenchOptions(["--latency-ms", "soon"])).toThrow(/--latency-ms must be a number/);
    expect(() => parseBenchOptions(["--kitchens", "2.5"])).toThrow(/--kitchens must be a whole number/);
    expect(() => parseBenchOptions(["--quick=yes"])).toThrow(new BenchUsageError("--quick takes no value"));
    expect(() => parseBenchOptions(["suite"])).toThrow(
      new BenchUsageError("unexpected argument suite: sections go in --only"),
    );
  });

  it("lists every section and option in its help, and takes every option it lists", () => {
    for (const section of Object.keys(BENCH_SECTIONS)) expect(BENCH_HELP).toMatch(new RegExp(`^  ${section} `, "m"));
    const samples: Record<string, string[]> = {
      "--only": ["--only", "suite"],
      "--quick": ["--quick"],
      "--json": ["--json", "f.json"],
      "--latency-ms": ["--latency-ms", "10"],
      "--kitchens": ["--kitchens", "0"],
      "--blocks-learn": ["--blocks-learn"],
      "--test-times": ["--test-times", "f.json"],
      "--<section>-only": ["--suite-only"],
      "--help": ["--help"],
    };
    const listed = [...BENCH_HELP.matchAll(/^ {2}(?:-h, )?(--[a-z<>-]+)/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(samples).sort());
    for (const argv of Object.values(samples)) expect(() => parseBenchOptions(argv)).not.toThrow();
  });

  it("prints its help and exits 0 without starting anything; a bad line exits 2 with the help", async () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true));
    expect(await runBenchmarks(["--help"])).toBe(0);
    expect(out.join("")).toBe(BENCH_HELP);
    expect(await runBenchmarks(["--only", "nothing"])).toBe(2);
    expect(err.join("")).toMatch(/^robograph bench: unknown section nothing/);
    expect(err.join("")).toContain(BENCH_HELP);
  });
});
