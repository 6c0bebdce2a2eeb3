import { describe, expect, it } from "vitest";
import { SimClock, type Motion } from "../../../robots/sim/clock";
import { RebuiltWorld, type SimulatedWorld } from "../../../robots/sim/serve";

/** A motion of `ticks` control ticks, counting each one it is given. */
function* counting(ticks: number, seen: { ticks: number }): Motion {
  for (let i = 0; i < ticks; i++) {
    seen.ticks++;
    yield;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SimClock paused", () => {
  it("holds simulated time and every motion, goals waiting, until unpaused", async () => {
    let steps = 0;
    const clock = new SimClock(0.01, () => steps++);
    clock.pause();
    expect(clock.paused).toBe(true);
    const seen = { ticks: 0 };
    const done = clock.run(counting(20, seen));
    await sleep(120);
    expect([seen.ticks, steps, clock.time]).toEqual([0, 0, 0]);
    clock.unpause();
    expect(await done).toBe("done");
    expect(seen.ticks).toBe(20);
    expect(clock.paused).toBe(false);
  });

  it("ends a motion canceled while paused, and stops while paused", async () => {
    const clock = new SimClock(0.01, () => {});
    clock.pause();
    const ac = new AbortController();
    const canceled = clock.run(counting(1000, { ticks: 0 }), ac.signal);
    const waiting = clock.run(counting(1000, { ticks: 0 }));
    ac.abort();
    expect(await canceled).toBe("canceled");
    await clock.stop();
    expect(await waiting).toBe("canceled");
  });

  it("does not run through the paused wall time at full speed afterwards", async () => {
    // At one simulated second a wall second, a world paused 400 ms then unpaused must not jump 0.4 s ahead.
    const clock = new SimClock(0.01, () => {}, 1);
    const seen = { ticks: 0 };
    const motion = clock.run(counting(100_000, seen));
    await sleep(50);
    clock.pause();
    await sleep(400);
    const at = clock.time;
    const wall = performance.now();
    clock.unpause();
    await sleep(100);
    const ran = clock.time - at;
    const elapsed = (performance.now() - wall) / 1000;
    // Pacing lets at most one 0.05 s burst run ahead of wall time.
    expect(ran).toBeLessThanOrEqual(elapsed + 0.06);
    await clock.stop();
    expect(await motion).toBe("canceled");
  });
});

describe("a world rebuilt for the next episode", () => {
  it("stays paused across the reset, as Gazebo's does", async () => {
    const world = () =>
      ({ manifests: [], clock: new SimClock(0.01, () => {}), close: () => {} }) as unknown as SimulatedWorld;
    const first = world();
    const rebuilt = new RebuiltWorld(first, async () => ({ world: world(), scenario: "next", seed: 1 }));
    rebuilt.clock!.pause();
    await rebuilt.restart({});
    expect(rebuilt.current).not.toBe(first);
    expect(rebuilt.clock!.paused).toBe(true);
    rebuilt.clock!.unpause();
    await rebuilt.restart({});
    expect(rebuilt.clock!.paused).toBe(false);
  });
});
