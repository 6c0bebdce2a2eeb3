/** What RePLan publishes: its Table 1 and Figure C.1 in the runner's report, and its measures of an episode. */
import {
  experimentCharts,
  experimentReport,
  scoreWithinBudget,
  type ChartSpec,
  type CheckedExperiment,
  type EpisodeRun,
  type ExperimentReport,
} from "../report";
import type { ReplanStateType } from "./state";

/** RePLan's variant names as its Table 1 prints them. */
const REPLAN_ROWS: Record<string, string> = {
  full: "REPLAN [full]",
  "no-verifier": "REPLAN [no Verifier]",
  "no-perceiver": "REPLAN [no Perceiver]",
  "no-replan": "REPLAN [no Replan]",
  "one-shot": "Language to Rewards (one-shot)",
};

type Episode = ExperimentReport["episodes"][number];
/** A column of the Table 1 layout: its heading, its cell in the runner's table, and which episodes it counts. */
interface Column {
  label: string;
  key: string;
  holds: (e: Episode) => boolean;
}

const pc = (x: number) => `${(x * 100).toFixed(Math.round(x * 1000) % 10 ? 1 : 0)}%`;
const markdownHead = (labels: string[]) =>
  `| Model | ${labels.join(" | ")} |\n|---|${labels.map(() => "---").join("|")}|`;

/**
 * Table 1's layout — one row per model, a success cell per column (and any extra columns) — then its Figure C.1 as
 * numbers: motion and vision actions per trial in the same columns.
 */
function tableOneLayout(
  report: ExperimentReport,
  heading: string,
  columns: Column[],
  success: (v: string, c: Column) => string,
  extra: { label: string; value: (v: string) => string }[] = [],
): string {
  const name = (v: string) => REPLAN_ROWS[v] ?? v;
  const mean = (eps: Episode[], k: "motions" | "visionSteps") =>
    eps.length ? eps.reduce((n, e) => n + (e[k] ?? 0), 0) / eps.length : 0;
  const actions = (variant: string, column: Column) => {
    const eps = report.episodes.filter((e) => e.variant === variant && column.holds(e));
    return `${mean(eps, "motions").toFixed(1)} / ${mean(eps, "visionSteps").toFixed(1)}`;
  };
  return [
    heading,
    "",
    markdownHead([...columns.map((c) => c.label), ...extra.map((x) => x.label)]),
    ...report.variants.map(
      (v) => `| ${name(v)} | ${[...columns.map((c) => success(v, c)), ...extra.map((x) => x.value(v))].join(" | ")} |`,
    ),
    "",
    "## Actions per trial: motion (MPC) / vision (VLM), as in RePLan's Figure C.1",
    "",
    markdownHead(columns.map((c) => c.label)),
    ...report.variants.map((v) => `| ${name(v)} | ${columns.map((c) => actions(v, c)).join(" | ")} |`),
    "",
  ].join("\n");
}

/**
 * RePLan's Table 1: one column per task (its number), the average over tasks 1–7 as the paper gives it, and over all
 * eight. Generated scenes have no task numbers: one column per goal kind (the rows' family), with counts, and all.
 */
export function replanTable(report: ExperimentReport): string {
  if (report.episodes.every((e) => e.paperTask === undefined)) {
    const cell = (v: string, key: string) => report.table[v][key];
    const columns: Column[] = [
      ...report.families.map((k) => ({ label: k.replace(/_/g, " "), key: k, holds: (e: Episode) => e.family === k })),
      { label: "All", key: "all", holds: () => true },
    ];
    return tableOneLayout(
      report,
      "## RePLan Table 1 layout: share of the generated scenes that reached the goal, by goal kind",
      columns,
      (variant, column) =>
        `${pc(cell(variant, column.key)?.successRate ?? 0)} (${cell(variant, column.key)?.successes ?? 0}/${cell(variant, column.key)?.trials ?? 0})`,
    );
  }
  const byNumber = (t: string) => Number(report.episodes.find((e) => e.task === t)?.paperTask ?? 0);
  const tasks = [...report.tasks].sort((a, b) => byNumber(a) - byNumber(b));
  const rate = (v: string, t: string) => report.table[v][t]?.successRate ?? 0;
  const avg = (v: string, ts: string[]) => (ts.length ? ts.reduce((n, t) => n + rate(v, t), 0) / ts.length : 0);
  const first7 = tasks.filter((t) => byNumber(t) <= 7);
  const columns: Column[] = tasks.map((task) => ({
    label: `Task ${byNumber(task)}`,
    key: task,
    holds: (e: Episode) => e.task === task,
  }));
  return tableOneLayout(
    report,
    `## RePLan Table 1 layout: share of ${report.seeds} run(s) per task that reached the goal`,
    columns,
    (v, c) => pc(rate(v, c.key)),
    [
      { label: "Average (1–7)", value: (v) => pc(avg(v, first7)) },
      { label: "Average (all)", value: (v) => pc(avg(v, tasks)) },
    ],
  );
}

/** RePLan counts motion (MPC) and vision (VLM) actions separately, as its Figure C.1 does. */
function effort(run: EpisodeRun<ReplanStateType>, maxSteps: number) {
  const motions = run.trace.flatMap((step) =>
    step.node === "executor" ? (step.update.log ?? []).filter((e) => e.kind === "motion") : [],
  );
  const counters = run.state.counters;
  return {
    score: scoreWithinBudget(
      motions.map((m) => ({ ok: m.kind === "motion" && m.ok, cost: 1 })),
      maxSteps,
    ),
    steps: counters.motions + counters.visionSteps,
    motions: counters.motions,
    visionSteps: counters.visionSteps,
    failedActions: motions.filter((m) => m.kind === "motion" && !m.ok).length,
    replans: counters.replans,
    procedures: counters.procedures,
    verdicts: {},
  };
}

function charts(report: CheckedExperiment): ChartSpec[] {
  const vs = report.variants;
  const byNumber = (t: string) => Number(report.episodes.find((e) => e.task === t)?.paperTask ?? 0);
  const tasks = [...report.tasks].sort((a, b) => byNumber(a) - byNumber(b));
  const mean = (variant: string, k: "motions" | "visionSteps") => {
    const eps = report.episodes.filter((e) => e.variant === variant);
    return eps.length ? eps.reduce((n, e) => n + (Number(e[k]) || 0), 0) / eps.length : 0;
  };
  const generated = report.episodes.every((e) => e.paperTask === undefined);
  const columns = generated
    ? {
        title: "RePLan Table 1 layout: success per goal kind",
        tasks: report.families,
        labels: report.families.map((k) => k.replace(/_/g, " ")),
      }
    : { title: "RePLan Table 1: success per task", tasks, labels: tasks.map((t) => `Task ${byNumber(t)}`) };
  return experimentCharts(report, columns, [
    {
      id: "chart-actions",
      title: "Actions per trial: motion (MPC) and vision (VLM), RePLan's Figure C.1",
      type: "bar",
      labels: vs,
      datasets: [
        { label: "motion", data: vs.map((v) => mean(v, "motions")) },
        { label: "vision", data: vs.map((v) => mean(v, "visionSteps")) },
      ],
    },
  ]);
}

export const replanReport = experimentReport({
  method: "replan",
  name: "RePLan",
  tables: ["replan-table-1", "replan-actions"],
  headings: [
    [/^RePLan Table 1 layout/, "replan-table-1"],
    [/^Actions per trial/, "replan-actions"],
  ],
  experiment: {
    paperTables: replanTable,
    averageScore: false,
    effort: (run: EpisodeRun<ReplanStateType>, maxSteps: number) => effort(run, maxSteps),
    families: ["replan"],
  },
  charts,
});
