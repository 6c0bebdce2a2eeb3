/**
 * Simulator processes shared by the tests of one file. A test takes a world in a named scenario (and seed) under some
 * start-up settings: an idle process of that world and those settings is reset to it over the bridge — the reset an
 * experiment runner does between episodes, after which an episode is the same as on a fresh process, with nothing of
 * the earlier one left to see (test/evals/reuse.int.test.ts) — else a new one is started. Starting a simulator costs
 * seconds of CPU (tsx, MuJoCo's WASM, the world); a reset, a fraction of that.
 *
 *   const sims = new SharedSims();
 *   afterEach(() => sims.release());
 *   afterAll(() => sims.stop());
 *   const sim = await sims.take("kitchen", "integration_tea_to_trash", ["--speed", "max"]);
 */
import { BridgeClient } from "../../robots/bridge/client";
import { RESET_SERVICE } from "../../robots/msgs/rollout";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { world as worldOf } from "../../robots/sim/worlds";

export class SharedSims {
  private readonly idle = new Map<string, SimProcess[]>();
  private readonly taken = new Map<SimProcess, string>();
  private readonly all: SimProcess[] = [];
  /** How many processes were started, and how many takes were served by a reset (for a test to print). */
  readonly counts = { started: 0, reset: 0 };

  /**
   * A simulator of `world` in `scenario` (a name the world knows) with detector seed `seed`, started with `settings`
   * (everything else on its command line: `--speed`, `--grasp-sensing`, …). Reset from an idle one when the world
   * resets; held until `release()`.
   */
  async take(world: string, scenario: string, settings: string[] = [], seed = 0): Promise<SimProcess> {
    const key = JSON.stringify([world, settings]);
    const idle = worldOf(world).resets ? this.idle.get(key) : undefined;
    let sim = idle?.pop();
    while (sim && (sim.child.exitCode !== null || sim.child.signalCode !== null)) sim = idle?.pop();
    if (sim) {
      const client = await BridgeClient.connect(sim.url);
      try {
        // A hang guard, as the start's: a reset rebuilds the world, seconds on a loaded machine.
        await client.callService(RESET_SERVICE, { scenario, seed }, { timeoutMs: 60_000 });
      } finally {
        await client.close();
      }
      this.counts.reset++;
    } else {
      // A hang guard, not a speed check: a start takes seconds, more on a loaded machine.
      sim = await startSimProcess(world, ["--scenario", scenario, "--seed", String(seed), ...settings], 120_000);
      this.all.push(sim);
      this.counts.started++;
    }
    this.taken.set(sim, key);
    return sim;
  }

  /** Every simulator taken goes back to the idle ones (call it after each test). */
  release(): void {
    for (const [sim, key] of this.taken) this.idle.set(key, [...(this.idle.get(key) ?? []), sim]);
    this.taken.clear();
  }

  /** Stops every process this started. */
  async stop(): Promise<void> {
    this.taken.clear();
    this.idle.clear();
    await Promise.all(this.all.splice(0).map((s) => s.stop()));
  }
}
