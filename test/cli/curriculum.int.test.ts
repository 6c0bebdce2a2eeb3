/**
 * A Game On run repeats under its seed: the same command gives the same run record (report.json, the wall clock's
 * figures aside) — however the two simulator instances interleave, which the second run changes by stalling them in turn.
 * The curriculum used to hand each episode to whichever instance was free first, so episode names, the layout each
 * instance was left showing (the proposer's next image) and the learner's sample order moved from run to run.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, stallSimulators } from "../helpers/processes";
import { programArgs } from "../../robots/programs";

const scratch = mkdtempSync(join(tmpdir(), "robograph-curriculum-run-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function curriculumRun(
  name: string,
  extra: string[] = ["--budget-episodes", "80"],
): Promise<{ code: number | null; record: Record<string, unknown>; out: string }> {
  const dir = join(scratch, name);
  const child = spawn(
    process.execPath,
    programArgs("cli/robograph.ts", [
      "run",
      "--graph",
      "curriculum",
      "--seed",
      "3",
      ...extra,
      "--runs-dir",
      dir,
      "--data-dir",
      join(dir, "data"),
      "--thread",
      "repeat",
      "--quiet",
    ]),
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OPENAI_API_KEY: "" } },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      const file = join(dir, "repeat", "report.json");
      resolve({
        code,
        out,
        record: existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {},
      });
    }),
  );
}

describe("a curriculum run under a seed", () => {
  it("writes the same report.json twice, timing aside, one run as it comes and one with its simulators stalled in turn", async () => {
    const quiet = await curriculumRun("quiet");
    expect(quiet.code, quiet.out).toBe(0);
    const stalling = stallSimulators();
    let busy, stalls;
    try {
      busy = await curriculumRun("busy");
    } finally {
      stalls = stalling.stop();
    }
    // The second run's simulators were stalled, one then the other, many times over.
    expect(stalls).toBeGreaterThan(20);
    expect(busy.code, busy.out).toBe(0);
    const settled = (r: Record<string, unknown>) => JSON.stringify({ ...r, timing: undefined }, null, 1);
    expect((quiet.record.timing as { wallSeconds: number }).wallSeconds).toBeGreaterThan(0);
    expect(settled(busy.record)).toBe(settled(quiet.record));
    // The run did learn something to compare: iterations of the learner ran on both instances' episodes.
    expect((quiet.record.counters as { iterations: number }).iterations).toBeGreaterThan(0);
  }, 600_000);
});

describe("a curriculum run from another start", () => {
  it("starts its simulators with blocks stacked, proposes from what it sees, and says which start it ran from; an unknown start is refused", async () => {
    const bad = await curriculumRun("bad-start", ["--start", "sideways"]);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/--start must be one of floor, stacked, leaning, held, not "sideways"/);
    const run = await curriculumRun("stacked", ["--budget-episodes", "24", "--start", "stacked"]);
    // (A run this short learns nothing yet: it exits 2, its record written.)
    expect([0, 2], run.out).toContain(run.code);
    expect((run.record.facts as { start: string }).start).toBe("stacked");
    const cycles = run.record.cycles as {
      scene: { blocks: { label: string; on?: string }[] };
      proposal: { task: string };
    }[];
    // The first image shows a block resting on another, as the detector reported it.
    expect(cycles[0].scene.blocks.some((b) => b.on && !["basket", "gripper"].includes(b.on))).toBe(true);
  }, 300_000);
});
