/** The agent as its own process (`robograph run`), its output watched line by line, and a kill timed by the robot. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { BridgeClient } from "../../robots/bridge/client";
import { ROOT } from "./processes";
import { programArgs } from "../../robots/programs";
import { PAUSE_SERVICE, UNPAUSE_SERVICE } from "../../robots/sim/serve";

/** The flags of a run on `bridge` under `thread`, its checkpoints and run records kept in `data` (to resume it). */
export function runOn(bridge: string, thread: string, data: string): string[] {
  return ["--bridge-url", bridge, "--thread", thread, "--data-dir", data, "--runs-dir", join(data, "runs")];
}

/** `kill` sends SIGKILL unless told another signal (SIGINT for an emergency stop). */
export function agent(
  args: string[],
  onLine?: (line: string, kill: (signal?: NodeJS.Signals) => void) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; signal: string | null; out: string }> {
  // Node runs the agent itself (tsx as a loader, or the suite's precompiled build): the tsx CLI would run it as its
  // own child, and a SIGKILL of the wrapper would leave the agent running on.
  const child = spawn(process.execPath, programArgs("cli/robograph.ts", ["run", ...args]), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  let buf = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
    buf += chunk;
    const lines = buf.split("\n");
    buf = lines.pop()!;
    for (const l of lines) onLine?.(l, (signal = "SIGKILL") => child.kill(signal));
  });
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, out })));
}

type SimEvent = { kind: string; goalId?: string };

/** Resolves once the robot's event log holds an event that `matches`, each look reading on from where the last ended. */
async function untilEvent(watcher: BridgeClient, matches: (event: SimEvent) => boolean): Promise<void> {
  for (let since = 0; ; await new Promise((r) => setTimeout(r, 10))) {
    const { events, total } = await watcher.callService<{ events: SimEvent[]; total: number }>("/evaluator/events", {
      since,
    });
    if (events.some(matches)) return;
    since = total;
  }
}

/** Kills the agent once the robot reports that the goal with id prefix `prefix` has started. */
export function killWhenStarted(watcher: BridgeClient, prefix: string, kill: () => void): void {
  void untilEvent(watcher, (e) => e.kind === "skill_started" && !!e.goalId?.startsWith(prefix)).then(kill);
}

/**
 * Kills the agent while the robot runs goal `goal` of `thread` (its number, 1 or more): the world is paused as soon as
 * the goal before it has ended, so goal `goal` is accepted and held until the kill, then the world goes on. Resolves
 * once the agent is killed and the world unpaused. On a test process slower than the agent's thinking between two
 * skills the pause comes late and the kill a goal or so later: the tests that use it accept a resume at a later goal.
 */
export async function killMidGoal(
  watcher: BridgeClient,
  thread: string,
  goal: number,
  kill: () => void,
): Promise<void> {
  const before = `${thread}/${goal - 1}/`;
  await untilEvent(
    watcher,
    (e) => !!e.goalId?.startsWith(before) && /^skill_(succeeded|failed|canceled)$/.test(e.kind),
  );
  await watcher.callService(PAUSE_SERVICE);
  await new Promise<void>((resolve) => killWhenStarted(watcher, `${thread}/${goal}/`, () => (kill(), resolve())));
  await watcher.callService(UNPAUSE_SERVICE);
}
