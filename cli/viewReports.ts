/**
 * What the viewer draws of a report.json that passed its method's schema: the facts line, the charts that method's
 * paper draws — and no other method's — and the report without the long per-episode or per-case lists (the page lists
 * episodes itself, and the tables already sum the rest). Each method's report module (graphs/<id>/report.ts) says
 * what those are; this module asks it.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { REPORT_FORMAT, tablesOfMarkdown, type AnyReport } from "../evals/reportFiles";
import { experimentMethod } from "../evals/experimentReport";
import { method } from "../graphs";
import type { ChartSpec } from "../graphs/report";

export { cellNumber, type ChartSpec } from "../graphs/report";

const reportOf = (r: AnyReport) => method(r.method).report;

/** The charts of the report's method (its paper's), and no other method's. */
export const reportCharts = (r: AnyReport): ChartSpec[] => reportOf(r).charts(r);

/** The report's headline facts, in the page's facts line. */
export const reportFacts = (r: AnyReport): string[] => reportOf(r).facts(r);

/** The report as the page gets it: without the per-episode and per-case lists. */
export const slimReport = (r: AnyReport): Record<string, unknown> => reportOf(r).slim(r);

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
  const upgraded = (method: string, record: Record<string, unknown>) => {
    try {
      return { format: REPORT_FORMAT, method, ...record, tables: tablesOfMarkdown(method, md) };
    } catch {
      return null;
    }
  };
  if (raw && raw.method === undefined) {
    if (Array.isArray(raw.families) && raw.table && Array.isArray(raw.episodes))
      return upgraded(experimentMethod({ families: raw.families as string[] }), raw);
    if (Array.isArray(raw.convergedShare) && raw.curves) return upgraded("curriculum", raw);
    return null;
  }
  const results = !raw ? readJson(join(dir, "results.json")) : null;
  if (results && results.meta && Array.isArray(results.critiques)) {
    return upgraded("behaviorCritic", {
      name: basename(dir),
      ...results,
      settings: {},
      refinement: readJson(join(dir, "refinement.json")) ?? null,
    });
  }
  return null;
}
