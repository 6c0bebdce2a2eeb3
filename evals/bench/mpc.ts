/**
 * The tabletop controller (predictive-sampling MPC) on RePLan's four controller checks (appendix C.1): success rate
 * over seeded runs, and wall seconds per simulated second of motion. In process: this measures the controller, not
 * the bridge.
 */
import { CONTROLLER_MOTIONS, TabletopWorld } from "../../robots/sim/tabletop";
import type { Figure } from "./agent";

export async function mpcBenchmarks(seeds = 20): Promise<Figure[]> {
  const figures: Figure[] = [];
  let wall = 0,
    simulated = 0;
  for (const m of CONTROLLER_MOTIONS) {
    let ok = 0,
      mWall = 0,
      mSim = 0;
    for (let seed = 0; seed < seeds; seed++) {
      const world = await TabletopWorld.create({ scene: m.scene, seed });
      try {
        const result = await world.runSkill("palm", "execute_motion", m.motion as unknown as Record<string, unknown>, {
          goalId: `bench-${seed}`,
          signal: new AbortController().signal,
          feedback: () => {},
        });
        if (result.status === "succeeded") ok++;
        mWall += world.stats.wall;
        mSim += world.stats.simulated;
      } finally {
        await world.close();
      }
    }
    wall += mWall;
    simulated += mSim;
    const rate = ok / seeds;
    figures.push({
      name: `MPC "${m.name}" (${m.scene}): success over ${seeds} seeds`,
      value: rate * 100,
      unit: "%",
      target: ">= 95%",
      ok: rate >= 0.95,
    });
    figures.push({ name: `MPC "${m.name}": mean simulated motion time`, value: mSim / seeds, unit: "s" });
  }
  const ratio = wall / simulated;
  figures.push({
    name: "MPC wall seconds per simulated second (all motions)",
    value: ratio,
    unit: "x",
    target: "<= 5x",
    ok: ratio <= 5,
  });
  return figures;
}
