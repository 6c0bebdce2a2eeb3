/**
 * `robograph view` (npm run view): a local page, served on loopback, for looking at a run or an experiment.
 *
 * A run's page is built from the record `robograph run` and the experiment runner leave — events.jsonl (one node update a
 * line), summary.json, frames/ (with the detector's message beside each frame), the episode's result.json — and from the
 * thread's LangGraph checkpoint history where the data directory holds it. A record cut short (a killed run: no summary,
 * a half-written last line) opens with what is there. The page's scripts are ours (cli/viewer/) and Chart.js from
 * node_modules: nothing comes from the network.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { dataDir, databaseUrl } from "../memory/checkpointer";
import { downloadScope, PostgresBlobStore } from "../memory/blobs";
import { encodePath, Library } from "./viewLibrary";
import { viewServer } from "./viewServer";

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

export function classify(target: string): "run" | "experiment" | "runs" {
  if (!existsSync(target) || !statSync(target).isDirectory())
    throw new Error(
      `${target} is not a folder: give a run record (runs/<thread>), an experiment (runs/experiments/<name>) or a folder of runs`,
    );
  // A run has its own event log (a curriculum run also keeps a report.json and its episodes); an experiment has none.
  if (existsSync(join(target, "events.jsonl"))) return "run";
  // results.json: a behaviour-critic experiment from before the report contract.
  if (["report.json", "episodes", "results.json"].some((f) => existsSync(join(target, f)))) return "experiment";
  if (["events.jsonl", "summary.json", "result.json", "report.md"].some((f) => existsSync(join(target, f))))
    return "run";
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
    const downloaded = await downloadScope(store, `experiments/${name}`, dir, join(dir, "data", "artifacts"));
    if (!downloaded)
      throw new Error(
        `the database has no records of experiment ${name} (queued under another name, or no episode finished yet)`,
      );
    process.stderr.write(`${downloaded} records of experiment ${name} copied from the database to ${dir}\n`);
  } finally {
    await store.close();
  }
  return dir;
}

export async function viewCommand(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({
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
  if (flags.help) {
    process.stdout.write(VIEW_HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new Error(`view takes one run or experiment, got ${positionals.length}: ${positionals.join(" ")}`);
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number (0 for any free one), not ${flags.port}`);
  if (flags.queued !== undefined) {
    if (positionals.length) throw new Error("--queued NAME names the experiment to show: give no folder beside it");
    flags["runs-dir"] ??= "runs/from-database";
    positionals[0] = await fetchQueued(flags.queued, resolve(flags["runs-dir"]));
  }
  const target = resolve(positionals[0] ?? flags["runs-dir"] ?? "runs");
  const kind = classify(target);
  let root = flags["runs-dir"] ? resolve(flags["runs-dir"]) : kind === "runs" ? target : dirname(target);
  // An experiment under <root>/experiments/ is shown with the runs beside it.
  if (!flags["runs-dir"] && kind === "experiment" && basename(root) === "experiments") root = dirname(root);
  if (!flags["runs-dir"] && kind === "run" && basename(root) === "episodes") root = dirname(dirname(dirname(root)));
  if (kind !== "runs" && relative(root, target).startsWith(".."))
    throw new Error(`${target} is not inside --runs-dir ${root}`);
  const rel = relative(root, target);
  const lib = new Library(root, flags["data-dir"] ? resolve(flags["data-dir"]) : dataDir());
  const server = viewServer(lib);
  const listen = (port: number) =>
    new Promise<number>((ok, fail) => {
      server.once("error", fail);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", fail);
        ok((server.address() as { port: number }).port);
      });
    });
  let bound: number;
  try {
    bound = await listen(port);
  } catch (err) {
    // The default port taken (another viewer open): any free one will do; a port asked for is an error.
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || argv.some((a) => a.startsWith("--port")))
      throw new Error(`cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`, { cause: err });
    bound = await listen(0);
  }
  const page =
    kind === "run" ? `/run/${encodePath(rel)}` : kind === "experiment" ? `/experiment/${encodePath(rel)}` : "/";
  process.stdout.write(
    `robograph view: http://127.0.0.1:${bound}${page}\n(runs under ${root}; checkpoints and artifacts from ${lib.dataDir}; Ctrl-C to stop)\n`,
  );
  await new Promise<void>((done) => {
    const stop = () => server.close(() => done());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}
