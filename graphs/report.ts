/**
 * What a method publishes, as the rest of the product reads it: the shapes every method's report shares (a table as
 * data, an experiment's report, an episode's result) and what each method's own report module says of itself
 * (`MethodReport`: its tables, its report.json's schema, the paper's tables it prints, its measures of an episode, the
 * charts the viewer draws). The experiment runner, the report writers, the viewer and reproduce loop over the methods
 * and ask them; none names a method.
 */
import { z } from "zod";

export const REPORT_FORMAT = "robograph-report/1" as const;

/** One of a method's tables: its heading, what the report says of it, and its cells as report.md prints them. */
export const TableSchema = z.object({
  id: z.string(),
  title: z.string(),
  note: z.string().optional(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string())),
});
export type PaperTable = z.infer<typeof TableSchema>;

/** A section heading of report.md → the ids of the tables under it (the n-th table takes the n-th id). */
export type IdRule = [RegExp, ...string[]];

/** One episode's result, as the experiment runner records it (a method's measures add to it). */
export interface EpisodeResult {
  id: string;
  variant: string;
  example: string;
  task: string;
  family: string;
  /** RePLan's task number, for its Table 1 layout. */
  paperTask?: number;
  /** VLM-PC: which of its tables reports the course (I: real settings, II: the simulated dead end). */
  paperTable?: "I" | "II" | "generated";
  /** VLM-PC: skill seconds until the toy was reached; a failure counts as the whole budget (100 s). */
  courseSeconds?: number;
  /** VLM-PC's Table II: the robot got out of the dead end. */
  firstSuccess?: boolean;
  condition: string;
  seed: number;
  noise: number;
  status: string;
  statusReason: string;
  /**
   * The episode counts as a success. CLEA and RePLan: the goal holds on the simulator's true state and the run did not
   * end on a budget — an agent that ran out of budget did not finish. VLM-PC: the simulator saw the body reach the toy
   * within the time budget, for every variant, as a trial ends when the robot gets there (`agentReached` says whether
   * the planner said so).
   */
  success: boolean;
  /** VLM-PC: the planner itself declared the toy reached (the run ended `succeeded`). */
  agentReached?: boolean;
  /** The simulator's check alone, whatever the run's status (absent in results made before it was recorded). */
  goalHeld?: boolean;
  goal: { literal: string; holds: boolean }[];
  /** CLEA's score: one point per correctly executed action (a skill the robot completed) within the run's budget. */
  score: number;
  steps: number;
  /** RePLan: motion (MPC) and vision (VLM) actions. */
  motions?: number;
  visionSteps?: number;
  /** RePLan: new procedures after a plan failed without a known cause or ended without the goal. */
  procedures?: number;
  failedActions: number;
  replans: number;
  verdicts: Record<string, number>;
  /** CLEA: loops broken in the run, by how (a look for what was in question, the critic overruled, a third try refused). */
  loops?: Record<string, number>;
  /**
   * The pipelined row: what the run's speculation came to, why each revoked speculation was revoked, and — measured on
   * the trace, each skill set against what was seen or reported before it — how many skills went out against it: CLEA
   * against the looks before them (all, and those on prepared work), RePLan on prepared work after a failed motion.
   */
  pipeline?: import("../nodes/speculation").PipelineCounts & {
    revokedBecause: Record<string, number>;
    againstTheLook: number;
    preparedAgainstTheLook: number;
    preparedAfterFailedMotion: number;
  };
  /** The scenario changes something mid-episode (a kitchen perturbation). */
  perturbed?: boolean;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  skillSeconds: number;
  wallSeconds: number;
  /** Episode record, relative to the experiment directory. */
  record: string;
  error?: string;
  /** The experiment's settings the episode was made under, and its dataset row's fingerprint (resume checks both). */
  settings?: Record<string, unknown>;
  exampleHash?: string;
}

/**
 * Whether an episode counts as a success in a table. Results written before `success` excluded budget-exhausted runs
 * say success with that status; they are judged by the same rule — except VLM-PC's trials (they carry `paperTable`),
 * which the simulator's reach decides whatever the run did afterwards.
 */
export function counted(episode: Pick<EpisodeResult, "success" | "status"> & { paperTable?: string }): boolean {
  return !!episode.success && (episode.paperTable !== undefined || episode.status !== "budget_exhausted");
}

/**
 * Points for actions that succeeded within the run's budget, in order: actions past the budget (the skill that ran
 * over a time budget, anything after it) add nothing. `cost` is what each action spends of the budget (1 for a count).
 */
export function scoreWithinBudget(actions: { ok: boolean; cost: number }[], budget: number): number {
  let spent = 0;
  let score = 0;
  for (const a of actions) {
    spent += a.cost;
    if (spent > budget) break;
    if (a.ok) score++;
  }
  return score;
}

export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
export const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One node's update of an episode, in order. */
export interface TraceStep<S = unknown> {
  node: string;
  update: Partial<S>;
}

/** One episode as it ran: its trace, its final state, and what the simulator says of it. */
export interface EpisodeRun<S = unknown> {
  trace: TraceStep<S>[];
  state: S;
  truth: { success: boolean; goal: { literal: string; holds: boolean }[]; state: Record<string, string> };
  events: { kind: string; robot?: string; skill?: string; goalId?: string; detail?: string; step: number }[];
  wallSeconds: number;
}

/** A method's measures of one episode, over what every episode has. */
export type EpisodeEffort = Pick<EpisodeResult, "score" | "steps" | "failedActions" | "replans" | "verdicts"> &
  Partial<EpisodeResult>;

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

/** The experiment runner's report: variants × tasks × seeds of episodes, in cells per variant and column. */
export interface ExperimentReport {
  /** The report contract; absent from reports written before it. */
  format?: typeof REPORT_FORMAT;
  /** The method whose episodes these are. */
  method?: string;
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
  /** The method's tables as data, cell for cell what report.md prints. */
  tables?: PaperTable[];
}

// ---- an experiment report's schema --------------------------------------------------------------------------------

const CellSchema = z.object({
  trials: z.number(),
  successes: z.number(),
  successRate: z.number(),
  averageScore: z.number(),
  meanWallSeconds: z.number(),
  medianWallSeconds: z.number(),
  meanSkillSeconds: z.number(),
  meanSteps: z.number(),
  meanReplans: z.number(),
  meanModelCalls: z.number(),
});

/** An episode's row: what the tables are computed from (the rest of its result is kept as written). */
const EpisodeRowSchema = z.looseObject({
  id: z.string(),
  variant: z.string(),
  task: z.string(),
  family: z.string(),
  seed: z.number(),
  status: z.string(),
  success: z.boolean(),
  steps: z.number(),
  replans: z.number(),
  record: z.string(),
  scores: z.record(z.string(), z.number()),
});

/** The tables a report may hold, by id: any other id is not this method's table. */
export const tablesOf = (ids: readonly [string, ...string[]]) => z.array(TableSchema.extend({ id: z.enum(ids) }));

/** The schema of a method's experiment report (the runner's), with its own tables. */
export function experimentReportSchema<M extends string>(method: M, tables: readonly [string, ...string[]]) {
  return z.object({
    method: z.literal(method),
    format: z.literal(REPORT_FORMAT),
    name: z.string(),
    dataset: z.string(),
    noise: z.number(),
    seeds: z.number(),
    settings: z.record(z.string(), z.unknown()).optional(),
    variants: z.array(z.string()),
    tasks: z.array(z.string()),
    families: z.array(z.string()),
    table: z.record(z.string(), z.record(z.string(), CellSchema)),
    verdicts: z.record(z.string(), z.record(z.string(), z.number())),
    episodes: z.array(EpisodeRowSchema),
    durationSeconds: z.number(),
    throughput: z
      .object({
        episodes: z.number(),
        seconds: z.number(),
        episodesPerMinute: z.number(),
        concurrency: z.number().optional(),
      })
      .optional(),
    tables: tablesOf(tables),
  });
}

/** The tables every experiment report has after its method's own (evals/experimentReport.ts prints them). */
export const EXPERIMENT_TABLES = [
  "success",
  "average-score",
  "time",
  "effort",
  "endings",
  "speculation",
  "verdicts",
  "episodes",
] as const;
export const EXPERIMENT_HEADINGS: IdRule[] = [
  [/^Success rate/, "success"],
  [/^Average Score/, "average-score"],
  [/^(Time per trial|Simulated skill seconds)/, "time"],
  [/^Effort per trial/, "effort"],
  [/^How runs ended/, "endings"],
  [/^Speculation/, "speculation"],
  [/^Critic verdicts/, "verdicts"],
  [/^Episodes/, "episodes"],
];

// ---- what the viewer draws ----------------------------------------------------------------------------------------

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
  const match = /^(-?[\d.]+)\s*(%)?/.exec(cell.trim());
  if (!match) return null;
  const value = Number(match[1]);
  return Number.isFinite(value) ? (match[2] ? value / 100 : value) : null;
}

export const tableById = (report: { tables: PaperTable[] }, id: string): PaperTable | undefined =>
  report.tables.find((t) => t.id === id);

/** A table's rows as series: one per row (its first cell the name), the named columns as the points. */
export function rowsAsSeries(table: PaperTable, columns: string[], scale = 1): ChartSpec["datasets"] {
  const at = columns.map((c) => table.columns.indexOf(c));
  return table.rows.map((row) => ({
    label: row[0],
    data: at.map((i) => {
      const value = cellNumber(row[i]);
      return value === null ? null : value * scale;
    }),
  }));
}

/** An experiment report that passed its schema (its tables are there). */
export type CheckedExperiment = ExperimentReport & { tables: PaperTable[] };

/** How an experiment's tasks are shown: in its own order and names, or the paper's. */
export interface TaskAxis {
  title: string;
  tasks: string[];
  labels: string[];
}

/** The experiment runner's charts: success per variant, per task (the method's axis), the method's own, effort. */
export function experimentCharts(report: CheckedExperiment, axis?: TaskAxis, own: ChartSpec[] = []): ChartSpec[] {
  const vs = report.variants;
  const shown = axis ?? { title: "Success rate per task", tasks: report.tasks, labels: report.tasks };
  return [
    {
      id: "chart-success",
      title: "Success rate per variant (all episodes)",
      type: "bar",
      labels: vs,
      datasets: [{ label: "success rate", data: vs.map((v) => report.table[v].all.successRate) }],
      yMax: 1,
    },
    {
      id: "chart-tasks",
      title: shown.title,
      type: "bar",
      labels: shown.labels,
      datasets: vs.map((v) => ({ label: v, data: shown.tasks.map((t) => report.table[v][t]?.successRate ?? 0) })),
      yMax: 1,
    },
    ...own,
    {
      id: "chart-time",
      title: "Mean skill seconds and model calls per episode",
      type: "bar",
      labels: vs,
      datasets: [
        { label: "skill seconds", data: vs.map((v) => report.table[v].all.meanSkillSeconds) },
        { label: "model calls", data: vs.map((v) => report.table[v].all.meanModelCalls) },
      ],
    },
  ];
}

/** An experiment report's facts line: the method's name, its set, seeds, noise, and what is particular to it. */
export const experimentFacts = (name: string, report: CheckedExperiment, own: string[] = []) => [
  name,
  `dataset ${report.dataset}`,
  `${report.seeds} seed(s)`,
  `noise ${report.noise}`,
  ...own,
  `${report.episodes.length} episodes`,
  `${Math.round(report.durationSeconds)} s`,
];

// ---- a method's report, as it describes itself ---------------------------------------------------------------------

/** What the experiment runner's reports need of a method whose runs are its episodes. */
export interface ExperimentPart {
  /** Its paper's tables in its layout, printed before the common ones (empty: none). */
  paperTables(report: ExperimentReport): string;
  /** Whether the common tables carry CLEA's Average Score (one point per action done right). */
  averageScore: boolean;
  /** Its measures of one episode: the score, steps, failures, replans and verdicts, and any of its own. */
  effort(run: EpisodeRun<unknown>, maxSteps: number, outputs: unknown): EpisodeEffort;
  /** Dataset families that are its own, to tell its reports written before they named their method. */
  families?: readonly string[];
  /** What an experiment of it runs unless told: its variants (default all), seeds per example (3), skills per episode (40). */
  defaults?: { variants?: readonly string[]; seeds?: number; maxSteps?: number };
}

export interface MethodReport {
  /** Every table its report.json may hold, by id. */
  tables: readonly [string, ...string[]];
  /** Section headings of its report.md → table ids. */
  headings: IdRule[];
  /** report.json's schema; a report that fails it is shown as an error naming what is wrong. */
  schema: z.ZodType;
  /** Its runs are the experiment runner's episodes (absent: its report is written by a runner of its own). */
  experiment?: ExperimentPart;
  /** The viewer's charts of a report that passed the schema: its paper's, and no other method's. */
  charts(report: unknown): ChartSpec[];
  /** The viewer's facts line. */
  facts(report: unknown): string[];
  /** The report as the viewer's page gets it, without its long per-episode or per-case lists. */
  slim(report: unknown): Record<string, unknown>;
}

/** The report module of a method measured by the experiment runner, from what is its own. */
export function experimentReport<M extends string>(definition: {
  method: M;
  name: string;
  /** Its paper's tables, by id, and the headings they print under. */
  tables?: readonly string[];
  headings?: IdRule[];
  experiment: ExperimentPart;
  charts?: (r: CheckedExperiment) => ChartSpec[];
  facts?: (r: CheckedExperiment) => string[];
}): MethodReport {
  // CLEA's Average Score is printed only for a method that measures it.
  const common = EXPERIMENT_TABLES.filter((t) => t !== "average-score" || definition.experiment.averageScore);
  const tables = [...(definition.tables ?? []), ...common] as [string, ...string[]];
  return {
    tables,
    headings: [...(definition.headings ?? []), ...EXPERIMENT_HEADINGS.filter(([, id]) => common.includes(id as never))],
    schema: experimentReportSchema(definition.method, tables),
    experiment: definition.experiment,
    charts: definition.charts ?? ((r: CheckedExperiment) => experimentCharts(r)),
    facts: definition.facts ?? ((r: CheckedExperiment) => experimentFacts(definition.name, r)),
    slim: (r: CheckedExperiment) => ({ ...r, episodes: undefined }),
  };
}

/**
 * A report.json read by its method's schema: the report, or what is wrong with it in a sentence naming where — the
 * viewer shows that instead of failing on a field it does not find, and a writer says it on stderr.
 */
export function readReport(
  method: string,
  schema: z.ZodType,
  json: unknown,
): { ok: true; report: unknown } | { ok: false; error: string } {
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, report: parsed.data };
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
  const error = `report.json does not match the ${method} report schema (graphs/${method}/report.ts): ${issues.join("; ")}${parsed.error.issues.length > 5 ? `; and ${parsed.error.issues.length - 5} more` : ""}`;
  return { ok: false, error };
}

/**
 * Checks a report as it is written. One that breaks the contract is still written — a long run's record is never lost
 * to a schema — and the writer says on stderr what is wrong, as the viewer does when it opens it.
 */
export function checkedAgainst<T>(method: string, schema: z.ZodType, report: T): T {
  const read = readReport(method, schema, report);
  if (!read.ok) process.stderr.write(`robograph: the report is written, but ${read.error}\n`);
  return report;
}

// ---- tables as data, from the Markdown the report prints -----------------------------------------------------------

const cellsOf = (row: string) =>
  row
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));

/**
 * The tables of a method's report.md as data: each under its section's heading, with the paragraph before it as its
 * note. A table whose heading is not one of the method's is an error (the schema names every table a method has).
 */
export function tablesOfReport(method: string, rules: IdRule[], md: string): PaperTable[] {
  const out: PaperTable[] = [];
  const lines = md.split("\n");
  let heading = "";
  let nth = 0;
  let note: string[] = [];
  let curves = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("## ")) {
      heading = line.slice(3).trim();
      curves = /^Learning curves/.test(heading);
      nth = 0;
      note = [];
    } else if (line.startsWith("### ")) {
      heading = curves ? `#curve ${line.slice(4).trim()}` : line.slice(4).trim();
      nth = 0;
      note = [];
    } else if (line.startsWith("# ")) {
      note = [];
    } else if (line.startsWith("|")) {
      const rows: string[] = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(lines[i++]);
      i--;
      const body = rows.filter((r) => !/^\|[\s|:-]+\|?$/.test(r));
      const [head, ...rest] = body;
      const ids = rules.find(([re]) => re.test(heading))?.slice(1) as string[] | undefined;
      const id = ids?.[nth] ?? ids?.at(-1);
      if (!id)
        throw new Error(
          `a ${method} report has a table under "${heading || "(no heading)"}", which is none of its tables (graphs/${method}/report.ts)`,
        );
      // A second table under one heading is named by the paragraph that introduces it ("Error taxonomy (Fig. 4): …").
      const lead = nth > 0 ? /^([^:]{3,80}):/.exec(note.join(" "))?.[1] : undefined;
      const title = lead ?? heading.replace(/^#curve /, "");
      out.push({
        id,
        title,
        ...(note.length ? { note: note.join(" ") } : {}),
        columns: cellsOf(head),
        rows: rest.map(cellsOf),
      });
      nth++;
      note = [];
    } else if (line.trim() && !line.startsWith("![")) {
      // The note is the paragraph right before the table: a paragraph after a blank line replaces the one before.
      if (!lines[i - 1]?.trim()) note = [];
      note.push(line.trim());
    }
  }
  return out;
}

// ---- report.html ---------------------------------------------------------------------------------------------------

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A report's page: its title, its facts, any figures (inline SVG or images beside it, by relative path) and its tables
 * as HTML tables, each under its heading. Standalone: no script, nothing from the network.
 */
export function reportHtml(page: { title: string; facts: string[]; tables: PaperTable[]; figures?: string[] }): string {
  const table = (paperTable: PaperTable) =>
    `<section data-table="${esc(paperTable.id)}"><h2>${esc(paperTable.title)}</h2>${paperTable.note ? `<p>${esc(paperTable.note)}</p>` : ""}<table><thead><tr>${paperTable.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead><tbody>${paperTable.rows
      .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
      .join("")}</tbody></table></section>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(page.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:13px}th{background:#f3f3f3}</style></head>
<body><h1>${esc(page.title)}</h1>${page.facts.map((f) => `<p>${esc(f)}</p>`).join("")}${(page.figures ?? []).join("\n")}
${page.tables.map(table).join("\n")}
</body></html>
`;
}
