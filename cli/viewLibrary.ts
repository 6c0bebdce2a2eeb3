/**
 * What `robograph view` shows, read from the records runs and experiments leave (events.jsonl, summary.json, frames/
 * with the detector's message beside each frame, result.json, report.json) and from a thread's checkpoint history:
 * runs, experiments and the index of them as the page draws them. A record cut short (a killed run: no summary, a
 * half-written last line) opens with what is there. ./viewServer.ts serves it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { METHODS, method, methodOfNodes, type MethodId } from "../graphs";
import type { StepMark, ViewerPanel } from "../graphs/viewer";
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
  /** What the method adds to the update for its panels (graphs/viewer.ts `fields`). */
  fields: Record<string, unknown>;
  /** Its mark on the timeline, where the method gives one. */
  mark: StepMark | null;
  frames: FrameView[];
}

/** A run as the page draws it. */
export interface RunView {
  kind: "run";
  rel: string;
  id: string;
  /** The method that wrote it (graphs/index.ts), or null when the record does not show it. */
  mode: MethodId | null;
  /** The panels its method declares (graphs/<id>/viewer.ts): what the page folds from the steps and how it lays them out. */
  panels: readonly ViewerPanel[];
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
      const entry = JSON.parse(line) as { t?: number; node?: string; update?: Record<string, unknown> };
      if (typeof entry.node !== "string") throw new Error("no node");
      events.push({ t: typeof entry.t === "number" ? entry.t : null, node: entry.node, update: entry.update ?? {} });
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
  const methodEntry = METHODS.find((x) => x.id === id);
  if (!methodEntry) return { method: id, methodTitle: id, what: "Experiment", timeline: false };
  return {
    method: methodEntry.id,
    methodTitle: methodEntry.title,
    what: methodEntry.campaign
      ? `${methodEntry.title} run`
      : methodEntry.report.experiment
        ? "Experiment"
        : `${methodEntry.title} experiment`,
    timeline: !!methodEntry.campaign,
  };
}

export function methodOfRecord(summary: Record<string, unknown> | null, nodes: string[]): MethodId | null {
  const named = METHODS.find((m) => m.id === summary?.method);
  if (named) return named.id;
  return methodOfNodes(nodes)?.id ?? null;
}

function lineText(mode: MethodId | null, node: string, update: Record<string, unknown>): string {
  try {
    return mode ? method(mode).describe(node, update).text : "";
  } catch {
    return "";
  }
}

/** What a method's viewer adds to each step and how it marks it; a record it cannot read is shown without them. */
function viewed(
  mode: MethodId | null,
  steps: { n: number; node: string; update: Record<string, unknown> }[],
  worldEvents: { detail: string }[] | null,
  notes: string[],
): { fields: Record<string, unknown>[]; marks: (StepMark | null)[] } {
  const viewer = mode ? method(mode).viewer : undefined;
  try {
    return {
      fields: viewer?.fields?.(steps, worldEvents) ?? [],
      marks: steps.map((s) => viewer?.mark?.(s.node, s.update) ?? null),
    };
  } catch (err) {
    notes.push(`the ${mode} panels could not read this record: ${(err as Error).message}`);
    return { fields: [], marks: [] };
  }
}

function stepUsage(update: Record<string, unknown>) {
  const out = { calls: 0, inputTokens: 0, outputTokens: 0 };
  for (const r of Object.values(
    (update.usage ?? {}) as Record<string, { calls?: number; inputTokens?: number; outputTokens?: number }>,
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
    const folder = resolve(this.root, rel);
    if (folder !== this.root && !folder.startsWith(this.root + sep))
      throw new HttpError(400, `${rel} is outside ${this.root}`);
    return folder;
  }

  /** Where a run's artifacts are: an experiment's episode uses the experiment's data/, a plain run the data dir. */
  artifactDirs(rel: string): string[] {
    const folder = this.dir(rel);
    const dirs: string[] = [];
    if (basename(dirname(folder)) === "episodes") dirs.push(join(dirname(dirname(folder)), "data", "artifacts"));
    dirs.push(join(this.dataDir, "artifacts"));
    return dirs.filter((x) => existsSync(x));
  }

  artifactFile(rel: string, ref: string): string | null {
    const parts = hexOf(ref);
    if (!parts) return null;
    for (const d of this.artifactDirs(rel)) {
      const file = join(d, `${parts[1]}.${parts[2]}`);
      if (existsSync(file)) return file;
    }
    return null;
  }

  index() {
    const list = (folder: string) =>
      existsSync(folder)
        ? readdirSync(folder, { withFileTypes: true })
            .filter((x) => x.isDirectory())
            .map((x) => x.name)
        : [];
    const runs = list(this.root)
      .filter((n) => existsSync(join(this.root, n, "events.jsonl")) || existsSync(join(this.root, n, "summary.json")))
      .map((name) => {
        const summary = readJson(join(this.root, name, "summary.json"));
        return {
          rel: name,
          id: name,
          status: (summary?.status as string) ?? "incomplete",
          success: (summary?.success as boolean) ?? null,
          scenario: (summary?.scenario as string) ?? null,
          at: statSync(join(this.root, name)).mtimeMs,
        };
      })
      .sort((a, b) => b.at - a.at);
    const exRoot = join(this.root, "experiments");
    const methodOf = (dir: string) => {
      const methodId = readJson<{ method?: unknown }>(join(dir, "report.json"))?.method;
      return typeof methodId === "string" ? methodId : null;
    };
    const experiments = [
      ...list(exRoot)
        .filter((name) =>
          ["report.json", "episodes", "report.md", "results.json"].some((f) => existsSync(join(exRoot, name, f))),
        )
        .map((name) => ({
          rel: `experiments/${name}`,
          name,
          hasReport: existsSync(join(exRoot, name, "report.json")),
          ...named(methodOf(join(exRoot, name))),
        })),
      // A run with a report of its own (a curriculum run: a campaign of episodes) is listed with the experiments too.
      ...runs.flatMap((run) => {
        const method = methodOf(join(this.root, run.rel));
        return method ? [{ rel: run.rel, name: run.id, hasReport: true, ...named(method) }] : [];
      }),
    ];
    return { root: this.root, runs, experiments };
  }

  run(rel: string): RunView {
    const folder = this.dir(rel);
    if (!existsSync(folder)) throw new HttpError(404, `no run record at ${folder}`);
    const { events, notes } = readEvents(join(folder, "events.jsonl"));
    const summary = readJson(join(folder, "summary.json"));
    const result = readJson(join(folder, "result.json"));
    const inExperiment = basename(dirname(folder)) === "episodes";
    if (!summary && !result)
      notes.push(
        `no ${inExperiment ? "result.json" : "summary.json"}: the run did not finish (stopped or killed); what it recorded is shown`,
      );
    const mode = methodOfRecord(
      summary,
      events.map((e) => e.node),
    );
    const worldEvents =
      readJson<{ kind: string; detail?: string }[]>(join(folder, "world-events.json"))?.flatMap((event) =>
        /^motion \d+ ended: /.test(event.detail ?? "") ? [{ kind: event.kind, detail: event.detail! }] : [],
      ) ?? null;
    const { fields, marks } = viewed(
      mode,
      events.map((event, i) => ({ n: i + 1, node: event.node, update: event.update })),
      worldEvents,
      notes,
    );
    const steps: StepView[] = events.map((event, i) => {
      const stepNumber = i + 1;
      return {
        n: stepNumber,
        t: event.t,
        node: event.node,
        text: lineText(mode, event.node, event.update),
        usage: stepUsage(event.update),
        update: event.update,
        fields: fields[i] ?? {},
        mark: marks[i] ?? null,
        frames: this.framesOf(rel, folder, stepNumber, event.node, event.update),
      };
    });
    const cameras = [...new Set(steps.flatMap((s) => s.frames.map((f) => f.camera)))];
    const experimentDir = inExperiment ? dirname(dirname(folder)) : null;
    const experimentGoal =
      experimentDir && result ? this.goalOfExample(experimentDir, String(result.example ?? "")) : null;
    const goal =
      (events.find((e) => typeof e.update.goal === "string")?.update.goal as string | undefined) ??
      experimentGoal ??
      this.goalFromReport(folder);
    return {
      kind: "run",
      rel,
      id: basename(folder),
      mode,
      panels: (mode && method(mode).viewer?.panels) || [],
      goal,
      summary,
      result,
      experiment: experimentDir ? relative(this.root, experimentDir) : null,
      notes,
      steps,
      cameras,
      worldEvents,
      checkpoints: null,
      lastCheckpoint: null,
      reportPage: existsSync(join(folder, "report.json")) ? `/experiment/${encodePath(rel)}` : null,
    };
  }

  /** The goal of a run: report.md's header line (the graph's input is not an update). */
  private goalFromReport(folder: string): string | null {
    try {
      return /^- goal: (.*)$/m.exec(readFileSync(join(folder, "report.md"), "utf8"))?.[1] ?? null;
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
  private framesOf(
    rel: string,
    folder: string,
    stepNumber: number,
    node: string,
    update: Record<string, unknown>,
  ): FrameView[] {
    const out: FrameView[] = [];
    const src = (ref: string | null, file: string | null) => {
      if (file && existsSync(join(folder, file))) return `/file/${encodePath(rel)}/${file}`;
      if (ref && this.artifactFile(rel, ref)) return `/artifact/${encodePath(rel)}/${ref}`;
      return null;
    };
    const sidecar = (file: string) => {
      const j = readJson<{ detections?: { width?: number; height?: number; detections?: Box[] } }>(
        join(folder, file.replace(/\.png$/, ".json")),
      );
      return j?.detections
        ? {
            width: j.detections.width ?? null,
            height: j.detections.height ?? null,
            boxes: (j.detections.detections ?? []).map(placed),
          }
        : null;
    };
    if (node === "perceiver" && update.observations) {
      for (const o of Object.values(
        update.observations as Record<string, { robot: string; image: string; summary?: string }>,
      )) {
        const file = `frames/${pad(stepNumber)}-${o.robot}.png`;
        const det = sidecar(file);
        out.push({
          camera: o.robot,
          n: stepNumber,
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
    if (typeof update.frame === "string") {
      const file = `frames/${pad(stepNumber)}-${node}.png`;
      const det = sidecar(file);
      out.push({
        camera: "palm camera",
        n: stepNumber,
        ref: update.frame,
        src: src(update.frame, file),
        width: det?.width ?? null,
        height: det?.height ?? null,
        boxes: det?.boxes ?? null,
      });
    }
    const sight = update.sight as
      { frame: string; detections: (Box & { distance?: number; bearing?: number })[] } | null | undefined;
    if (node === "look" && sight?.frame) {
      const file = `frames/${pad(stepNumber)}-head.png`;
      const boxes = sight.detections.map((x) => ({
        label: x.label,
        score: x.score,
        box: x.box,
        note: x.distance !== undefined ? `${x.distance.toFixed(1)} m` : undefined,
      }));
      out.push({
        camera: "head",
        n: stepNumber,
        ref: sight.frame,
        src: src(sight.frame, file),
        width: null,
        height: null,
        boxes,
      });
    }
    // The behaviour critic's rollouts: their key frames with the detections recorded with them.
    if (node === "executor" && update.attempts) {
      const attempt = (Array.isArray(update.attempts) ? update.attempts[0] : update.attempts) as
        { iteration?: number; rollout?: string } | undefined;
      const file = attempt?.rollout ? this.artifactFile(rel, attempt.rollout) : null;
      const rollout = file
        ? readJson<{
            frames: {
              t: number;
              image: string;
              detections?: { width?: number; height?: number; detections?: Box[] };
            }[];
          }>(file)
        : null;
      rollout?.frames.forEach((frame, k) => {
        const copy = `frames/${pad(attempt!.iteration ?? 0, 2)}-${pad(k, 2)}.png`;
        out.push({
          camera: `rollout ${attempt!.iteration ?? ""}`.trim(),
          n: stepNumber,
          ref: frame.image.startsWith("sha256:") ? frame.image : null,
          src: src(frame.image.startsWith("sha256:") ? frame.image : null, copy),
          width: frame.detections?.width ?? null,
          height: frame.detections?.height ?? null,
          boxes: frame.detections?.detections?.map(placed) ?? null,
          caption: `${frame.t.toFixed(1)} s`,
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
    const folder = this.dir(rel);
    if (!existsSync(folder)) throw new HttpError(404, `no experiment at ${folder}`);
    const notes: string[] = [];
    // A record from before the report contract is read in the contract's shape, its tables from its report.md.
    const legacy = legacyReport(folder);
    if (legacy)
      notes.push(
        `written before the report contract (${String(legacy.format)}): its tables are read from its report.md`,
      );
    const raw = legacy ?? (existsSync(join(folder, "report.json")) ? readJson(join(folder, "report.json")) : null);
    const parsed = raw ? parseReport(raw) : null;
    const report = parsed?.ok ? parsed.report : null;
    const reportError =
      !raw && !existsSync(join(folder, "report.json"))
        ? null
        : !raw
          ? "report.json is not readable JSON (cut short, or still being written)"
          : parsed && !parsed.ok
            ? parsed.error
            : null;
    const md = existsSync(join(folder, "report.md")) ? readFileSync(join(folder, "report.md"), "utf8") : null;
    const settings = readJson(join(folder, "experiment.json"));
    const runner = !report || !!METHODS.find((m) => m.id === report.method)?.report.experiment;
    const epDir = join(folder, "episodes");
    const fromReport = new Map(
      (report && "episodes" in report && runner ? (report.episodes as { id: string }[]) : []).map((episode) => [
        episode.id,
        episode as unknown as Record<string, unknown>,
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
      const record = (fromReport.get(id) ?? readJson(join(epDir, id, "result.json")) ?? { id }) as Record<
        string,
        unknown
      >;
      const recorded = existsSync(join(epDir, id, "events.jsonl"));
      return {
        ...record,
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
      name: basename(folder),
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
