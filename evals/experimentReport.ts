/**
 * Experiment reports in the papers' layout: rows are variants, columns are tasks and family averages; success rate
 * with its number of trials, CLEA's Average Score, mean and median time, critic verdicts. JSON, Markdown and HTML.
 */
import { writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { counted } from "./metrics";
import { checkedReport, REPORT_FORMAT, reportHtml, tablesOfMarkdown, type PaperTable } from "./reportFiles";
import { METHODS, method } from "../graphs";
import { mean, median, type Cell, type ExperimentReport } from "../graphs/report";

export type { Cell };
/** The experiment runner's report (graphs/report.ts says what it holds). */
export type Report = ExperimentReport;

/**
 * Which method's tables an experiment has: the one it names; for a report written before reports named their method,
 * the method whose dataset families its episodes carry, else the first measured by the runner (CLEA).
 */
export function experimentMethod(report: Pick<Report, "families"> & { method?: string }): string {
  const runners = METHODS.filter((m) => m.report.experiment);
  if (report.method && runners.some((m) => m.id === report.method)) return report.method;
  return (runners.find((m) => m.report.experiment!.families?.some((f) => report.families.includes(f))) ?? runners[0])
    .id;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function cell(eps: Report["episodes"]): Cell {
  const scoresOf = (k: string) => eps.map((e) => e.scores[k] ?? 0);
  const successes = scoresOf("success").filter((x) => x === 1).length;
  return {
    trials: eps.length,
    successes,
    successRate: eps.length ? r3(successes / eps.length) : 0,
    averageScore: r3(mean(scoresOf("average_score"))),
    meanWallSeconds: r3(mean(scoresOf("wall_seconds"))),
    medianWallSeconds: r3(median(scoresOf("wall_seconds"))),
    meanSkillSeconds: r3(mean(scoresOf("skill_seconds"))),
    meanSteps: r3(mean(scoresOf("steps"))),
    meanReplans: r3(mean(scoresOf("replans"))),
    meanModelCalls: r3(mean(scoresOf("model_calls"))),
  };
}

export function buildReport(
  meta: {
    method?: string;
    name: string;
    dataset: string;
    noise: number;
    seeds: number;
    settings?: Record<string, unknown>;
    variants: string[];
    durationSeconds: number;
    episodesRun?: number;
    runSeconds?: number;
    concurrency?: number;
  },
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
  const { episodesRun, runSeconds, concurrency, method: named, ...rest } = meta;
  const throughput =
    episodesRun && runSeconds
      ? {
          episodes: episodesRun,
          seconds: r3(runSeconds),
          episodesPerMinute: r3((60 * episodesRun) / runSeconds),
          concurrency,
        }
      : undefined;
  return {
    format: REPORT_FORMAT,
    method: experimentMethod({ families, method: named }),
    ...rest,
    tasks,
    families,
    table,
    verdicts,
    episodes,
    ...(throughput ? { throughput } : {}),
  };
}

/**
 * The report without what the wall clock measured (the experiment's duration and throughput, each episode's and each
 * cell's wall seconds): under a seed this part repeats byte for byte, however loaded the machine and however many
 * episodes ran at once.
 */
export function withoutTiming(report: Report): Omit<Report, "durationSeconds" | "throughput" | "tables"> {
  // The tables as data print the wall clock's columns too: they are left out with it.
  const { durationSeconds: _d, throughput: _t, tables: _tables, ...rest } = report;
  return {
    ...rest,
    table: Object.fromEntries(
      Object.entries(report.table).map(([variant, cols]) => [
        variant,
        Object.fromEntries(
          Object.entries(cols).map(([k, { meanWallSeconds: _m, medianWallSeconds: _md, ...c }]) => [k, c]),
        ),
      ]),
    ) as Report["table"],
    episodes: report.episodes.map(({ wallSeconds: _w, scores: { wall_seconds: _ws, ...scores }, ...episode }) => ({
      ...episode,
      scores,
    })) as Report["episodes"],
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
  const { format: _f, method: named, tables: _t, ...rest } = report;
  const settingsOf = (x: Record<string, unknown> | undefined) =>
    x ? { settings: { ...x, dataset: relativeTo(dir, x.dataset) } } : {};
  const relativeReport: Report = {
    ...rest,
    dataset: relativeTo(dir, rest.dataset) as string,
    ...settingsOf(rest.settings),
    episodes: rest.episodes.map((episode) => ({
      ...episode,
      ...settingsOf((episode as { settings?: Record<string, unknown> }).settings),
    })),
  };
  const id = experimentMethod({ families: relativeReport.families, method: named });
  const text = markdown({ ...relativeReport, method: id });
  const full = checkedReport({
    format: REPORT_FORMAT,
    method: id,
    ...relativeReport,
    tables: tablesOfMarkdown(id, text),
  });
  writeFileSync(json, JSON.stringify(full, null, 2));
  writeFileSync(md, text);
  writeFileSync(html, htmlReport(full));
  return { json, md, html };
}

const pct = (c: Cell) => `${Math.round(c.successRate * 100)}% (${c.successes}/${c.trials})`;

/** The pipelined row's speculation: all its trials, and those where the scenario moved something mid-task. */
function speculation(report: Report): string[] {
  const rows = report.variants.filter((v) => report.episodes.some((e) => e.variant === v && e.pipeline));
  if (!rows.length) return [];
  type P = NonNullable<Report["episodes"][number]["pipeline"]>;
  const sum = (eps: Report["episodes"], measure: (p: P) => number) =>
    eps.reduce((n, e) => n + (e.pipeline ? measure(e.pipeline) : 0), 0);
  // Reports written before the trace measures have none: a dash, not a zero.
  const measured = (eps: Report["episodes"], measure: (p: P) => number | undefined) =>
    eps.every((e) => e.pipeline && measure(e.pipeline) !== undefined) ? String(sum(eps, (p) => measure(p) ?? 0)) : "–";
  const line = (label: string, eps: Report["episodes"]) => {
    const trials = Math.max(1, eps.length);
    return `| ${label} | ${eps.length} | ${sum(eps, (p) => p.prepared)} | ${sum(eps, (p) => p.used)} | ${sum(eps, (p) => p.revoked)} | ${sum(eps, (p) => p.unused)} | ${(sum(eps, (p) => p.wastedInputTokens + p.wastedOutputTokens) / trials).toFixed(0)} | ${measured(eps, (p) => p.againstTheLook)} | ${measured(eps, (p) => p.preparedAgainstTheLook)} | ${measured(eps, (p) => p.preparedAfterFailedMotion)} |`;
  };
  const why: Record<string, number> = {};
  for (const e of report.episodes)
    for (const [k, n] of Object.entries(e.pipeline?.revokedBecause ?? {})) why[k] = (why[k] ?? 0) + n;
  return [
    "## Speculation: work prepared beside each skill, and what the check after it made of it",
    "",
    "CLEA checks a prediction against the look after the skill; RePLan against the controller's report alone (it compares no observed fact). The last three columns are measured on the trace, each skill set against what came before it: skills whose object or door the looks before them showed otherwise (all, and those sent on prepared work), and motions sent on prepared work after the controller reported the motion before them failed.",
    "",
    "| row | trials | prepared | sent at once | revoked | unused | tokens wasted per trial | skills sent against the look | of them on prepared work | prepared motions sent after a failed motion |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.flatMap((variant) => {
      const eps = report.episodes.filter((e) => e.variant === variant && e.pipeline);
      const moved = eps.filter((e) => e.perturbed);
      return [line(variant, eps), ...(moved.length ? [line(`${variant}, something moved mid-task`, moved)] : [])];
    }),
    ...(Object.keys(why).length
      ? [
          "",
          "What revoked the prepared work (one check may give several kinds of reason):",
          "",
          "| reason | times |",
          "|---|---|",
          ...Object.entries(why)
            .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
            .map(([k, n]) => `| ${k} | ${n} |`),
        ]
      : []),
    "",
  ];
}

/**
 * The report's tables. With `timing: false`, nothing measured by the wall clock (durations, throughput, wall seconds
 * per trial, the episode list's wall column): what is left repeats exactly under a seed, whatever the machine's load —
 * the form `npm run reproduce` publishes.
 */
export function tables(report: Report, opts: { timing: boolean } = { timing: true }): string {
  // Dozens of generated courses make a table too wide to read: then only the totals (each course is in Episodes).
  const cols = [...(report.tasks.length > 12 ? [] : report.tasks), ...report.families, "all"];
  const head = `| variant | ${cols.join(" | ")} |\n|---|${cols.map(() => "---").join("|")}|`;
  const rows = (cellText: (c: Cell) => string) =>
    report.variants.map((v) => `| ${v} | ${cols.map((c) => cellText(report.table[v][c])).join(" | ")} |`).join("\n");
  const verdictKeys = [...new Set(Object.values(report.verdicts).flatMap((x) => Object.keys(x)))].sort();
  // The method's own tables in its paper's layout first; CLEA's Average Score only where the method measures it.
  const own = method(experimentMethod(report)).report.experiment!;
  const paper = own.paperTables(report);
  return [
    ...(paper ? [paper] : []),
    "## Success rate (successes / trials)",
    "",
    head,
    rows(pct),
    "",
    ...(own.averageScore
      ? [
          "## Average Score (correctly executed actions per trial, as in CLEA)",
          "",
          head,
          rows((c) => c.averageScore.toFixed(2)),
          "",
        ]
      : []),
    ...(opts.timing
      ? [
          "## Time per trial: mean / median wall seconds (mean simulated skill seconds)",
          "",
          head,
          rows(
            (cellStats) =>
              `${cellStats.meanWallSeconds.toFixed(1)} / ${cellStats.medianWallSeconds.toFixed(1)} (${cellStats.meanSkillSeconds.toFixed(0)})`,
          ),
          "",
        ]
      : ["## Simulated skill seconds per trial (mean)", "", head, rows((c) => c.meanSkillSeconds.toFixed(1)), ""]),
    "## Effort per trial: skills sent, replans, model calls",
    "",
    `| variant | steps | replans | model calls |\n|---|---|---|---|`,
    ...report.variants.map(
      (variant) =>
        `| ${variant} | ${report.table[variant].all.meanSteps.toFixed(1)} | ${report.table[variant].all.meanReplans.toFixed(1)} | ${report.table[variant].all.meanModelCalls.toFixed(1)} |`,
    ),
    "",
    ...endings(report),
    ...speculation(report),
    ...(verdictKeys.length
      ? [
          "## Critic verdicts (all trials)",
          "",
          `| variant | ${verdictKeys.join(" | ")} |\n|---|${verdictKeys.map(() => "---").join("|")}|`,
          ...report.variants.map((v) => `| ${v} | ${verdictKeys.map((k) => report.verdicts[v][k] ?? 0).join(" | ")} |`),
          "",
        ]
      : []),
    "## Episodes",
    "",
    ...(opts.timing
      ? [
          "| episode | success | status | score | steps | replans | wall s |\n|---|---|---|---|---|---|---|",
          ...report.episodes.map(
            (episode) =>
              `| [${episode.id}](${episode.record}) | ${counted(episode) ? "yes" : "no"} | ${episode.status} | ${episode.score} | ${episode.steps} | ${episode.replans} | ${episode.wallSeconds.toFixed(1)} |`,
          ),
        ]
      : [
          "| episode | success | status | score | steps | replans | why it ended |\n|---|---|---|---|---|---|---|",
          ...report.episodes.map(
            (episode) =>
              `| ${episode.id} | ${counted(episode) ? "yes" : "no"} | ${episode.status} | ${episode.score} | ${episode.steps} | ${episode.replans} | ${episode.statusReason.replace(/\|/g, "/").replace(/\s+/g, " ").slice(0, 160)} |`,
          ),
        ]),
    "",
  ].join("\n");
}

/** A run that ended on the same failure repeated (the third time, or refused before a third try). */
const REPEATED = /(failed|rejected) \d+ times for the same reason|not tried a third time/;

/**
 * How each variant's runs ended: the run's own status set against the simulator's check (a status that says done
 * while the goal does not hold, or failed while it does, is the agent's belief being wrong), endings on a budget or
 * on a repeated failure, and the loops a run broke (CLEA: a look for what was in question, the critic overruled by the
 * planner's repeated choice, a third try refused).
 */
function endings(report: Report): string[] {
  const held = (e: Report["episodes"][number]) => e.goalHeld ?? e.success;
  const withLoops = report.episodes.some((e) => e.loops);
  const head = `| variant | succeeded, goal holds | succeeded, goal does not hold | ended otherwise, goal holds | failed | gave up | out of budget | repeated failure or rejection |${withLoops ? " loops broken: looked / overruled / refused |" : ""}`;
  const rows = report.variants.map((variant) => {
    const mine = report.episodes.filter((e) => e.variant === variant);
    const countOf = (f: (e: (typeof mine)[number]) => boolean) => mine.filter(f).length;
    const loops = (k: string) => mine.reduce((a, e) => a + (e.loops?.[k] ?? 0), 0);
    const cells = [
      countOf((e) => e.status === "succeeded" && held(e)),
      countOf((e) => e.status === "succeeded" && !held(e)),
      countOf((e) => e.status !== "succeeded" && held(e)),
      countOf((e) => e.status === "failed"),
      countOf((e) => e.status === "gave_up"),
      countOf((e) => e.status === "budget_exhausted"),
      countOf((e) => REPEATED.test(e.statusReason)),
    ];
    return `| ${variant} | ${cells.join(" | ")} |${withLoops ? ` ${loops("looked")} / ${loops("overruled")} / ${loops("refused")} |` : ""}`;
  });
  return [
    "## How runs ended: the run's status against the simulator's check",
    "",
    head,
    `|${"---|".repeat(withLoops ? 9 : 8)}`,
    ...rows,
    "",
  ];
}

export function markdown(report: Report): string {
  return [
    `# Experiment ${report.name}`,
    "",
    `Dataset \`${report.dataset}\`, ${report.seeds} seed(s), symbolic noise ${report.noise}; ${report.episodes.length} episodes in ${Math.round(report.durationSeconds)} s.` +
      (report.throughput
        ? ` Throughput: ${report.throughput.episodesPerMinute.toFixed(1)} episodes per minute (${report.throughput.episodes} run in ${Math.round(report.throughput.seconds)} s${report.throughput.concurrency ? `, ${report.throughput.concurrency} at a time` : ""}).`
        : ""),
    "",
    tables(report),
  ].join("\n");
}

function htmlReport(report: Report & { tables: PaperTable[] }): string {
  const colors = ["#3b6ea8", "#d08a2c", "#5a9e5a", "#a8423b", "#7a5aa8"];
  const charts = [...report.tasks, "all"]
    .map((column) => {
      const bars = report.variants
        .map((variant, i) => {
          const cellStats = report.table[variant][column];
          const barWidth = Math.round(cellStats.successRate * 300);
          return `<g transform="translate(0,${i * 22})"><text x="0" y="14" font-size="12">${variant}</text><rect x="110" y="2" width="${barWidth}" height="16" fill="${colors[i % colors.length]}"/><text x="${116 + barWidth}" y="14" font-size="12">${pct(cellStats)}</text></g>`;
        })
        .join("");
      return `<h3>${column}</h3><svg width="520" height="${report.variants.length * 22 + 4}" role="img" aria-label="success rate per variant for ${column}">${bars}</svg>`;
    })
    .join("\n");
  return reportHtml({
    title: `Experiment ${report.name}`,
    facts: [
      `Dataset ${report.dataset}, ${report.seeds} seed(s), symbolic noise ${report.noise}; ${report.episodes.length} episodes in ${Math.round(report.durationSeconds)} s.`,
    ],
    figures: [`<h2>Success rate per task</h2>${charts}`],
    tables: report.tables,
  });
}
