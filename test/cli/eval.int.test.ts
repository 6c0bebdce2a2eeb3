/**
 * `npm run eval` on generated courses, in process: the dataset is built (each course checked solvable), written into
 * the experiment, run, reported in its own table, and resumed without running anything again; flags that only make
 * sense for generated courses are refused elsewhere.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evalCommand } from "../../cli/eval";
import { closePooledSessions } from "../../runtime/run";
import { scratchDir } from "../helpers/episode";

describe("npm run eval -- --dataset course-generated", () => {
  it("builds, runs, reports and resumes an experiment over generated courses", async () => {
    const root = scratchDir();
    const args = [
      "--dataset",
      "course-generated",
      "--count",
      "1",
      "--course-seed",
      "3",
      "--variants",
      "full,random",
      "--root",
      root,
      "--name",
      "gen",
    ];
    try {
      expect(await evalCommand(args)).toBe(0);
      const rows = readFileSync(join(root, "gen", "dataset.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows.map((r) => r.inputs.scenario)).toEqual(["generated_3"]);
      expect(rows[0].metadata).toMatchObject({ paper_table: "generated", condition: "tuning" });
      const report = JSON.parse(readFileSync(join(root, "gen", "report.json"), "utf8"));
      expect(report.episodes.map((e: { id: string }) => e.id).sort()).toEqual([
        "full__generated_3__tuning__s0",
        "random__generated_3__tuning__s0",
      ]);
      expect(readFileSync(join(root, "gen", "report.md"), "utf8")).toMatch(/## Generated courses: 1 course\(s\)/);
      // The experiment's own dataset.jsonl is named relative to its folder: no report names a path of this machine.
      expect(report.dataset).toBe("dataset.jsonl");
      expect(report.method).toBe("vlmpc");
      for (const f of ["report.json", "report.md", "report.html"])
        expect(readFileSync(join(root, "gen", f), "utf8")).not.toContain(root);
      // Again: every episode is already there.
      expect(await evalCommand(args)).toBe(0);
      expect(JSON.parse(readFileSync(join(root, "gen", "report.json"), "utf8")).throughput ?? null).toBeNull();
    } finally {
      await closePooledSessions();
    }
  }, 180_000);

  it("runs only the generated worlds --examples names, and refuses one it did not generate, naming those it did", async () => {
    const root = scratchDir();
    const args = ["--dataset", "course-generated", "--count", "1", "--course-seed", "3", "--variants", "random"];
    try {
      expect(await evalCommand([...args, "--examples", "generated_3__tuning", "--root", root, "--name", "one"])).toBe(
        0,
      );
      const report = JSON.parse(readFileSync(join(root, "one", "report.json"), "utf8"));
      expect(report.episodes.map((e: { id: string }) => e.id)).toEqual(["random__generated_3__tuning__s0"]);
      await expect(
        evalCommand([...args, "--examples", "generated_4__tuning", "--root", root, "--name", "other"]),
      ).rejects.toThrow(/has no example generated_4__tuning; its examples: generated_3__tuning$/);
    } finally {
      await closePooledSessions();
    }
  }, 180_000);

  it("refuses --count and --course-seed for other datasets, and a count below one", async () => {
    await expect(evalCommand(["--dataset", "course", "--count", "3"])).rejects.toThrow(
      /go with --dataset course-generated/,
    );
    await expect(evalCommand(["--dataset", "course-generated", "--count", "0"])).rejects.toThrow(/--count must be/);
  });
});
