/**
 * One output contract for every experiment kind: a folder with report.json (the method's tables as data, its settings
 * and its per-episode or per-case rows), report.md and report.html, every path in them relative. Each method's report
 * module (graphs/<id>/report.ts) holds its report.json's schema, which the writers check what they write against and
 * the viewer reads report.json with; this module reads a report through its method's, takes the tables as data from
 * the very Markdown report.md prints (so the two never disagree), and writes the HTML page.
 */
import { METHODS } from "../graphs";
import { REPORT_FORMAT, TableSchema, type ExperimentReport, type PaperTable } from "../graphs/report";
import type { CriticReportJson } from "../graphs/behaviorCritic/report";
import type { CurriculumReportJson } from "../graphs/curriculum/report";

export { REPORT_FORMAT, TableSchema, type PaperTable };
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
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, report: parsed.data as AnyReport };
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
  return {
    ok: false,
    error: `report.json does not match the ${method} report schema (graphs/${method}/report.ts): ${issues.join("; ")}${parsed.error.issues.length > 5 ? `; and ${parsed.error.issues.length - 5} more` : ""}`,
  };
}

/**
 * Checks a report as it is written. One that breaks the contract is still written — a long run's record is never lost
 * to a schema — and the writer says on stderr what is wrong, as the viewer does when it opens it (the viewer test opens
 * every kind through its schema, so a writer that breaks the contract fails there).
 */
export function checkedReport<T extends { method: string }>(report: T): T {
  const parsed = parseReport(report);
  if (!parsed.ok) process.stderr.write(`robograph: the report is written, but ${parsed.error}\n`);
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
export function tablesOfMarkdown(method: string, md: string): PaperTable[] {
  const rules = METHODS.find((m) => m.id === method)?.report.headings;
  if (!rules) throw new Error(`no method ${method} to read a report of`);
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
