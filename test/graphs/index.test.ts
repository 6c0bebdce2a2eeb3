/**
 * The methods table (graphs/index.ts) is the one place the product learns its methods from: it must agree with
 * langgraph.json, with each compiled graph's nodes and configuration, and nothing outside a method's folder may pick a
 * method by its name (test/graphs/sixth.int.test.ts adds a sixth method and shows the rest serve it untouched).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { METHODS, method, methodOfGraph, methodOfNodes, methodOfWorld, type Method } from "../../graphs";
import { loadDataset } from "../../evals/datasets";
import { GENERATED_KINDS } from "../../evals/datasets/generated";
import { world } from "../../robots/sim/worlds";
import { ROOT } from "../helpers/processes";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const entryPath = join(dir, name);
    return statSync(entryPath).isDirectory() ? files(entryPath) : entryPath.endsWith(".ts") ? [entryPath] : [];
  });
}

describe("methods", () => {
  it("lists every graph langgraph.json serves, each once, and each graph file's exported graph is the descriptor's", async () => {
    const served = JSON.parse(readFileSync(join(ROOT, "langgraph.json"), "utf8")).graphs as Record<string, string>;
    expect(Object.keys(served).sort()).toEqual(METHODS.map((m) => m.graph).sort());
    for (const [name, path] of Object.entries(served)) {
      const [file, exported] = path.split(":");
      const mod = (await import(join(ROOT, file))) as Record<
        string,
        { getGraph(): { nodes: Record<string, unknown> } }
      >;
      const nodes = Object.keys(mod[exported].getGraph().nodes).filter((n) => !n.startsWith("__"));
      expect(nodes.sort(), name).toEqual([...methodOfGraph(name)!.nodes].sort());
    }
    for (const key of ["id", "graph", "world", "tool"] as const)
      expect(new Set(METHODS.map((m) => m[key])).size, key).toBe(METHODS.length);
  });

  it("each descriptor's variants are its configuration's, the full method first", () => {
    for (const m of METHODS) {
      const variant = m.configuration.shape.variant as unknown as {
        parse(v: unknown): string;
        safeParse(v: unknown): { success: boolean };
      };
      expect(m.variants[0], m.id).toBe("full");
      expect(variant.parse(undefined), m.id).toBe("full");
      for (const v of m.variants) expect(variant.safeParse(v).success, `${m.id} ${v}`).toBe(true);
      expect(variant.safeParse("no-such-variant").success).toBe(false);
      expect(m.compile().getStateHistory).toBeTypeOf("function");
    }
  });

  it("finds a method by id, graph, world and by the nodes of a record, and says which exist when asked for another", () => {
    for (const m of METHODS) {
      expect(method(m.id)).toBe(m);
      expect(methodOfWorld(m.world)).toBe(m);
      expect(methodOfNodes([...m.nodes, "__interrupt__"])).toBe(m);
    }
    // What sets each method's records apart: RePLan's scan, VLM-PC's look, the behaviour critic's writer, Game On's propose.
    expect(methodOfNodes(["scan", "dispatch", "executor"])?.id).toBe("replan");
    expect(methodOfNodes(["look", "planner", "dispatch"])?.id).toBe("vlmpc");
    expect(methodOfNodes(["begin", "writer", "dispatch"])?.id).toBe("behaviorCritic");
    expect(methodOfNodes(["begin", "propose"])?.id).toBe("curriculum");
    expect(methodOfNodes(["perceiver", "summarizer", "critic"])?.id).toBe("clea");
    expect(methodOfNodes([])).toBeUndefined();
    expect(methodOfNodes(["no_such_node"])).toBeUndefined();
    expect(() => method("sixth")).toThrow(/no method sixth; one of clea, replan, vlmpc, behaviorCritic, curriculum/);
    expect(() => methodOfWorld("moon")).toThrow(/no method runs in the moon world/);
  });

  it("names datasets that exist and hold rows of its own world", () => {
    for (const m of METHODS) {
      for (const d of m.datasets) {
        const generated = GENERATED_KINDS.find((k) => k.dataset === d);
        if (existsSync(join(ROOT, "evals", "datasets", `${d}.jsonl`)))
          expect(
            loadDataset(d).some((r) => r.example.inputs.world === m.world),
            `${m.id}: ${d}`,
          ).toBe(true);
        else if (generated) expect(generated.row(0).inputs.world, `${m.id}: ${d}`).toBe(m.world);
        // The behaviour-critic benchmark is made (npm run make:critic-benchmark) and run by a runner of its own.
        else expect([m.id, d]).toEqual(["behaviorCritic", "critic"]);
      }
    }
  });

  it("describes every node of its own graph in a line without throwing on an empty update", () => {
    for (const m of METHODS) for (const n of m.nodes) expect(m.describe(n, {}).node).toBe(n);
  });

  it("nothing outside a method's folder compares a method's name of its own (everything asks the descriptors)", () => {
    const ids = METHODS.flatMap((m) => [m.id, m.graph])
      .map((x) => x.replace(/[^\w]/g, "\\$&"))
      .join("|");
    const name = `"(${ids})"`;
    // Every way code picks a method by its name: ===/!== either side, a case, .includes of one name or of a list of names.
    const comparison = new RegExp(
      `(===|!==|==|!=) ?${name}|${name} ?(===|!==|==|!=)|case ${name}|\\.includes\\(${name}\\)|\\[${name}(, ?"[^"]*")*\\]\\.includes\\(`,
    );
    const named = ["cli", "evals", "nodes", "runtime", "models", "tools", "memory", "robots"]
      .flatMap((d) => files(join(ROOT, d)))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ line, at: `${relative(ROOT, file)}:${i + 1}` }))
          .filter(({ line }) => comparison.test(line)),
      )
      .map((x) => x.at);
    const viewer = readFileSync(join(ROOT, "cli", "viewer", "app.js"), "utf8")
      .split("\n")
      .flatMap((line, i) => (comparison.test(line) ? [`cli/viewer/app.js:${i + 1}`] : []));
    expect([...named, ...viewer]).toEqual([]);
  });

  it("reproduce makes each method's figures as its descriptor declares them (and the bench's), each running its own method", async () => {
    const { FIGURES } = await import("../../cli/reproduce");
    const declared = METHODS.flatMap((m) => (m.figures ?? []).map((f) => ({ figure: f, owner: m })));
    const ownerOf = new Map(declared.map(({ figure, owner }) => [figure.id, owner]));
    expect(ownerOf.size, "a figure id declared twice").toBe(declared.length);
    // Every figure is a method's, but the latency bench's (every method's bench scenes in one run).
    expect(FIGURES.filter((f) => !ownerOf.has(f.id)).map((f) => f.id)).toEqual(["latency"]);
    expect(FIGURES.length).toBe(declared.length + 1);
    // A dataset of its world (its own list, or a generated set of the world), or a run of its graph.
    const ofWorld = (owner: Method, dataset: string) =>
      owner.datasets.includes(dataset) ||
      GENERATED_KINDS.some((k) => k.dataset === dataset && k.row(0).inputs.world === owner.world);
    for (const f of FIGURES) {
      const owner = ownerOf.get(f.id);
      if (!owner) continue;
      for (const part of [...f.parts(true, "work"), ...f.parts(false, "work")]) {
        const flag = (name: string) => part.argv[part.argv.indexOf(name) + 1];
        if (part.script) continue;
        if (part.argv[0] === "eval") expect(ofWorld(owner, flag("--dataset")), `${f.id}: ${part.shown}`).toBe(true);
        else expect([part.argv[0], flag("--graph")], `${f.id}: ${part.shown}`).toEqual(["run", owner.graph]);
      }
    }
  });

  it("the viewer draws the panels each descriptor declares, plain data the page renders without naming a node", async () => {
    const { Library } = await import("../../cli/viewLibrary");
    const records = mkdtempSync(join(tmpdir(), "robograph-panels-"));
    try {
      for (const m of METHODS) {
        const panels = m.viewer?.panels ?? [];
        expect(JSON.parse(JSON.stringify(panels)), `${m.id}'s panels are not plain data`).toEqual(panels);
        const ids = panels.flatMap((p) => (p.id ? [p.id] : []));
        expect(new Set(ids).size, m.id).toBe(ids.length);
        // The view server sends a record's method's panels as they are.
        mkdirSync(join(records, m.id));
        writeFileSync(join(records, m.id, "events.jsonl"), `${JSON.stringify({ node: m.nodes[0], update: {} })}\n`);
        writeFileSync(join(records, m.id, "summary.json"), JSON.stringify({ method: m.id }));
        expect(new Library(records, records).run(m.id).panels, m.id).toEqual(panels);
      }
    } finally {
      rmSync(records, { recursive: true, force: true });
    }
    const page = readFileSync(join(ROOT, "cli", "viewer", "app.js"), "utf8");
    const nodes = [...new Set(METHODS.flatMap((m) => m.nodes))];
    expect(nodes.filter((n) => new RegExp(`["'\`]${n}["'\`]`).test(page))).toEqual([]);
  });

  it("each method that pipelines declares the nodes it speculates with, its own; the measures name none", () => {
    const measures = readFileSync(join(ROOT, "nodes", "speculation.ts"), "utf8");
    for (const m of METHODS) {
      expect(!!m.speculation, m.id).toBe("pipeline" in m.configuration.shape);
      const speculating = m.speculation
        ? [...m.speculation.clearing, m.speculation.prepared, ...(m.speculation.looks ? [m.speculation.looks] : [])]
        : [];
      for (const n of speculating) {
        expect(m.nodes, `${m.id}: ${n}`).toContain(n);
        expect(measures, `nodes/speculation.ts names ${m.id}'s ${n}`).not.toContain(`"${n}"`);
      }
    }
  });

  it("the latency bench runs the scenes the descriptors declare, in METHODS' order, each a scenario of its world", async () => {
    const { LATENCY_TASKS } = await import("../../evals/bench/latency");
    expect(LATENCY_TASKS.map((t) => [t.mode, t.label, t.scenario])).toEqual(
      METHODS.flatMap((m) => (m.benchScenes ?? []).map((scene) => [m.id, scene.label, scene.scenario])),
    );
    for (const m of METHODS)
      for (const scene of m.benchScenes ?? []) expect(world(m.world).scenarios(), m.id).toContain(scene.scenario);
  });

  it("reproduce, the viewer's page, the speculation measures and the bench name no method", () => {
    const ids = METHODS.flatMap((m) => [m.id, m.graph]);
    for (const file of ["cli/reproduce.ts", "cli/viewer/app.js", "nodes/speculation.ts", "evals/bench/latency.ts"]) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(
        ids.filter((id) => new RegExp(`["'\`]${id}["'\`]`).test(text)),
        file,
      ).toEqual([]);
    }
  });
});
