/** Speculation's bookkeeping: counts, wasted tokens, the trace check that no skill went out on overtaken work, the setting. */
import { describe, expect, it } from "vitest";
import { NO_PIPELINE, sentAgainstContradiction, tally } from "../../nodes/pipeline";
import { ClosedLoopConfiguration } from "../../methods/clea/configuration";
import { ReplanConfiguration } from "../../methods/replan/configuration";

const usage = { critic: { calls: 2, inputTokens: 100, outputTokens: 10, images: 1 } };

describe("speculation's counts", () => {
  it("counts what a revoked speculation spent as wasted, and nothing of a used one", () => {
    const used = tally(NO_PIPELINE, "used", true, usage);
    expect(used).toMatchObject({ prepared: 1, used: 1, revoked: 0, wastedCalls: 0, wastedInputTokens: 0 });
    const revoked = tally(used, "revoked", true, usage);
    expect(revoked).toMatchObject({ prepared: 2, used: 1, revoked: 1, wastedCalls: 2, wastedInputTokens: 100, wastedOutputTokens: 10 });
    expect(tally(revoked, "unused", false, usage)).toMatchObject({ prepared: 2, unused: 1, wastedCalls: 2 });
  });
});

describe("skills sent against a contradicted prediction, read from the trace", () => {
  const check = (outcome: string, extra: Record<string, unknown> = {}) => ({ node: "prediction_check", update: { speculation: { outcome }, ...extra } });
  const dispatch = { node: "dispatch", update: { pendingGoal: { goalId: "g" } } };
  it("is 0 when prepared work went out only after a check that confirmed it", () => {
    expect(sentAgainstContradiction([check("used", { critique: { verdict: "ok" } }), dispatch])).toBe(0);
  });
  it("is 0 when a revoked check was followed by the ordinary critic before the dispatch", () => {
    const trace = [check("used", { critique: { verdict: "ok" } }), dispatch, check("revoked"), { node: "critic", update: { critique: { verdict: "ok" } } }, dispatch];
    expect(sentAgainstContradiction(trace)).toBe(0);
  });
  it("counts a dispatch on prepared work after the check revoked it (what must never happen)", () => {
    expect(sentAgainstContradiction([check("used", { critique: { verdict: "ok" } }), dispatch, check("revoked"), dispatch])).toBe(1);
    // RePLan's prepared motion, the same way.
    expect(sentAgainstContradiction([check("used", { motion: { step: "x" } }), dispatch, check("revoked"), dispatch])).toBe(1);
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
