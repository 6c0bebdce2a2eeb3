/**
 * `--manifest FILE`: the agent reads a robot's manifests from a file instead of asking the bridge — how it runs a
 * robot behind an unmodified rosbridge (ROS 2 here: our bridge speaks its protocol; the ROS 1 case is in
 * test/robots/ros.int.test.ts). A file that is not a valid manifest is refused, naming the field.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { discoverRobots } from "../../tools/skills";
import { startSim, type SimProcess } from "../helpers/processes";
import { agent } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";

describe("the agent with --manifest FILE", () => {
  let sim: SimProcess;
  beforeAll(async () => {
    sim = await startSim(["--speed", "max"]);
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it("runs the default task from the file's manifests, and refuses a file that is not a manifest", async () => {
    const client = await BridgeClient.connect(sim.url);
    const served = await discoverRobots(client);
    await client.close();
    const dir = scratchDir();
    const file = join(dir, "robots.json");
    writeFileSync(file, JSON.stringify(served));
    const run = await agent([
      "--bridge-url",
      sim.url,
      "--manifest",
      file,
      "--data-dir",
      dir,
      "--runs-dir",
      join(dir, "runs"),
    ]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/SUCCESS — succeeded/);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ robots: [{ ...served.robots[0], skills: [] }], world: served.world }));
    const refused = await agent([
      "--bridge-url",
      sim.url,
      "--manifest",
      bad,
      "--data-dir",
      dir,
      "--runs-dir",
      join(dir, "runs"),
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/manifest file .*bad\.json is invalid: robot "\w+", skills: /);
  }, 120_000);
});
