/**
 * Learning the critic's norm (evals/criticNorm.ts): only careful runs on tuning seeds, never a case with a held-back
 * family or from the scored range; the margin from careful runs left out one at a time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { carefulRuns, leaveOneOut } from "../../evals/criticNorm";
import type { Measurement } from "../../graphs/behaviorCritic/norm";
import { HELD_BACK } from "../../robots/sim/workbench/edits";
import { CRITIC_SCORED_FROM } from "../../evals/datasets/behaviorCriticBenchmark";
import { scratchDir } from "../helpers/episode";

const row = (id: string, seed: number, edits: string[]) =>
  JSON.stringify({
    inputs: {
      instruction: "put the cube in the bowl",
      scene: "apple_plate",
      positive: `${id}-pos`,
      negatives: [`${id}-neg1`, `${id}-neg2`],
    },
    outputs: { behaviour: edits.join("+"), truth: edits, events: [], narration: [] },
    metadata: { case: id, behaviour: edits.join("+"), scene: "apple_plate", seed, version: "test", edits },
  });

describe("learning the critic's norm", () => {
  it("reads only the careful runs of tuning cases with no held-back family (the others' files are never opened)", () => {
    const dir = scratchDir();
    mkdirSync(join(dir, "rollouts"));
    writeFileSync(
      join(dir, "cases.jsonl"),
      [
        row("gen-5", 5, ["detour"]),
        row("gen-6", 6, [HELD_BACK[0]]),
        row("gen-x", CRITIC_SCORED_FROM + 1, ["pause"]),
      ].join("\n"),
    );
    const frame = (t: number) => ({ t, image: "", detections: { detections: [], places: [] } });
    // Only the tuning case's positive exists: reading any other rollout would throw "no recorded rollout".
    writeFileSync(join(dir, "rollouts", "gen-5-pos.json"), JSON.stringify({ frames: [frame(0), frame(1)] }));
    expect(carefulRuns(dir).map((r) => [r.id, r.seed])).toEqual([["gen-5-pos", 5]]);
  });

  it("chooses the margin from careful runs left out in turn: a run unlike the rest is called out at margin 0 only", () => {
    const run = (pace: number): Measurement[] => [
      { quantity: "hand_pace", value: pace, object: "palm", t: 0, also: {} },
    ];
    const runs = [...Array.from({ length: 30 }, (_, i) => run(0.2 + (i % 5) * 0.002)), run(0.17)];
    const trials = leaveOneOut(runs);
    expect(trials[0]).toMatchObject({ margin: 0, called: 1, by: { hand_pace: 1 } });
    expect(trials.find((t) => t.margin === 8)!.called).toBe(0);
  });
});
