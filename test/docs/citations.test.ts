/**
 * The pages cite only files that exist: a path in the README or a page of docs/ (outside code blocks, which show
 * commands and sessions) names a file or folder in the repository. docs/results/ is generated and docs/notes/ is
 * history, written about the tree as it was then; data/ and runs/ are what commands write. Source comments are held
 * to the same by the linter's `robograph/cited-files-exist`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/processes";

const CITED =
  /(?<![\w./@-])((?:cli|evals|graphs|nodes|runtime|models|tools|memory|robots|ros|docs|test)\/[\w./<>*-]*[\w>*])/g;

describe("docs", () => {
  it("cite only files in the repository", () => {
    const pages = execFileSync("git", ["ls-files", "*.md"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((page) => page && !page.startsWith("docs/results/") && !page.startsWith("docs/notes/"));
    const missing: string[] = [];
    for (const page of pages) {
      const prose = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const match of prose.matchAll(CITED)) {
        const path = match[1].replace(/\.$/, "");
        if (/[<>*]/.test(path)) continue;
        const candidates = [path, `${path}.ts`, `${path}.js`, join(path, "index.ts")];
        if (!candidates.some((candidate) => existsSync(join(ROOT, candidate)))) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
