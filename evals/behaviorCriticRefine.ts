/**
 * The closed loop with a policy writer (the paper's §6): each case's first negative program is run on the workbench
 * simulator, critiqued, grounded, and rewritten by the `behaviorCritic` graph until no undesirable event remains or
 * the rewrite budget ends it. Scored after every program: whether the task's goal is still reached (the simulator's
 * check); whether the rewritten program's motion came back toward the careful twin on the same layout, by the
 * generator's own yardstick (evals/datasets/motionChange.ts) — for every family, "not measured" where the case has no
 * twin; and the event monitor's undesirable events, counted only for cases whose negatives the monitor logged anything
 * for (a family it cannot see has no monitor count).
 */
import { MemorySaver } from "@langchain/langgraph";
import { join } from "node:path";
import { behaviorCritic } from "../graphs/behaviorCritic";
import { totalUsage } from "../models";
import { openRun } from "../runtime/run";
import type { CriticStateType } from "../graphs/behaviorCritic/state";
import { LAST_ROLLOUT_SERVICE, RESET_SERVICE, type Rollout } from "../robots/msgs/rollout";
import { BridgeClient } from "../robots/bridge/client";
import { readRollout } from "../graphs/behaviorCritic/nodes/rollouts";
import { startSimProcess } from "../robots/sim/process";
import type { SimEvent } from "../robots/sim/events";
import { loadCriticBenchmark } from "./datasets/behaviorCritic";
import { monitorSees, truthOf } from "./criticTruth";
import { motionDifferences, towardTwin, type MotionChange } from "./datasets/motionChange";

export interface RefineRun {
  case: string;
  behaviour: string;
  /** Per program run: the undesirable events that happened, whether the goal held, and what differs from the twin. */
  iterations: { events: string[]; success: boolean; changes?: MotionChange[] }[];
  /** Whether the event monitor logged anything in the case's negatives (its counts mean something only then). */
  monitorSees?: boolean;
  /** The careful twin's rollout id (absent: the motion's return toward it is not measured). */
  twin?: string;
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
      // The twin must be the careful program on this very layout, or there is nothing to measure the motion against.
      const twinId = c.metadata.twin;
      const twin = twinId ? readRollout(bench.rolloutPath(twinId)) : undefined;
      const sameLayout = twin && twin.seed === recorded.seed && twin.scene === recorded.scene;
      const run: RefineRun = {
        case: c.metadata.case,
        behaviour: c.outputs.behaviour,
        monitorSees: monitorSees(c.outputs.events),
        ...(sameLayout ? { twin: twinId } : {}),
        iterations: [],
        status: "",
        statusReason: "",
        calls: 0,
      };
      const measure = async () => {
        const events = (await client.callService<{ events: SimEvent[] }>("/evaluator/events", {})).events;
        const check = await client.callService<{ success: boolean }>("/evaluator/check", {});
        const changes =
          sameLayout && twin
            ? motionDifferences(await client.callService<Rollout>(LAST_ROLLOUT_SERVICE, {}), twin)
            : undefined;
        run.iterations.push({
          events: truthOf(events).map((e) => `${e.kind}(${e.object})`),
          success: check.success,
          ...(changes ? { changes } : {}),
        });
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

/** Where a refined case's last program's motion ended against the twin (its first program's, the edited one). */
export function refineOutcome(run: RefineRun): "back" | "closer" | "not closer" | "not measured" {
  const first = run.iterations[0]?.changes,
    last = run.iterations.at(-1)?.changes;
  if (!run.twin || !first || !last) return "not measured";
  // A first program that already matched its twin had nothing to come back from.
  if (first.length === 0) return "not measured";
  return towardTwin(first, last);
}

/**
 * The refinement table: per family, whether the rewritten motion came back toward the careful twin (by the generator's
 * yardstick), the goal kept, iterations — and the monitor's events only where the monitor sees the family.
 */
export function refineReport(runs: RefineRun[]): string {
  const behaviours = [...new Set(runs.map((r) => r.behaviour))];
  const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : "—");
  const lines = [
    "## Policy refinement with the critic in the loop",
    "",
    "Each case's first negative program, rewritten by the writer from the grounded critique until the critic finds",
    "nothing (or the rewrite budget ends it). Success is measured against the careful twin on the same layout, by the",
    "generator's own yardstick (motionChanges: time, the hand's path, peak speed, how low it comes, grasps, where each",
    "thing ends, what is left open): back at the twin (nothing measurable differs), or closer (no new difference, the",
    "rest smaller). Not measured: the case has no twin on that layout. Monitor events are counted only for cases whose",
    "negatives the event monitor logged anything for; — where it logged nothing (a family it cannot see).",
    "",
    "| behaviour | cases | measured | back at the twin | closer to it (or back) | goal still reached | monitor sees | monitor events removed | programs (mean) | model calls (mean) |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const b of behaviours) {
    const rs = runs.filter((r) => r.behaviour === b);
    const outcomes = rs.map(refineOutcome);
    const measured = outcomes.filter((o) => o !== "not measured").length;
    const back = outcomes.filter((o) => o === "back").length;
    const closer = outcomes.filter((o) => o === "back" || o === "closer").length;
    const kept = rs.filter((r) => r.iterations.at(-1)?.success).length;
    const seen = rs.filter((r) => r.monitorSees !== false);
    const removed = seen.filter((r) => r.iterations.at(-1)?.events.length === 0).length;
    const mean = (f: (r: RefineRun) => number) => (rs.reduce((n, r) => n + f(r), 0) / rs.length).toFixed(1);
    lines.push(
      `| ${b} | ${rs.length} | ${measured} | ${measured ? pct(back, measured) : "not measured"} | ${measured ? pct(closer, measured) : "not measured"} | ${pct(kept, rs.length)} | ${seen.length} | ${seen.length ? pct(removed, seen.length) : "—"} | ${mean((r) => r.iterations.length)} | ${mean((r) => r.calls)} |`,
    );
  }
  const maxIt = Math.max(0, ...runs.map((r) => r.iterations.length));
  const at = (r: RefineRun, i: number) => r.iterations[Math.min(i, r.iterations.length - 1)];
  const measuredRuns = runs.filter((r) => refineOutcome(r) !== "not measured");
  const seenRuns = runs.filter((r) => r.monitorSees !== false);
  lines.push(
    "",
    "Per program (all cases; a finished case keeps its last program): measurable differences from the twin (cases with a twin), monitor events (cases it sees), goal:",
    "",
    `| program | ${Array.from({ length: maxIt }, (_, i) => i + 1).join(" | ")} |`,
    `|---|${"---|".repeat(maxIt)}`,
    `| differences from the twin (${measuredRuns.length} cases) | ${Array.from({ length: maxIt }, (_, i) => measuredRuns.reduce((n, r) => n + (at(r, i)?.changes?.length ?? 0), 0)).join(" | ")} |`,
    `| monitor events (${seenRuns.length} cases) | ${Array.from({ length: maxIt }, (_, i) => seenRuns.reduce((n, r) => n + (at(r, i)?.events.length ?? 0), 0)).join(" | ")} |`,
    `| goal reached | ${Array.from({ length: maxIt }, (_, i) => pct(runs.filter((r) => at(r, i)?.success).length, runs.length)).join(" | ")} |`,
  );
  return lines.join("\n");
}
