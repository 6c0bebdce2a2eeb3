/** The run configuration every node reads: one schema for Studio's form and for the run, defaults, and refusals. */
import { afterEach, describe, expect, it } from "vitest";
import { ClosedLoopConfiguration } from "../../nodes/clea/configuration";
import { VlmpcConfiguration } from "../../nodes/vlmpc/configuration";
import { CLEA_VARIANTS } from "../../nodes/clea/configuration";
import { graphRunOptions, runOptions } from "../../nodes/configuration";
import { VLMPC_VARIANTS } from "../../nodes/vlmpc/configuration";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("run configuration", () => {
  it("fills the documented defaults, and the schema Studio shows carries the same ones", () => {
    const o = runOptions({ configurable: { bridgeUrl: "ws://127.0.0.1:1" } });
    expect(o).toMatchObject({ variant: "full", seed: 0, noise: 0, approve: [], maxSteps: 40, maxReplans: 15, maxModelCalls: 400, maxWallSeconds: 900, maxProcedures: 3, diagnosisPhrasings: 6, maxSkillSeconds: 100, historyWindow: 0 });
    const shown = ClosedLoopConfiguration.parse({});
    for (const k of ["variant", "seed", "noise", "maxSteps", "maxReplans", "maxModelCalls", "maxWallSeconds"] as const) expect(shown[k]).toEqual(o[k]);
    expect(VlmpcConfiguration.parse({}).maxSkillSeconds).toBe(o.maxSkillSeconds);
  });

  it("reads the environment under configurable, and LangGraph's context over both", () => {
    process.env.ROBOGRAPH_BRIDGE_URL = "ws://127.0.0.1:2";
    process.env.ROBOGRAPH_SEED = "7";
    process.env.ROBOGRAPH_APPROVE = "arm/open,arm/close";
    expect(runOptions({}).seed).toBe(7);
    expect(runOptions({}).approve).toEqual(["arm/open", "arm/close"]);
    expect(runOptions({ configurable: { seed: 3 } }).seed).toBe(3);
    const both = runOptions({ configurable: { seed: 3, bridgeUrl: "ws://a:1" }, context: { seed: 5, models: { critic: "big-vlm" } } } as never);
    expect([both.seed, both.bridgeUrl, both.models?.critic]).toEqual([5, "ws://a:1", "big-vlm"]);
  });

  it("refuses what the schema does not allow, naming the field", () => {
    delete process.env.ROBOGRAPH_BRIDGE_URL;
    expect(() => runOptions({})).toThrow(/no bridge URL/);
    expect(() => runOptions({ configurable: { bridgeUrl: "ws://x:1", noise: 2 } })).toThrow(/invalid run configuration[\s\S]*noise/);
    expect(() => runOptions({ configurable: { bridgeUrl: "ws://x:1", variant: "no-brain" } })).toThrow(/variant/);
    expect(() => runOptions({ configurable: { bridgeUrl: "ws://x:1", maxSteps: "many" } })).toThrow(/maxSteps/);
  });

  it("each graph runs only its own variants", () => {
    const c = { configurable: { bridgeUrl: "ws://x:1", variant: "no-history" } };
    expect(graphRunOptions(c, "vlmpc", VLMPC_VARIANTS).variant).toBe("no-history");
    expect(() => graphRunOptions(c, "closedLoop", CLEA_VARIANTS)).toThrow(/variant no-history is not one of closedLoop's: full, no-critic/);
    expect(ClosedLoopConfiguration.safeParse({ variant: "no-history" }).success).toBe(false);
  });
});
