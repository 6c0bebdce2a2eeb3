/** Speculation's bookkeeping: counts, wasted tokens, the trace check that no skill went out on overtaken work, the setting. */
import { describe, expect, it } from "vitest";
import {
  NO_PIPELINE,
  revocations,
  sentAgainstTheLook,
  sentAgainstTheReport,
  tally,
  type SpeculatingNodes,
} from "../../nodes/speculation";
import { ClosedLoopConfiguration } from "../../graphs/clea/configuration";
import { ReplanConfiguration } from "../../graphs/replan/configuration";

// The nodes each method declares in its descriptor (graphs/clea/index.ts, graphs/replan/index.ts `speculation`).
const CLEA: SpeculatingNodes = {
  clearing: ["critic", "planner", "verifier"],
  prepared: "prediction_check",
  looks: "perceiver",
};
const REPLAN: SpeculatingNodes = { clearing: ["low_level_planner", "reward_verifier"], prepared: "prediction_check" };

const usage = { critic: { calls: 2, inputTokens: 100, outputTokens: 10, images: 1 } };

describe("speculation's counts", () => {
  it("counts what a revoked speculation spent as wasted, and nothing of a used one", () => {
    const used = tally(NO_PIPELINE, "used", true, usage);
    expect(used).toMatchObject({ prepared: 1, used: 1, revoked: 0, wastedCalls: 0, wastedInputTokens: 0 });
    const revoked = tally(used, "revoked", true, usage);
    expect(revoked).toMatchObject({
      prepared: 2,
      used: 1,
      revoked: 1,
      wastedCalls: 2,
      wastedInputTokens: 100,
      wastedOutputTokens: 10,
    });
    expect(tally(revoked, "unused", false, usage)).toMatchObject({ prepared: 2, unused: 1, wastedCalls: 2 });
  });
});

describe("skills sent against what was seen or reported before them, measured on the trace", () => {
  const look = (
    objects: { name: string; relation: string; place: string }[],
    visiblePlaces: string[],
    containers: { name: string; state: string }[] = [],
  ) => ({ node: "perceiver", update: { observations: { arm: { objects, visiblePlaces, containers } } } });
  const send = (skill: string, args: Record<string, string>) => ({
    node: "dispatch",
    update: { pendingGoal: { goalId: "g", call: { robot: "arm", skill, args } } },
  });
  const cleared = (node: string) => ({ node, update: { critique: { verdict: "ok" } } });
  it("counts a pick from a place the look showed without the thing, or a thing the look showed elsewhere; on prepared work apart", () => {
    const trace = [
      look([{ name: "apple", relation: "on", place: "table" }], ["table", "sink"]),
      cleared("critic"),
      send("pick_from", { object: "apple", place: "table" }),
      cleared("prediction_check"),
      send("pick_from", { object: "apple", place: "sink" }),
      look([], ["table"]),
      cleared("critic"),
      send("pick_from", { object: "apple", place: "table" }),
    ];
    expect(sentAgainstTheLook(trace, CLEA)).toEqual({
      all: 2,
      prepared: 1,
      examples: [
        "arm.pick_from(apple, sink): the apple was seen on the table",
        "arm.pick_from(apple, table): the table was seen without the apple",
      ],
    });
  });
  it("counts a door opened that the look showed open, and nothing where the look is silent", () => {
    expect(
      sentAgainstTheLook(
        [look([], [], [{ name: "oven", state: "open" }]), cleared("critic"), send("open", { target: "oven" })],
        CLEA,
      ).all,
    ).toBe(1);
    expect(
      sentAgainstTheLook(
        [
          look([], [], [{ name: "oven", state: "closed" }]),
          cleared("critic"),
          send("open", { target: "oven" }),
          send("pick_from", { object: "apple", place: "oven" }),
        ],
        CLEA,
      ).all,
    ).toBe(0);
  });
  it("RePLan: counts a prepared motion sent after the controller reported a failed motion, not one the ordinary path cleared", () => {
    const motion = (ok: boolean) => ({ node: "executor", update: { log: [{ kind: "motion", ok }] } });
    const go = { node: "dispatch", update: { pendingGoal: { goalId: "g" } } };
    expect(
      sentAgainstTheReport([motion(true), { node: "prediction_check", update: { motion: { step: "x" } } }, go], REPLAN),
    ).toBe(0);
    expect(
      sentAgainstTheReport(
        [motion(false), { node: "low_level_planner", update: { motion: { step: "y" } } }, go],
        REPLAN,
      ),
    ).toBe(0);
    expect(
      sentAgainstTheReport(
        [motion(false), { node: "prediction_check", update: { motion: { step: "x" } } }, go],
        REPLAN,
      ),
    ).toBe(1);
  });
  it("names why prepared work was revoked, by kind", () => {
    const revoked = (why: string) => ({
      node: "prediction_check",
      update: { speculation: { outcome: "revoked", why } },
    });
    expect(
      revocations(
        [
          revoked("the motion did not succeed: stuck"),
          revoked("the tea is at sink, not refrigerator as predicted; the oven is open, not closed as predicted"),
          revoked("the plan is not at the step the work was prepared for"),
        ],
        REPLAN,
      ),
    ).toEqual({
      "the controller reported the skill or motion failed": 1,
      "the look: a thing, door or hand in another state than predicted": 1,
      "the plan moved off the step the work was prepared for": 1,
    });
  });
});

describe("the pipeline setting", () => {
  it("is off by default and reads a form's or a command line's words", () => {
    for (const schema of [ClosedLoopConfiguration, ReplanConfiguration]) {
      expect(schema.parse({}).pipeline).toBe(false);
      expect(schema.parse({ pipeline: "false" }).pipeline).toBe(false);
      expect(schema.parse({ pipeline: "true" }).pipeline).toBe(true);
      expect(schema.parse({ pipeline: true }).pipeline).toBe(true);
      expect(() => schema.parse({ pipeline: "sometimes" })).toThrow();
    }
  });
});
