/** What RePLan publishes: its Table 1 and Figure C.1 in the runner's report, and its measures of an episode. */
import { experimentCharts, experimentReport, scoreWithinBudget, type ChartSpec, type CheckedExperiment, type EpisodeRun, type ExperimentReport } from "../report";
import type { ReplanStateType } from "./state";

/** RePLan's variant names as its Table 1 prints them. */
const REPLAN_ROWS: Record<string, string> = {
  full: "REPLAN [full]",
  "no-verifier": "REPLAN [no Verifier]",
  "no-perceiver": "REPLAN [no Perceiver]",
  "no-replan": "REPLAN [no Replan]",
  "one-shot": "Language to Rewards (one-shot)",
};

/**
 * RePLan's Table 1: one row per model, one column per task (its number), the average over tasks 1–7 as the paper
 * gives it, and over all eight; then its Figure C.1 as numbers — motion and vision actions per trial.
 */
export function replanTable(r: ExperimentReport): string {
  if (r.episodes.every((e) => e.paperTask === undefined)) return generatedTable(r);
  const byNumber = (t: string) => Number(r.episodes.find((e) => e.task === t)?.paperTask ?? 0);
  const tasks = [...r.tasks].sort((a, b) => byNumber(a) - byNumber(b));
  const rate = (v: string, t: string) => r.table[v][t]?.successRate ?? 0;
  const avg = (v: string, ts: string[]) => (ts.length ? ts.reduce((n, t) => n + rate(v, t), 0) / ts.length : 0);
  const first7 = tasks.filter((t) => byNumber(t) <= 7);
  const head = `| Model | ${tasks.map((t) => `Task ${byNumber(t)}`).join(" | ")} | Average (1–7) | Average (all) |\n|---|${tasks.map(() => "---").join("|")}|---|---|`;
  const pc = (x: number) => `${(x * 100).toFixed(Math.round(x * 1000) % 10 ? 1 : 0)}%`;
  const rows = r.variants.map((v) => `| ${REPLAN_ROWS[v] ?? v} | ${tasks.map((t) => pc(rate(v, t))).join(" | ")} | ${pc(avg(v, first7))} | ${pc(avg(v, tasks))} |`);
  const actions = (v: string, t: string, k: "motions" | "visionSteps") => {
    const eps = r.episodes.filter((e) => e.variant === v && e.task === t);
    return eps.length ? eps.reduce((n, e) => n + (e[k] ?? 0), 0) / eps.length : 0;
  };
  const effort = r.variants.map((v) => `| ${REPLAN_ROWS[v] ?? v} | ${tasks.map((t) => `${actions(v, t, "motions").toFixed(1)} / ${actions(v, t, "visionSteps").toFixed(1)}`).join(" | ")} |`);
  return [
    `## RePLan Table 1 layout: share of ${r.seeds} run(s) per task that reached the goal`,
    "",
    head,
    ...rows,
    "",
    "## Actions per trial: motion (MPC) / vision (VLM), as in RePLan's Figure C.1",
    "",
    `| Model | ${tasks.map((t) => `Task ${byNumber(t)}`).join(" | ")} |\n|---|${tasks.map(() => "---").join("|")}|`,
    ...effort,
    "",
  ].join("\n");
}

/** Generated scenes have no task numbers: the same layout, one column per goal kind (the rows' family). */
function generatedTable(r: ExperimentReport): string {
  const kinds = r.families;
  const pc = (x: number) => `${(x * 100).toFixed(Math.round(x * 1000) % 10 ? 1 : 0)}%`;
  const head = `| Model | ${kinds.map((k) => k.replace(/_/g, " ")).join(" | ")} | All |\n|---|${kinds.map(() => "---").join("|")}|---|`;
  const cell = (v: string, k: string) => r.table[v][k];
  const rows = r.variants.map((v) => `| ${REPLAN_ROWS[v] ?? v} | ${kinds.map((k) => `${pc(cell(v, k)?.successRate ?? 0)} (${cell(v, k)?.successes ?? 0}/${cell(v, k)?.trials ?? 0})`).join(" | ")} | ${pc(cell(v, "all")?.successRate ?? 0)} (${cell(v, "all")?.successes ?? 0}/${cell(v, "all")?.trials ?? 0}) |`);
  const mean = (v: string, k: string | undefined, f: (e: ExperimentReport["episodes"][number]) => number) => {
    const eps = r.episodes.filter((e) => e.variant === v && (k === undefined || e.family === k));
    return eps.length ? eps.reduce((n, e) => n + f(e), 0) / eps.length : 0;
  };
  const effort = r.variants.map((v) => `| ${REPLAN_ROWS[v] ?? v} | ${[...kinds, undefined].map((k) => `${mean(v, k, (e) => e.motions ?? 0).toFixed(1)} / ${mean(v, k, (e) => e.visionSteps ?? 0).toFixed(1)}`).join(" | ")} |`);
  return [
    `## RePLan Table 1 layout: share of the generated scenes that reached the goal, by goal kind`,
    "",
    head,
    ...rows,
    "",
    "## Actions per trial: motion (MPC) / vision (VLM), as in RePLan's Figure C.1",
    "",
    `| Model | ${kinds.map((k) => k.replace(/_/g, " ")).join(" | ")} | All |\n|---|${kinds.map(() => "---").join("|")}|---|`,
    ...effort,
    "",
  ].join("\n");
}

/** RePLan counts motion (MPC) and vision (VLM) actions separately, as its Figure C.1 does. */
function effort(run: EpisodeRun<ReplanStateType>, maxSteps: number) {
  const motions = run.trace.flatMap((t) => (t.node === "executor" ? (t.update.log ?? []).filter((e) => e.kind === "motion") : []));
  const c = run.state.counters;
  return {
    score: scoreWithinBudget(motions.map((m) => ({ ok: m.kind === "motion" && m.ok, cost: 1 })), maxSteps),
    steps: c.motions + c.visionSteps,
    motions: c.motions,
    visionSteps: c.visionSteps,
    failedActions: motions.filter((m) => m.kind === "motion" && !m.ok).length,
    replans: c.replans,
    procedures: c.procedures,
    verdicts: {},
  };
}

function charts(r: CheckedExperiment): ChartSpec[] {
  const vs = r.variants;
  const byNumber = (t: string) => Number(r.episodes.find((e) => e.task === t)?.paperTask ?? 0);
  const tasks = [...r.tasks].sort((a, b) => byNumber(a) - byNumber(b));
  const mean = (v: string, k: "motions" | "visionSteps") => {
    const eps = r.episodes.filter((e) => e.variant === v);
    return eps.length ? eps.reduce((n, e) => n + (Number(e[k]) || 0), 0) / eps.length : 0;
  };
  const generated = r.episodes.every((e) => e.paperTask === undefined);
  const columns = generated ? { title: "RePLan Table 1 layout: success per goal kind", tasks: r.families, labels: r.families.map((k) => k.replace(/_/g, " ")) } : { title: "RePLan Table 1: success per task", tasks, labels: tasks.map((t) => `Task ${byNumber(t)}`) };
  return experimentCharts(r, columns, [
    { id: "chart-actions", title: "Actions per trial: motion (MPC) and vision (VLM), RePLan's Figure C.1", type: "bar", labels: vs, datasets: [{ label: "motion", data: vs.map((v) => mean(v, "motions")) }, { label: "vision", data: vs.map((v) => mean(v, "visionSteps")) }] },
  ]);
}

export const replanReport = experimentReport({
  method: "replan",
  name: "RePLan",
  tables: ["replan-table-1", "replan-actions"],
  headings: [[/^RePLan Table 1 layout/, "replan-table-1"], [/^Actions per trial/, "replan-actions"]],
  experiment: { paperTables: replanTable, averageScore: false, effort: (run, maxSteps) => effort(run, maxSteps), families: ["replan"] },
  charts,
});
