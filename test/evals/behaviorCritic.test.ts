/**
 * The behaviour-critic benchmark's scoring: a claim's cause is right when it is the cause the world's event monitor
 * measured, not the cause the offline critic's own table gives the behaviour; and the offline critic's reading is set
 * apart from the monitor that scores it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scoreClaims } from "../../evals/behaviorCritic";
import { KEY_FRAME_THRESHOLDS } from "../../methods/behaviorCritic/evidence";
import { LIMITS } from "../../robots/sim/workbench/monitor";
import type { SimEvent } from "../../robots/sim/events";
import { ROOT } from "../helpers/processes";

const logged = (over: Partial<SimEvent>): SimEvent => ({ t: 1, step: 0, kind: "dropped", object: "apple", detail: "", ...over });

describe("critic scoring", () => {
  it("a claim's cause is scored against the cause the monitor measured", () => {
    // The apple was thrown down by a fast hand, not let go from high up: the usual cause of a drop is the wrong one.
    const truth = [logged({ cause: "too_fast" }), logged({ kind: "pushed", object: "cup", cause: "path_through" })];
    const usual = { kind: "dropped" as const, object: "apple", cause: "too_high" as const, explanation: "" };
    const right = { ...usual, cause: "too_fast" as const };
    const push = { kind: "pushed" as const, object: "cup", cause: "path_through" as const, explanation: "" };
    const ghost = { kind: "spilled" as const, object: "cup", cause: "too_fast" as const, explanation: "" };
    expect(scoreClaims([usual, push, ghost], truth)).toEqual({ found: [true, true], recalled: 2, precise: 1, hallucinated: 1, wrongCause: 1 });
    expect(scoreClaims([right], truth)).toEqual({ found: [true, false], recalled: 1, precise: 1, hallucinated: 0, wrongCause: 0 });
    // Where the monitor could not tell a cause, no claimed cause is precise.
    expect(scoreClaims([push], [logged({ kind: "pushed", object: "cup", cause: "unknown" })])).toMatchObject({ recalled: 1, precise: 0, wrongCause: 1 });
  });

  it("the offline critic reads with thresholds of its own: nothing of the agent's side imports the monitor, and its limits are not copied", () => {
    const files = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : []));
    for (const f of [...files("models"), ...files("nodes"), ...files("methods")]) expect(readFileSync(join(ROOT, f), "utf8"), f).not.toMatch(/robots\/sim\//);
    // The same quantities, chosen apart: how far a shove, how high a drop.
    expect(KEY_FRAME_THRESHOLDS.shove).not.toBe(LIMITS.pushed);
    expect(KEY_FRAME_THRESHOLDS.dropHeight).not.toBe(LIMITS.dropHeight);
  });
});
