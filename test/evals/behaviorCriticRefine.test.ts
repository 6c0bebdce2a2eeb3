/**
 * The refinement table (issue 62): a rewrite's success is whether its motion came back toward the careful twin, by the
 * generator's yardstick; "not measured" without a twin; the monitor's events only for families the monitor sees.
 */
import { describe, expect, it } from "vitest";
import { refineOutcome, refineReport, type RefineRun } from "../../evals/behaviorCriticRefine";
import { monitorSees } from "../../evals/criticTruth";
import { towardTwin, type MotionChange } from "../../evals/datasets/motionChange";

const change = (aspect: string, steps: number): MotionChange => ({ aspect, size: steps, steps, said: aspect });

describe("refinement measured against the careful twin", () => {
  it("back when nothing measurable differs, closer when smaller with nothing new, else not closer", () => {
    const edited = [change("time", 4), change("path", 5)];
    expect(towardTwin(edited, [])).toBe("back");
    expect(towardTwin(edited, [change("path", 2)])).toBe("closer");
    expect(towardTwin(edited, [change("time", 4), change("path", 5)])).toBe("not closer");
    // A new difference (the rewrite now leaves the plate elsewhere) is not closer, however small the rest.
    expect(towardTwin(edited, [change("moved:plate", 1.5)])).toBe("not closer");
  });

  it("the monitor sees a family only where it logged something in its negatives", () => {
    expect(monitorSees([])).toBe(false);
    expect(monitorSees([{ kind: "pushed" }])).toBe(true);
    expect(monitorSees([{ kind: "skill_started" }])).toBe(false);
  });

  it("the table says not measured without a twin and gives no monitor count for a family the monitor cannot see", () => {
    const run = (behaviour: string, over: Partial<RefineRun>): RefineRun => ({
      case: `${behaviour}-00`,
      behaviour,
      iterations: [],
      status: "succeeded",
      statusReason: "",
      calls: 2,
      ...over,
    });
    const crawled = run("crawl", {
      twin: "gen-1-pos",
      monitorSees: false,
      iterations: [
        { events: [], success: true, changes: [change("time", 20)] },
        { events: [], success: true, changes: [] },
      ],
    });
    const noTwin = run("pushed", {
      monitorSees: true,
      iterations: [
        { events: ["pushed(cube)"], success: true },
        { events: [], success: true },
      ],
    });
    expect(refineOutcome(crawled)).toBe("back");
    expect(refineOutcome(noTwin)).toBe("not measured");
    const table = refineReport([crawled, noTwin]);
    expect(table).toMatch(/\| crawl \| 1 \| 1 \| 100% \| 100% \| 100% \| 0 \| — \|/);
    expect(table).toMatch(/\| pushed \| 1 \| 0 \| not measured \| not measured \| 100% \| 1 \| 100% \|/);
  });
});
