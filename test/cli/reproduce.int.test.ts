/**
 * `npm run reproduce`: the quick slices of every published figure, made again here by the commands the docs give, equal
 * the committed ones (header aside) — so a change that moves a figure without regenerating it fails. They run while
 * the rest of the suite loads the machine, which is the point: under a seed the tables do not depend on timing. RePLan's
 * tabletop figures are checked by reproduceTabletop.int.test.ts, beside this file.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  FIGURES,
  HEADER_END,
  LEDGER,
  RESULTS_DIR,
  bodyOf,
  fillMarkers,
  forDocs,
  freshRanges,
  includeResults,
  scoredOnly,
} from "../../cli/reproduce";
import { commitsOf, readLedger, scoredRangeLine, staleness } from "../../evals/ledger";
import type { Report } from "../../evals/experimentReport";
import { scoredCasesOnly, type CriticResults } from "../../evals/behaviorCritic";
import { QUICK_FIGURES, TABLETOP_FIGURES, differences, reproduceCheck } from "../helpers/reproduce";

describe("npm run reproduce", () => {
  it("makes the quick figures again, equal to those committed in docs/results/quick/ (the tabletop's aside: reproduceTabletop.int.test.ts)", async () => {
    const ids = QUICK_FIGURES.filter((id) => !TABLETOP_FIGURES.includes(id));
    // Every quick figure is checked by one of the two files.
    expect(TABLETOP_FIGURES.every((id) => QUICK_FIGURES.includes(id))).toBe(true);
    const { code, said } = await reproduceCheck(ids);
    // On a difference the message names the figures, and the made files are left for a diff.
    expect(code, differences(said)).toBe(0);
    for (const id of ids) expect(said, differences(said)).toContain(`${id}] same as committed`);
  }, 900_000);

  it("a results file says how many times its scored range was run, as the ledger has it; a range run twice reads as tuning", () => {
    const ledger = readLedger(LEDGER);
    const scored = FIGURES.filter((f) => f.scored?.length);
    expect(scored.map((f) => f.id)).toContain("kitchen-generated");
    for (const f of scored) {
      const text = readFileSync(join(RESULTS_DIR, `${f.id}.md`), "utf8");
      for (const range of f.scored!) {
        expect(commitsOf(ledger, range).length, `${f.id}: no ledger row for its scored range`).toBeGreaterThan(0);
        expect(text.split("\n"), `docs/results/${f.id}.md does not say how often its scored range was run`).toContain(
          scoredRangeLine(ledger, range),
        );
      }
    }
    const range = { dataset: "kitchen-generated", from: 3000, count: 100 };
    const row = (commit: string) => ({ date: "2026-11-27", commit, figure: "kitchen-generated", range, note: "" });
    expect(scoredRangeLine([row("a1"), row("a1")], range)).toBe(
      "- scored range: kitchen-generated seeds 3000–3099, run at 1 commit (docs/results/ledger.md)",
    );
    expect(scoredRangeLine([row("a1"), row("b2")], range)).toMatch(
      /run at 2 commits .*: run more than once, so its figures may have steered changes — read them as tuning figures$/,
    );
  });

  it("reads only the scored range of generated courses for the scored figure (course seeds from 1000)", () => {
    const report = (tasks: string[]) => ({ tasks }) as unknown as Report;
    expect(scoredOnly(report(["generated_1000", "generated_1042"])).tasks).toHaveLength(2);
    expect(() => scoredOnly(report(["generated_1000", "generated_999"]))).toThrow(
      /outside the scored range.*generated_999/,
    );
    expect(() => scoredOnly(report(["indoor_1"]))).toThrow(/outside the scored range/);
  });

  it("reads only its own scored range: a retired range below it passes no longer", () => {
    const report = (tasks: string[]) => ({ tasks }) as unknown as Report;
    const sealed = { from: 3000, count: 50 };
    expect(scoredOnly(report(["generated_3000", "generated_3051"]), sealed).tasks).toHaveLength(2);
    expect(() => scoredOnly(report(["generated_3000", "generated_1042"]), sealed)).toThrow(
      /outside the scored range \(seeds from 3000\).*generated_1042/,
    );
  });

  it("refuses to run a full figure on a scored range the ledger shows run, or one overlapping a tuning range", () => {
    const ledger = readLedger(LEDGER);
    // Every published figure's sealed range has been run: running it again is refused, naming the ledger's rows.
    for (const f of FIGURES.filter((x) => x.scored?.length))
      expect(() => freshRanges(ledger, f.scored!, f.tuning), f.id).toThrow(/already run \(docs\/results\/ledger\.md: /);
    const fresh = { dataset: "kitchen-generated", from: 90_000, count: 100 };
    expect(() => freshRanges(ledger, [fresh])).not.toThrow();
    // Overlapping a run range by one seed is enough.
    expect(() => freshRanges(ledger, [{ dataset: "kitchen-generated", from: 2901, count: 100 }])).toThrow(
      /already run/,
    );
    expect(() =>
      freshRanges(
        [],
        [{ dataset: "kitchen-generated", from: 150, count: 10 }],
        [{ dataset: "kitchen-generated", from: 100, count: 300 }],
      ),
    ).toThrow(/overlaps the tuning range/);
  });

  it("reads a figure marked stale as stale until a later row runs it; a stale mark is no run", () => {
    const range = { dataset: "kitchen-generated", from: 3000, count: 100 };
    const run = (commit: string) => ({ date: "2026-11-27", commit, figure: "kitchen-generated", range, note: "" });
    const mark = {
      date: "2026-11-28",
      commit: "c3",
      figure: "kitchen-generated",
      range,
      note: "stale: the reasoner's draws changed",
    };
    expect(staleness([run("a1")], "kitchen-generated")).toBeUndefined();
    expect(staleness([run("a1"), mark], "kitchen-generated")).toEqual({
      why: "the reasoner's draws changed",
      commit: "c3",
      date: "2026-11-28",
    });
    expect(staleness([run("a1"), mark, run("d4")], "kitchen-generated")).toBeUndefined();
    expect(commitsOf([run("a1"), mark], range)).toEqual(["a1"]);
    expect(() => freshRanges([mark], [range])).not.toThrow();
  });

  it("reads only the scored range of generated tabletop scenes for their scored figure (scene seeds 3000–3049)", () => {
    const report = (tasks: string[]) => ({ tasks }) as unknown as Report;
    expect(FIGURES.find((f) => f.id === "tabletop-generated")!.scored).toEqual([
      { dataset: "tabletop-generated", from: 3000, count: 50 },
    ]);
    // A tuning scene (seed 120) read into the scored figure is refused by name.
    expect(() => scoredOnly(report(["generated_3000", "generated_120"]))).toThrow(
      /outside the scored range.*generated_120/,
    );
  });

  it("reads only the scored range of generated critic cases for the scored figure (case seeds from 3000; 1000–1099 is retired)", () => {
    const results = (cases: string[]) => ({ critiques: cases.map((c) => ({ case: c })) }) as unknown as CriticResults;
    expect(FIGURES.find((f) => f.id === "critic")!.scored).toEqual([
      { dataset: "critic-generated", from: 3300, count: 100 },
    ]);
    expect(scoredCasesOnly(results(["gen-3000", "gen-3099"])).critiques).toHaveLength(2);
    expect(() => scoredCasesOnly(results(["gen-3000", "gen-1000"]))).toThrow(/outside the scored range.*gen-1000/);
    expect(() => scoredCasesOnly(results(["dropped-00"]))).toThrow(/outside the scored range.*dropped-00/);
  });

  it("compares what follows a results file's header, and fills the docs' marked regions", () => {
    const file = `<!-- Generated … -->\n# T\n\n- commit: abc\n- date: 2026-01-01\n\n${HEADER_END}\n\n<!-- headline: 1/2 -->\n\n| a |\n`;
    expect(bodyOf(file)).toBe("<!-- headline: 1/2 -->\n\n| a |\n");
    expect(bodyOf(file.replace("abc", "def").replace("2026-01-01", "2027-02-02"))).toBe(bodyOf(file));
    const doc =
      "x <!-- headline:kitchen -->old<!-- /headline --> y\n<!-- results:course -->\nold table\n<!-- /results -->\n";
    expect(
      forDocs(
        "# Noise 0\n\n## Success\n\n| a |\n\n## Episodes\n\n| e1 |\n| e2 |\n\n# Noise 0.2\n\n## Episodes\n\n| e3 |\n",
      ),
    ).toBe("### Noise 0\n\n#### Success\n\n| a |\n\n### Noise 0.2\n");
    expect(fillMarkers(doc, (kind, id) => `${kind} ${id}`)).toBe(
      "x <!-- headline:kitchen -->headline kitchen<!-- /headline --> y\n<!-- results:course -->results course<!-- /results -->\n",
    );
  });

  it("publishes in the README and docs exactly the figures in docs/results/, every one of them generated", () => {
    // A hand edit inside a marked region, or results copied in without `npm run reproduce -- --include`, fails here.
    const { changed, missing } = includeResults(undefined, false);
    expect(missing, "figures the docs name that docs/results/ does not hold").toEqual([]);
    expect(changed, "docs whose marked regions differ from docs/results/ (npm run reproduce -- --include)").toEqual([]);
  });
});
