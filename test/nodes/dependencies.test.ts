/**
 * The agent does not lean on its offline stand-in: no file under graphs/ or nodes/ imports models/symbolic/ — what
 * nodes share with the offline reasoner (reading instructions, CLEA's belief, RePLan's plan checks, the behaviour
 * critic's event grounding) lives in models/reasoning/, below both. And the simulators import nothing above them.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/processes";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("dependencies", () => {
  it("graphs/ and nodes/ do not import the symbolic reasoner", () => {
    const importers = ["graphs", "nodes"]
      .flatMap((d) => files(join(ROOT, d)))
      .filter((f) => /from "[./]+\/models\/symbolic\//.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(importers).toEqual([]);
  });

  it("models/reasoning/ imports neither the symbolic reasoner nor anything above models/", () => {
    for (const f of files(join(ROOT, "models", "reasoning"))) {
      const text = readFileSync(f, "utf8");
      expect(text, relative(ROOT, f)).not.toMatch(/from "\.\.\/symbolic\/|from "[./]+\/(graphs|nodes|evals|cli|tools|memory)\//);
    }
  });

  it("what both ends share (robots/msgs/, robots/manifests/, robots/random.ts) imports nothing of either end", () => {
    const shared = [...files(join(ROOT, "robots", "msgs")), ...files(join(ROOT, "robots", "manifests")), join(ROOT, "robots", "random.ts")];
    const upward = shared.filter((f) => /from "[./]+\/(sim|models|graphs|nodes|tools|memory|evals|cli)\//.test(readFileSync(f, "utf8"))).map((f) => relative(ROOT, f));
    expect(upward).toEqual([]);
  });

  it("robots/sim/ imports only the bridge, the messages and manifests below it — nothing of the agent, the evals or the CLI", () => {
    const upward = files(join(ROOT, "robots", "sim"))
      .filter((f) => /from "[./]+\/(models|graphs|nodes|tools|memory|evals|cli)\//.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(upward).toEqual([]);
  });
});
