/** Benchmarks of the closed-loop agent: orchestration overhead against a bare LangGraph graph, and checkpoint size. */
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { buildClosedLoop, CLOSED_LOOP_NODES } from "../../graphs/clea/graph";
import { clea } from "../../graphs/clea";
import { openRun } from "../../runtime/run";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../../graphs/clea/state";
import { sqliteCheckpointer } from "../../memory/checkpointer";
import { loadScenario } from "../../robots/sim/kitchen/scenario";
import { startSimProcess } from "../../robots/sim/process";

export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

const SCENARIO = "integration_tea_to_trash";

/** One real episode with the SQLite checkpointer; returns its trace, checkpoint bytes per iteration and timing. */
async function episode(width: number, height: number) {
  const sim = await startSimProcess("kitchen", [
    "--scenario",
    SCENARIO,
    "--speed",
    "max",
    "--width",
    String(width),
    "--height",
    String(height),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "robograph-bench-"));
  const saver = sqliteCheckpointer(join(dir, "checkpoints.sqlite"));
  try {
    const graph = clea.compile(saver);
    const run = openRun(clea.runtime, { bridgeUrl: sim.url, dataDir: dir, backend: "symbolic" });
    const config = { configurable: { thread_id: "bench" }, context: run.context };
    const trace: [string, ClosedLoopUpdate][] = [];
    const t0 = performance.now();
    for await (const chunk of await graph.stream(
      { goal: loadScenario(SCENARIO).instruction },
      { ...config, streamMode: "updates", durability: "sync" },
    )) {
      for (const [node, u] of Object.entries(chunk as Record<string, unknown>))
        trace.push([node, u as ClosedLoopUpdate]);
    }
    const wall = performance.now() - t0;
    const state = (await graph.getState(config)).values as ClosedLoopStateType;
    const db = saver.db;
    const cp = db
      .prepare(
        "SELECT COALESCE(SUM(LENGTH(checkpoint)) + SUM(LENGTH(metadata)), 0) AS n FROM checkpoints WHERE thread_id = ?",
      )
      .get("bench") as { n: number };
    const wr = db
      .prepare("SELECT COALESCE(SUM(LENGTH(value)), 0) AS n FROM writes WHERE thread_id = ?")
      .get("bench") as { n: number };
    await run.close();
    return {
      trace,
      bytesPerIteration: (cp.n + wr.n) / state.counters.iterations,
      iterations: state.counters.iterations,
      wallMs: wall,
      status: state.status,
    };
  } finally {
    await sim.stop();
  }
}

/** Replays a recorded episode through the closed loop's wiring: the graph's own cost, with no model and no robot. */
async function replay(trace: [string, ClosedLoopUpdate][], goal: string): Promise<number> {
  // Each node replays its own updates in order (nodes that ran side by side finished in either order).
  const queues = new Map<string, ClosedLoopUpdate[]>();
  for (const [n, u] of trace) queues.set(n, [...(queues.get(n) ?? []), u]);
  let i = 0;
  const node = (name: string) => async (): Promise<ClosedLoopUpdate> => {
    const update = queues.get(name)?.shift();
    if (!update) throw new Error(`replay diverged at step ${i + 1}: ${name} ran more often than it did in the episode`);
    i++;
    return update;
  };
  const nodes = Object.fromEntries(
    Object.keys(CLOSED_LOOP_NODES).map((k) => [k, node(k)]),
  ) as unknown as typeof CLOSED_LOOP_NODES;
  const graph = buildClosedLoop(clea.runtime, nodes).compile({ checkpointer: new MemorySaver() });
  const run = openRun(clea.runtime, { bridgeUrl: "ws://unused", variant: "full" });
  const t0 = performance.now();
  await graph.invoke({ goal }, { configurable: { thread_id: "replay" }, context: run.context, recursionLimit: 10_000 });
  if (i !== trace.length) throw new Error(`replay ran ${i} of ${trace.length} steps`);
  return performance.now() - t0;
}

/** The calls `bare` makes on a StateGraph builder, on a one-number state. */
interface BareBuilder {
  addNode(name: string, action: (state: { n: number }) => Promise<{ n: number }>): BareBuilder;
  addEdge(from: string, to: string): BareBuilder;
  addConditionalEdges(from: string, route: (state: { n: number }) => string, ends: string[]): BareBuilder;
  compile(options: { checkpointer: MemorySaver }): {
    invoke(
      input: { n: number },
      config: { configurable: { thread_id: string }; recursionLimit: number },
    ): Promise<unknown>;
  };
}

/** A bare LangGraph loop with the same node count and the same number of node runs, trivial state. */
async function bare(steps: number): Promise<number> {
  const Counter = Annotation.Root({ n: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }) });
  const names = ["a", "b", "c", "d", "e", "f", "g", "h"] as const;
  // The builder's type grows with every node added in the loop; this is the part of it the loop uses.
  let builder = new StateGraph(Counter) as unknown as BareBuilder;
  for (const name of names) builder = builder.addNode(name, async (s: { n: number }) => ({ n: s.n + 1 }));
  builder = builder.addEdge(START, "a");
  for (let k = 0; k < names.length - 1; k++) builder = builder.addEdge(names[k], names[k + 1]);
  builder = builder.addConditionalEdges("h", (s: { n: number }) => (s.n >= steps ? END : "a"), ["a", END]);
  const graph = builder.compile({ checkpointer: new MemorySaver() });
  const t0 = performance.now();
  await graph.invoke({ n: 0 }, { configurable: { thread_id: "bare" }, recursionLimit: 10_000 });
  return performance.now() - t0;
}

export async function agentBenchmarks(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const small = await episode(320, 240);
  const large = await episode(640, 480);
  figures.push({
    name: `episode ${SCENARIO} (symbolic, sim at max speed): wall per iteration`,
    value: small.wallMs / small.iterations,
    unit: "ms",
  });
  figures.push({
    name: "checkpoint bytes per iteration, 320x240 frames",
    value: small.bytesPerIteration / 1024,
    unit: "KB",
    target: "<= 16 KB",
    ok: small.bytesPerIteration <= 16 * 1024,
  });
  figures.push({
    name: "checkpoint bytes per iteration, 640x480 frames",
    value: large.bytesPerIteration / 1024,
    unit: "KB",
    target: "same as 320x240",
    ok: Math.abs(large.bytesPerIteration - small.bytesPerIteration) / small.bytesPerIteration < 0.05,
  });

  const goal = loadScenario(SCENARIO).instruction;
  const rounds = 15;
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(await replay(small.trace, goal));
    theirs.push(await bare(small.trace.length));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const perIterOurs = median(ours) / small.iterations;
  const perIterBare = median(theirs) / small.iterations;
  figures.push({
    name: "orchestration per loop iteration: closed loop wiring + state",
    value: perIterOurs,
    unit: "ms",
  });
  figures.push({
    name: "orchestration per loop iteration: bare graph, same node runs",
    value: perIterBare,
    unit: "ms",
  });
  figures.push({
    name: "orchestration ratio closed loop / bare",
    value: perIterOurs / perIterBare,
    unit: "x",
    target: "<= 1.2x",
    ok: perIterOurs / perIterBare <= 1.2,
  });
  return figures;
}
