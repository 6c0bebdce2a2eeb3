/** The latency bench's arithmetic: which parts of model calls the robot waited through. */
import { describe, expect, it } from "vitest";
import { criticalPath, discardedShare, idleBetweenSkills, idleParts, uncovered } from "../../../evals/bench/latency";
import { NO_PIPELINE } from "../../../nodes/speculation";

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
  it("counts round trips between the first skill's start and the last one's end, per skill", () => {
    const call = (start: number, end: number) => ({ start, end, inputTokens: 0, outputTokens: 0 });
    // Before the first skill (not counted), in the gap (one round trip, two calls at once), after the last (not counted).
    const calls = [call(0, 90), call(410, 490), call(420, 480), call(950, 990)];
    expect(idleBetweenSkills({ calls: calls as never, busy: busy as never, skills: 2 })).toBe(0.5);
    expect(idleBetweenSkills({ calls: calls as never, busy: [], skills: 0 })).toBe(0);
  });
});

describe("tokens spent on dropped work", () => {
  it("is the run's wasted tokens over every token its calls carried", () => {
    const calls = [
      { inputTokens: 700, outputTokens: 100 },
      { inputTokens: 150, outputTokens: 50 },
    ];
    const pipeline = { ...NO_PIPELINE, wastedInputTokens: 150, wastedOutputTokens: 50 };
    expect(discardedShare({ calls: calls as never, pipeline })).toBeCloseTo(0.2);
    expect(discardedShare({ calls: calls as never })).toBe(0);
  });
});
