/**
 * The emergency stop, each way it can come, with real processes: SIGINT to the agent (`robograph run`), the bridge's
 * `/robograph/stop` service called by another client, and an aborted experiment. Each time the goal in flight is
 * canceled on the simulator (the robot stops: its event log says `skill_canceled`) and the run ends `interrupted`;
 * resumed, the stopped run finishes without any goal started twice.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { startSim, type SimProcess } from "../helpers/processes";
import { startSimProcess } from "../../robots/sim/process";
import { agent, killWhenStarted, runOn } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { runExperiment, experimentDir, type ExperimentOptions } from "../../evals/runner";
import { stopReason } from "../../runtime/estop";
import { PAUSE_SERVICE, UNPAUSE_SERVICE } from "../../robots/sim/serve";

type SimEvent = { kind: string; goalId?: string; skill?: string };
const sims: SimProcess[] = [];
const clients: BridgeClient[] = [];
// After all, not each: the tests run concurrently (each with its own simulator, thread and data).
afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(sims.splice(0).map((s) => s.stop()));
});

/**
 * A simulator paused from the start, and a client that watches it: the first goal is accepted and waits, so a stop
 * sent once the robot has it lands while it runs, however late this process sends it.
 */
async function pausedSim(sim: SimProcess) {
  sims.push(sim);
  const watcher = await BridgeClient.connect(sim.url);
  clients.push(watcher);
  await watcher.callService(PAUSE_SERVICE);
  const events = async () => (await watcher.callService<{ events: SimEvent[] }>("/evaluator/events")).events;
  return { sim, watcher, events, unpause: () => watcher.callService(UNPAUSE_SERVICE) };
}

const pausedKitchen = async () => pausedSim(await startSim(["--scenario", "integration_tea_to_trash"]));

describe.concurrent("emergency stop", () => {
  it("SIGINT to the agent: the robot's goal is canceled, the run ends interrupted (exit 3), and resumes to the end", async ({
    expect,
  }) => {
    const { sim, watcher, events, unpause } = await pausedKitchen();
    const data = scratchDir();
    const thread = "estop-sigint";
    const common = [...runOn(sim.url, thread, data), "--forget"];
    let armed = false;
    const first = await agent(common, (line, kill) => {
      // The first goal (the base's drive to the refrigerator): stop once the robot has started it.
      if (armed || !new RegExp(`dispatch\\s+goal ${thread}/0/`).test(line)) return;
      armed = true;
      killWhenStarted(watcher, `${thread}/0/`, () => kill("SIGINT"));
    });
    expect(first.code, first.out).toBe(3);
    expect(first.out).toMatch(/SIGINT: emergency stop/);
    expect(first.out).toMatch(
      /INTERRUPTED — interrupted: interrupted during mobile\/go_to \{"navigation_point":"in_front_of_refrigerator"\}: SIGINT to the agent/,
    );
    const summary = JSON.parse(readFileSync(join(data, "runs", thread, "summary.json"), "utf8"));
    expect(summary).toMatchObject({
      status: "interrupted",
      resume: `npm start -- --thread ${thread} --resume --bridge-url ${sim.url}`,
    });
    // The robot stopped: the goal ended canceled on the simulator, nothing after it was sent.
    const stopped = (await events()).filter((e) => e.goalId?.startsWith(`${thread}/0/`));
    expect(stopped.map((e) => e.kind)).toEqual(["skill_started", "skill_canceled"]);
    expect((await events()).some((e) => e.goalId?.startsWith(`${thread}/1/`))).toBe(false);

    await unpause();
    const second = await agent([...common, "--resume"]);
    expect(second.out).toMatch(/running executor again/);
    expect(second.code, second.out).toBe(0);
    const started = (await events())
      .filter((e) => e.kind === "skill_started" && e.goalId?.startsWith(`${thread}/`))
      .map((e) => e.goalId);
    expect(new Set(started).size).toBe(started.length);
  }, 180_000);

  it("/robograph/stop from another client: every goal in flight is canceled and the agent's run ends interrupted", async ({
    expect,
  }) => {
    const { sim, watcher, events } = await pausedKitchen();
    const data = scratchDir();
    const thread = "estop-service";
    let stop: Promise<{ success: boolean; message: string }> | undefined;
    const run = await agent([...runOn(sim.url, thread, data), "--forget"], (line) => {
      if (stop || !new RegExp(`dispatch\\s+goal ${thread}/0/`).test(line)) return;
      stop = new Promise((resolve) =>
        killWhenStarted(watcher, `${thread}/0/`, () => resolve(watcher.callService("/robograph/stop"))),
      );
    });
    expect((await stop)!).toMatchObject({
      success: true,
      message: expect.stringMatching(new RegExp(`^canceled 1 goal: ${thread}/0/mobile/go_to#`)),
    });
    expect(run.code, run.out).toBe(3);
    expect(run.out).toMatch(
      /INTERRUPTED — interrupted: interrupted during mobile\/go_to .*its goal was canceled on the robot \(an emergency stop: \/robograph\/stop or another client\)/,
    );
    expect((await events()).filter((e) => e.goalId?.startsWith(`${thread}/0/`)).map((e) => e.kind)).toEqual([
      "skill_started",
      "skill_canceled",
    ]);
    // With nothing running, the service says so.
    expect(await watcher.callService("/robograph/stop")).toEqual({ success: true, message: "no goal was running" });
  }, 180_000);

  it("aborting an experiment: the episode's goal is canceled on its simulator and the episode ends interrupted, with no result", async ({
    expect,
  }) => {
    const root = scratchDir();
    const controller = new AbortController();
    const settings: ExperimentOptions = {
      name: "estop",
      dataset: "kitchen",
      variants: ["full"],
      seeds: 1,
      noise: 0,
      concurrency: 1,
      limit: 1,
      root,
      maxSteps: 40,
      maxWallSeconds: 300,
      speed: "1",
      signal: controller.signal,
    };
    const events = join(experimentDir(settings), "episodes", "full__search_tea_and_hamburger__c1__s0", "events.jsonl");
    // Abort once the first goal has been dispatched (and, at real-time speed, is still running a moment later).
    const watch = setInterval(() => {
      if (existsSync(events) && readFileSync(events, "utf8").includes('"node":"dispatch"')) {
        clearInterval(watch);
        setTimeout(() => controller.abort(), 300);
      }
    }, 20);
    const results = await runExperiment(settings).finally(() => clearInterval(watch));
    expect(results).toEqual([]);
    const lines = readFileSync(events, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { node: string; update: { status?: string; history?: { message: string }[] } });
    const last = lines.at(-1)!;
    expect(last.node).toBe("executor");
    expect(last.update.status).toBe("interrupted");
    // The bridge answered the goal as canceled: the simulator stopped the robot before the experiment stopped it.
    expect(last.update.history?.[0].message).toBe("canceled: the experiment was aborted");
    expect(
      existsSync(join(experimentDir(settings), "episodes", "full__search_tea_and_hamburger__c1__s0", "result.json")),
    ).toBe(false);
    // The stop was the experiment's: this process runs on unstopped.
    expect(stopReason()).toBeUndefined();
  }, 180_000);

  describe("in the behaviour critic's refinement", () => {
    it("/robograph/stop while the hand runs a program: the run ends interrupted, and resumed, the program runs again from a reset scene", async ({
      expect,
    }) => {
      const { sim, watcher, unpause } = await pausedSim(
        await startSimProcess("workbench", ["--scenario", "bread_tray"]),
      );
      const data = scratchDir();
      const thread = "estop-critic";
      const common = [
        "--graph",
        "behaviorCritic",
        "--scenario",
        "bread_tray",
        ...runOn(sim.url, thread, data),
        "--forget",
      ];
      let stop: Promise<{ success: boolean; message: string }> | undefined;
      const first = await agent(common, (line) => {
        if (stop || !new RegExp(`dispatch\\s+goal ${thread}/0/`).test(line)) return;
        stop = new Promise((resolve) =>
          killWhenStarted(watcher, `${thread}/0/`, () => resolve(watcher.callService("/robograph/stop"))),
        );
      });
      expect((await stop)!.message).toMatch(new RegExp(`^canceled 1 goal: ${thread}/0/palm/run_primitives#`));
      expect(first.code, first.out).toBe(3);
      expect(first.out).toMatch(
        /INTERRUPTED — interrupted: interrupted during program 0: its goal was canceled on the robot/,
      );
      // No critique of half a program: the run stopped at the executor.
      expect(first.out).not.toMatch(/critique\s/);

      await unpause();
      const second = await agent([...common, "--resume"]);
      expect(second.out).toMatch(/running executor again/);
      expect(second.code, second.out).not.toBe(3);
      const summary = JSON.parse(readFileSync(join(data, "runs", thread, "summary.json"), "utf8"));
      expect(["succeeded", "budget_exhausted"]).toContain(summary.status);
      // The program ran again under a new goal id (goal 1) from a reset scene (the reset clears the simulator's event log,
      // so the agent's own record is what shows it); every goal sent was new.
      const sent = [...second.out.matchAll(new RegExp(`dispatch\\s+goal (${thread}/\\d+)/`, "g"))].map((m) => m[1]);
      expect(sent[0]).toBe(`${thread}/1`);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent).not.toContain(`${thread}/0`);
    }, 240_000);
  });
});
