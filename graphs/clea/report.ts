/** What CLEA publishes: the experiment runner's report with its Average Score, and its measures of an episode. */
import { experimentCharts, experimentReport, scoreWithinBudget, type EpisodeRun } from "../report";
import type { ClosedLoopStateType } from "./state";

/** CLEA's measures: one point per action the robot completed within the step budget, its replans and verdicts. */
function effort(run: EpisodeRun<ClosedLoopStateType>, maxSteps: number) {
  const actions = run.trace.flatMap((step) =>
    step.node === "executor" && step.update.history?.[0]?.kind === "action" ? [step.update.history[0]] : [],
  );
  return {
    score: scoreWithinBudget(
      actions.map((a) => ({ ok: a.kind === "action" && a.ok, cost: 1 })),
      maxSteps,
    ),
    steps: run.state.counters.steps,
    failedActions: actions.filter((a) => a.kind === "action" && !a.ok).length,
    replans: run.state.counters.replans,
    verdicts: run.state.verdicts,
    loops: Object.fromEntries(
      ["looked", "overruled", "refused"].map((how) => [
        how,
        (run.state.loops ?? []).filter((l) => l.how === how).length,
      ]),
    ),
  };
}

export const cleaReport = experimentReport({
  method: "clea",
  name: "CLEA",
  // The paper's comparison: the full loop, without its critic, and the open-loop baseline.
  experiment: {
    paperTables: () => "",
    averageScore: true,
    effort: (run: EpisodeRun<ClosedLoopStateType>, maxSteps: number) => effort(run, maxSteps),
    defaults: { variants: ["full", "no-critic", "open-loop"] },
  },
  charts: (report) =>
    experimentCharts(report, undefined, [
      {
        id: "chart-score",
        title: "Average Score per variant (CLEA)",
        type: "bar",
        labels: report.variants,
        datasets: [{ label: "average score", data: report.variants.map((v) => report.table[v].all.averageScore) }],
      },
    ]),
});
