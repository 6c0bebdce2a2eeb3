import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ArtifactStore } from "../../memory/artifacts";
import { SqliteStore } from "../../memory/store";
import { closePooledSessions } from "../../runtime/run";
import { executed, runEpisode, scratchDir } from "../helpers/episode";
import { startSim, type SimProcess } from "../helpers/processes";

describe("artifact store", () => {
  it("stores content once under its hash and reads it back", () => {
    const artifacts = new ArtifactStore(join(scratchDir(), "artifacts"));
    const ref = artifacts.put(Buffer.from("frame bytes"));
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}\.png$/);
    expect(artifacts.put(Buffer.from("frame bytes"))).toBe(ref);
    expect(artifacts.get(ref).toString()).toBe("frame bytes");
    expect(() => artifacts.get("../../etc/passwd")).toThrow(/not an artifact reference/);
  });
});

describe("lessons across episodes", () => {
  const sims: SimProcess[] = [];
  afterAll(async () => {
    await closePooledSessions();
    await Promise.all(sims.map((s) => s.stop()));
  });

  it("remembers where the apple was found and looks there first the next time", async () => {
    const store = new SqliteStore(join(scratchDir(), "memory.sqlite"));
    sims.push(await startSim(["--scenario", "integration_apple_to_oven", "--speed", "max"]));
    const first = await runEpisode({ url: sims[0].url, scenario: "integration_apple_to_oven", store, thread: "first" });
    // Found in the drawer (and later seen in the oven, where the agent put it: that is not where it is found).
    expect((await store.get(["lessons", "kitchen", "sightings"], "apple"))?.value.place).toBe("drawer_top");

    sims.push(await startSim(["--scenario", "integration_apple_to_oven", "--speed", "max"]));
    const second = await runEpisode({
      url: sims[1].url,
      scenario: "integration_apple_to_oven",
      store,
      thread: "second",
    });
    expect(first.truth.success && second.truth.success).toBe(true);
    // The first episode searched the refrigerator before the drawer; the second goes straight for the drawer.
    expect(executed(first).map((x) => x.call)).toContain("mobile.open(refrigerator)");
    expect(executed(second).map((x) => x.call)).not.toContain("mobile.open(refrigerator)");
    expect(executed(second).map((x) => x.call)).toContain("arm.pick_from(apple, drawer_top)");
    expect(executed(second).length).toBeLessThan(executed(first).length);
    store.close();
  });
});
