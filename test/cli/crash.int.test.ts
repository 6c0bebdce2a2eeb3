/**
 * Crash safety: the agent process is SIGKILLed right after it sent a goal; rerun with the same thread, it resumes
 * from its SQLite checkpoint, re-attaches to the goal instead of sending it again, and finishes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { startSim, type SimProcess } from "../helpers/processes";
import { agent, killMidGoal, runOn } from "../helpers/agent";
import { startSimProcess } from "../../robots/sim/process";
import { scratchDir } from "../helpers/episode";

let sim: SimProcess;
let tabletop: SimProcess | undefined;
let course: SimProcess | undefined;
let piped: SimProcess | undefined;
afterAll(async () => {
  await piped?.stop();
  await sim?.stop();
  await tabletop?.stop();
  await course?.stop();
});

// Concurrently: each test has its own simulator, thread and data, and much of its time is waiting on it.
describe.concurrent("crash safety", () => {
  it("resumes after SIGKILL without executing any skill twice", async ({ expect }) => {
    sim = await startSim(["--scenario", "integration_tea_to_trash"]);
    const data = scratchDir();
    const common = runOn(sim.url, "crash-1", data);
    const watcher = await BridgeClient.connect(sim.url);
    // The third goal, mobile.pick_from(bottle_of_tea, refrigerator): held by a paused world when the agent is killed.
    let killing: Promise<void> | undefined;
    const first = await agent(common, (_line, kill) => void (killing ??= killMidGoal(watcher, "crash-1", 2, kill)));
    // Killed, or the wait for its goal would never end.
    expect(first.signal, first.out).toBe("SIGKILL");
    await killing;
    await watcher.close();
    expect(first.out).toMatch(/dispatch\s+goal crash-1\/2\/mobile\/pick_from/);

    const second = await agent([...common, "--resume"]);
    // It resumes at the goal it had recorded and sent (on a loaded machine the kill may land a goal or two later).
    const reattached = /re-attaching to goal (crash-1\/\d+\/\w+\/\w+#\w+)/.exec(second.out)?.[1];
    expect(reattached).toBeDefined();
    expect(second.out).toMatch(/SUCCESS/);
    expect(second.code).toBe(0);

    const client = await BridgeClient.connect(sim.url);
    const { events } = await client.callService<{ events: { kind: string; goalId?: string; skill?: string }[] }>(
      "/evaluator/events",
    );
    const check = await client.callService<{ success: boolean }>("/evaluator/check");
    await client.close();
    const started = events.filter((e) => e.kind === "skill_started").map((e) => e.goalId);
    expect(started.length).toBeGreaterThanOrEqual(7);
    expect(new Set(started).size).toBe(started.length);
    expect(started.filter((g) => g === reattached)).toHaveLength(1);
    expect(check.success).toBe(true);
  });

  it("resumes a pipelined run killed mid-skill, speculation in flight: nothing sent twice, the look after checks what was prepared", async ({
    expect,
  }) => {
    piped = await startSimProcess("kitchen", ["--scenario", "integration_tea_to_trash"]);
    const { reattached, success, started, out } = await crashAndResume(piped, "crash-p", ["--pipeline"]);
    expect(reattached).toMatch(/^crash-p\/\d+\/\w+\/\w+#/);
    expect(started.length).toBeGreaterThanOrEqual(7);
    // The resumed run goes on pipelined: the re-attached skill's look is checked against a prediction and skills go
    // out on prepared work again.
    expect(out).toMatch(/prediction_check +the look (agrees|contradicts)/);
    expect(out).toMatch(/speculator +beside the skill/);
    expect(success).toBe(true);
  });

  it("resumes RePLan's hierarchical mode mid-motion without running a motion twice", async ({ expect }) => {
    tabletop = await startSimProcess("tabletop", ["--scenario", "cabinet_barred"]);
    const { started, reattached, success } = await crashAndResume(tabletop, "crash-r", [
      "--world",
      "tabletop",
      "--scenario",
      "cabinet_barred",
    ]);
    expect(reattached).toMatch(/^crash-r\/\d+\/palm\/execute_motion#/);
    expect(started.length).toBeGreaterThanOrEqual(4);
    expect(success).toBe(true);
  });

  it("resumes VLM-PC mid-skill: the skill the robot had started is re-attached, not run again", async ({ expect }) => {
    course = await startSimProcess("course", ["--scenario", "indoor_1"]);
    const { reattached, success } = await crashAndResume(course, "crash-v", [
      "--graph",
      "vlmpc",
      "--scenario",
      "indoor_1",
    ]);
    expect(reattached).toMatch(/^crash-v\/\d+\/dog\/\w+#/);
    expect(success).toBe(true);
  });
});

/**
 * Runs the agent against `sim`, SIGKILLs it while the robot holds goal number 1 (the second), resumes the thread,
 * and returns what the resumed run re-attached to and every goal the robot started — each asserted started once.
 */
async function crashAndResume(sim: SimProcess, thread: string, args: string[]) {
  const data = scratchDir();
  const common = [...args, ...runOn(sim.url, thread, data)];
  const watcher = await BridgeClient.connect(sim.url);
  let killing: Promise<void> | undefined;
  const first = await agent(common, (_line, kill) => void (killing ??= killMidGoal(watcher, thread, 1, kill)));
  expect(first.signal, first.out).toBe("SIGKILL");
  await killing;
  await watcher.close();
  const second = await agent([...common, "--resume"]);
  const reattached = new RegExp(`re-attaching to goal (${thread}/[^\\s)]+)`).exec(second.out)?.[1];
  expect(reattached, second.out).toBeDefined();
  expect(second.out).toMatch(/SUCCESS/);
  const client = await BridgeClient.connect(sim.url);
  const { events } = await client.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events");
  const { success } = await client.callService<{ success: boolean }>("/evaluator/check");
  await client.close();
  const started = events.filter((e) => e.kind === "skill_started").map((e) => e.goalId);
  expect(new Set(started).size).toBe(started.length);
  return { reattached, started, success, out: second.out };
}
