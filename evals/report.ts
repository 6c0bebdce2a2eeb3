/**
 * Experiment reports in the papers' layout: rows are variants, columns are tasks and family averages; success rate
 * with its number of trials, CLEA's Average Score, mean and median time, critic verdicts. JSON, Markdown and HTML.
 */
import { writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { counted, type EpisodeResult } from "./metrics";
import { checkedReport, REPORT_FORMAT, reportHtml, tablesOfMarkdown, type PaperTable } from "./reports";

export interface Cell {
  trials: number;
  successes: number;
  successRate: number;
  averageScore: number;
  meanWallSeconds: number;
  medianWallSeconds: number;
  meanSkillSeconds: number;
  meanSteps: number;
  meanReplans: number;
  meanModelCalls: number;
}

export interface Report {
  /** The report contract (evals/reports.ts); absent from reports written before it. */
  format?: typeof REPORT_FORMAT;
  /** Whose tables these are: CLEA (kitchen), RePLan (tabletop) or VLM-PC (course). */
  method?: ExperimentMethod;
  name: string;
  dataset: string;
  noise: number;
  seeds: number;
  /** Every setting an episode's outcome depends on besides its variant and seed (evals/runner.ts experimentSettings). */
  settings?: Record<string, unknown>;
  variants: string[];
  tasks: string[];
  families: string[];
  /** variant → column (task, family or "all") → cell */
  table: Record<string, Record<string, Cell>>;
  verdicts: Record<string, Record<string, number>>;
  episodes: (EpisodeResult & { scores: Record<string, number> })[];
  durationSeconds: number;
  /** Episodes run by this invocation (not taken from an earlier one), how long they took, and the rate. */
  throughput?: { episodes: number; seconds: number; episodesPerMinute: number; concurrency?: number };
  /** The method's tables as data, cell for cell what report.md prints (evals/reports.ts). */
  tables?: PaperTable[];
}

export type ExperimentMethod = "clea" | "replan" | "vlmpc";

/** Which method's tables an experiment has, from its episodes' task families (as the tables below choose). */
export const experimentMethod = (r: Pick<Report, "families">): ExperimentMethod => (r.families.includes("replan") ? "replan" : r.families.includes("vlmpc") ? "vlmpc" : "clea");

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function cell(eps: Report["episodes"]): Cell {
  const s = (k: string) => eps.map((e) => e.scores[k] ?? 0);
  const successes = s("success").filter((x) => x === 1).length;
  return {
    trials: eps.length,
    successes,
    successRate: eps.length ? r3(successes / eps.length) : 0,
    averageScore: r3(mean(s("average_score"))),
    meanWallSeconds: r3(mean(s("wall_seconds"))),
    medianWallSeconds: r3(median(s("wall_seconds"))),
    meanSkillSeconds: r3(mean(s("skill_seconds"))),
    meanSteps: r3(mean(s("steps"))),
    meanReplans: r3(mean(s("replans"))),
    meanModelCalls: r3(mean(s("model_calls"))),
  };
}

export function buildReport(
  meta: { name: string; dataset: string; noise: number; seeds: number; settings?: Record<string, unknown>; variants: string[]; durationSeconds: number; episodesRun?: number; runSeconds?: number; concurrency?: number },
  episodes: Report["episodes"],
): Report {
  const tasks = [...new Set(episodes.map((e) => e.task))];
  const families = [...new Set(episodes.map((e) => e.family))];
  const table: Report["table"] = {};
  const verdicts: Report["verdicts"] = {};
  for (const v of meta.variants) {
    const mine = episodes.filter((e) => e.variant === v);
    table[v] = {};
    for (const t of tasks) table[v][t] = cell(mine.filter((e) => e.task === t));
    for (const f of families) table[v][f] = cell(mine.filter((e) => e.family === f));
    table[v].all = cell(mine);
    verdicts[v] = {};
    for (const e of mine) for (const [k, n] of Object.entries(e.verdicts)) verdicts[v][k] = (verdicts[v][k] ?? 0) + n;
  }
  const { episodesRun, runSeconds, concurrency, ...rest } = meta;
  const throughput = episodesRun && runSeconds ? { episodes: episodesRun, seconds: r3(runSeconds), episodesPerMinute: r3((60 * episodesRun) / runSeconds), concurrency } : undefined;
  return { format: REPORT_FORMAT, method: experimentMethod({ families }), ...rest, tasks, families, table, verdicts, episodes, ...(throughput ? { throughput } : {}) };
}

/**
 * The report without what the wall clock measured (the experiment's duration and throughput, each episode's and each
 * cell's wall seconds): under a seed this part repeats byte for byte, however loaded the machine and however many
 * episodes ran at once.
 */
export function withoutTiming(r: Report): Omit<Report, "durationSeconds" | "throughput" | "tables"> {
  // The tables as data print the wall clock's columns too: they are left out with it.
  const { durationSeconds: _d, throughput: _t, tables: _tables, ...rest } = r;
  return {
    ...rest,
    table: Object.fromEntries(Object.entries(r.table).map(([v, cols]) => [v, Object.fromEntries(Object.entries(cols).map(([k, { meanWallSeconds: _m, medianWallSeconds: _md, ...c }]) => [k, c]))])) as Report["table"],
    episodes: r.episodes.map(({ wallSeconds: _w, scores: { wall_seconds: _ws, ...scores }, ...e }) => ({ ...e, scores })) as Report["episodes"],
  };
}

/** A path as the report names it: relative to the report's folder (a generated set's dataset is inside it). */
const relativeTo = (dir: string, p: unknown) => (typeof p === "string" && isAbsolute(p) ? relative(dir, p) || "." : p);

/**
 * report.json (checked against its method's schema), report.md and report.html in the experiment's folder, every path
 * in them relative to it.
 */
export function writeReport(dir: string, report: Report): { json: string; md: string; html: string } {
  const json = join(dir, "report.json");
  const md = join(dir, "report.md");
  const html = join(dir, "report.html");
  const { format: _f, method: _m, tables: _t, ...rest } = report;
  const settingsOf = (x: Record<string, unknown> | undefined) => (x ? { settings: { ...x, dataset: relativeTo(dir, x.dataset) } } : {});
  const r: Report = {
    ...rest,
    dataset: relativeTo(dir, rest.dataset) as string,
    ...settingsOf(rest.settings),
    episodes: rest.episodes.map((e) => ({ ...e, ...settingsOf((e as { settings?: Record<string, unknown> }).settings) })),
  };
  const method = experimentMethod(r);
  const text = markdown(r);
  const full = checkedReport({ format: REPORT_FORMAT, method, ...r, tables: tablesOfMarkdown(method, text) });
  writeFileSync(json, JSON.stringify(full, null, 2));
  writeFileSync(md, text);
  writeFileSync(html, htmlReport(full));
  return { json, md, html };
}

const pct = (c: Cell) => `${Math.round(c.successRate * 100)}% (${c.successes}/${c.trials})`;

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
export function replanTable(r: Report): string {
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

/** VLM-PC's method names as its tables print them. */
const VLMPC_ROWS: Record<string, string> = {
  random: "Random",
  "no-history": "No History",
  "no-multi-step": "No Multi-Step",
  full: "VLM-PC",
  "full+ic": "VLM-PC + IC",
};

/** Mean and median of the course time (a failure counts as the budget) and the success rate of some episodes. */
function courseCell(eps: Report["episodes"]) {
  // An episode that does not count as a success counts as the whole budget, whatever its record says.
  const t = eps.map((e) => (counted(e) ? e.courseSeconds ?? 100 : 100));
  return { avg: mean(t), median: median(t), success: eps.length ? eps.filter(counted).length / eps.length : 0, n: eps.length };
}

/**
 * VLM-PC's tables: Table I (per real setting: average and median seconds, failures counted as 100 s, and success),
 * the average over settings (its Figure 4), Table II (the simulated dead end with stairs: success, and how often the
 * robot got out of the dead end), and Figure 5 (VLM-PC with and without labelled in-context examples).
 */
export function vlmpcTables(r: Report): string {
  const tableOf = (t: string) => r.episodes.find((e) => e.task === t)?.paperTable;
  const settings = r.tasks.filter((t) => tableOf(t) === "I");
  const sim = r.tasks.filter((t) => tableOf(t) === "II");
  const order = ["random", "no-history", "no-multi-step", "full", "full+ic"].filter((v) => r.variants.includes(v));
  const name = (v: string) => VLMPC_ROWS[v] ?? v;
  const eps = (v: string, ts: string[]) => r.episodes.filter((e) => e.variant === v && ts.includes(e.task));
  const f1 = (x: number) => x.toFixed(1);
  const pc = (x: number) => `${Math.round(x * 100)}`;
  /** A variant over some courses: time, success, and how often the planner said it reached the toy (and had). */
  const overall = (v: string, ts: string[]) => {
    const e = eps(v, ts);
    const c = courseCell(e);
    const said = e.filter((x) => x.agentReached);
    return `| ${name(v)} | ${f1(c.avg)} | ${f1(c.median)} | ${pc(c.success)} | ${e.length ? pc(said.length / e.length) : "–"} | ${e.length ? pc(said.filter(counted).length / e.length) : "–"} |`;
  };
  const out: string[] = [];
  if (settings.length) {
    out.push(
      `## VLM-PC Table I layout: per setting, average / median seconds of skill time (failures count as 100 s) and success (%), ${r.seeds} trial(s) each`,
      "",
      `| Method | ${settings.map((t) => `${t} avg (s) | ${t} median (s) | ${t} success (%)`).join(" | ")} |`,
      `|---|${settings.map(() => "---|---|---").join("|")}|`,
      ...order.map((v) => `| ${name(v)} | ${settings.map((t) => { const c = courseCell(eps(v, [t])); return `${f1(c.avg)} | ${f1(c.median)} | ${pc(c.success)}`; }).join(" | ")} |`),
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
    const first = (v: string) => { const e = eps(v, sim).filter((x) => x.firstSuccess !== undefined); return e.length ? pc(e.filter((x) => x.firstSuccess).length / e.length) : "–"; };
    out.push(
      `## VLM-PC Table II layout: ${sim.join(", ")} — success (%) and first success: out of the dead end (%)`,
      "",
      `| | ${order.map(name).join(" | ")} |\n|---|${order.map(() => "---").join("|")}|`,
      `| Success (%) | ${order.map((v) => pc(courseCell(eps(v, sim)).success)).join(" | ")} |`,
      `| Out of the dead end (%) | ${order.map(first).join(" | ")} |`,
      "",
    );
  }
  const made = r.tasks.filter((t) => tableOf(t) === "generated");
  if (made.length) {
    out.push(
      `## Generated courses: ${made.length} course(s), ${r.seeds} trial(s) each — average / median seconds of skill time (failures count as 100 s) and success (%)`,
      "",
      "Success is the simulator's check: the body came within reach of the toy within 100 s of skill time. Every course was checked solvable within 100 s by a search over its true layout before it was run.",
      "",
      "| Method | avg (s) | median (s) | success (%) | planner said reached (%) | … and had (%) |\n|---|---|---|---|---|---|",
      ...order.map((v) => overall(v, made)),
      "",
    );
  }
  if (r.variants.includes("full+ic") && r.variants.includes("full") && !made.length) {
    out.push(
      "## VLM-PC with labelled in-context examples (its Figure 5)",
      "",
      "| Course | Method | avg time (s) | median time (s) | success (%) |\n|---|---|---|---|---|",
      ...[...settings, ...sim].flatMap((t) => ["full", "full+ic"].map((v) => { const c = courseCell(eps(v, [t])); return `| ${t} | ${name(v)} | ${f1(c.avg)} | ${f1(c.median)} | ${pc(c.success)} |`; })),
      "",
    );
  }
  return out.join("\n");
}

/**
 * The report's tables. With `timing: false`, nothing measured by the wall clock (durations, throughput, wall seconds
 * per trial, the episode list's wall column): what is left repeats exactly under a seed, whatever the machine's load —
 * the form `npm run reproduce` publishes.
 */
export function tables(r: Report, opts: { timing: boolean } = { timing: true }): string {
  // Dozens of generated courses make a table too wide to read: then only the totals (each course is in Episodes).
  const cols = [...(r.tasks.length > 12 ? [] : r.tasks), ...r.families, "all"];
  const head = `| variant | ${cols.join(" | ")} |\n|---|${cols.map(() => "---").join("|")}|`;
  const rows = (f: (c: Cell) => string) => r.variants.map((v) => `| ${v} | ${cols.map((c) => f(r.table[v][c])).join(" | ")} |`).join("\n");
  const verdictKeys = [...new Set(Object.values(r.verdicts).flatMap((x) => Object.keys(x)))].sort();
  // CLEA's Average Score is CLEA's measure; RePLan's and VLM-PC's tables above say what their papers measure.
  const clea = !r.families.includes("replan") && !r.families.includes("vlmpc");
  return [
    ...(r.families.includes("replan") ? [replanTable(r)] : []),
    ...(r.families.includes("vlmpc") ? [vlmpcTables(r)] : []),
    "## Success rate (successes / trials)",
    "",
    head,
    rows(pct),
    "",
    ...(clea ? ["## Average Score (correctly executed actions per trial, as in CLEA)", "", head, rows((c) => c.averageScore.toFixed(2)), ""] : []),
    ...(opts.timing
      ? ["## Time per trial: mean / median wall seconds (mean simulated skill seconds)", "", head, rows((c) => `${c.meanWallSeconds.toFixed(1)} / ${c.medianWallSeconds.toFixed(1)} (${c.meanSkillSeconds.toFixed(0)})`), ""]
      : ["## Simulated skill seconds per trial (mean)", "", head, rows((c) => c.meanSkillSeconds.toFixed(1)), ""]),
    "## Effort per trial: skills sent, replans, model calls",
    "",
    `| variant | steps | replans | model calls |\n|---|---|---|---|`,
    ...r.variants.map((v) => `| ${v} | ${r.table[v].all.meanSteps.toFixed(1)} | ${r.table[v].all.meanReplans.toFixed(1)} | ${r.table[v].all.meanModelCalls.toFixed(1)} |`),
    "",
    ...(verdictKeys.length
      ? [
          "## Critic verdicts (all trials)",
          "",
          `| variant | ${verdictKeys.join(" | ")} |\n|---|${verdictKeys.map(() => "---").join("|")}|`,
          ...r.variants.map((v) => `| ${v} | ${verdictKeys.map((k) => r.verdicts[v][k] ?? 0).join(" | ")} |`),
          "",
        ]
      : []),
    "## Episodes",
    "",
    ...(opts.timing
      ? ["| episode | success | status | score | steps | replans | wall s |\n|---|---|---|---|---|---|---|", ...r.episodes.map((e) => `| [${e.id}](${e.record}) | ${counted(e) ? "yes" : "no"} | ${e.status} | ${e.score} | ${e.steps} | ${e.replans} | ${e.wallSeconds.toFixed(1)} |`)]
      : ["| episode | success | status | score | steps | replans | why it ended |\n|---|---|---|---|---|---|---|", ...r.episodes.map((e) => `| ${e.id} | ${counted(e) ? "yes" : "no"} | ${e.status} | ${e.score} | ${e.steps} | ${e.replans} | ${e.statusReason.replace(/\|/g, "/").replace(/\s+/g, " ").slice(0, 160)} |`)]),
    "",
  ].join("\n");
}

export function markdown(r: Report): string {
  return [
    `# Experiment ${r.name}`,
    "",
    `Dataset \`${r.dataset}\`, ${r.seeds} seed(s), symbolic noise ${r.noise}; ${r.episodes.length} episodes in ${Math.round(r.durationSeconds)} s.` +
      (r.throughput ? ` Throughput: ${r.throughput.episodesPerMinute.toFixed(1)} episodes per minute (${r.throughput.episodes} run in ${Math.round(r.throughput.seconds)} s${r.throughput.concurrency ? `, ${r.throughput.concurrency} at a time` : ""}).` : ""),
    "",
    tables(r),
  ].join("\n");
}

function htmlReport(r: Report & { tables: PaperTable[] }): string {
  const colors = ["#3b6ea8", "#d08a2c", "#5a9e5a", "#a8423b", "#7a5aa8"];
  const charts = [...r.tasks, "all"]
    .map((t) => {
      const bars = r.variants
        .map((v, i) => {
          const c = r.table[v][t];
          const w = Math.round(c.successRate * 300);
          return `<g transform="translate(0,${i * 22})"><text x="0" y="14" font-size="12">${v}</text><rect x="110" y="2" width="${w}" height="16" fill="${colors[i % colors.length]}"/><text x="${116 + w}" y="14" font-size="12">${pct(c)}</text></g>`;
        })
        .join("");
      return `<h3>${t}</h3><svg width="520" height="${r.variants.length * 22 + 4}" role="img" aria-label="success rate per variant for ${t}">${bars}</svg>`;
    })
    .join("\n");
  return reportHtml({
    title: `Experiment ${r.name}`,
    facts: [`Dataset ${r.dataset}, ${r.seeds} seed(s), symbolic noise ${r.noise}; ${r.episodes.length} episodes in ${Math.round(r.durationSeconds)} s.`],
    figures: [`<h2>Success rate per task</h2>${charts}`],
    tables: r.tables,
  });
}
