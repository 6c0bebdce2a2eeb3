/**
 * One output contract for every experiment kind: a folder with report.json (the method's tables as data, its settings
 * and its per-episode or per-case rows), report.md and report.html, every path in them relative. This module holds the
 * schema of each method's report.json — CLEA (kitchen), RePLan (tabletop), VLM-PC (course), the behaviour critic and
 * the Game On curriculum — which the writers check what they write against and the viewer reads report.json with; the
 * tables as data (taken from the very Markdown report.md prints, so the two never disagree); and the HTML page.
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

/** Tables each method's report may hold: a CLEA report has no RePLan or VLM-PC table and the other way round. */
export const METHOD_TABLES = {
  clea: ["success", "average-score", "time", "effort", "verdicts", "episodes"],
  replan: ["replan-table-1", "replan-actions", "success", "time", "effort", "verdicts", "episodes"],
  vlmpc: ["vlmpc-table-1", "vlmpc-figure-4", "vlmpc-table-2", "vlmpc-generated", "vlmpc-figure-5", "success", "time", "effort", "verdicts", "episodes"],
  behaviorCritic: ["table-1", "table-2", "error-taxonomy", "table-3", "table-4", "per-event", "per-edit", "refinement", "refinement-per-program"],
  curriculum: ["library", "same-image", "cycles", "proposals", "curve", "fig-5", "diversity"],
} as const;
export type ReportMethod = keyof typeof METHOD_TABLES;
/** The methods whose reports the experiment runner (evals/runner.ts) writes: variants × tasks × seeds of episodes. */
export const RUNNER_METHODS = ["clea", "replan", "vlmpc"] as const satisfies readonly ReportMethod[];
export type RunnerMethod = (typeof RUNNER_METHODS)[number];

const tablesOf = <M extends ReportMethod>(m: M) => z.array(TableSchema.extend({ id: z.enum(METHOD_TABLES[m]) }));

// ---- the experiment runner's reports (kitchen, tabletop, course and their generated sets) ------------------------

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

const experimentFields = {
  format: z.literal(REPORT_FORMAT),
  name: z.string(),
  dataset: z.string(),
  noise: z.number(),
  seeds: z.number(),
  /** Every setting an episode's outcome depends on besides its variant and seed (evals/runner.ts experimentSettings). */
  settings: z.record(z.string(), z.unknown()).optional(),
  variants: z.array(z.string()),
  tasks: z.array(z.string()),
  families: z.array(z.string()),
  table: z.record(z.string(), z.record(z.string(), CellSchema)),
  verdicts: z.record(z.string(), z.record(z.string(), z.number())),
  episodes: z.array(EpisodeRowSchema),
  durationSeconds: z.number(),
  throughput: z.object({ episodes: z.number(), seconds: z.number(), episodesPerMinute: z.number(), concurrency: z.number().optional() }).optional(),
};

export const CleaReportSchema = z.object({ method: z.literal("clea"), ...experimentFields, tables: tablesOf("clea") });
export const ReplanReportSchema = z.object({ method: z.literal("replan"), ...experimentFields, tables: tablesOf("replan") });
export const VlmpcReportSchema = z.object({ method: z.literal("vlmpc"), ...experimentFields, tables: tablesOf("vlmpc") });

// ---- the behaviour critic ------------------------------------------------------------------------------------------

const RefineRunSchema = z.object({
  case: z.string(),
  behaviour: z.string(),
  iterations: z.array(z.object({ events: z.array(z.string()), success: z.boolean() })),
  status: z.string(),
  statusReason: z.string(),
  calls: z.number(),
});

export const CriticReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  method: z.literal("behaviorCritic"),
  name: z.string(),
  meta: z.object({
    /** The benchmark, relative to the report's folder. */
    dir: z.string(),
    cases: z.number(),
    behaviours: z.array(z.string()),
    seeds: z.number(),
    noise: z.number(),
    durationSeconds: z.number(),
  }),
  settings: z.record(z.string(), z.unknown()),
  critiques: z.array(z.looseObject({ rollout: z.string(), case: z.string(), behaviour: z.string(), role: z.enum(["positive", "negative"]), seed: z.number(), setting: z.enum(["raw", "detector", "events"]) })),
  preferences: z.array(z.looseObject({ pair: z.enum(["pos-neg", "neg-pos", "neg-neg", "pos-pos"]), case: z.string(), seed: z.number(), correct: z.boolean() })),
  detector: z.object({ truth: z.number(), found: z.number(), claimed: z.number(), correct: z.number() }),
  /** The refinement loop's runs, or null when it was skipped (--refine-limit 0). */
  refinement: z.array(RefineRunSchema).nullable(),
  tables: tablesOf("behaviorCritic"),
});

// ---- the Game On curriculum --------------------------------------------------------------------------------------

export const CurriculumReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  method: z.literal("curriculum"),
  thread: z.string(),
  status: z.string(),
  statusReason: z.string(),
  facts: z.looseObject({ model: z.string(), instances: z.number(), seed: z.number(), noise: z.number(), budgets: z.object({ episodes: z.number(), iterations: z.number(), wallSeconds: z.number() }) }),
  timing: z.object({ wallSeconds: z.number() }),
  counters: z.looseObject({ episodes: z.number(), iterations: z.number(), cycles: z.number() }),
  library: z.array(z.looseObject({ caption: z.string(), since: z.number(), source: z.string() })),
  cycles: z.array(z.looseObject({ cycle: z.number() })),
  proposals: z.array(z.looseObject({ cycle: z.number(), step: z.string() })),
  curves: z.record(z.string(), z.looseObject({ family: z.string(), since: z.number(), returns: z.array(z.number()), maxReturn: z.number(), converged: z.boolean() })),
  convergedShare: z.array(z.object({ family: z.string(), skills: z.array(z.string()), share: z.array(z.number()) })),
  diversity: z.looseObject({ proposals: z.number(), uniqueProposals: z.number() }),
  sameImageStages: z.array(z.unknown()),
  episodes: z.array(z.unknown()),
  tables: tablesOf("curriculum"),
});

export const ReportSchema = z.discriminatedUnion("method", [CleaReportSchema, ReplanReportSchema, VlmpcReportSchema, CriticReportSchema, CurriculumReportSchema]);
export type AnyReport = z.infer<typeof ReportSchema>;
export type CriticReportJson = z.infer<typeof CriticReportSchema>;
export type CurriculumReportJson = z.infer<typeof CurriculumReportSchema>;

const SCHEMAS: Record<ReportMethod, z.ZodType> = { clea: CleaReportSchema, replan: ReplanReportSchema, vlmpc: VlmpcReportSchema, behaviorCritic: CriticReportSchema, curriculum: CurriculumReportSchema };

/**
 * Reads a report.json against its method's schema: the report, or a sentence saying what is wrong with it (which
 * method's schema it fails and where) — the viewer shows that instead of failing on a field it does not find.
 */
export function parseReport(json: unknown): { ok: true; report: AnyReport } | { ok: false; error: string } {
  const method = (json as { method?: unknown } | null)?.method;
  if (typeof method !== "string" || !(method in SCHEMAS)) {
    return { ok: false, error: `report.json names no method this viewer knows (${JSON.stringify(method ?? null)}; one of ${Object.keys(SCHEMAS).join(", ")}): it was written before the report contract (${REPORT_FORMAT}) or by something else — run the experiment again to get one` };
  }
  const r = SCHEMAS[method as ReportMethod].safeParse(json);
  if (r.success) return { ok: true, report: r.data as AnyReport };
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
  return { ok: false, error: `report.json does not match the ${method} report schema (evals/reports.ts): ${issues.join("; ")}${r.error.issues.length > 5 ? `; and ${r.error.issues.length - 5} more` : ""}` };
}

/**
 * Checks a report as it is written. One that breaks the contract is still written — a long run's record is never lost
 * to a schema — and the writer says on stderr what is wrong, as the viewer does when it opens it (the viewer test opens
 * every kind through its schema, so a writer that breaks the contract fails there).
 */
export function checkedReport<T extends { method: ReportMethod }>(report: T): T {
  const r = parseReport(report);
  if (!r.ok) process.stderr.write(`robograph: the report is written, but ${r.error}\n`);
  return report;
}

// ---- tables as data, from the Markdown the report prints -----------------------------------------------------------

type IdRule = [RegExp, ...string[]];

/** Section headings → table ids (the n-th table under a heading takes the n-th id). */
const ID_RULES: Record<ReportMethod, IdRule[]> = (() => {
  const common: IdRule[] = [[/^Success rate/, "success"], [/^Average Score/, "average-score"], [/^(Time per trial|Simulated skill seconds)/, "time"], [/^Effort per trial/, "effort"], [/^Critic verdicts/, "verdicts"], [/^Episodes/, "episodes"]];
  const experiment: IdRule[] = [
    [/^RePLan Table 1 layout/, "replan-table-1"],
    [/^Actions per trial/, "replan-actions"],
    [/^VLM-PC Table I layout/, "vlmpc-table-1"],
    [/^Averaged across the settings/, "vlmpc-figure-4"],
    [/^VLM-PC Table II layout/, "vlmpc-table-2"],
    [/^Generated courses/, "vlmpc-generated"],
    [/^VLM-PC with labelled in-context examples/, "vlmpc-figure-5"],
    ...common,
  ];
  return {
    clea: experiment,
    replan: experiment,
    vlmpc: experiment,
    behaviorCritic: [
      [/^Table 1/, "table-1"],
      [/^Table 2/, "table-2", "error-taxonomy"],
      [/^Table 3/, "table-3"],
      [/^Table 4/, "table-4"],
      [/^Per kind of event/, "per-event"],
      [/^Per program edit/, "per-edit"],
      [/^Policy refinement/, "refinement", "refinement-per-program"],
    ],
    curriculum: [
      [/^The library over time/, "library"],
      [/^The same image/, "same-image"],
      [/^Every proposal/, "cycles"],
      [/^Skills proposed/, "proposals"],
      // Each learning curve is a ### section of its own under "Learning curves".
      [/^#curve /, "curve"],
      [/^Cumulative share/, "fig-5"],
      [/^Data diversity/, "diversity"],
    ],
  };
})();

const cellsOf = (row: string) => row.replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));

/**
 * The tables of a method's report.md as data: each under its section's heading, with the paragraph before it as its
 * note. A table whose heading is not one of the method's is an error (the schema names every table a method has).
 */
export function tablesOfMarkdown(method: ReportMethod, md: string): PaperTable[] {
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
      const ids = ID_RULES[method].find(([re]) => re.test(heading))?.slice(1) as string[] | undefined;
      const id = ids?.[nth] ?? ids?.at(-1);
      if (!id) throw new Error(`a ${method} report has a table under "${heading || "(no heading)"}", which is none of its tables (evals/reports.ts)`);
      // A second table under one heading is named by the paragraph that introduces it ("Error taxonomy (Fig. 4): …").
      const lead = nth > 0 ? /^([^:]{3,80}):/.exec(note.join(" "))?.[1] : undefined;
      const title = lead ?? heading.replace(/^#curve /, "");
      out.push({ id, title, ...(note.length ? { note: note.join(" ") } : {}), columns: cellsOf(head), rows: rest.map(cellsOf) });
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
export function reportHtml(o: { title: string; facts: string[]; tables: PaperTable[]; figures?: string[] }): string {
  const table = (t: PaperTable) =>
    `<section data-table="${esc(t.id)}"><h2>${esc(t.title)}</h2>${t.note ? `<p>${esc(t.note)}</p>` : ""}<table><thead><tr>${t.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead><tbody>${t.rows
      .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
      .join("")}</tbody></table></section>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(o.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:13px}th{background:#f3f3f3}</style></head>
<body><h1>${esc(o.title)}</h1>${o.facts.map((f) => `<p>${esc(f)}</p>`).join("")}${(o.figures ?? []).join("\n")}
${o.tables.map(table).join("\n")}
</body></html>
`;
}
