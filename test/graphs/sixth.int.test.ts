/**
 * A sixth method is its folder, a line in METHODS and its langgraph.json entry. In a copy of the repository, a toy
 * method (drive the kitchen's base to the navigation point the instruction names) is added that way — nothing else
 * touched — and the product serves it untouched: `robograph run --graph` runs it to its record, the experiment runner
 * measures it on the kitchen's rows and writes its report through its own report module, `reproduce --list` lists the
 * figure its folder declares, and the viewer shows the report, the run and the panel its folder declares. The toy
 * graph is the smallest honest method: a model node (the offline reasoner answering from the toy's own reasoner part)
 * and a skill sent through the recorded-goal path.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium } from "playwright-core";
import pg from "pg";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ROOT, alive, descendants } from "../helpers/processes";
import { mcpServer } from "../helpers/mcp";
import { postgresBin, startPostgres, type Postgres } from "../helpers/postgres";
import { PRECOMPILED } from "../../robots/programs";

const CHROMIUM = process.env.ROBOGRAPH_CHROMIUM ?? "/usr/bin/chromium";
/** Whether the viewer's page is opened in a browser (test/cli/view.int.test.ts's rule: CI requires one). */
const withBrowser = existsSync(CHROMIUM) || process.env.ROBOGRAPH_REQUIRE_BROWSER === "1";

const FILES: Record<string, string> = {
  "graphs/toy/configuration.ts": `import { z } from "zod";
import { runConfiguration } from "../../runtime/settings";

export const TOY_VARIANTS = ["full"] as const;
export const TOY_SETTINGS = {
  destination: z.string().optional().describe("the navigation point to drive to, whatever the instruction names"),
};
export const ToyConfiguration = runConfiguration(TOY_VARIANTS, TOY_SETTINGS);
export type ToySettings = z.infer<typeof ToyConfiguration>;
`,
  "graphs/toy/state.ts": `import { Annotation } from "@langchain/langgraph";
import { last, usageChannel, type Status } from "../../nodes/state";

export const ToyState = Annotation.Root({
  goal: Annotation<string>(),
  point: last<string | null>(null),
  pendingGoal: last<string | null>(null),
  steps: last(0),
  status: last<Status>("running"),
  statusReason: last(""),
  usage: usageChannel(),
  startedAt: last(0),
});
export type ToyStateType = typeof ToyState.State;
`,
  "graphs/toy/schemas.ts": `import { z } from "zod";

export const PointChoice = z.object({ point: z.string().describe("the navigation point the instruction names") });
`,
  "graphs/toy/reasoner.ts": `import type { Task } from "../../models/symbolic/noise";

/** The offline answer: the navigation point whose words the goal uses most. */
const choose: Task = (ctx: { goal: string; points: string[] }) => {
  const words = new Set(ctx.goal.toLowerCase().split(/\\W+/));
  const score = (p: string) => p.split("_").filter((w) => words.has(w)).length;
  return { point: [...ctx.points].sort((a, b) => score(b) - score(a))[0] };
};
export const TASKS: Record<string, Task> = { choose_point: choose };
`,
  "graphs/toy/nodes/choose.ts": `import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { runOf } from "../../../runtime/run";
import { PointChoice } from "../schemas";
import type { ToyStateType } from "../state";

export const CHOOSE_PROMPT = "Name the navigation point the instruction sends the robot to.";

export async function choose(state: ToyStateType, config?: RunnableConfig) {
  const run = runOf(config);
  const s = await run.session();
  const { destination } = run.settings as { destination?: string };
  const points = destination ? [destination] : s.world.navigationPoints;
  const { value, usage } = await askStructured(s.models, s.modelConfig, { role: "planner", schema: PointChoice, schemaName: "PointChoice", system: CHOOSE_PROMPT, task: "choose_point", context: { goal: state.goal, points } });
  return { point: value.point, pendingGoal: \`\${(config?.configurable as { thread_id?: string })?.thread_id ?? "toy"}/go\`, usage, startedAt: state.startedAt || Date.now() };
}
`,
  "graphs/toy/nodes/go.ts": `import type { RunnableConfig } from "@langchain/core/runnables";
import { runOf } from "../../../runtime/run";
import { runRecordedGoal } from "../../../nodes/executor";
import type { ToyStateType } from "../state";

export async function go(state: ToyStateType, config?: RunnableConfig) {
  const s = await runOf(config).session();
  const r = await runRecordedGoal(s, state.pendingGoal!, "mobile", "go_to", { navigation_point: state.point! }, undefined, config);
  return { steps: state.steps + 1, pendingGoal: null, status: r.ok ? ("succeeded" as const) : ("failed" as const), statusReason: r.ok ? r.message : r.error ?? r.status };
}
`,
  "graphs/toy/graph.ts": `import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { GoalInput } from "../../nodes/state";
import { inRun, type MethodRuntime } from "../../runtime/run";
import { ToyConfiguration, type ToySettings } from "./configuration";
import { ToyState } from "./state";
import { choose } from "./nodes/choose";
import { go } from "./nodes/go";

export function compileToy(method: MethodRuntime<ToySettings>, checkpointer?: BaseCheckpointSaver, store?: BaseStore) {
  return new StateGraph({ state: ToyState, input: GoalInput, context: ToyConfiguration })
    .addNode("choose", inRun(method, choose))
    .addNode("go", inRun(method, go))
    .addEdge(START, "choose")
    .addEdge("choose", "go")
    .addEdge("go", END)
    .compile({ checkpointer, store, name: "toyGoTo" });
}
`,
  "graphs/toy/report.ts": `import { experimentReport } from "../report";
import type { ToyStateType } from "./state";

export const toyReport = experimentReport({
  method: "toy",
  name: "Toy",
  experiment: {
    paperTables: () => "",
    averageScore: false,
    effort: (run) => ({ score: 0, steps: (run.state as ToyStateType).steps, failedActions: 0, replans: 0, verdicts: {} }),
  },
});
`,
  "graphs/toy/figures.ts": `import { evalPart, type Figure } from "../figure";

export const TOY_FIGURES: Figure[] = [
  {
    id: "toy-kitchen",
    order: 80,
    title: "Toy on a kitchen row",
    about: "A test's sixth method, once on the kitchen's default task.",
    parts: (_quick, work) => [
      evalPart("toy", "toy-kitchen", work, ["--dataset", "kitchen", "--method", "toy", "--examples", "integration_tea_to_trash__c1", "--seeds", "1"]),
    ],
    render: (work, _quick, kit) => kit.tables(kit.experiment(work, "toy-kitchen")),
  },
];
`,
  "graphs/toy/viewer.ts": `import type { MethodViewer } from "../viewer";

export const toyViewer: MethodViewer = {
  panels: [
    {
      id: "toy-point-panel",
      title: "where to (step {at})",
      values: { point: { latest: "point" } },
      blocks: [{ line: [{ bold: "point: " }, "{point}"] }],
    },
  ],
};
`,
  "graphs/toy/index.ts": `import type { Method } from "../method";
import { TOY_VARIANTS, ToyConfiguration } from "./configuration";
import { TOY_FIGURES } from "./figures";
import { toyViewer } from "./viewer";
import { compileToy } from "./graph";
import { TASKS } from "./reasoner";
import { toyReport } from "./report";
import type { ToyStateType } from "./state";

const runtime = { configuration: ToyConfiguration, reasoner: TASKS };

export const toy: Method = {
  id: "toy",
  graph: "toyGoTo",
  title: "Toy",
  paper: "none: a test's sixth method",
  about: "Toy: drive the kitchen's base to the navigation point the instruction names",
  tool: "run_toy",
  world: "kitchen",
  datasets: ["kitchen"],
  variants: TOY_VARIANTS,
  configuration: ToyConfiguration,
  nodes: ["choose", "go"],
  approvals: false,
  report: toyReport,
  figures: TOY_FIGURES,
  viewer: toyViewer,
  runtime,
  compile: (checkpointer, store) => compileToy(runtime, checkpointer, store),
  input: (goal) => ({ goal }),
  describe: (node, u) => ({ node, text: node === "choose" ? \`point \${(u as Partial<ToyStateType>).point ?? ""}\` : \`\${(u as Partial<ToyStateType>).status ?? ""}: \${(u as Partial<ToyStateType>).statusReason ?? ""}\` }),
  summarize: (state) => ({ steps: (state as Partial<ToyStateType> | undefined)?.steps ?? 0, replans: 0 }),
};

export const graph = toy.compile();
`,
};

let copy: string;
let copyBuild: { dir: string; remove(): void } | undefined;
const children: ChildProcess[] = [];
/**
 * The copy's processes run the copy's own sources: never the suite's precompiled build of the original, but one of
 * the copy's (made in beforeAll), so its many CLI and simulator starts cost what this checkout's do.
 */
const copyEnv: NodeJS.ProcessEnv = { ...process.env, [PRECOMPILED]: "" };

/** Node's arguments to run the copy's CLI: from the copy's build, or `asUser`, under tsx as `npm start` runs it. */
const copyCli = (asUser = false) =>
  copyBuild && !asUser
    ? [join(copyBuild.dir, "cli", "robograph.js")]
    : ["--import", "tsx", join(copy, "cli", "robograph.ts")];

/** The CLI of the copy (`asUser`: under tsx, as `npm start` runs it). */
function robograph(
  args: string[],
  {
    timeout = 240_000,
    env = copyEnv,
    asUser = false,
  }: { timeout?: number; env?: NodeJS.ProcessEnv; asUser?: boolean } = {},
): { code: number; out: string } {
  try {
    const out = execFileSync(process.execPath, [...copyCli(asUser), ...args], {
      cwd: copy,
      encoding: "utf8",
      timeout,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { code: 0, out };
  } catch (err) {
    const failure = err as { status: number; stdout: string; stderr: string };
    return { code: failure.status, out: `${failure.stdout}${failure.stderr}` };
  }
}

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), "robograph-sixth-"));
  // The repository as it stands (its files, not what .gitignore leaves out), with its installed packages.
  const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const f of tracked) {
    if (!existsSync(join(ROOT, f))) continue;
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    cpSync(join(ROOT, f), join(copy, f));
  }
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  // The sixth method: its folder…
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    writeFileSync(join(copy, file), text);
  }
  // …a line in METHODS (and the import it needs)…
  const index = join(copy, "graphs", "index.ts");
  const methods = readFileSync(index, "utf8");
  const listed = methods.replace(
    /export const METHODS: readonly Method\[\] = \[([^\]]*)\];/,
    (_m, list) => `export const METHODS: readonly Method[] = [${list}, toy];`,
  );
  expect(listed).not.toBe(methods);
  writeFileSync(index, `import { toy } from "./toy";\n${listed}`);
  // …and its langgraph.json entry.
  const lg = JSON.parse(readFileSync(join(copy, "langgraph.json"), "utf8"));
  lg.graphs.toyGoTo = "./graphs/toy/index.ts:graph";
  writeFileSync(join(copy, "langgraph.json"), JSON.stringify(lg, null, 2));
  // The copy's programs built by the copy's own robots/programs.ts (which builds only when no build is named).
  const suiteBuild = process.env[PRECOMPILED];
  delete process.env[PRECOMPILED];
  try {
    const programs = (await import(join(copy, "robots", "programs.ts"))) as typeof import("../../robots/programs");
    copyBuild = await programs.precompile();
  } finally {
    if (suiteBuild === undefined) delete process.env[PRECOMPILED];
    else process.env[PRECOMPILED] = suiteBuild;
  }
  copyEnv[PRECOMPILED] = copyBuild.dir;
}, 120_000);

afterAll(() => {
  for (const c of children) c.kill("SIGINT");
  copyBuild?.remove();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("a sixth method: its folder, a line in METHODS, its langgraph.json entry", () => {
  it("type-checks with the rest, and the guard finds no arrow back up and no circle in the copy", () => {
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", copy], {
        cwd: copy,
        encoding: "utf8",
        timeout: 240_000,
      }),
    ).not.toThrow();
    const guard = execFileSync(
      process.execPath,
      [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "test/dependencies.test.ts"],
      { cwd: copy, encoding: "utf8", timeout: 240_000 },
    );
    expect(guard).toMatch(/4 passed/);
  }, 300_000);

  it("runs from the CLI to its record as a user runs it (under tsx): `robograph run --graph toyGoTo`", () => {
    const result = robograph(
      [
        "run",
        "--graph",
        "toyGoTo",
        "--goal",
        "Drive to the sink.",
        "--thread",
        "toy-run",
        "--data-dir",
        join(copy, "data"),
        "--runs-dir",
        join(copy, "runs"),
        "--forget",
      ],
      { asUser: true },
    );
    // The toy reaches the sink, but the kitchen's own task (the scenario's) is not done: the simulator's check says so.
    expect(result.out).toMatch(/point in_front_of_sink/);
    expect(result.out).toMatch(/succeeded: mobile is at in_front_of_sink/);
    const summary = JSON.parse(readFileSync(join(copy, "runs", "toy-run", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ method: "toy", status: "succeeded" });
  }, 300_000);

  it("takes its own setting from its configuration alone: a flag with --help's words, refused for another graph", () => {
    expect(robograph(["run", "--help"]).out).toMatch(
      /--destination S\s+toyGoTo: the navigation point to drive to, whatever the instruction names/,
    );
    const result = robograph([
      "run",
      "--graph",
      "toyGoTo",
      "--goal",
      "Drive to the sink.",
      "--destination",
      "in_front_of_oven",
      "--thread",
      "toy-setting",
      "--data-dir",
      join(copy, "data"),
      "--runs-dir",
      join(copy, "runs"),
      "--forget",
    ]);
    expect(result.out).toMatch(/variant full, destination "in_front_of_oven"/);
    expect(result.out).toMatch(/succeeded: mobile is at in_front_of_oven/);
    const refused = robograph(["run", "--destination", "in_front_of_oven", "--runs-dir", join(copy, "runs")]);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/--destination: closedLoop has no such setting; toyGoTo has it/);
  }, 300_000);

  it("is an MCP tool whose input schema has its setting, run in the server's process on the server's kitchen", async () => {
    // The server on its own kitchen simulator, from the copy's CLI.
    const { client } = await mcpServer([], { root: copy, program: copyCli(), env: { [PRECOMPILED]: copyBuild!.dir } });
    try {
      const tool = (await client.listTools()).tools.find((listed) => listed.name === "run_toy");
      expect(tool?.description).toMatch(/Runs on this server's robots/);
      expect(tool?.inputSchema.properties?.destination).toMatchObject({ type: "string" });
      expect(tool?.inputSchema.properties?.history_window).toBeUndefined();
      const result = (await client.callTool(
        { name: "run_toy", arguments: { goal: "Drive to the sink.", destination: "in_front_of_refrigerator" } },
        undefined,
        { timeout: 240_000 },
      )) as CallToolResult;
      expect(result.structuredContent, JSON.stringify(result.content)).toMatchObject({
        status: "succeeded",
        statusReason: expect.stringMatching(/mobile is at in_front_of_refrigerator/),
      });
      const refused = (await client.callTool({
        name: "run_toy",
        arguments: { history_window: 3 },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/run_toy takes no history_window/);
    } finally {
      await client.close();
    }
  }, 300_000);

  it("is measured by the experiment runner, its report written and checked through its own report module", () => {
    const result = robograph([
      "eval",
      "--dataset",
      "kitchen",
      "--method",
      "toy",
      "--examples",
      "integration_tea_to_trash__c1",
      "--seeds",
      "1",
      "--root",
      join(copy, "exp"),
      "--name",
      "toy-exp",
    ]);
    expect(result.code, result.out).toBe(0);
    expect(result.out).not.toMatch(/the report is written, but/);
    const report = JSON.parse(readFileSync(join(copy, "exp", "toy-exp", "report.json"), "utf8"));
    expect(report).toMatchObject({ method: "toy", variants: ["full"], tasks: ["integration_tea_to_trash"] });
    // Its episode ran (the toy reached the sink), not an error on record.
    expect(report.episodes[0], JSON.stringify(report.episodes[0])).toMatchObject({ status: "succeeded", steps: 1 });
    expect(report.tables.map((t: { id: string }) => t.id)).toEqual([
      "success",
      "time",
      "effort",
      "endings",
      "episodes",
    ]);
  }, 300_000);

  it("is listed by reproduce: the figure its folder declares, with its command", () => {
    const result = robograph(["reproduce", "--list"]);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain(
      "toy-kitchen: Toy on a kitchen row\n  npm run eval -- --dataset kitchen --method toy --examples integration_tea_to_trash__c1 --seeds 1\n",
    );
    expect(robograph(["reproduce", "--help"]).out).toMatch(/--only LIST .*: kitchen, .*toy-kitchen/);
  }, 300_000);

  it("is shown by the viewer: the experiment's charts and facts, the run's timeline and its own panel", async () => {
    const view = spawn(
      process.execPath,
      [...copyCli(), "view", join(copy, "exp", "toy-exp"), "--port", "0", "--runs-dir", copy],
      { cwd: copy, stdio: ["ignore", "pipe", "pipe"], env: copyEnv },
    );
    children.push(view);
    const url = await new Promise<string>((resolve, reject) => {
      let said = "";
      view.stdout.on("data", (chunk) => {
        said += chunk;
        const match = /robograph view: (http:\/\/127\.0\.0\.1:\d+)/.exec(said);
        if (match) resolve(match[1]);
      });
      view.stderr.on("data", (d) => (said += d));
      view.on("exit", () => reject(new Error(`the viewer ended: ${said}`)));
    });
    const exp = (await (await fetch(`${url}/api/experiment/exp/toy-exp`)).json()) as {
      error?: string;
      reportError?: string | null;
      charts?: { id: string }[];
      facts?: string[];
    };
    expect(exp.reportError ?? null).toBeNull();
    expect(exp.charts?.map((c) => c.id)).toEqual(["chart-success", "chart-tasks", "chart-time"]);
    expect(exp.facts?.[0]).toBe("Toy");
    const run = (await (await fetch(`${url}/api/run/runs/toy-run`)).json()) as {
      steps?: { node: string; text: string }[];
      panels?: { id?: string }[];
    };
    expect(run.steps?.map((s) => s.node)).toEqual(["choose", "go"]);
    expect(run.panels?.map((p) => p.id)).toEqual(["toy-point-panel"]);
    if (!withBrowser) return;
    // The page draws the toy's panel from its declaration: the point the choose step wrote, from that step on.
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const page = await browser.newPage();
      await page.goto(`${url}/run/runs/toy-run`);
      await page.waitForSelector("#step-label");
      expect(await page.locator("#toy-point-panel").textContent()).toBe("where to (step 1)point: in_front_of_sink");
      await page.keyboard.press("End");
      expect(await page.locator("#step-label").textContent()).toBe("step 2 / 2");
      expect(await page.locator("#toy-point-panel h3").textContent()).toBe("where to (step 1)");
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe.skipIf(!postgresBin())("a sixth method's experiment as jobs on Postgres", () => {
  let db: Postgres | undefined;
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await db?.stop();
  });
  it("is queued with its own setting, taken by a worker, and reported with it", async () => {
    db = await startPostgres();
    const env = { ...copyEnv, ROBOGRAPH_DATABASE_URL: db.url };
    const worker = spawn(
      process.execPath,
      [...copyCli(), "worker", "--concurrency", "1", "--poll", "0.5", "--work-dir", join(copy, "work")],
      { cwd: copy, stdio: "ignore", env },
    );
    children.push(worker);
    const result = robograph(
      [
        "eval",
        "--dataset",
        "kitchen",
        "--method",
        "toy",
        "--destination",
        "in_front_of_oven",
        "--examples",
        "integration_tea_to_trash__c1",
        "--seeds",
        "1",
        "--root",
        join(copy, "exp"),
        "--name",
        "toy-queued",
        "--queue",
      ],
      { timeout: 300_000, env },
    );
    expect(result.code, result.out).toBe(0);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ settings: Record<string, unknown> }>(
        "SELECT settings FROM robograph.experiments WHERE name = 'toy-queued'",
      );
      expect(rows[0]?.settings).toMatchObject({ destination: "in_front_of_oven" });
    } finally {
      await client.end();
    }
    const report = JSON.parse(readFileSync(join(copy, "exp", "toy-queued", "report.json"), "utf8"));
    expect(report.episodes).toHaveLength(1);
    expect(report.episodes[0], JSON.stringify(report.episodes[0])).toMatchObject({
      status: "succeeded",
      settings: { destination: "in_front_of_oven" },
    });
    // Stopped as a service manager stops it (SIGTERM), with nothing running, the worker takes its simulators with it:
    // only a worker killed outright leaves them, for another to re-attach to within its lease.
    const sims = descendants(worker.pid!).filter(({ argv }) =>
      argv.some((arg) => /robots\/sim\/main\.[jt]s$/.test(arg)),
    );
    expect(sims.length, "the worker's pooled simulator").toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect.poll(() => sims.filter(({ pid }) => alive(pid)), { timeout: 15_000 }).toEqual([]);
  }, 400_000);
});
