/**
 * One output contract for every experiment kind: a folder with report.json (the method's tables as data, its settings
 * and its per-episode or per-case rows), report.md and report.html, every path in them relative. Each method's report
 * module (graphs/<id>/report.ts) holds its report.json's schema, which the writers check what they write against and
 * the viewer reads report.json with; this module reads a report through its method's, takes the tables as data from
 * the very Markdown report.md prints (so the two never disagree), and writes the HTML page.
 */
import { METHODS } from "../graphs";
import {
  checkedAgainst,
  REPORT_FORMAT,
  reportHtml,
  readReport,
  TableSchema,
  tablesOfReport,
  type ExperimentReport,
  type PaperTable,
} from "../graphs/report";
import type { CriticReportJson } from "../graphs/behaviorCritic/report";
import type { CurriculumReportJson } from "../graphs/curriculum/report";

export { REPORT_FORMAT, reportHtml, TableSchema, type PaperTable };
export type { CriticReportJson, CurriculumReportJson };

/** The methods whose reports the experiment runner (evals/runner.ts) writes: variants × tasks × seeds of episodes. */
export const runnerMethods = () => METHODS.filter((m) => m.report.experiment);

/** Any method's report.json, as its schema reads it. */
export type AnyReport = { method: string; tables: PaperTable[] } & Record<string, unknown>;
/** An experiment runner's report that passed its schema. */
export type RunnerReport = ExperimentReport & { method: string; tables: PaperTable[] };

const schemaOf = (method: string) => METHODS.find((m) => m.id === method)?.report.schema;

/**
 * Reads a report.json against its method's schema: the report, or a sentence saying what is wrong with it (which
 * method's schema it fails and where) — the viewer shows that instead of failing on a field it does not find.
 */
export function parseReport(json: unknown): { ok: true; report: AnyReport } | { ok: false; error: string } {
  const method = (json as { method?: unknown } | null)?.method;
  const schema = typeof method === "string" ? schemaOf(method) : undefined;
  if (typeof method !== "string" || !schema) {
    return {
      ok: false,
      error: `report.json names no method this viewer knows (${JSON.stringify(method ?? null)}; one of ${METHODS.map((m) => m.id).join(", ")}): it was written before the report contract (${REPORT_FORMAT}) or by something else — run the experiment again to get one`,
    };
  }
  return readReport(method, schema, json) as { ok: true; report: AnyReport } | { ok: false; error: string };
}

/** Checks a report as it is written, by its method's schema (graphs/report.ts says how). */
export function checkedReport<T extends { method: string }>(report: T): T {
  const schema = schemaOf(report.method);
  if (!schema) {
    const read = parseReport(report);
    if (!read.ok) process.stderr.write(`robograph: the report is written, but ${read.error}\n`);
    return report;
  }
  return checkedAgainst(report.method, schema, report);
}

/** The tables of a method's report.md as data (graphs/report.ts reads them by the method's headings). */
export function tablesOfMarkdown(method: string, md: string): PaperTable[] {
  const rules = METHODS.find((m) => m.id === method)?.report.headings;
  if (!rules) throw new Error(`no method ${method} to read a report of`);
  return tablesOfReport(method, rules, md);
}
