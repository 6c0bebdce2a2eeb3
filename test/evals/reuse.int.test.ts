/**
 * Simulators kept between episodes: an episode on a simulator reset from another episode is the same episode as on a
 * fresh process — the same skills, outcomes, model calls, simulator check and event log — and nothing of the earlier
 * episode (its goals, its events, its frames) is left to see. Real simulator processes over the real bridge.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { RESET_SERVICE } from "../../robots/msgs/rollout";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { loadScenario } from "../../robots/sim/kitchen/scenario";
import { totalUsage } from "../../models";
import { executedCalls, runMethodEpisode, type EpisodeRun } from "../../evals/episode";
import { COURSE_GOAL, loadDataset } from "../../evals/datasets";
import type { ClosedLoopStateType } from "../../graphs/clea/state";
import { scratchDir } from "../helpers/episode";

const sims: SimProcess[] = [];
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
});

async function sim(world: string, args: string[]): Promise<SimProcess> {
  const started = await startSimProcess(world, [...args, "--speed", "max"]);
  sims.push(started);
  return started;
}

async function reset(url: string, args: Record<string, unknown>) {
  const client = await BridgeClient.connect(url);
  try {
    return await client.callService<{ scenario: string; seed: number; canceled: string[]; success: boolean }>(
      RESET_SERVICE,
      args,
    );
  } finally {
    await client.close();
  }
}

/** The state every method's episode has (RePLan's has no verdicts: they read as undefined there). */
type ComparedState = Pick<ClosedLoopStateType, "status" | "statusReason" | "usage"> &
  Partial<Pick<ClosedLoopStateType, "verdicts">>;

/** What an episode is, leaving out only wall-clock times and the goal ids (they carry the thread and its start time). */
function fingerprint(run: EpisodeRun<ComparedState>) {
  return {
    status: run.state.status,
    statusReason: run.state.statusReason,
    calls: executedCalls(run.trace as unknown as EpisodeRun["trace"]),
    nodes: run.trace.map((t) => t.node),
    usage: totalUsage(run.state.usage),
    verdicts: run.state.verdicts,
    truth: run.truth,
    events: run.events.map(({ goalId: _id, ...event }) => event),
  };
}

async function episode(url: string, mode: "clea" | "replan", goal: string, seed: number, thread: string) {
  // The episode's run closes its own robots' session.
  return runMethodEpisode({ mode, url, goal, thread, seed, noise: 0.15, dataDir: scratchDir() });
}

async function courseEpisode(url: string, seed: number, thread: string) {
  return runMethodEpisode({
    mode: "vlmpc",
    url,
    goal: COURSE_GOAL,
    thread,
    seed,
    noise: 0.2,
    maxSteps: 200,
    dataDir: scratchDir(),
  });
}

describe("a simulator reset between episodes", () => {
  it("kitchen: an episode after a reset equals the same episode on a fresh process, and nothing leaks", async () => {
    // A row whose world changes mid-episode (a perturbation after a skill), the hardest to start over cleanly.
    const rows = loadDataset("kitchen");
    const row =
      rows.find((r) => ((r.example.inputs.scenario as { perturbations?: unknown[] }).perturbations ?? []).length > 0) ??
      rows[0];
    const scenario = row.example.inputs.scenario as { name: string };
    const file = join(scratchDir(), "scenario.json");
    writeFileSync(file, JSON.stringify(scenario));
    const seed = 2;
    const fresh = await sim("kitchen", ["--scenario", file, "--seed", String(seed), "--grasp-sensing", "off"]);
    const onFresh = await episode(fresh.url, "clea", row.example.inputs.goal, seed, "fresh");

    // Another episode first (another scenario and seed), so the reset has something to clear.
    const reused = await sim("kitchen", [
      "--scenario",
      "search_pills_and_apple",
      "--seed",
      "7",
      "--grasp-sensing",
      "off",
    ]);
    const before = await episode(reused.url, "clea", loadScenario("search_pills_and_apple").instruction, 7, "before");
    expect(before.events.length).toBeGreaterThan(0);
    const out = await reset(reused.url, { scenario: row.example.inputs.scenario, seed });
    expect(out).toMatchObject({ scenario: scenario.name, seed, success: true });

    // Nothing of the earlier episode is left: no events, no goal to re-attach to.
    const client = await BridgeClient.connect(reused.url);
    try {
      expect((await client.callService<{ events: unknown[] }>("/evaluator/events")).events).toEqual([]);
      const goalIds = before.events.flatMap((e) => (e.goalId ? [e.goalId] : []));
      expect(goalIds.length).toBeGreaterThan(0);
      for (const id of goalIds)
        expect(await client.callService("/robograph/goal_status", { id })).toEqual({ known: false });
    } finally {
      await client.close();
    }
    const onReused = await episode(reused.url, "clea", row.example.inputs.goal, seed, "reused");
    expect(fingerprint(onReused)).toEqual(fingerprint(onFresh));
    expect(fingerprint(onFresh).calls.length).toBeGreaterThan(0);
  }, 300_000);

  it("tabletop: a scene after a reset runs as on a fresh process", async () => {
    const goal = "move the yellow_cube to target_position inside the wooden_cabinet";
    const fresh = await sim("tabletop", ["--scenario", "cabinet_open", "--seed", "1"]);
    const onFresh = await episode(fresh.url, "replan", goal, 1, "fresh-t");
    const reused = await sim("tabletop", ["--scenario", "color", "--seed", "4"]);
    const out = await reset(reused.url, { scenario: "cabinet_open", seed: 1 });
    expect(out).toMatchObject({ scenario: "cabinet_open", seed: 1, success: true });
    const onReused = await episode(reused.url, "replan", goal, 1, "reused-t");
    expect(fingerprint(onReused)).toEqual(fingerprint(onFresh));
    expect(onFresh.truth.success).toBe(true);
  }, 300_000);

  it("course: a course after a reset runs as on a fresh process", async () => {
    const fresh = await sim("course", ["--scenario", "indoor_1", "--seed", "3", "--miss-rate", "0.1"]);
    const onFresh = await courseEpisode(fresh.url, 3, "fresh-c");
    // The other process first runs another course, so the reset has a walked dog and its events to clear.
    const reused = await sim("course", ["--scenario", "generated_5", "--seed", "8", "--miss-rate", "0.1"]);
    const before = await courseEpisode(reused.url, 8, "before-c");
    expect(before.events.length).toBeGreaterThan(0);
    const out = await reset(reused.url, { scenario: "indoor_1", seed: 3 });
    expect(out).toMatchObject({ scenario: "indoor_1", seed: 3, success: true });
    const onReused = await courseEpisode(reused.url, 3, "reused-c");
    expect(fingerprint(onReused)).toEqual(fingerprint(onFresh));
    expect(onFresh.truth.success).toBe(true);
    await expect(reset(reused.url, { scenario: "moon_base" })).rejects.toThrow(
      /invalid reset: unknown course "moon_base"/,
    );
  }, 300_000);

  it("refuses a reset to a scenario it does not have, naming it, and keeps serving the old one", async () => {
    const tabletop = await sim("tabletop", ["--scenario", "cabinet_open"]);
    await expect(reset(tabletop.url, { scenario: "moon_base" })).rejects.toThrow(
      /invalid reset: unknown tabletop scenario moon_base/,
    );
    const k = await sim("kitchen", []);
    await expect(reset(k.url, { scenario: { name: "bad" } })).rejects.toThrow(
      /invalid reset: scenario \(given\) is invalid/,
    );
    await expect(reset(k.url, { seed: -1 })).rejects.toThrow(/seed must be a non-negative integer/);
    expect(await reset(k.url, { scenario: "search_pills_and_apple", seed: 3 })).toMatchObject({
      scenario: "search_pills_and_apple",
      seed: 3,
    });
  }, 120_000);
});
