/**
 * The report contract (evals/reportFiles.ts, each method's schema in graphs/<id>/report.ts): a method's tables read from the Markdown its report prints, each under the
 * id its schema names; a report.json that is not its method's refused with a sentence saying where.
 */
import { describe, expect, it } from "vitest";
import { parseReport, tablesOfMarkdown, REPORT_FORMAT } from "../../evals/reportFiles";
import { cellNumber } from "../../cli/viewReports";

const CRITIC_MD = [
  "# Behaviour critics — 1 cases",
  "",
  "## Table 2 — recall and precision on negative samples",
  "",
  "| critic | recall |",
  "|---|---|",
  "| critic | 50.0% |",
  "",
  "Error taxonomy (Fig. 4): of every claim, the share",
  "that names no event.",
  "",
  "| critic | claims |",
  "|---|---|",
  "| critic | 2 |",
  "",
].join("\n");

describe("report tables as data", () => {
  it("takes each table under its heading, the second under one heading named by the paragraph before it", () => {
    const tables = tablesOfMarkdown("behaviorCritic", CRITIC_MD);
    expect(tables.map((x) => x.id)).toEqual(["table-2", "error-taxonomy"]);
    expect(tables[0]).toEqual({
      id: "table-2",
      title: "Table 2 — recall and precision on negative samples",
      columns: ["critic", "recall"],
      rows: [["critic", "50.0%"]],
    });
    expect(tables[1].title).toBe("Error taxonomy (Fig. 4)");
    expect(tables[1].note).toBe("Error taxonomy (Fig. 4): of every claim, the share that names no event.");
  });

  it("keeps an escaped pipe inside a cell", () => {
    const md = "## The library over time\n\n| a | b |\n|---|---|\n| x \\| y | 2 |\n";
    expect(tablesOfMarkdown("curriculum", md)[0].rows).toEqual([["x | y", "2"]]);
  });

  it("refuses a table that is none of the method's", () => {
    expect(() => tablesOfMarkdown("behaviorCritic", "## Something else\n\n| v |\n|---|\n| 1 |\n")).toThrow(
      /none of its tables/,
    );
  });

  it("reads a table's cell as the number it prints", () => {
    expect(cellNumber("33.3%")).toBeCloseTo(0.333);
    expect(cellNumber("41.5")).toBe(41.5);
    expect(cellNumber("100% (1/1)")).toBe(1);
    expect(cellNumber("—")).toBeNull();
  });
});

describe("parseReport", () => {
  it("says when a report.json names no method, or is not its method's", () => {
    const none = parseReport({ name: "old" });
    expect(none.ok).toBe(false);
    expect(!none.ok && none.error).toMatch(/names no method/);
    const wrong = parseReport({ format: REPORT_FORMAT, method: "behaviorCritic", name: "x", tables: [] });
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.error).toMatch(/does not match the behaviorCritic report schema.*meta/);
  });

  it("refuses CLEA's Average Score in a VLM-PC report", () => {
    const base = {
      format: REPORT_FORMAT,
      name: "x",
      dataset: "course",
      noise: 0,
      seeds: 1,
      variants: [],
      tasks: [],
      families: [],
      table: {},
      verdicts: {},
      episodes: [],
      durationSeconds: 1,
    };
    const table = { id: "average-score", title: "Average Score", columns: ["variant"], rows: [] };
    expect(parseReport({ ...base, method: "clea", tables: [table] }).ok).toBe(true);
    const parsed = parseReport({ ...base, method: "vlmpc", tables: [table] });
    expect(!parsed.ok && parsed.error).toMatch(/vlmpc report schema.*tables\.0\.id/);
  });
});
