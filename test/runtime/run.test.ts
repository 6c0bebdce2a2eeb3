/**
 * A run's settings: parsed once against the method's own configuration (one schema for Studio's form and for the
 * run), the environment under what the caller gives, refusals that name the field; nodes find the run in their config
 * whether its caller opened it or the graph was invoked with plain JSON (the LangGraph server).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { ClosedLoopConfiguration } from "../../graphs/clea/configuration";
import { VlmpcConfiguration } from "../../graphs/vlmpc/configuration";
import { clea } from "../../graphs/clea";
import { vlmpc } from "../../graphs/vlmpc";
import { inRun, openRun, parseSettings, runOf } from "../../runtime/run";

describe("a run's settings", () => {
  it("fills the documented defaults, and the schema Studio shows carries the same ones", () => {
    const settings = parseSettings(VlmpcConfiguration, { bridgeUrl: "ws://127.0.0.1:1" }, {});
    expect(settings).toMatchObject({
      variant: "full",
      seed: 0,
      noise: 0,
      approve: [],
      maxSteps: 40,
      maxReplans: 15,
      maxModelCalls: 400,
      maxWallSeconds: 900,
      maxSkillSeconds: 100,
      historyWindow: 0,
    });
    const shown = ClosedLoopConfiguration.parse({});
    for (const k of ["variant", "seed", "noise", "maxSteps", "maxReplans", "maxModelCalls", "maxWallSeconds"] as const)
      expect(shown[k]).toEqual(settings[k]);
    expect(VlmpcConfiguration.parse({}).maxSkillSeconds).toBe(settings.maxSkillSeconds);
    // A method's settings are its own: CLEA's run has no VLM-PC history window.
    expect("historyWindow" in parseSettings(ClosedLoopConfiguration, {}, {})).toBe(false);
  });

  it("reads the environment under what the caller gives", () => {
    const env = {
      ROBOGRAPH_BRIDGE_URL: "ws://127.0.0.1:2",
      ROBOGRAPH_SEED: "7",
      ROBOGRAPH_APPROVE: "arm/open,arm/close",
    };
    expect(parseSettings(ClosedLoopConfiguration, {}, env)).toMatchObject({
      bridgeUrl: "ws://127.0.0.1:2",
      seed: 7,
      approve: ["arm/open", "arm/close"],
    });
    expect(parseSettings(ClosedLoopConfiguration, { seed: 3, models: { critic: "big-vlm" } }, env)).toMatchObject({
      seed: 3,
      models: { critic: "big-vlm" },
    });
  });

  it("refuses what the method's schema does not allow, naming the field; a bridge is asked for only when a robot is", async () => {
    expect(() => parseSettings(ClosedLoopConfiguration, { noise: 2 }, {})).toThrow(
      /invalid run configuration[\s\S]*noise/,
    );
    expect(() => parseSettings(ClosedLoopConfiguration, { maxSteps: "many" }, {})).toThrow(/maxSteps/);
    // Each graph runs only its own variants.
    expect(parseSettings(VlmpcConfiguration, { variant: "no-history" }, {}).variant).toBe("no-history");
    expect(() => parseSettings(ClosedLoopConfiguration, { variant: "no-history" }, {})).toThrow(/variant/);
    const run = openRun(clea.runtime, {}, { env: {} });
    await expect(run.session()).rejects.toThrow(/no bridge URL/);
  });

  it("reaches nodes as the graph's context, opened by the caller or made from plain JSON for a graph invoked without one", async () => {
    const seen: string[] = [];
    const node = inRun(vlmpc.runtime, (_state: unknown, config?: RunnableConfig) => {
      const run = runOf(config);
      seen.push(`${run.settings.variant}/${run.settings.seed}/${run.modelConfig.backend}`);
    });
    const opened = openRun(vlmpc.runtime, { variant: "random", seed: 4 }, { env: {} });
    node({}, { context: opened.context } as RunnableConfig);
    // The LangGraph server's way: configurable and context as JSON, the context over configurable.
    node({}, {
      configurable: { thread_id: "t", variant: "no-history", seed: 1 },
      context: { seed: 2 },
    } as RunnableConfig);
    expect(seen[0]).toBe("random/4/symbolic");
    expect(seen[1]).toMatch(/^no-history\/2\//);
    // Outside a method's graph there is no run to find.
    expect(() => runOf({})).toThrow(/no run in this config/);
    // The settings ride as JSON: the run is not among them.
    expect(JSON.parse(JSON.stringify(opened.context))).toEqual(JSON.parse(JSON.stringify(opened.settings)));
  });
});
