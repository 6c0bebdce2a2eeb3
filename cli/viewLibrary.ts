/**
 * What `robograph view` shows, read from the records runs and experiments leave (events.jsonl, summary.json, frames/
 * with the detector's message beside each frame, result.json, report.json) and from a thread's checkpoint history:
 * runs, experiments and the index of them as the page draws them. A record cut short (a killed run: no summary, a
 * half-written last line) opens with what is there. ./viewServer.ts serves it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { METHODS, method, methodOfNodes, type MethodId } from "../graphs";
import { parseReport } from "../evals/reportFiles";
import { legacyReport, reportCharts, reportFacts, slimReport } from "./viewReports";

/** One box the detector reported, in the pixels of the frame it was found in. */
interface Box {
  label: string;
  score?: number;
  box: { x: number; y: number; w: number; h: number };
  note?: string;
}

interface FrameView {
  camera: string;
  /** Step (1-based line of events.jsonl) the frame was taken at. */
  n: number;
  ref: string | null;
  src: string | null;
  /** Size of the detector's image (boxes are in its pixels); null: the frame's own size. */
  width: number | null;
  height: number | null;
  /** null: the record keeps no detections for this frame (older runs, experiment episodes of CLEA/RePLan). */
  boxes: Box[] | null;
  caption?: string;
}

interface StepView {
  n: number;
  t: number | null;
  node: string;
  text: string;
  usage: { calls: number; inputTokens: number; outputTokens: number };
  update: Record<string, unknown>;
  frames: FrameView[];
}

/** A run as the page draws it. */
export interface RunView {
  kind: "run";
  rel: string;
  id: string;
  /** The method that wrote it (graphs/index.ts), or null when the record does not show it. */
  mode: MethodId | null;
  goal: string | null;
  summary: Record<string, unknown> | null;
  /** An experiment episode's result.json. */
  result: Record<string, unknown> | null;
  experiment: string | null;
  notes: string[];
  steps: StepView[];
  cameras: string[];
  checkpoints:
    { step: number; source: string; next: string[]; status: string | null; id: string; at: string | null }[] | null;
  /** The world's log of each motion's end with its terms' residuals (world-events.json, from `robograph run`). */
  worldEvents: { kind: string; detail: string }[] | null;
  /** The last checkpoint's status and reason, for a run that wrote no summary. */
  lastCheckpoint: { status: string | null; statusReason: string | null } | null;
  /** The page of the run's own report (a curriculum run's report.json), or null. */
  reportPage: string | null;
}

/** Reads a JSON file, or null when it is missing or unreadable (a record cut short). */
function readJson<T = Record<string, unknown>>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return null;
  }
}

/** events.jsonl, keeping every whole line; a line cut short (the process killed mid-write) is noted and left out. */
export function readEvents(file: string): {
  events: { t: number | null; node: string; update: Record<string, unknown> }[];
  notes: string[];
} {
  const notes: string[] = [];
  if (!existsSync(file)) return { events: [], notes: ["no events.jsonl: the run recorded no step"] };
  const lines = readFileSync(file, "utf8").split("\n");
  const events: { t: number | null; node: string; update: Record<string, unknown> }[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const e = JSON.parse(line) as { t?: number; node?: string; update?: Record<string, unknown> };
      if (typeof e.node !== "string") throw new Error("no node");
      events.push({ t: typeof e.t === "number" ? e.t : null, node: e.node, update: e.update ?? {} });
    } catch {
      notes.push(
        `events.jsonl line ${i + 1} is ${i === lines.length - 1 ? "cut short (the run was stopped while writing it)" : "not a node update"}: left out`,
      );
    }
  });
  return { events, notes };
}

/**
 * Which method wrote a record: the one its summary names, else the one whose graph has every node the record holds
 * (an experiment's episode, a run killed before its summary).
 */
/**
 * A report's method as the page names it: its id, its title, what a report of it is (a campaign's is a run, with a
 * timeline of its own at the same place; the others' are experiments).
 */
function named(id: string | null): {
  method: string | null;
  methodTitle: string | null;
  what: string;
  timeline: boolean;
} {
  const m = METHODS.find((x) => x.id === id);
  if (!m) return { method: id, methodTitle: id, what: "Experiment", timeline: false };
  return {
    method: m.id,
    methodTitle: m.title,
    what: m.kind === "campaign" ? `${m.title} run` : m.report.experiment ? "Experiment" : `${m.title} experiment`,
    timeline: m.kind === "campaign",
  };
}

export function methodOfRecord(summary: Record<string, unknown> | null, nodes: string[]): MethodId | null {
  const named = METHODS.find((m) => m.id === summary?.method);
  if (named) return named.id;
  return methodOfNodes(nodes)?.id ?? null;
}

function lineText(mode: MethodId | null, node: string, u: Record<string, unknown>): string {
  try {
    return mode ? method(mode).describe(node, u).text : "";
  } catch {
    return "";
  }
}

function stepUsage(u: Record<string, unknown>) {
  const out = { calls: 0, inputTokens: 0, outputTokens: 0 };
  for (const r of Object.values(
    (u.usage ?? {}) as Record<string, { calls?: number; inputTokens?: number; outputTokens?: number }>,
  )) {
    out.calls += r.calls ?? 0;
    out.inputTokens += r.inputTokens ?? 0;
    out.outputTokens += r.outputTokens ?? 0;
  }
  return out;
}

const pad = (n: number, w = 3) => String(n).padStart(w, "0");
const hexOf = (ref: string) => /^sha256:([0-9a-f]{64})\.(\w+)$/.exec(ref);

/** Run records, experiments and the data folders their frames are in. */
export class Library {
  constructor(
    readonly root: string,
    readonly dataDir: string,
  ) {}

  /** The folder of a route's relative path, refusing anything outside the root. */
  dir(rel: string): string {
    const d = resolve(this.root, rel);
    if (d !== this.root && !d.startsWith(this.root + sep)) throw new HttpError(400, `${rel} is outside ${this.root}`);
    return d;
  }

  /** Where a run's artifacts are: an experiment's episode uses the experiment's data/, a plain run the data dir. */
  artifactDirs(rel: string): string[] {
    const d = this.dir(rel);
    const dirs: string[] = [];
    if (basename(dirname(d)) === "episodes") dirs.push(join(dirname(dirname(d)), "data", "artifacts"));
    dirs.push(join(this.dataDir, "artifacts"));
    return dirs.filter((x) => existsSync(x));
  }

  artifactFile(rel: string, ref: string): string | null {
    const m = hexOf(ref);
    if (!m) return null;
    for (const d of this.artifactDirs(rel)) {
      const f = join(d, `${m[1]}.${m[2]}`);
      if (existsSync(f)) return f;
    }
    return null;
  }

  index() {
    const list = (d: string) =>
      existsSync(d)
        ? readdirSync(d, { withFileTypes: true })
            .filter((x) => x.isDirectory())
            .map((x) => x.name)
        : [];
    const runs = list(this.root)
      .filter((n) => existsSync(join(this.root, n, "events.jsonl")) || existsSync(join(this.root, n, "summary.json")))
      .map((n) => {
        const s = readJson(join(this.root, n, "summary.json"));
        return {
          rel: n,
          id: n,
          status: (s?.status as string) ?? "incomplete",
          success: (s?.success as boolean) ?? null,
          scenario: (s?.scenario as string) ?? null,
          at: statSync(join(this.root, n)).mtimeMs,
        };
      })
      .sort((a, b) => b.at - a.at);
    const exRoot = join(this.root, "experiments");
    const methodOf = (dir: string) => {
      const m = readJson<{ method?: unknown }>(join(dir, "report.json"))?.method;
      return typeof m === "string" ? m : null;
    };
    const experiments = [
      ...list(exRoot)
        .filter((n) =>
          ["report.json", "episodes", "report.md", "results.json"].some((f) => existsSync(join(exRoot, n, f))),
        )
        .map((n) => ({
          rel: `experiments/${n}`,
          name: n,
          hasReport: existsSync(join(exRoot, n, "report.json")),
          ...named(methodOf(join(exRoot, n))),
        })),
      // A run with a report of its own (a curriculum run: a campaign of episodes) is listed with the experiments too.
      ...runs.flatMap((r) => {
        const method = methodOf(join(this.root, r.rel));
        return method ? [{ rel: r.rel, name: r.id, hasReport: true, ...named(method) }] : [];
      }),
    ];
    return { root: this.root, runs, experiments };
  }

  run(rel: string): RunView {
    const d = this.dir(rel);
    if (!existsSync(d)) throw new HttpError(404, `no run record at ${d}`);
    const { events, notes } = readEvents(join(d, "events.jsonl"));
    const summary = readJson(join(d, "summary.json"));
    const result = readJson(join(d, "result.json"));
    const inExperiment = basename(dirname(d)) === "episodes";
    if (!summary && !result)
      notes.push(
        `no ${inExperiment ? "result.json" : "summary.json"}: the run did not finish (stopped or killed); what it recorded is shown`,
      );
    const mode = methodOfRecord(
      summary,
      events.map((e) => e.node),
    );
    const steps: StepView[] = events.map((e, i) => {
      const n = i + 1;
      return {
        n,
        t: e.t,
        node: e.node,
        text: lineText(mode, e.node, e.update),
        usage: stepUsage(e.update),
        update: e.update,
        frames: this.framesOf(rel, d, n, e.node, e.update),
      };
    });
    const cameras = [...new Set(steps.flatMap((s) => s.frames.map((f) => f.camera)))];
    const experimentDir = inExperiment ? dirname(dirname(d)) : null;
    const experimentGoal =
      experimentDir && result ? this.goalOfExample(experimentDir, String(result.example ?? "")) : null;
    const goal =
      (events.find((e) => typeof e.update.goal === "string")?.update.goal as string | undefined) ??
      experimentGoal ??
      this.goalFromReport(d);
    return {
      kind: "run",
      rel,
      id: basename(d),
      mode,
      goal,
      summary,
      result,
      experiment: experimentDir ? relative(this.root, experimentDir) : null,
      notes,
      steps,
      cameras,
      worldEvents:
        readJson<{ kind: string; detail?: string }[]>(join(d, "world-events.json"))?.flatMap((e) =>
          /^motion \d+ ended: /.test(e.detail ?? "") ? [{ kind: e.kind, detail: e.detail! }] : [],
        ) ?? null,
      checkpoints: null,
      lastCheckpoint: null,
      reportPage: existsSync(join(d, "report.json")) ? `/experiment/${encodePath(rel)}` : null,
    };
  }

  /** The goal of a run: report.md's header line (the graph's input is not an update). */
  private goalFromReport(d: string): string | null {
    try {
      return /^- goal: (.*)$/m.exec(readFileSync(join(d, "report.md"), "utf8"))?.[1] ?? null;
    } catch {
      return null;
    }
  }

  private goalOfExample(experimentDir: string, example: string): string | null {
    const settings = readJson<{ dataset?: string }>(join(experimentDir, "experiment.json"));
    if (!settings?.dataset) return null;
    for (const file of [settings.dataset, join("evals", "datasets", `${settings.dataset}.jsonl`)]) {
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line.trim()) continue;
        try {
          const row = JSON.parse(line) as {
            id?: string;
            inputs?: { goal?: string };
            metadata?: { task?: string; condition?: string };
          };
          const id = row.id ?? `${row.metadata?.task}__${row.metadata?.condition}`;
          if (id === example && row.inputs?.goal) return row.inputs.goal;
        } catch {
          // not a row
        }
      }
    }
    return null;
  }

  /** The frames a step took, each with its detections where the record has them. */
  private framesOf(rel: string, d: string, n: number, node: string, u: Record<string, unknown>): FrameView[] {
    const out: FrameView[] = [];
    const src = (ref: string | null, file: string | null) => {
      if (file && existsSync(join(d, file))) return `/file/${encodePath(rel)}/${file}`;
      if (ref && this.artifactFile(rel, ref)) return `/artifact/${encodePath(rel)}/${ref}`;
      return null;
    };
    const sidecar = (file: string) => {
      const j = readJson<{ detections?: { width?: number; height?: number; detections?: Box[] } }>(
        join(d, file.replace(/\.png$/, ".json")),
      );
      return j?.detections
        ? {
            width: j.detections.width ?? null,
            height: j.detections.height ?? null,
            boxes: (j.detections.detections ?? []).map(placed),
          }
        : null;
    };
    if (node === "perceiver" && u.observations) {
      for (const o of Object.values(
        u.observations as Record<string, { robot: string; image: string; summary?: string }>,
      )) {
        const file = `frames/${pad(n)}-${o.robot}.png`;
        const det = sidecar(file);
        out.push({
          camera: o.robot,
          n,
          ref: o.image,
          src: src(o.image, file),
          width: det?.width ?? null,
          height: det?.height ?? null,
          boxes: det?.boxes ?? null,
          caption: o.summary,
        });
      }
    }
    // RePLan's looks: the palm camera's frame each was made from.
    if (typeof u.frame === "string") {
      const file = `frames/${pad(n)}-${node}.png`;
      const det = sidecar(file);
      out.push({
        camera: "palm camera",
        n,
        ref: u.frame,
        src: src(u.frame, file),
        width: det?.width ?? null,
        height: det?.height ?? null,
        boxes: det?.boxes ?? null,
      });
    }
    const sight = u.sight as
      { frame: string; detections: (Box & { distance?: number; bearing?: number })[] } | null | undefined;
    if (node === "look" && sight?.frame) {
      const file = `frames/${pad(n)}-head.png`;
      const boxes = sight.detections.map((x) => ({
        label: x.label,
        score: x.score,
        box: x.box,
        note: x.distance !== undefined ? `${x.distance.toFixed(1)} m` : undefined,
      }));
      out.push({ camera: "head", n, ref: sight.frame, src: src(sight.frame, file), width: null, height: null, boxes });
    }
    // The behaviour critic's rollouts: their key frames with the detections recorded with them.
    if (node === "executor" && u.attempts) {
      const a = (Array.isArray(u.attempts) ? u.attempts[0] : u.attempts) as
        { iteration?: number; rollout?: string } | undefined;
      const file = a?.rollout ? this.artifactFile(rel, a.rollout) : null;
      const r = file
        ? readJson<{
            frames: {
              t: number;
              image: string;
              detections?: { width?: number; height?: number; detections?: Box[] };
            }[];
          }>(file)
        : null;
      r?.frames.forEach((f, k) => {
        const copy = `frames/${pad(a!.iteration ?? 0, 2)}-${pad(k, 2)}.png`;
        out.push({
          camera: `rollout ${a!.iteration ?? ""}`.trim(),
          n,
          ref: f.image.startsWith("sha256:") ? f.image : null,
          src: src(f.image.startsWith("sha256:") ? f.image : null, copy),
          width: f.detections?.width ?? null,
          height: f.detections?.height ?? null,
          boxes: f.detections?.detections?.map(placed) ?? null,
          caption: `${f.t.toFixed(1)} s`,
        });
      });
    }
    return out;
  }

  /** The thread's checkpoint history from the SQLite checkpointer, when the data directory has the thread. */
  async checkpoints(view: RunView): Promise<void> {
    const file = join(this.dataDir, "checkpoints.sqlite");
    if (!view.mode || view.experiment || !existsSync(file)) return;
    const [{ default: Database }, { SqliteSaver }] = await Promise.all([
      import("better-sqlite3"),
      import("@langchain/langgraph-checkpoint-sqlite"),
    ]);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='checkpoints'").get();
      if (!has || !db.prepare("SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1").get(view.id)) return;
      // Read-only: the saver's setup finds its tables there and creates nothing.
      const saver = new SqliteSaver(db);
      const graph = method(view.mode).compile(saver);
      const out: NonNullable<RunView["checkpoints"]> = [];
      for await (const s of graph.getStateHistory({ configurable: { thread_id: view.id } })) {
        const values = s.values as { status?: string; statusReason?: string; goal?: string };
        if (!out.length)
          view.lastCheckpoint = { status: values.status ?? null, statusReason: values.statusReason ?? null };
        // A run killed before it wrote its report still has its goal in every checkpoint.
        if (!view.goal && typeof values.goal === "string") view.goal = values.goal;
        const meta = (s.metadata ?? {}) as { step?: number; source?: string };
        out.push({
          step: meta.step ?? -1,
          source: meta.source ?? "",
          next: [...s.next],
          status: values.status ?? null,
          id: String(s.config.configurable?.checkpoint_id ?? ""),
          at: s.createdAt ?? null,
        });
        if (out.length >= 2000) break;
      }
      view.checkpoints = out.reverse();
    } finally {
      db.close();
    }
  }

  /**
   * An experiment's page: its report.json read against its method's schema (graphs/<id>/report.ts) — the method's tables,
   * charts and facts — or, when report.json is missing or fails its schema, a note saying so and report.md as written.
   * Runner experiments (kitchen, tabletop, course) also list their episodes, each linked to its record.
   */
  experiment(rel: string) {
    const d = this.dir(rel);
    if (!existsSync(d)) throw new HttpError(404, `no experiment at ${d}`);
    const notes: string[] = [];
    // A record from before the report contract is read in the contract's shape, its tables from its report.md.
    const legacy = legacyReport(d);
    if (legacy)
      notes.push(
        `written before the report contract (${String(legacy.format)}): its tables are read from its report.md`,
      );
    const raw = legacy ?? (existsSync(join(d, "report.json")) ? readJson(join(d, "report.json")) : null);
    const parsed = raw ? parseReport(raw) : null;
    const report = parsed?.ok ? parsed.report : null;
    const reportError =
      !raw && !existsSync(join(d, "report.json"))
        ? null
        : !raw
          ? "report.json is not readable JSON (cut short, or still being written)"
          : parsed && !parsed.ok
            ? parsed.error
            : null;
    const md = existsSync(join(d, "report.md")) ? readFileSync(join(d, "report.md"), "utf8") : null;
    const settings = readJson(join(d, "experiment.json"));
    const runner = !report || !!METHODS.find((m) => m.id === report.method)?.report.experiment;
    const epDir = join(d, "episodes");
    const fromReport = new Map(
      (report && "episodes" in report && runner ? (report.episodes as { id: string }[]) : []).map((e) => [
        e.id,
        e as unknown as Record<string, unknown>,
      ]),
    );
    // A curriculum run's episodes/ is its simulators' episode store, not run records.
    const ids =
      runner && existsSync(epDir)
        ? readdirSync(epDir, { withFileTypes: true })
            .filter((x) => x.isDirectory())
            .map((x) => x.name)
        : [];
    for (const id of fromReport.keys()) if (!ids.includes(id)) ids.push(id);
    const episodes = ids.sort().map((id) => {
      const r = (fromReport.get(id) ?? readJson(join(epDir, id, "result.json")) ?? { id }) as Record<string, unknown>;
      const recorded = existsSync(join(epDir, id, "events.jsonl"));
      return {
        ...r,
        id,
        recorded,
        href: recorded ? `/run/${encodePath(relative(this.root, join(epDir, id)))}` : null,
        scores: undefined,
        settings: undefined,
      };
    });
    if (!raw && !reportError)
      notes.push(
        md
          ? "no report.json: its report.md is shown as written"
          : "no report.json: the experiment has not finished its first report; its episodes are listed",
      );
    if (reportError && md) notes.push("its report.md is shown as written");
    return {
      kind: "experiment",
      rel,
      name: basename(d),
      ...named(report?.method ?? null),
      report: report ? slimReport(report) : null,
      reportError,
      facts: report ? reportFacts(report) : [],
      charts: report ? reportCharts(report) : [],
      // The tables come from report.json; report.md only stands in when there is no valid report.json.
      markdown: report ? null : md,
      settings,
      episodes,
      runner,
      notes,
    };
  }
}

const placed = (x: Box & { location?: { relation: string; place: string }; color?: string }): Box => ({
  label: x.label,
  score: x.score,
  box: x.box,
  note: x.location ? `${x.location.relation} ${x.location.place}` : undefined,
});

export const encodePath = (p: string) => p.split(sep).map(encodeURIComponent).join("/");

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One GIF of a camera's frames in the order the run took them. */
