/**
 * `robograph run` tells the truth at its edges: a thread with nothing to resume says so before starting anything, and
 * where the agent's verdict and the simulator's check disagree the record says both and the exit code follows the check.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { programArgs } from "../../robots/programs";

const TSX = join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist", "cli.mjs");

/**
 * `robograph run` from the suite's precompiled build, or `asUser`, through the tsx CLI as `npm start` starts it (a
 * start there costs twice the CPU: tsx forks a second node).
 */
function run(args: string[], asUser = false): Promise<{ code: number | null; out: string }> {
  const cli = asUser ? [TSX, join(ROOT, "cli", "robograph.ts")] : programArgs("cli/robograph.ts");
  const child = spawn(process.execPath, [...cli, "run", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe("robograph run", () => {
  it("says a thread has nothing to resume, without starting a simulator or leaving a run record", async () => {
    const data = scratchDir();
    const result = await run([
      "--resume",
      "--thread",
      "never-ran",
      "--data-dir",
      data,
      "--runs-dir",
      join(data, "runs"),
    ]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/thread never-ran has nothing to resume: no checkpoint/);
    expect(result.out).not.toMatch(/simulator \(scenario/);
    expect(existsSync(join(data, "runs", "never-ran"))).toBe(false);
  });

  it("follows the simulator's check, not the agent's verdict, and records both when they disagree (started as npm start starts it)", async () => {
    const data = scratchDir();
    // Offline, "recycle" is not understood; the found-only reading must not pass for the task.
    const result = await run(
      [
        "--goal",
        "Find the bottle_of_tea and recycle it in the trash_can.",
        "--check",
        "in(bottle_of_tea, trash_can)",
        "--data-dir",
        data,
        "--runs-dir",
        join(data, "runs"),
        "--quiet",
      ],
      true,
    );
    const [thread] = readdirSync(join(data, "runs"));
    const summary = JSON.parse(readFileSync(join(data, "runs", thread, "summary.json"), "utf8"));
    expect(summary.checked).toBe(true);
    expect(summary.success).toBe(false);
    expect(summary.goal).toEqual([{ literal: "in(bottle_of_tea, trash_can)", holds: false }]);
    expect(result.code).toBe(2);
    expect(result.out).toMatch(/^NOT DONE/m);
    if (summary.agentStatus === "succeeded") {
      expect(summary.disagreement).toMatch(
        /the agent reports succeeded, but the simulator's check says the goal is not met/,
      );
      expect(result.out).toContain(summary.disagreement);
    }
  });

  it("checks a run given another goal on that goal, and a run given a sentence alone not at all — never on the scenario's goal", async () => {
    const data = scratchDir();
    const summaryOf = (thread: string) => JSON.parse(readFileSync(join(data, "runs", thread, "summary.json"), "utf8"));
    const args = (thread: string, ...more: string[]) => [
      "--thread",
      thread,
      ...more,
      "--data-dir",
      data,
      "--runs-dir",
      join(data, "runs"),
      "--quiet",
    ];
    // The default scenario asks for the tea in the trash can; this run is asked for the apple in the oven, and does it.
    const own = await run(args("own-goal", "--goal", "Put the apple into the oven.", "--check", "in(apple, oven)"));
    expect(summaryOf("own-goal")).toMatchObject({
      checked: true,
      success: true,
      goal: [{ literal: "in(apple, oven)", holds: true }],
    });
    expect(own.code).toBe(0);
    // The same run without --check: the scenario's literals say nothing of it, so it is not scored.
    const unchecked = await run(args("unchecked", "--goal", "Put the apple into the oven."));
    expect(summaryOf("unchecked")).toMatchObject({ checked: false, success: null, agentStatus: "succeeded" });
    expect(summaryOf("unchecked").unchecked).toMatch(/the run's goal is not scenario integration_tea_to_trash's/);
    expect(unchecked.out).toMatch(/^UNCHECKED/m);
    expect(unchecked.code).toBe(0);
    // A literal naming what the world lacks: the record says why it went unchecked; nothing is taken for "not done".
    await run(args("no-unicorn", "--goal", "Find the unicorn.", "--check", "in(unicorn, sink)"));
    expect(summaryOf("no-unicorn")).toMatchObject({ checked: false, success: null });
    expect(summaryOf("no-unicorn").unchecked).toMatch(/names what the kitchen world does not have: unicorn/);
    // A literal that is not one is refused before anything starts.
    const bad = await run(args("bad", "--check", "apple in oven"));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/not a literal: "apple in oven"/);
  }, 180_000);

  it("runs a scenario file from anywhere: the simulator is given the file, not a name it would look up", async () => {
    const data = scratchDir();
    const file = join(data, "my own scenario.json");
    // Its own name, which no scenario in the repo has: looking it up by name would fail.
    const scenario = JSON.parse(
      readFileSync(join(ROOT, "robots", "sim", "kitchen", "scenarios", "integration_apple_to_oven.json"), "utf8"),
    );
    writeFileSync(file, JSON.stringify({ ...scenario, name: "my_own_scenario" }));
    const result = await run(["--scenario", file, "--data-dir", data, "--runs-dir", join(data, "runs"), "--quiet"]);
    expect(result.out).toMatch(/^SUCCESS/m);
    expect(result.code).toBe(0);
  });
});
