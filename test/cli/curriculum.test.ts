/**
 * A Game On run repeats under its seed: the same command gives the same run record (report.json, the wall clock's
 * figures aside) — however the two simulator instances interleave, which another run loads the machine to change.
 * The curriculum used to hand each episode to whichever instance was free first, so episode names, the layout each
 * instance was left showing (the proposer's next image) and the learner's sample order moved from run to run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/processes";

const scratch = mkdtempSync(join(tmpdir(), "robograph-curriculum-run-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function curriculumRun(name: string): Promise<{ code: number | null; record: Record<string, unknown>; out: string }> {
  const dir = join(scratch, name);
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "cli", "robograph.ts"), "run", "--graph", "curriculum", "--budget-episodes", "80", "--seed", "3", "--runs-dir", dir, "--data-dir", join(dir, "data"), "--thread", "repeat", "--quiet"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OPENAI_API_KEY: "" } });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) =>
    child.on("exit", (code) => resolve({ code, out, record: code === 0 ? (JSON.parse(readFileSync(join(dir, "repeat", "report.json"), "utf8")) as Record<string, unknown>) : {} })),
  );
}

describe("a curriculum run under a seed", () => {
  it("writes the same report.json twice, timing aside, one run on a quiet machine and one beside busy processes", async () => {
    const quiet = await curriculumRun("quiet");
    expect(quiet.code, quiet.out).toBe(0);
    const burners = [0, 1].map(() => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
    let busy;
    try {
      busy = await curriculumRun("busy");
    } finally {
      for (const b of burners) b.kill("SIGKILL");
    }
    expect(busy.code, busy.out).toBe(0);
    const settled = (r: Record<string, unknown>) => JSON.stringify({ ...r, timing: undefined }, null, 1);
    expect((quiet.record.timing as { wallSeconds: number }).wallSeconds).toBeGreaterThan(0);
    expect(settled(busy.record)).toBe(settled(quiet.record));
    // The run did learn something to compare: iterations of the learner ran on both instances' episodes.
    expect((quiet.record.counters as { iterations: number }).iterations).toBeGreaterThan(0);
  }, 600_000);
});
