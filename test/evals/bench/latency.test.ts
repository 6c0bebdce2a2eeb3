/** The latency bench's arithmetic: which parts of model calls the robot waited through. */
import { describe, expect, it } from "vitest";
import { criticalPath, idleParts, uncovered } from "../../../evals/bench/latency";

describe("robot idle time against model calls", () => {
  const busy = [
    { start: 100, end: 400 },
    { start: 500, end: 900 },
  ];
  it("keeps only the parts of calls made while no skill ran", () => {
    // Before the first skill, across the gap, and wholly inside a skill.
    const calls = [
      { start: 0, end: 90 },
      { start: 350, end: 520 },
      { start: 600, end: 800 },
    ];
    expect(idleParts(calls, busy)).toEqual([
      { start: 0, end: 90 },
      { start: 400, end: 500 },
    ]);
    expect(criticalPath(idleParts(calls, busy))).toBe(2);
    // Slivers (a call ending a few ms after its skill) are scheduling noise.
    expect(idleParts([{ start: 300, end: 405 }], busy)).toEqual([]);
  });
  it("measures the idle milliseconds of a window", () => {
    expect(uncovered({ start: 0, end: 1000 }, busy)).toBe(100 + 100 + 100);
    expect(uncovered({ start: 150, end: 450 }, busy)).toBe(50);
  });
});
