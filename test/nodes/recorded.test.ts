/**
 * The methods' model nodes run alone, each on a context recorded from a real run (test/fixtures/recordNodes.ts): the
 * state it was handed, the robots' manifests, the images the state names. No robot, no simulator, no graph: the node
 * is called with a session whose robot refuses every use, and must return what it returned in the run. A node whose
 * reading of its context changes fails here with the node and the call named.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import type { Session } from "../../nodes/runtime";
import { openRun } from "../../nodes/run";
import { method } from "../../methods";
import { plan } from "../../methods/clea/nodes/planner";
import { verify } from "../../methods/clea/nodes/verifier";
import { critique } from "../../methods/clea/nodes/critic";
import { summarize } from "../../methods/clea/nodes/summarizer";
import { checkGoal } from "../../methods/clea/nodes/goalCheck";
import { planHighLevel } from "../../methods/replan/nodes/highLevelPlanner";
import { verifyPlan } from "../../methods/replan/nodes/planVerifier";
import { askQuestions } from "../../methods/replan/nodes/visionQuestions";
import { checkStep } from "../../methods/replan/nodes/stepCheck";
import { planMotion } from "../../methods/replan/nodes/lowLevelPlanner";
import { verifyMotion } from "../../methods/replan/nodes/rewardVerifier";
import { consolidate } from "../../methods/replan/nodes/consolidate";
import { remapReasons } from "../../methods/replan/nodes/remapReasons";
import { planCourse } from "../../methods/vlmpc/nodes/planner";
import { FIXTURES, RECORDED, type Recording } from "../fixtures/recordNodes";

type Node = (state: never, config: RunnableConfig) => Promise<unknown>;
const NODES: Record<string, Record<string, Node>> = {
  clea: { planner: plan, verifier: verify, critic: critique, summarizer: summarize, goal_check: checkGoal },
  replan: {
    high_level_planner: planHighLevel, plan_verifier: verifyPlan, vision_questions: askQuestions, step_check: checkStep, low_level_planner: planMotion,
    reward_verifier: verifyMotion, consolidate, remap_reasons: remapReasons,
  },
  vlmpc: { planner: planCourse },
};

/** A robot that is not there: a node that reaches for it fails the test instead of waiting on a socket. */
const noRobot = new Proxy({}, {
  get: (_t, key) => (key === "close" ? async () => {} : () => Promise.reject(new Error(`a recorded context has no robot (the node called client.${String(key)})`))),
}) as Session["client"];

function load(mode: string): Recording {
  return JSON.parse(readFileSync(join(FIXTURES, mode, "recording.json"), "utf8")) as Recording;
}

describe.each(RECORDED.map((r) => r.mode))("%s's model nodes on recorded contexts", (mode) => {
  const recording = existsSync(join(FIXTURES, mode, "recording.json")) ? load(mode) : undefined;

  it("has a recording with every node it names", () => {
    expect(recording, `no recording for ${mode}: npx tsx test/fixtures/recordNodes.ts`).toBeDefined();
    for (const c of recording!.calls) expect(NODES[mode][c.node], c.node).toBeTypeOf("function");
    expect(new Set(recording!.calls.map((c) => c.node)).size).toBeGreaterThan(0);
  });

  it.each((recording?.calls ?? []).map((c, i) => [`${c.node} #${i}`, c] as const))("%s returns what it returned in the run", async (_label, call) => {
    // The run as the graph would have opened it, with a session of the recorded robots (none of the environment's word).
    const run = openRun(method(mode).runtime, { ...recording!.configurable, bridgeUrl: `ws://recorded.invalid/${mode}`, dataDir: join(FIXTURES, mode) }, {
      env: {},
      session: (models) => ({
        client: noRobot,
        robots: recording!.robots as Session["robots"],
        world: recording!.world as Session["world"],
        described: true,
        ...models,
        views: new Map(),
        firstViews: Promise.resolve(),
        reopen: () => Promise.reject(new Error("a recorded context cannot reconnect")),
      }),
    });
    const config = { configurable: { thread_id: `recorded-${mode}` }, context: run.context };
    try {
      // The wall budget counts from the run's start: replayed now, the run starts now.
      const state = { ...call.state, ...(typeof call.state.startedAt === "number" ? { startedAt: Date.now() } : {}) };
      const update = await NODES[mode][call.node](state as never, config);
      expect(JSON.parse(JSON.stringify(update ?? {}))).toEqual(call.update);
    } finally {
      await run.close();
    }
  });
});
