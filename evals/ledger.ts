/**
 * The ledger of scored ranges (docs/results/ledger.md): every run of a scored range of generated worlds, with the
 * commit it was made at. A scored range is meant to be run once, after every decision was made on tuning seeds; one
 * run at several commits may have steered the changes between them, so a figure made from it says how many times it
 * was run (`npm run reproduce` writes that into the results file's header, and a test holds every committed results
 * file to the ledger). Rows are appended by `npm run reproduce` for each full figure it makes; rows for runs made
 * before the ledger existed were read from the results files' history and say so.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** A range of generated worlds a figure scores on: `count` seeds of `dataset` from `from` on. */
export interface ScoredRange {
  dataset: string;
  from: number;
  count: number;
}

export interface LedgerRow {
  date: string;
  /** The commit the runs were made at (a short hash, "(with uncommitted changes)" after it when the tree had any). */
  commit: string;
  figure: string;
  range: ScoredRange;
  note: string;
}

export const rangeText = (r: ScoredRange) => `${r.dataset} seeds ${r.from}–${r.from + r.count - 1}`;

const sameRange = (first: ScoredRange, second: ScoredRange) =>
  first.dataset === second.dataset && first.from === second.from && first.count === second.count;

const LEDGER_HEAD = `<!-- Appended by npm run reproduce (cli/reproduce.ts) for every full figure that runs a scored range; a run made
outside it is added by hand, with a note. Never delete a row: a scored range run more than once is tuning data. -->
# Scored ranges: every run

| date | commit | figure | scored range | note |
|---|---|---|---|---|
`;

const ROW = /^\| (\d{4}-\d{2}-\d{2}) \| ([^|]+?) \| ([a-z0-9-]+) \| ([a-z-]+) seeds (\d+)–(\d+) \| ([^|]*?) \|$/;

export function readLedger(file: string): LedgerRow[] {
  if (!existsSync(file)) return [];
  const rows: LedgerRow[] = [];
  for (const [i, line] of readFileSync(file, "utf8").split("\n").entries()) {
    if (!line.startsWith("| ") || line.startsWith("| date ") || line.startsWith("|---")) continue;
    const match = ROW.exec(line);
    if (!match) throw new Error(`${file}:${i + 1}: not a ledger row: ${line}`);
    const [from, to] = [Number(match[5]), Number(match[6])];
    rows.push({
      date: match[1],
      commit: match[2],
      figure: match[3],
      range: { dataset: match[4], from, count: to - from + 1 },
      note: match[7],
    });
  }
  return rows;
}

export function appendToLedger(file: string, rows: LedgerRow[]): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : LEDGER_HEAD;
  const lines = rows.map((r) => `| ${r.date} | ${r.commit} | ${r.figure} | ${rangeText(r.range)} | ${r.note} |`);
  writeFileSync(file, `${text.replace(/\n*$/, "\n")}${lines.join("\n")}\n`);
}

/**
 * A row whose note starts "stale:" is no run: it marks the figure stale — a change on its code path since it was
 * made — until a later row runs it again (on a fresh range: `freshRanges` in cli/reproduce.ts). Its commit is the one
 * the change landed at.
 */
export const isStaleMark = (r: LedgerRow) => r.note.startsWith("stale:");

/** The distinct commits a range was run at (a commit with uncommitted changes counts as its own). */
export function commitsOf(rows: LedgerRow[], range: ScoredRange): string[] {
  return [...new Set(rows.filter((r) => !isStaleMark(r) && sameRange(r.range, range)).map((r) => r.commit))];
}

/** Why a figure is stale, if its last ledger row marks it so (no run since): the mark's note and commit. */
export function staleness(
  rows: LedgerRow[],
  figure: string,
): { why: string; commit: string; date: string } | undefined {
  const last = rows.filter((r) => r.figure === figure).at(-1);
  return last && isStaleMark(last)
    ? { why: last.note.replace(/^stale:\s*/, ""), commit: last.commit, date: last.date }
    : undefined;
}

/** The results header's line for a scored range: how many times it was run, and what that makes it. */
export function scoredRangeLine(rows: LedgerRow[], range: ScoredRange): string {
  const runCount = commitsOf(rows, range).length;
  return `- scored range: ${rangeText(range)}, run at ${runCount} commit${runCount === 1 ? "" : "s"} (docs/results/ledger.md)${runCount > 1 ? ": run more than once, so its figures may have steered changes — read them as tuning figures" : ""}`;
}
