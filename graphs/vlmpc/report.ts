/** What VLM-PC publishes: its Tables I and II, Figures 4 and 5 and the generated courses in the runner's report, and its measures. */
import {
  cellNumber,
  counted,
  mean,
  median,
  experimentCharts,
  experimentFacts,
  experimentReport,
  scoreWithinBudget,
  tableById,
  type ChartSpec,
  type CheckedExperiment,
  type EpisodeRun,
  type ExperimentReport,
} from "../report";
import type { VlmpcStateType } from "./state";

/** VLM-PC's method names as its tables print them. */
const VLMPC_ROWS: Record<string, string> = {
  random: "Random",
  "no-history": "No History",
  "no-multi-step": "No Multi-Step",
  full: "VLM-PC",
  "full+ic": "VLM-PC + IC",
};

/** Mean and median of the course time (a failure counts as the budget) and the success rate of some episodes. */
function courseCell(eps: ExperimentReport["episodes"]) {
  // An episode that does not count as a success counts as the whole budget, whatever its record says.
  const seconds = eps.map((e) => (counted(e) ? (e.courseSeconds ?? 100) : 100));
  return {
    avg: mean(seconds),
    median: median(seconds),
    success: eps.length ? eps.filter(counted).length / eps.length : 0,
    n: eps.length,
  };
}

/**
 * VLM-PC's tables: Table I (per real setting: average and median seconds, failures counted as 100 s, and success),
 * the average over settings (its Figure 4), Table II (the simulated dead end with stairs: success, and how often the
 * robot got out of the dead end), and Figure 5 (VLM-PC with and without labelled in-context examples).
 */
export function vlmpcTables(report: ExperimentReport): string {
  const tableOf = (t: string) => report.episodes.find((e) => e.task === t)?.paperTable;
  const settings = report.tasks.filter((t) => tableOf(t) === "I");
  const sim = report.tasks.filter((t) => tableOf(t) === "II");
  const order = ["random", "no-history", "no-multi-step", "full", "full+ic"].filter((v) => report.variants.includes(v));
  const name = (v: string) => VLMPC_ROWS[v] ?? v;
  const eps = (v: string, ts: string[]) => report.episodes.filter((e) => e.variant === v && ts.includes(e.task));
  const f1 = (x: number) => x.toFixed(1);
  const pc = (x: number) => `${Math.round(x * 100)}`;
  /** A variant over some courses: time, success, and how often the planner said it reached the toy (and had). */
  const overall = (variant: string, ts: string[]) => {
    const runs = eps(variant, ts);
    const cell = courseCell(runs);
    const said = runs.filter((x) => x.agentReached);
    return `| ${name(variant)} | ${f1(cell.avg)} | ${f1(cell.median)} | ${pc(cell.success)} | ${runs.length ? pc(said.length / runs.length) : "–"} | ${runs.length ? pc(said.filter(counted).length / runs.length) : "–"} |`;
  };
  const out: string[] = [];
  if (settings.length) {
    out.push(
      `## VLM-PC Table I layout: per setting, average / median seconds of skill time (failures count as 100 s) and success (%), ${report.seeds} trial(s) each`,
      "",
      `| Method | ${settings.map((t) => `${t} avg (s) | ${t} median (s) | ${t} success (%)`).join(" | ")} |`,
      `|---|${settings.map(() => "---|---|---").join("|")}|`,
      ...order.map(
        (variant) =>
          `| ${name(variant)} | ${settings
            .map((setting) => {
              const cell = courseCell(eps(variant, [setting]));
              return `${f1(cell.avg)} | ${f1(cell.median)} | ${pc(cell.success)}`;
            })
            .join(" | ")} |`,
      ),
      "",
      "## Averaged across the settings (VLM-PC's Figure 4)",
      "",
      "Success is the simulator's check: the body came within reach of the toy within 100 s of skill time. Beside it, how often the planner itself said it had reached the toy, and how often it said so where the simulator agreed.",
      "",
      "| Method | avg (s) | median (s) | success (%) | planner said reached (%) | … and had (%) |\n|---|---|---|---|---|---|",
      ...order.map((v) => overall(v, settings)),
      "",
    );
  }
  if (sim.length) {
    const first = (variant: string) => {
      const tried = eps(variant, sim).filter((x) => x.firstSuccess !== undefined);
      return tried.length ? pc(tried.filter((x) => x.firstSuccess).length / tried.length) : "–";
    };
    out.push(
      `## VLM-PC Table II layout: ${sim.join(", ")} — success (%) and first success: out of the dead end (%)`,
      "",
      `| | ${order.map(name).join(" | ")} |\n|---|${order.map(() => "---").join("|")}|`,
      `| Success (%) | ${order.map((v) => pc(courseCell(eps(v, sim)).success)).join(" | ")} |`,
      `| Out of the dead end (%) | ${order.map(first).join(" | ")} |`,
      "",
    );
  }
  const made = report.tasks.filter((t) => tableOf(t) === "generated");
  if (made.length) {
    out.push(
      `## Generated courses: ${made.length} course(s), ${report.seeds} trial(s) each — average / median seconds of skill time (failures count as 100 s) and success (%)`,
      "",
      "Success is the simulator's check: the body came within reach of the toy within 100 s of skill time. Every course was checked solvable within 100 s by a search over its true layout before it was run.",
      "",
      "| Method | avg (s) | median (s) | success (%) | planner said reached (%) | … and had (%) |\n|---|---|---|---|---|---|",
      ...order.map((v) => overall(v, made)),
      "",
    );
  }
  if (report.variants.includes("full+ic") && report.variants.includes("full") && !made.length) {
    out.push(
      "## VLM-PC with labelled in-context examples (its Figure 5)",
      "",
      "| Course | Method | avg time (s) | median time (s) | success (%) |\n|---|---|---|---|---|",
      ...[...settings, ...sim].flatMap((course) =>
        ["full", "full+ic"].map((variant) => {
          const cell = courseCell(eps(variant, [course]));
          return `| ${course} | ${name(variant)} | ${f1(cell.avg)} | ${f1(cell.median)} | ${pc(cell.success)} |`;
        }),
      ),
      "",
    );
  }
  return out.join("\n");
}

/**
 * VLM-PC's measures, as its Table I takes them: the skill time when the body reached the toy (the trial ends there),
 * a failure counting as the full budget; success only within it. Skills sent and the model's revisions of its plan.
 */
function effortOf(run: EpisodeRun<VlmpcStateType>, outputs: { within_seconds: number }) {
  const truth = run.truth as unknown as { reachedAt: number | null; leftDeadEnd?: boolean };
  const reached = truth.reachedAt !== null && truth.reachedAt <= outputs.within_seconds;
  const answers = run.state.steps.map((r) => r.answer);
  return {
    success: reached,
    courseSeconds: reached ? truth.reachedAt! : outputs.within_seconds,
    ...(truth.leftDeadEnd === undefined ? {} : { firstSuccess: truth.leftDeadEnd }),
    // The skill that ran past the time budget, and any after it, earn nothing.
    score: scoreWithinBudget(
      run.state.steps.flatMap((r) => (r.result ? [{ ok: !r.result.stalled, cost: r.result.seconds }] : [])),
      outputs.within_seconds,
    ),
    steps: run.state.counters.skills,
    failedActions: run.state.steps.filter((r) => r.result?.stalled).length,
    replans: answers.filter((a, i) => i > 0 && !a.keepsPrevious).length,
    verdicts: {},
  };
}

function charts(report: CheckedExperiment): ChartSpec[] {
  const own: ChartSpec[] = [];
  const fig4 = tableById(report, "vlmpc-figure-4") ?? tableById(report, "vlmpc-generated");
  if (fig4)
    own.push({
      id: "chart-course-time",
      title: "Average and median seconds of skill time (failures count as 100 s), VLM-PC's Figure 4",
      type: "bar",
      labels: fig4.rows.map((x) => x[0]),
      datasets: ["avg (s)", "median (s)"].map((column) => ({
        label: column,
        data: fig4.rows.map((x) => cellNumber(x[fig4.columns.indexOf(column)])),
      })),
    });
  const fig5 = tableById(report, "vlmpc-figure-5");
  if (fig5) {
    const courses = [...new Set(fig5.rows.map((x) => x[0]))];
    const methods = [...new Set(fig5.rows.map((x) => x[1]))];
    const col = fig5.columns.indexOf("success (%)");
    own.push({
      id: "chart-figure-5",
      title: "VLM-PC with and without labelled in-context examples (its Figure 5): success per course",
      type: "bar",
      labels: courses,
      datasets: methods.map((methodName) => ({
        label: methodName,
        data: courses.map((course) => {
          const value = cellNumber(fig5.rows.find((x) => x[0] === course && x[1] === methodName)?.[col]);
          return value === null ? null : value / 100;
        }),
      })),
      yMax: 1,
    });
  }
  return experimentCharts(report, { title: "Success per course", tasks: report.tasks, labels: report.tasks }, own);
}

export const vlmpcReport = experimentReport({
  method: "vlmpc",
  name: "VLM-PC",
  tables: ["vlmpc-table-1", "vlmpc-figure-4", "vlmpc-table-2", "vlmpc-generated", "vlmpc-figure-5"],
  headings: [
    [/^VLM-PC Table I layout/, "vlmpc-table-1"],
    [/^Averaged across the settings/, "vlmpc-figure-4"],
    [/^VLM-PC Table II layout/, "vlmpc-table-2"],
    [/^Generated courses/, "vlmpc-generated"],
    [/^VLM-PC with labelled in-context examples/, "vlmpc-figure-5"],
  ],
  experiment: {
    paperTables: vlmpcTables,
    averageScore: false,
    families: ["vlmpc"],
    // The paper's five trials per course; 100 s of skill time, not a step count, ends an episode.
    defaults: { seeds: 5, maxSteps: 200 },
    // A trial ends when the robot reaches the toy, whatever the robot makes of it: the simulator's check decides for
    // every variant, and the planner's own verdict is kept beside it (Random never gives one).
    effort: (run: EpisodeRun<VlmpcStateType>, _maxSteps: number, outputs: unknown) => {
      const measured = effortOf(run, outputs as { within_seconds: number });
      return { ...measured, goalHeld: measured.success, agentReached: run.state.status === "succeeded" };
    },
  },
  charts,
  facts: (report) =>
    experimentFacts(
      "VLM-PC",
      report,
      report.settings && typeof report.settings.historyWindow === "number"
        ? [
            report.settings.historyWindow
              ? `history window: the last ${report.settings.historyWindow} steps with images`
              : "history window: the whole history",
          ]
        : [],
    ),
});
