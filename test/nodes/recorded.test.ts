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
import type { Session } from "../../runtime/session";
import { openRun } from "../../runtime/run";
import { METHODS, method } from "../../graphs";
import { FIXTURES, RECORDED, type Recording } from "../fixtures/recordNodes";

type Node = (state: never, config: RunnableConfig) => Promise<unknown>;
/** Each method's recorded nodes, as its descriptor names them. */
const NODES: Record<string, Record<string, Node>> = Object.fromEntries(
  METHODS.filter((m) => m.recordable).map((m) => [m.id, m.recordable!.nodes]),
);

/** A robot that is not there: a node that reaches for it fails the test instead of waiting on a socket. */
const noRobot = new Proxy(
  {},
  {
    get: (_t, key) =>
      key === "close"
        ? async () => {}
        : () => Promise.reject(new Error(`a recorded context has no robot (the node called client.${String(key)})`)),
  },
) as Session["client"];

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

  it.each((recording?.calls ?? []).map((c, i) => [`${c.node} #${i}`, c] as const))(
    "%s returns what it returned in the run",
    async (_label, call) => {
      // The run as the graph would have opened it, with a session of the recorded robots (none of the environment's word).
      const run = openRun(
        method(mode).runtime,
        { ...recording!.configurable, bridgeUrl: `ws://recorded.invalid/${mode}`, dataDir: join(FIXTURES, mode) },
        {
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
        },
      );
      const config = { configurable: { thread_id: `recorded-${mode}` }, context: run.context };
      try {
        // The wall budget counts from the run's start: replayed now, the run starts now.
        const state = { ...call.state, ...(typeof call.state.startedAt === "number" ? { startedAt: Date.now() } : {}) };
        const update = await NODES[mode][call.node](state as never, config);
        expect(JSON.parse(JSON.stringify(update ?? {}))).toEqual(call.update);
      } finally {
        await run.close();
      }
    },
  );
});
