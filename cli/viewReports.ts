/**
 * What the viewer draws of a report.json that passed its method's schema (evals/reports.ts): the facts line, the
 * charts that method's paper draws — and no other method's — and the report without the long per-episode or per-case
 * lists (the page lists episodes itself, and the tables already sum the rest).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { REPORT_FORMAT, tablesOfMarkdown, type AnyReport, type PaperTable, type ReportMethod, type RunnerMethod } from "../evals/reports";
import { experimentMethod } from "../evals/report";

export interface ChartSpec {
  id: string;
  title: string;
  type: "bar" | "line";
  labels: (string | number)[];
  datasets: { label: string; data: (number | null)[] }[];
  /** The y axis's top (1 for a share), or none. */
  yMax?: number;
  /** The x axis's name. */
  x?: string;
}

/** "33.3%" → 0.333, "12.5" → 12.5, "—" → null: a table's cell as the number it prints. */
export function cellNumber(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const m = /^(-?[\d.]+)\s*(%)?/.exec(cell.trim());
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isFinite(n) ? (m[2] ? n / 100 : n) : null;
}

const tableById = (r: AnyReport, id: string): PaperTable | undefined => r.tables.find((t) => t.id === id);

/** A table's rows as series: one per row (its first cell the name), the named columns as the points. */
function rowsAsSeries(t: PaperTable, columns: string[], scale = 1): ChartSpec["datasets"] {
  const at = columns.map((c) => t.columns.indexOf(c));
  return t.rows.map((row) => ({ label: row[0], data: at.map((i) => { const n = cellNumber(row[i]); return n === null ? null : n * scale; }) }));
}

type ReportOf<M extends ReportMethod> = Extract<AnyReport, { method: M }>;
type RunnerReport = ReportOf<RunnerMethod>;

/** How a runner report's tasks are shown: in its own order and names, or the paper's. */
interface TaskAxis {
  title: string;
  tasks: string[];
  labels: string[];
}

/** The experiment runner's charts: success per variant, per task (the method's axis), the method's own, effort. */
function runnerCharts(r: RunnerReport, axis: TaskAxis, own: ChartSpec[]): ChartSpec[] {
  const vs = r.variants;
  return [
    { id: "chart-success", title: "Success rate per variant (all episodes)", type: "bar", labels: vs, datasets: [{ label: "success rate", data: vs.map((v) => r.table[v].all.successRate) }], yMax: 1 },
    { id: "chart-tasks", title: axis.title, type: "bar", labels: axis.labels, datasets: vs.map((v) => ({ label: v, data: axis.tasks.map((t) => r.table[v][t]?.successRate ?? 0) })), yMax: 1 },
    ...own,
    { id: "chart-time", title: "Mean skill seconds and model calls per episode", type: "bar", labels: vs, datasets: [{ label: "skill seconds", data: vs.map((v) => r.table[v].all.meanSkillSeconds) }, { label: "model calls", data: vs.map((v) => r.table[v].all.meanModelCalls) }] },
  ];
}

function cleaCharts(r: ReportOf<"clea">): ChartSpec[] {
  const vs = r.variants;
  return runnerCharts(r, { title: "Success rate per task", tasks: r.tasks, labels: r.tasks }, [
    { id: "chart-score", title: "Average Score per variant (CLEA)", type: "bar", labels: vs, datasets: [{ label: "average score", data: vs.map((v) => r.table[v].all.averageScore) }] },
  ]);
}

function replanCharts(r: ReportOf<"replan">): ChartSpec[] {
  const vs = r.variants;
  const byNumber = (t: string) => Number(r.episodes.find((e) => e.task === t)?.paperTask ?? 0);
  const tasks = [...r.tasks].sort((a, b) => byNumber(a) - byNumber(b));
  const mean = (v: string, k: "motions" | "visionSteps") => {
    const eps = r.episodes.filter((e) => e.variant === v);
    return eps.length ? eps.reduce((n, e) => n + (Number(e[k]) || 0), 0) / eps.length : 0;
  };
  return runnerCharts(r, { title: "RePLan Table 1: success per task", tasks, labels: tasks.map((t) => `Task ${byNumber(t)}`) }, [
    { id: "chart-actions", title: "Actions per trial: motion (MPC) and vision (VLM), RePLan's Figure C.1", type: "bar", labels: vs, datasets: [{ label: "motion", data: vs.map((v) => mean(v, "motions")) }, { label: "vision", data: vs.map((v) => mean(v, "visionSteps")) }] },
  ]);
}

function vlmpcCharts(r: ReportOf<"vlmpc">): ChartSpec[] {
  const own: ChartSpec[] = [];
  const fig4 = tableById(r, "vlmpc-figure-4") ?? tableById(r, "vlmpc-generated");
  if (fig4) own.push({ id: "chart-course-time", title: "Average and median seconds of skill time (failures count as 100 s), VLM-PC's Figure 4", type: "bar", labels: fig4.rows.map((x) => x[0]), datasets: ["avg (s)", "median (s)"].map((c) => ({ label: c, data: fig4.rows.map((x) => cellNumber(x[fig4.columns.indexOf(c)])) })) });
  const fig5 = tableById(r, "vlmpc-figure-5");
  if (fig5) {
    const courses = [...new Set(fig5.rows.map((x) => x[0]))];
    const methods = [...new Set(fig5.rows.map((x) => x[1]))];
    const col = fig5.columns.indexOf("success (%)");
    own.push({ id: "chart-figure-5", title: "VLM-PC with and without labelled in-context examples (its Figure 5): success per course", type: "bar", labels: courses, datasets: methods.map((m) => ({ label: m, data: courses.map((c) => { const n = cellNumber(fig5.rows.find((x) => x[0] === c && x[1] === m)?.[col]); return n === null ? null : n / 100; }) })), yMax: 1 });
  }
  return runnerCharts(r, { title: "Success per course", tasks: r.tasks, labels: r.tasks }, own);
}

function behaviorCriticCharts(r: ReportOf<"behaviorCritic">): ChartSpec[] {
  const out: ChartSpec[] = [];
  const t1 = tableById(r, "table-1");
  if (t1) out.push({ id: "chart-table-1", title: "Table 1: accuracy on positive and negative samples", type: "bar", labels: ["positive", "negative"], datasets: rowsAsSeries(t1, ["positive", "negative"]), yMax: 1 });
  const t2 = tableById(r, "table-2");
  if (t2) out.push({ id: "chart-table-2", title: "Table 2: recall and precision on negative samples", type: "bar", labels: ["recall", "precision"], datasets: rowsAsSeries(t2, ["recall", "precision"]), yMax: 1 });
  const t4 = tableById(r, "table-4");
  if (t4) out.push({ id: "chart-table-4", title: "Table 4: preference accuracy per pair", type: "bar", labels: t4.rows.map((x) => x[0]), datasets: [{ label: "accuracy", data: t4.rows.map((x) => cellNumber(x[1])) }], yMax: 1 });
  if (r.refinement?.length) {
    const n = Math.max(...r.refinement.map((x) => x.iterations.length));
    const at = (x: (typeof r.refinement)[number], i: number) => x.iterations[Math.min(i, x.iterations.length - 1)];
    out.push({
      id: "chart-refinement",
      title: "Policy refinement: undesirable events per program (all cases)",
      type: "line",
      x: "program",
      labels: Array.from({ length: n }, (_, i) => i + 1),
      datasets: [{ label: "undesirable events", data: Array.from({ length: n }, (_, i) => r.refinement!.reduce((k, x) => k + (at(x, i)?.events.length ?? 0), 0)) }],
    });
  }
  return out;
}

function curriculumCharts(r: ReportOf<"curriculum">): ChartSpec[] {
  const out: ChartSpec[] = [];
  const stages = [...new Set(r.library.map((l) => l.since))].sort((a, b) => a - b);
  out.push({ id: "chart-library", title: "The library over time: skills after each learner iteration that added some", type: "line", x: "learner iteration", labels: stages, datasets: [{ label: "library size", data: stages.map((it) => r.library.filter((l) => l.since <= it).length) }] });
  const curves = Object.entries(r.curves);
  const n = Math.max(0, ...curves.map(([, c]) => c.since + c.returns.length));
  if (curves.length)
    out.push({
      id: "chart-curves",
      title: "Learning curves: evaluation return as a share of the known maximum",
      type: "line",
      x: "learner iteration",
      labels: Array.from({ length: n }, (_, i) => i),
      datasets: curves.map(([caption, c]) => ({ label: caption, data: Array.from({ length: n }, (_, i) => (i >= c.since && i - c.since < c.returns.length ? c.returns[i - c.since] / (c.maxReturn || 1) : null)) })),
      yMax: 1,
    });
  const its = Math.max(0, ...r.convergedShare.map((f) => f.share.length));
  out.push({ id: "chart-fig-5", title: "Cumulative share of curves judged converged, per task family (Fig. 5)", type: "line", x: "learner iteration", labels: Array.from({ length: its }, (_, i) => i), datasets: r.convergedShare.map((f) => ({ label: f.family, data: f.share })), yMax: 1 });
  return out;
}

/** A runner report's facts line: the method's name, its set, seeds, noise, and what is particular to it. */
const runnerFacts = (name: string, r: RunnerReport, own: string[] = []) => [name, `dataset ${r.dataset}`, `${r.seeds} seed(s)`, `noise ${r.noise}`, ...own, `${r.episodes.length} episodes`, `${Math.round(r.durationSeconds)} s`];

/** What the viewer draws of each method's report, keyed by the report's method: one entry per method, no other branch. */
const VIEWS: { [M in ReportMethod]: { charts: (r: ReportOf<M>) => ChartSpec[]; facts: (r: ReportOf<M>) => string[]; slim: (r: ReportOf<M>) => Record<string, unknown> } } = {
  clea: { charts: cleaCharts, facts: (r) => runnerFacts("CLEA", r), slim: (r) => ({ ...r, episodes: undefined }) },
  replan: { charts: replanCharts, facts: (r) => runnerFacts("RePLan", r), slim: (r) => ({ ...r, episodes: undefined }) },
  vlmpc: {
    charts: vlmpcCharts,
    facts: (r) => runnerFacts("VLM-PC", r, r.settings && typeof r.settings.historyWindow === "number" ? [r.settings.historyWindow ? `history window: the last ${r.settings.historyWindow} steps with images` : "history window: the whole history"] : []),
    slim: (r) => ({ ...r, episodes: undefined }),
  },
  behaviorCritic: {
    charts: behaviorCriticCharts,
    facts: ({ meta: m, refinement }) => [`behaviour critic`, `${m.cases} case(s)`, `behaviours: ${m.behaviours.join(", ")}`, `${m.seeds} seed(s)`, `noise ${m.noise}`, `benchmark ${m.dir}`, refinement ? `refinement: ${refinement.length} case(s)` : "refinement not run", `${Math.round(m.durationSeconds)} s`],
    slim: (r) => ({ ...r, critiques: undefined, preferences: undefined }),
  },
  curriculum: {
    charts: curriculumCharts,
    facts: (r) => [`Game On curriculum`, `${r.status}: ${r.statusReason}`, `model ${r.facts.model}`, `seed ${r.facts.seed}`, `${r.counters.episodes} episodes`, `${r.counters.iterations} learner iterations`, `library ${r.library.length} skills`, `${Math.round(r.timing.wallSeconds)} s`],
    slim: (r) => ({ ...r, cycles: undefined, episodes: undefined, sameImageStages: undefined }),
  },
};

const viewOf = (r: AnyReport) => VIEWS[r.method] as { charts: (r: AnyReport) => ChartSpec[]; facts: (r: AnyReport) => string[]; slim: (r: AnyReport) => Record<string, unknown> };

/** The charts of the report's method (its paper's), and no other method's. */
export const reportCharts = (r: AnyReport): ChartSpec[] => viewOf(r).charts(r);

/** The report's headline facts, in the page's facts line. */
export const reportFacts = (r: AnyReport): string[] => viewOf(r).facts(r);

/** The report as the page gets it: without the per-episode and per-case lists. */
export const slimReport = (r: AnyReport): Record<string, unknown> => viewOf(r).slim(r);

const readJson = (file: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
};

/**
 * A record written before the report contract, in its shape: a runner experiment's or a curriculum run's report.json
 * without a method, or the critic's results.json (and refinement.json). Its method is told from its fields and its
 * tables are read from the report.md written with it; null when it is none of these (or has no report.md).
 */
export function legacyReport(dir: string): Record<string, unknown> | null {
  const md = existsSync(join(dir, "report.md")) ? readFileSync(join(dir, "report.md"), "utf8") : null;
  if (!md) return null;
  const raw = readJson(join(dir, "report.json"));
  const upgraded = (method: ReportMethod, r: Record<string, unknown>) => {
    try {
      return { format: REPORT_FORMAT, method, ...r, tables: tablesOfMarkdown(method, md) };
    } catch {
      return null;
    }
  };
  if (raw && raw.method === undefined) {
    if (Array.isArray(raw.families) && raw.table && Array.isArray(raw.episodes)) return upgraded(experimentMethod({ families: raw.families as string[] }), raw);
    if (Array.isArray(raw.convergedShare) && raw.curves) return upgraded("curriculum", raw);
    return null;
  }
  const results = !raw ? readJson(join(dir, "results.json")) : null;
  if (results && results.meta && Array.isArray(results.critiques)) {
    return upgraded("behaviorCritic", { name: basename(dir), ...results, settings: {}, refinement: readJson(join(dir, "refinement.json")) ?? null });
  }
  return null;
}
