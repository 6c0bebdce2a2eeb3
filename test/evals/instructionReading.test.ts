/**
 * The offline reader on instructions it was not written for (issue 24, item 3). Reader level, no simulator: each
 * instruction read into a goal and compared with the row's goal.
 *
 * Tune set: 641 rows — the 40 first written to tune on, held-back sets 1–6 (each scored unseen, then looked at and
 * tuned on) and development sets 8–12 (each written blind by a separate session, read and tuned on); docs/instructions.md
 * has each set's figure. Held-back set: 137 rows, sets 7, 8 and 9, each written blind by a separate session and never
 * tuned on; only its counts are printed (per world and per set, no rows), so which rows it misreads is not seen either.
 */
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../evals/datasets";
import { HELD_BACK, hasHeldBack, heldBackPath, readDataset, readingReport } from "../../evals/instructionReading";

const share = (name: string, countsOnly = false) => {
  const readings = readDataset(name);
  console.log(readingReport(name, readings, countsOnly));
  return readings;
};
const right = (rs: { ok: boolean }[]) => rs.filter((r) => r.ok).length;

describe("the reader on new instructions", () => {
  it("tunes on 641 instructions over the kitchen and the tabletop", () => {
    const tune = loadDataset("instructions-tune");
    expect(tune.length).toBe(641);
    expect(new Set(tune.map((r) => r.example.inputs.world))).toEqual(new Set(["kitchen", "tabletop"]));
  });

  // In-sample (it was tuned on them): 624 of 641 on 2026-11-26. The rest are named in docs/instructions.md.
  it("reads at least the 624 of the tune set's 641 it read when tuned", () => {
    expect(right(share("instructions-tune"))).toBeGreaterThanOrEqual(624);
  });

  // Never tuned on, counts only. Scored on 2026-11-26 at 6938ce2: 117 of 137 (85.4%; set 9, scored that once: 52/60).
  // This holds the figures reached, so they cannot drop unseen.
  it("reads at least 117 of the 137 held-back instructions, and at least 52 of set 9's 60", () => {
    if (!hasHeldBack()) throw new Error(`no held-back set: ${heldBackPath()}`);
    const tuned = new Set(loadDataset("instructions-tune").map((r) => r.example.inputs.goal));
    const heldBack = loadDataset(HELD_BACK);
    expect(heldBack.length).toBe(137);
    // No wording in both sets (said as a count: the held-back rows are not printed).
    expect(
      heldBack.filter((r) => tuned.has(r.example.inputs.goal)).length,
      "held-back rows whose wording is also in the tune set",
    ).toBe(0);
    const readings = share(HELD_BACK, true);
    expect(right(readings)).toBeGreaterThanOrEqual(117);
    expect(right(readings.filter((r) => r.id.includes("__h9_")))).toBeGreaterThanOrEqual(52);
  });
});
