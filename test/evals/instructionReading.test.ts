/**
 * The offline reader on instructions it was not written for (issue 24, item 3). Reader level, no simulator: each
 * instruction read into a goal and compared with the row's goal.
 *
 * Tune set: 250 rows — the 40 first written to tune on, then held-back sets 1–6, each scored unseen once and then
 * looked at and tuned on (docs/instructions.md has each set's figure). Held-back set 7 (37 rows; 3 more it was written with had a wording already in the tune set and were dropped, unread): written blind by a
 * separate session, never tuned on; only its counts are printed (per world, no rows), so which rows it misreads is not
 * seen either.
 */
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../evals/datasets";
import { HELD_BACK, hasHeldBack, heldBackPath, readDataset, readingReport } from "../../evals/instructionReading";

const share = (name: string, countsOnly = false) => {
  const readings = readDataset(name);
  console.log(readingReport(name, readings, countsOnly));
  return readings.filter((r) => r.ok).length / readings.length;
};

describe("the reader on new instructions", () => {
  it("tunes on 250 instructions over the kitchen and the tabletop", () => {
    const tune = loadDataset("instructions-tune");
    expect(tune.length).toBe(250);
    expect(new Set(tune.map((r) => r.example.inputs.world))).toEqual(new Set(["kitchen", "tabletop"]));
  });

  it("reads every instruction of the tune set as its goal (in-sample: it was tuned on them)", () => {
    expect(share("instructions-tune")).toBe(1);
  });

  // On a set the reader was never tuned on, counts only, no rows. The bar is 85%; scored once on 2026-11-26
  // the reader read 29 of its 37 (78%; 32 of 40 with the three dropped), so that bar is NOT met — this holds the figure it reached, so it cannot drop unseen.
  it("reads at least the 29 of 37 held-back instructions it read when first scored (the 85% bar is not met)", () => {
    if (!hasHeldBack()) throw new Error(`no held-back set: ${heldBackPath()}`);
    const tuned = new Set(loadDataset("instructions-tune").map((r) => r.example.inputs.goal));
    const heldBack = loadDataset(HELD_BACK);
    expect(heldBack.length).toBe(37);
    // No wording in both sets (said as a count: the held-back rows are not printed).
    expect(heldBack.filter((r) => tuned.has(r.example.inputs.goal)).length, "held-back rows whose wording is also in the tune set").toBe(0);
    expect(share(HELD_BACK, true)).toBeGreaterThanOrEqual(29 / 37);
  });
});
