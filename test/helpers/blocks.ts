/**
 * Blocks simulators for a suite: one process per seed, all recording into one episode store, each with a client;
 * started before the suite's tests and stopped (the store removed) after them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";

export interface BlockInstances {
  sims: SimProcess[];
  clients: BridgeClient[];
  /** The shared episode store. */
  dir: string;
}

export function blockInstances(name: string, seeds: number[]): BlockInstances {
  const world: BlockInstances = { sims: [], clients: [], dir: "" };
  beforeAll(async () => {
    world.dir = mkdtempSync(join(tmpdir(), `${name}-`));
    world.sims = await Promise.all(
      seeds.map((seed, i) =>
        startSimProcess("blocks", ["--seed", String(seed), "--episodes", world.dir, "--instance", `${name}${i}`]),
      ),
    );
    world.clients = await Promise.all(world.sims.map((s) => BridgeClient.connect(s.url)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(world.clients.map((c) => c.close()));
    await Promise.all(world.sims.map((s) => s.stop()));
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}
