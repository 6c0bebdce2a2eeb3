/**
 * The agent's socket cut mid-skill. A short cut: the same client reconnects and re-attaches to the running goal by its
 * id, and the skill runs once. An outage longer than the robot's liveness window: the skill ends robot_lost (the run
 * pauses), and the client, its reconnection budget spent, gives up for good. Its run must let it go (so the run, and
 * later ones, work once the robot is back, as they must under a long-lived LangGraph server), and the lost goal is
 * re-attached on resume by a new client — the simulator still knows it — instead of being run twice. A real simulator
 * process behind a TCP proxy that the test takes down and brings back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { openRun, type Run } from "../../runtime/run";
import { clea } from "../../graphs/clea";
import { runRecordedGoal, withLostGoal } from "../../nodes/executor";
import { RobotLostError } from "../../robots/bridge/errors";
import { startSim, type SimProcess } from "../helpers/processes";
import { startTcpProxy, type TcpProxy } from "../helpers/tcpProxy";
import { scratchDir } from "../helpers/episode";
import { PAUSE_SERVICE, UNPAUSE_SERVICE } from "../../robots/sim/serve";

let sim: SimProcess;
let proxy: TcpProxy;
let watcher: BridgeClient;
beforeAll(async () => {
  sim = await startSim();
  proxy = await startTcpProxy({ port: sim.port });
  watcher = await BridgeClient.connect(sim.url);
});
const runs: Run[] = [];
afterAll(async () => {
  for (const r of runs) await r.close();
  await watcher?.close();
  await proxy?.close();
  await sim?.stop();
});

/** A run on the robot behind the proxy, as a graph's caller opens one. */
const newRun = () => {
  const run = openRun(clea.runtime, { bridgeUrl: proxy.url, dataDir: scratchDir() });
  runs.push(run);
  return run;
};
/** Physics held (the world paused) while the network goes: the drive is still running when it does. */
const pause = () => watcher.callService(PAUSE_SERVICE);
const unpause = () => watcher.callService(UNPAUSE_SERVICE);
const startedGoals = async (goalId: string) =>
  (await watcher.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events")).events.filter(
    (e) => e.kind === "skill_started" && e.goalId === goalId,
  ).length;

describe("a socket cut mid-skill", () => {
  it("the same client reconnects and re-attaches to the goal by its id: the skill runs once", async () => {
    const session = await newRun().session();
    const goalId = "reconnect-test/cut/mobile/go_to";
    const reconnected = new Promise((r) => session.client.once("reconnect", r));
    await pause();
    const result = runRecordedGoal(session, goalId, "mobile", "go_to", { navigation_point: "in_front_of_oven" });
    await expect.poll(() => startedGoals(goalId), { timeout: 10_000, interval: 50 }).toBe(1);
    // Every connection through the proxy is cut; new ones are let through at once.
    proxy.down();
    proxy.up();
    await reconnected;
    await unpause();
    const outcome = await result;
    expect(outcome).toMatchObject({ ok: true, status: "succeeded", goalId });
    expect(session.client.closed).toBe(false);
    expect(await startedGoals(goalId)).toBe(1);
  });
});

describe("a bridge client that gave up", () => {
  it("is let go by its run, whose next look at the robots connects again", async () => {
    const run = newRun();
    const first = await run.session();
    const gaveUp = new Promise((r) => first.client.once("close", r));
    proxy.down();
    await gaveUp;
    proxy.up();
    await unpause();
    const next = await run.session();
    expect(next).not.toBe(first);
    expect(next.client.connected).toBe(true);
    expect(next.robots.map((r) => r.id)).toEqual(first.robots.map((r) => r.id));
  });

  it("pauses its running goal as lost with the robot; on resume a new client re-attaches to it instead of running it again", async () => {
    const session = await newRun().session();
    const goalId = "reconnect-test/0/mobile/go_to";
    await pause();
    const result = runRecordedGoal(session, goalId, "mobile", "go_to", { navigation_point: "in_front_of_sink" });
    await expect.poll(() => startedGoals(goalId), { timeout: 10_000, interval: 50 }).toBe(1);
    const gaveUp = new Promise((r) => session.client.once("close", r));
    proxy.down();
    const lost = await result.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(lost).toBeInstanceOf(RobotLostError);
    expect(lost).toMatchObject({
      goalId,
      message: expect.stringMatching(/its socket closed 2\.\d s ago and is not back/),
    });
    await gaveUp;
    proxy.up();
    await unpause();
    // As the resumed executor runs it (nodes/guard.ts marks the goal lost): the session's closed client is replaced.
    const outcome = await withLostGoal(goalId, (lost as Error).message, () =>
      runRecordedGoal(session, goalId, "mobile", "go_to", { navigation_point: "in_front_of_sink" }),
    );
    expect(outcome).toMatchObject({ ok: true, status: "succeeded", goalId });
    expect(await startedGoals(goalId)).toBe(1);
  });
});
