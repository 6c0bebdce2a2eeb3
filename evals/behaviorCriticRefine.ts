/**
 * The closed loop with a policy writer (the paper's §6): each case's first negative program is run on the workbench
 * simulator, critiqued, grounded, and rewritten by the `behaviorCritic` graph until no undesirable event remains or
 * the rewrite budget ends it. Scored after every program from the simulator's own check and event log: undesirable
 * events per iteration, and whether the task's goal is still reached.
 */
import { MemorySaver } from "@langchain/langgraph";
import { join } from "node:path";
import { behaviorCritic } from "../graphs/behaviorCritic";
import { totalUsage } from "../models";
import { openRun } from "../runtime/run";
import type { CriticStateType } from "../graphs/behaviorCritic/state";
import { RESET_SERVICE } from "../robots/msgs/rollout";
import { BridgeClient } from "../robots/bridge/client";
import { readRollout } from "../graphs/behaviorCritic/nodes/rollouts";
import { startSimProcess } from "../robots/sim/process";
import type { SimEvent } from "../robots/sim/events";
import { loadCriticBenchmark } from "./datasets/behaviorCritic";
import { truthOf } from "./criticTruth";

export interface RefineRun {
  case: string;
  behaviour: string;
  /** Per program run: the undesirable events that happened and whether the goal held. */
  iterations: { events: string[]; success: boolean }[];
  status: string;
  statusReason: string;
  calls: number;
}

export interface RefineOptions {
  dir: string;
  out: string;
  seed: number;
  noise: number;
  grounding: "detector" | "events";
  maxRewrites: number;
  limit?: number;
  behaviours?: string[];
  onProgress?: (done: number, total: number, last?: RefineRun) => void;
}

export async function runRefinement(options: RefineOptions): Promise<RefineRun[]> {
  const bench = loadCriticBenchmark(options.dir);
  let cases = bench.cases.filter((c) => !options.behaviours || options.behaviours.includes(c.outputs.behaviour));
  cases = cases.slice(0, options.limit ?? cases.length);
  const sim = await startSimProcess("workbench", ["--speed", "max", "--scenario", cases[0]?.inputs.scene ?? ""]);
  const client = await BridgeClient.connect(sim.url);
  const runs: RefineRun[] = [];
  try {
    for (const c of cases) {
      const negative = c.inputs.negatives[0];
      const recorded = readRollout(bench.rolloutPath(negative));
      await client.callService(RESET_SERVICE, { scenario: c.inputs.scene, seed: recorded.seed });
      const graph = behaviorCritic.compile(new MemorySaver());
      const session = openRun(behaviorCritic.runtime, {
        bridgeUrl: sim.url,
        backend: "symbolic",
        seed: options.seed,
        noise: options.noise,
        grounding: options.grounding,
        maxRewrites: options.maxRewrites,
        dataDir: join(options.out, "data"),
      });
      const config = {
        configurable: { thread_id: `refine-${negative}` },
        context: session.context,
        interruptBefore: ["writer" as const],
      };
      const run: RefineRun = {
        case: c.metadata.case,
        behaviour: c.outputs.behaviour,
        iterations: [],
        status: "",
        statusReason: "",
        calls: 0,
      };
      const measure = async () => {
        const events = (await client.callService<{ events: SimEvent[] }>("/evaluator/events", {})).events;
        const check = await client.callService<{ success: boolean }>("/evaluator/check", {});
        run.iterations.push({ events: truthOf(events).map((e) => `${e.kind}(${e.object})`), success: check.success });
      };
      try {
        let input: unknown = { goal: c.inputs.instruction, job: "refine", program: recorded.program };
        for (;;) {
          await graph.invoke(input as never, config);
          const snap = await graph.getState(config);
          const state = snap.values as CriticStateType;
          // Paused before the writer resets the scene for the next try: the last program's effects are still there.
          if (state.attempts.length > run.iterations.length) await measure();
          if (snap.next.length === 0) {
            run.status = state.status;
            run.statusReason = state.statusReason;
            run.calls = totalUsage(state.usage).calls;
            break;
          }
          input = null;
        }
      } finally {
        await session.close();
      }
      runs.push(run);
      options.onProgress?.(runs.length, cases.length, run);
    }
  } finally {
    await client.close();
    await sim.stop();
  }
  return runs;
}

/** The refinement table: events at the first and last program, goal kept, iterations, per behaviour. */
export function refineReport(runs: RefineRun[]): string {
  const behaviours = [...new Set(runs.map((r) => r.behaviour))];
  const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : "—");
  const lines = [
    "## Policy refinement with the critic in the loop",
    "",
    "Each case's first negative program, rewritten by the writer from the grounded critique until no undesirable event",
    "remains (or the rewrite budget ends it); events and goal from the simulator after every program.",
    "",
    "| behaviour | cases | events removed | goal still reached | programs (mean) | model calls (mean) |",
    "|---|---|---|---|---|---|",
  ];
  for (const b of behaviours) {
    const rs = runs.filter((r) => r.behaviour === b);
    const removed = rs.filter((r) => r.iterations.at(-1)?.events.length === 0).length;
    const kept = rs.filter((r) => r.iterations.at(-1)?.success).length;
    const mean = (f: (r: RefineRun) => number) => (rs.reduce((n, r) => n + f(r), 0) / rs.length).toFixed(1);
    lines.push(
      `| ${b} | ${rs.length} | ${pct(removed, rs.length)} | ${pct(kept, rs.length)} | ${mean((r) => r.iterations.length)} | ${mean((r) => r.calls)} |`,
    );
  }
  const maxIt = Math.max(0, ...runs.map((r) => r.iterations.length));
  lines.push(
    "",
    "Undesirable events per program (all cases; a finished case keeps its last count):",
    "",
    `| program | ${Array.from({ length: maxIt }, (_, i) => i + 1).join(" | ")} |`,
    `|---|${"---|".repeat(maxIt)}`,
  );
  const at = (r: RefineRun, i: number) => r.iterations[Math.min(i, r.iterations.length - 1)];
  lines.push(
    `| events | ${Array.from({ length: maxIt }, (_, i) => runs.reduce((n, r) => n + (at(r, i)?.events.length ?? 0), 0)).join(" | ")} |`,
  );
  lines.push(
    `| goal reached | ${Array.from({ length: maxIt }, (_, i) => pct(runs.filter((r) => at(r, i)?.success).length, runs.length)).join(" | ")} |`,
  );
  return lines.join("\n");
}
