/**
 * The offline reader on instructions it was not written for (issue 24, item 3): 40 tuned on, 20 held back and never
 * tuned on. Reader level, no simulator: each instruction read into a goal and compared with the row's goal.
 */
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../evals/datasets";
import { readDataset, readingReport } from "../../evals/instructionReading";

const share = (name: string) => {
  const readings = readDataset(name);
  console.log(readingReport(name, readings));
  return readings.filter((r) => r.ok).length / readings.length;
};

describe("the reader on new instructions", () => {
  it("holds 40 to tune on and 20 held back, over the kitchen and the tabletop, no wording in both", () => {
    const tune = loadDataset("instructions-tune");
    const heldout = loadDataset("instructions-heldout");
    expect([tune.length, heldout.length]).toEqual([40, 20]);
    for (const set of [tune, heldout]) expect(new Set(set.map((r) => r.example.inputs.world))).toEqual(new Set(["kitchen", "tabletop"]));
    const tuned = new Set(tune.map((r) => r.example.inputs.goal));
    for (const r of heldout) expect(tuned.has(r.example.inputs.goal), r.id).toBe(false);
  });

  it("reads at least 85% of the tune set as its goal", () => {
    expect(share("instructions-tune")).toBeGreaterThanOrEqual(0.85);
  });

  // The bar the issue sets. Held back 13/20 (65%) when this was written: below it, and the reader is not tuned on the
  // held-back failures; vitest reports this test as failing the day it passes, to be made a plain it().
  it.fails("reads at least 85% of the held-back set as its goal (not yet: 65%)", () => {
    expect(share("instructions-heldout")).toBeGreaterThanOrEqual(0.85);
  });
});
