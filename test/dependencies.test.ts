/**
 * The map of DESIGN.md, held: dependencies point one way — cli → evals → graphs → nodes → runtime, models, tools,
 * memory → robots/bridge, robots/msgs, robots/manifests — and the simulators import only what both ends share. A
 * method's folder imports no other method's; its graph and nodes do not lean on the offline stand-in (the reasoner is
 * reached through the model interface only). And no import circle anywhere: not two files importing each other, not a
 * longer loop.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/processes";

const SOURCES = ["cli", "evals", "graphs", "nodes", "runtime", "models", "tools", "memory", "robots"];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const entryPath = join(dir, name);
    return statSync(entryPath).isDirectory() ? files(entryPath) : entryPath.endsWith(".ts") ? [entryPath] : [];
  });
}

/** Every file's relative imports (type-only ones too: a circle of types is still a circle to read), as repo paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of SOURCES.flatMap((d) => files(join(ROOT, d)))) {
    const text = readFileSync(f, "utf8");
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((match) => {
      const base = resolve(dirname(f), match[1]);
      const hit = [`${base}.ts`, join(base, "index.ts"), base].find((c) => existsSync(c) && statSync(c).isFile());
      return hit ? relative(ROOT, hit) : relative(ROOT, base);
    });
    graph.set(relative(ROOT, f), [...new Set(targets)]);
  }
  return graph;
}

const layer = (path: string) => path.split("/")[0];
/** What each top folder may import besides itself (robots/sim is handled apart). */
const MAY_IMPORT: Record<string, string[]> = {
  cli: ["evals", "graphs", "nodes", "runtime", "models", "tools", "memory", "robots"],
  evals: ["graphs", "nodes", "runtime", "models", "tools", "memory", "robots"],
  graphs: ["nodes", "runtime", "models", "tools", "memory", "robots"],
  nodes: ["runtime", "models", "tools", "memory", "robots"],
  runtime: ["models", "tools", "memory", "robots"],
  models: ["robots"],
  tools: ["models", "robots"],
  memory: ["models", "robots"],
  robots: [],
};
const AGENT_SIDE = ["graphs", "nodes", "runtime", "models", "tools", "memory"];
const SHARED = /^robots\/(bridge|msgs|manifests)\/|^robots\/(random|programs)\.ts$/;

describe("dependencies", () => {
  const graph = importGraph();

  it("point one way: nothing imports a folder above it", () => {
    const upward: string[] = [];
    for (const [f, targets] of graph) {
      for (const t of targets) {
        if (layer(t) === layer(f)) continue;
        if (!MAY_IMPORT[layer(f)]?.includes(layer(t))) upward.push(`${f} → ${t}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("the agent never imports a simulator, and the simulators import only what both ends share", () => {
    const wrong: string[] = [];
    for (const [f, targets] of graph) {
      for (const t of targets) {
        if (AGENT_SIDE.includes(layer(f)) && t.startsWith("robots/sim/")) wrong.push(`${f} → ${t}`);
        if (f.startsWith("robots/sim/") && !t.startsWith("robots/sim/") && !SHARED.test(t)) wrong.push(`${f} → ${t}`);
        if (SHARED.test(f) && !SHARED.test(t)) wrong.push(`${f} → ${t}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("a method's folder imports no other method's, and its graph and nodes reach the offline reasoner only as a model", () => {
    const wrong: string[] = [];
    for (const [f, targets] of graph) {
      const own = /^graphs\/([^/]+)\//.exec(f)?.[1];
      for (const t of targets) {
        const theirs = /^graphs\/([^/]+)\//.exec(t)?.[1];
        if (own && theirs && own !== theirs) wrong.push(`${f} → ${t}`);
        const symbolic = t.startsWith("models/symbolic/") || /^graphs\/[^/]+\/reasoner/.test(t);
        if (
          symbolic &&
          (/^graphs\/[^/]+\/(graph|nodes\/)/.test(f) || f.startsWith("nodes/") || f.startsWith("runtime/"))
        )
          wrong.push(`${f} → ${t}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has no import circle", () => {
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const t of graph.get(file) ?? []) {
        if (!graph.has(t)) continue;
        if (state.get(t) === "open") circles.push([...stack.slice(stack.indexOf(t)), t].join(" → "));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(circles).toEqual([]);
  });
});
