/**
 * `robograph view` (npm run view): a local page, served on loopback, for looking at a run or an experiment.
 *
 * A run's page is built from the record `robograph run` and the experiment runner leave — events.jsonl (one node update a
 * line), summary.json, frames/ (with the detector's message beside each frame), the episode's result.json — and from the
 * thread's LangGraph checkpoint history where the data directory holds it. A record cut short (a killed run: no summary,
 * a half-written last line) opens with what is there. The page's scripts are ours (cli/viewer/) and Chart.js from
 * node_modules: nothing comes from the network.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve, sep } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import sharp from "sharp";
import gifenc from "gifenc";
import { dataDir, databaseUrl } from "../memory/checkpointer";
import { downloadScope, PostgresBlobStore } from "../memory/blobs";
import { METHODS, method, methodOfNodes, type MethodId } from "../graphs";

export const VIEW_HELP = `usage: robograph view [runs/ID | runs/experiments/NAME | DIR] [options]      (npm run view -- …)

Serves a page on 127.0.0.1 for a run record (runs/<thread>/, or an experiment's episodes/<id>/) or an experiment
(runs/experiments/<name>/ with report.json and episodes/), or, given a folder of runs or nothing, an index of them.

options:
  --port N          port to listen on (default 7878; 0 picks a free one)
  --runs-dir DIR    the folder runs are found under (default: the run's or experiment's own parent folder, else ./runs)
  --data-dir DIR    where the runs' checkpoints and artifacts are (default ./data or ROBOGRAPH_DATA_DIR); an
                    experiment's episodes use the experiment's own data/ folder
  --queued NAME     an experiment queued with eval --queue, read from ROBOGRAPH_DATABASE_URL (its report, episode
                    records and frames, from whichever machines ran them); copied under --runs-dir (default
                    runs/from-database) and shown from there

The page: ←/→ step through the timeline, Home/End jump to its ends; each camera's frames are also served as a GIF.
`;

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), "viewer");
const require = createRequire(import.meta.url);
const CHART_JS = join(dirname(require.resolve("chart.js")), "chart.umd.min.js");

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
  checkpoints: { step: number; source: string; next: string[]; status: string | null; id: string; at: string | null }[] | null;
  /** The world's log of each motion's end with its terms' residuals (world-events.json, from `robograph run`). */
  worldEvents: { kind: string; detail: string }[] | null;
  /** The last checkpoint's status and reason, for a run that wrote no summary. */
  lastCheckpoint: { status: string | null; statusReason: string | null } | null;
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
export function readEvents(file: string): { events: { t: number | null; node: string; update: Record<string, unknown> }[]; notes: string[] } {
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
      notes.push(`events.jsonl line ${i + 1} is ${i === lines.length - 1 ? "cut short (the run was stopped while writing it)" : "not a node update"}: left out`);
    }
  });
  return { events, notes };
}

/**
 * Which method wrote a record: the one its summary names, else the one whose graph has every node the record holds
 * (an experiment's episode, a run killed before its summary).
 */
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
  for (const r of Object.values((u.usage ?? {}) as Record<string, { calls?: number; inputTokens?: number; outputTokens?: number }>)) {
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
    const list = (d: string) => (existsSync(d) ? readdirSync(d, { withFileTypes: true }).filter((x) => x.isDirectory()).map((x) => x.name) : []);
    const runs = list(this.root)
      .filter((n) => existsSync(join(this.root, n, "events.jsonl")) || existsSync(join(this.root, n, "summary.json")))
      .map((n) => {
        const s = readJson(join(this.root, n, "summary.json"));
        return { rel: n, id: n, status: (s?.status as string) ?? "incomplete", success: (s?.success as boolean) ?? null, scenario: (s?.scenario as string) ?? null, at: statSync(join(this.root, n)).mtimeMs };
      })
      .sort((a, b) => b.at - a.at);
    const exRoot = join(this.root, "experiments");
    const experiments = list(exRoot)
      .filter((n) => existsSync(join(exRoot, n, "report.json")) || existsSync(join(exRoot, n, "episodes")) || existsSync(join(exRoot, n, "report.md")))
      .map((n) => ({ rel: `experiments/${n}`, name: n, hasReport: existsSync(join(exRoot, n, "report.json")) }));
    return { root: this.root, runs, experiments };
  }

  run(rel: string): RunView {
    const d = this.dir(rel);
    if (!existsSync(d)) throw new HttpError(404, `no run record at ${d}`);
    const { events, notes } = readEvents(join(d, "events.jsonl"));
    const summary = readJson(join(d, "summary.json"));
    const result = readJson(join(d, "result.json"));
    const inExperiment = basename(dirname(d)) === "episodes";
    if (!summary && !result) notes.push(`no ${inExperiment ? "result.json" : "summary.json"}: the run did not finish (stopped or killed); what it recorded is shown`);
    const mode = methodOfRecord(summary, events.map((e) => e.node));
    const steps: StepView[] = events.map((e, i) => {
      const n = i + 1;
      return { n, t: e.t, node: e.node, text: lineText(mode, e.node, e.update), usage: stepUsage(e.update), update: e.update, frames: this.framesOf(rel, d, n, e.node, e.update) };
    });
    const cameras = [...new Set(steps.flatMap((s) => s.frames.map((f) => f.camera)))];
    const experimentDir = inExperiment ? dirname(dirname(d)) : null;
    const experimentGoal = experimentDir && result ? this.goalOfExample(experimentDir, String(result.example ?? "")) : null;
    const goal = (events.find((e) => typeof e.update.goal === "string")?.update.goal as string | undefined) ?? experimentGoal ?? this.goalFromReport(d);
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
      worldEvents: readJson<{ kind: string; detail?: string }[]>(join(d, "world-events.json"))?.flatMap((e) => (/^motion \d+ ended: /.test(e.detail ?? "") ? [{ kind: e.kind, detail: e.detail! }] : [])) ?? null,
      checkpoints: null,
      lastCheckpoint: null,
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
          const row = JSON.parse(line) as { id?: string; inputs?: { goal?: string }; metadata?: { task?: string; condition?: string } };
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
      const j = readJson<{ detections?: { width?: number; height?: number; detections?: Box[] } }>(join(d, file.replace(/\.png$/, ".json")));
      return j?.detections ? { width: j.detections.width ?? null, height: j.detections.height ?? null, boxes: (j.detections.detections ?? []).map(placed) } : null;
    };
    if (node === "perceiver" && u.observations) {
      for (const o of Object.values(u.observations as Record<string, { robot: string; image: string; summary?: string }>)) {
        const file = `frames/${pad(n)}-${o.robot}.png`;
        const det = sidecar(file);
        out.push({ camera: o.robot, n, ref: o.image, src: src(o.image, file), width: det?.width ?? null, height: det?.height ?? null, boxes: det?.boxes ?? null, caption: o.summary });
      }
    }
    // RePLan's looks: the palm camera's frame each was made from.
    if (typeof u.frame === "string") {
      const file = `frames/${pad(n)}-${node}.png`;
      const det = sidecar(file);
      out.push({ camera: "palm camera", n, ref: u.frame, src: src(u.frame, file), width: det?.width ?? null, height: det?.height ?? null, boxes: det?.boxes ?? null });
    }
    const sight = u.sight as { frame: string; detections: (Box & { distance?: number; bearing?: number })[] } | null | undefined;
    if (node === "look" && sight?.frame) {
      const file = `frames/${pad(n)}-head.png`;
      const boxes = sight.detections.map((x) => ({ label: x.label, score: x.score, box: x.box, note: x.distance !== undefined ? `${x.distance.toFixed(1)} m` : undefined }));
      out.push({ camera: "head", n, ref: sight.frame, src: src(sight.frame, file), width: null, height: null, boxes });
    }
    // The behaviour critic's rollouts: their key frames with the detections recorded with them.
    if (node === "executor" && u.attempts) {
      const a = (Array.isArray(u.attempts) ? u.attempts[0] : u.attempts) as { iteration?: number; rollout?: string } | undefined;
      const file = a?.rollout ? this.artifactFile(rel, a.rollout) : null;
      const r = file ? readJson<{ frames: { t: number; image: string; detections?: { width?: number; height?: number; detections?: Box[] } }[] }>(file) : null;
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
    const [{ default: Database }, { SqliteSaver }] = await Promise.all([import("better-sqlite3"), import("@langchain/langgraph-checkpoint-sqlite")]);
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
        if (!out.length) view.lastCheckpoint = { status: values.status ?? null, statusReason: values.statusReason ?? null };
        // A run killed before it wrote its report still has its goal in every checkpoint.
        if (!view.goal && typeof values.goal === "string") view.goal = values.goal;
        const meta = (s.metadata ?? {}) as { step?: number; source?: string };
        out.push({ step: meta.step ?? -1, source: meta.source ?? "", next: [...s.next], status: values.status ?? null, id: String(s.config.configurable?.checkpoint_id ?? ""), at: s.createdAt ?? null });
        if (out.length >= 2000) break;
      }
      view.checkpoints = out.reverse();
    } finally {
      db.close();
    }
  }

  experiment(rel: string) {
    const d = this.dir(rel);
    if (!existsSync(d)) throw new HttpError(404, `no experiment at ${d}`);
    const report = readJson(join(d, "report.json"));
    const md = existsSync(join(d, "report.md")) ? readFileSync(join(d, "report.md"), "utf8") : null;
    const settings = readJson(join(d, "experiment.json"));
    const epDir = join(d, "episodes");
    const fromReport = new Map(((report?.episodes ?? []) as { id: string }[]).map((e) => [e.id, e]));
    const ids = existsSync(epDir) ? readdirSync(epDir, { withFileTypes: true }).filter((x) => x.isDirectory()).map((x) => x.name) : [];
    for (const id of fromReport.keys()) if (!ids.includes(id)) ids.push(id);
    const episodes = ids.sort().map((id) => {
      const r = (fromReport.get(id) ?? readJson(join(epDir, id, "result.json")) ?? { id }) as Record<string, unknown>;
      const recorded = existsSync(join(epDir, id, "events.jsonl"));
      return { ...r, id, recorded, href: recorded ? `/run/${encodePath(relative(this.root, join(epDir, id)))}` : null, scores: undefined };
    });
    const notes: string[] = [];
    if (!report) notes.push(md ? "no report.json: its report.md is shown as written" : "no report.json: the experiment has not finished its first report; its episodes are listed");
    return { kind: "experiment", rel, name: basename(d), report: report ? { ...report, episodes: undefined } : null, markdown: md, settings, episodes, notes };
  }
}

const placed = (x: Box & { location?: { relation: string; place: string }; color?: string }): Box => ({
  label: x.label,
  score: x.score,
  box: x.box,
  note: x.location ? `${x.location.relation} ${x.location.place}` : undefined,
});

const encodePath = (p: string) => p.split(sep).map(encodeURIComponent).join("/");

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One GIF of a camera's frames in the order the run took them. */
export async function cameraGif(files: string[], delayMs = 600): Promise<Buffer> {
  if (!files.length) throw new HttpError(404, "this camera has no frames on disk");
  const first = await sharp(files[0]).metadata();
  const width = first.width ?? 320;
  const height = first.height ?? 240;
  const { GIFEncoder, applyPalette, quantize } = gifenc;
  const gif = GIFEncoder();
  for (const f of files) {
    const { data } = await sharp(f).resize(width, height, { fit: "contain", background: "#000" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const rgba = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const palette = quantize(rgba, 256);
    gif.writeFrame(applyPalette(rgba, palette), width, height, { palette, delay: delayMs });
  }
  gif.finish();
  return Buffer.from(gif.bytes());
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".png": "image/png", ".jpg": "image/jpeg", ".json": "application/json", ".gif": "image/gif", ".md": "text/markdown; charset=utf-8" };

export function viewServer(lib: Library): Server {
  const gifs = new Map<string, Promise<Buffer>>();
  const runs = new Map<string, { mtime: number; view: Promise<RunView> }>();
  const loadRun = (rel: string) => {
    const d = lib.dir(rel);
    const mtime = Math.max(...["events.jsonl", "summary.json", "result.json"].map((f) => (existsSync(join(d, f)) ? statSync(join(d, f)).mtimeMs : 0)));
    const hit = runs.get(rel);
    if (hit && hit.mtime === mtime) return hit.view;
    const view = (async () => {
      const v = lib.run(rel);
      await lib.checkpoints(v).catch((err) => v.notes.push(`checkpoint history not read: ${(err as Error).message}`));
      return v;
    })();
    runs.set(rel, { mtime, view });
    return view;
  };
  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
    res.end(body);
  };
  const json = (res: ServerResponse, x: unknown) => send(res, 200, TYPES[".json"], JSON.stringify(x));
  const file = (res: ServerResponse, f: string) => {
    if (!existsSync(f) || !statSync(f).isFile()) throw new HttpError(404, `no file ${basename(f)}`);
    send(res, 200, TYPES[extname(f)] ?? "application/octet-stream", readFileSync(f));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = decodeURIComponent(url.pathname);
    const after = (prefix: string) => path.slice(prefix.length).replace(/^\/+|\/+$/g, "");
    if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "read-only viewer");
    if (path === "/" || path.startsWith("/run/") || path.startsWith("/experiment/")) return file(res, join(ASSETS, "index.html"));
    if (path.startsWith("/assets/")) {
      const name = after("/assets/");
      if (name === "chart.umd.min.js") return file(res, CHART_JS);
      if (!/^[\w.-]+$/.test(name)) throw new HttpError(404, "no such asset");
      return file(res, join(ASSETS, name));
    }
    if (path === "/favicon.ico") return send(res, 204, "image/x-icon", "");
    if (path === "/api/index") return json(res, lib.index());
    if (path.startsWith("/api/run/")) return json(res, await loadRun(after("/api/run/")));
    if (path.startsWith("/api/experiment/")) return json(res, lib.experiment(after("/api/experiment/")));
    if (path.startsWith("/file/")) {
      // Only a run's frames (and the detector's messages beside them) are served from its folder.
      const rest = after("/file/");
      const i = rest.lastIndexOf("/frames/");
      if (i < 0) throw new HttpError(404, "only frames are served");
      return file(res, join(lib.dir(rest.slice(0, i)), "frames", basename(rest.slice(i + 8))));
    }
    if (path.startsWith("/artifact/")) {
      const rest = after("/artifact/");
      const i = rest.lastIndexOf("/");
      const f = lib.artifactFile(rest.slice(0, i), rest.slice(i + 1));
      if (!f || !/\.(png|jpg)$/.test(f)) throw new HttpError(404, `no artifact ${rest.slice(i + 1)}`);
      return file(res, f);
    }
    if (path.startsWith("/gif/")) {
      // /gif/<run>/<camera>.gif
      const rest = after("/gif/");
      const i = rest.lastIndexOf("/");
      const rel = rest.slice(0, i);
      const camera = rest.slice(i + 1).replace(/\.gif$/, "");
      const v = await loadRun(rel);
      const d = lib.dir(rel);
      const files: string[] = [];
      for (const f of v.steps.flatMap((s) => s.frames).filter((f) => f.camera === camera)) {
        const p = f.src?.startsWith("/file/") ? join(d, "frames", basename(f.src)) : f.ref ? lib.artifactFile(rel, f.ref) : null;
        if (p && files.at(-1) !== p) files.push(p);
      }
      if (!v.cameras.includes(camera)) throw new HttpError(404, `run ${v.id} has no camera ${camera} (it has ${v.cameras.join(", ") || "none"})`);
      const key = `${rel}\n${camera}\n${files.length}`;
      if (!gifs.has(key)) gifs.set(key, cameraGif(files).catch((err) => (gifs.delete(key), Promise.reject(err))));
      return send(res, 200, TYPES[".gif"], await gifs.get(key)!);
    }
    throw new HttpError(404, `nothing at ${path}`);
  };
  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (!res.headersSent) send(res, status, "text/plain; charset=utf-8", `${(err as Error).message}\n`);
      else res.end();
    });
  });
}

/** What a path given on the command line is: a run record, an experiment, or a folder of runs. */
export function classify(target: string): "run" | "experiment" | "runs" {
  if (!existsSync(target) || !statSync(target).isDirectory()) throw new Error(`${target} is not a folder: give a run record (runs/<thread>), an experiment (runs/experiments/<name>) or a folder of runs`);
  // A run has its own event log (a curriculum run also keeps a report.json and its episodes); an experiment has none.
  if (existsSync(join(target, "events.jsonl"))) return "run";
  if (existsSync(join(target, "report.json")) || existsSync(join(target, "episodes"))) return "experiment";
  if (["events.jsonl", "summary.json", "result.json", "report.md"].some((f) => existsSync(join(target, f)))) return "run";
  return "runs";
}

/**
 * Copies a queued experiment out of the database — report, each episode's record and result, the frames they name —
 * into `<root>/experiments/<name>`, the layout a local experiment has; returns that folder.
 */
async function fetchQueued(name: string, root: string): Promise<string> {
  const url = databaseUrl();
  if (!url) throw new Error("--queued reads the experiment from ROBOGRAPH_DATABASE_URL, which is not set");
  const dir = join(root, "experiments", name);
  const store = await PostgresBlobStore.open(url);
  try {
    const n = await downloadScope(store, `experiments/${name}`, dir, join(dir, "data", "artifacts"));
    if (!n) throw new Error(`the database has no records of experiment ${name} (queued under another name, or no episode finished yet)`);
    process.stderr.write(`${n} records of experiment ${name} copied from the database to ${dir}\n`);
  } finally {
    await store.close();
  }
  return dir;
}

export async function viewCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: "string", default: "7878" },
      "runs-dir": { type: "string" },
      "data-dir": { type: "string" },
      queued: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (v.help) {
    process.stdout.write(VIEW_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new Error(`view takes one run or experiment, got ${positionals.length}: ${positionals.join(" ")}`);
  const port = Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0 for any free one), not ${v.port}`);
  if (v.queued !== undefined) {
    if (positionals.length) throw new Error("--queued NAME names the experiment to show: give no folder beside it");
    v["runs-dir"] ??= "runs/from-database";
    positionals[0] = await fetchQueued(v.queued, resolve(v["runs-dir"]));
  }
  const target = resolve(positionals[0] ?? v["runs-dir"] ?? "runs");
  const kind = classify(target);
  let root = v["runs-dir"] ? resolve(v["runs-dir"]) : kind === "runs" ? target : dirname(target);
  // An experiment under <root>/experiments/ is shown with the runs beside it.
  if (!v["runs-dir"] && kind === "experiment" && basename(root) === "experiments") root = dirname(root);
  if (!v["runs-dir"] && kind === "run" && basename(root) === "episodes") root = dirname(dirname(dirname(root)));
  if (kind !== "runs" && relative(root, target).startsWith("..")) throw new Error(`${target} is not inside --runs-dir ${root}`);
  const rel = relative(root, target);
  const lib = new Library(root, v["data-dir"] ? resolve(v["data-dir"]) : dataDir());
  const server = viewServer(lib);
  const listen = (p: number) =>
    new Promise<number>((ok, fail) => {
      server.once("error", fail);
      server.listen(p, "127.0.0.1", () => {
        server.off("error", fail);
        ok((server.address() as { port: number }).port);
      });
    });
  let bound: number;
  try {
    bound = await listen(port);
  } catch (err) {
    // The default port taken (another viewer open): any free one will do; a port asked for is an error.
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || argv.some((a) => a.startsWith("--port"))) throw new Error(`cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
    bound = await listen(0);
  }
  const page = kind === "run" ? `/run/${encodePath(rel)}` : kind === "experiment" ? `/experiment/${encodePath(rel)}` : "/";
  process.stdout.write(`robograph view: http://127.0.0.1:${bound}${page}\n(runs under ${root}; checkpoints and artifacts from ${lib.dataDir}; Ctrl-C to stop)\n`);
  await new Promise<void>((done) => {
    const stop = () => server.close(() => done());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

