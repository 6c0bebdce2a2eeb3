/**
 * `robograph reproduce` (npm run reproduce): regenerates every table and headline figure the README and docs publish.
 * Each figure is made by the very command the docs give (run as a child process, as a user would run it), its tables
 * rendered without anything the wall clock measured, and written to docs/results/<figure>.md under a header that says
 * the commit, the date, the command and the settings. The docs carry those files' contents between markers
 * (`<!-- results:ID -->` … `<!-- /results -->`, and `<!-- headline:ID -->` … for one-line summaries) that this command
 * rewrites — so a figure in the docs is one this command made, never one typed in.
 *
 * The figures are the methods' own (graphs/<id>/figures.ts, listed in their descriptors: METHODS), and the latency
 * bench's below; what a figure reads through evals/ and the simulators it gets from this file's FigureKit.
 *
 * `--quick` makes small slices of the same figures into docs/results/quick/ (committed too); `--check` makes them in a
 * scratch directory and compares them with the committed files, header aside — CI runs `--quick --check`, so a change
 * that moves a figure without regenerating it fails there.
 */
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { experimentMethod, tables, type Report } from "../evals/experimentReport";
import { METHODS, method } from "../graphs";
import type { Figure as DeclaredFigure, FigureKit, FigurePart as Part } from "../graphs/figure";
import { criticBenchmarkReader } from "../evals/behaviorCriticFigure";
import { programArgs, precompile } from "../robots/programs";
import { FIRST_SCORED_SEED, generatedSeed } from "../robots/sim/generated";
import {
  appendToLedger,
  isStaleMark,
  rangeText,
  readLedger,
  scoredRangeLine,
  staleness,
  type LedgerRow,
  type ScoredRange,
} from "../evals/ledger";

/**
 * A scored generated-world report, refused if any of its worlds lies below the range it is scored on (a full figure's
 * sealed range; a quick slice's retired one) or below the first scored seed. No upper bound: a generator that skips
 * worlds it cannot do reads seeds past `from + count` to make up its count.
 */
export function scoredOnly(report: Report, range?: { from: number; count: number }): Report {
  const from = Math.max(range?.from ?? FIRST_SCORED_SEED, FIRST_SCORED_SEED);
  const outside = report.tasks.filter((t) => (generatedSeed(t) ?? -1) < from);
  if (outside.length)
    throw new Error(
      `the scored figure reads worlds outside the scored range (seeds from ${from}): ${outside.slice(0, 5).join(", ")}`,
    );
  return report;
}

/**
 * Before a full figure runs its scored ranges: refused if the ledger shows any seed of them already run (by any
 * figure, at any commit), or if one lies in a tuning range — a scored range is run once, after every decision. Quick
 * slices read retired ranges and are not checked.
 */
export function freshRanges(
  ledger: readonly LedgerRow[],
  ranges: readonly ScoredRange[],
  tuning: readonly ScoredRange[] = [],
): void {
  const overlaps = (first: ScoredRange, second: ScoredRange) =>
    first.dataset === second.dataset &&
    first.from < second.from + second.count &&
    second.from < first.from + first.count;
  for (const range of ranges) {
    const run = ledger.filter((row) => !isStaleMark(row) && overlaps(row.range, range));
    if (run.length)
      throw new Error(
        `the scored range ${rangeText(range)} was already run (docs/results/ledger.md: ${[...new Set(run.map((r) => `${rangeText(r.range)} at ${r.commit}`))].slice(0, 3).join("; ")}): a scored range is run once — give the figure a fresh range where its method declares it (graphs/<id>/figures.ts)`,
      );
    const tuned = tuning.find((t) => overlaps(t, range));
    if (tuned) throw new Error(`the scored range ${rangeText(range)} overlaps the tuning range ${rangeText(tuned)}`);
  }
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const RESULTS_DIR = join(ROOT, "docs", "results");
/** Where the figures are included: these files' marked regions are rewritten from the results. */
const DOCS = () => [
  join(ROOT, "README.md"),
  ...(existsSync(join(ROOT, "docs"))
    ? readdirSync(join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => join(ROOT, "docs", f))
    : []),
];

export const REPRODUCE_HELP = `usage: robograph reproduce [options]      (npm run reproduce -- [options])

Regenerates every table and headline figure the README and docs publish, by the commands the docs give, into
docs/results/<figure>.md (commit, date, command and settings at the top), and rewrites the docs' marked regions
from them. Progress on stderr; each command's own output in <work>/<figure>/log.txt.

options:
  --quick          small slices of the same figures, into docs/results/quick/ (what CI checks)
  --check          make the figures in a scratch directory and compare them with the committed ones (header aside);
                   exit 1 naming every figure that differs. Does not write docs/.
  --only LIST      only these figures (comma-separated ids; default all): ${"${IDS}"}
  --work DIR       where the commands' runs go (default runs/reproduce[-quick]; --check: a temporary directory)
  --concurrency N  episodes at once in each experiment (default 2; results do not depend on it)
  --list           list the figures with their commands and exit
  --include        only rewrite the docs' marked regions from docs/results/ (after copying results in)
  --mark-stale ID --why TEXT
                   a change on a scored figure's code path: mark it stale in the ledger (a row per scored range,
                   at the current commit) until it is run again on a fresh range, and say so in the docs
  --render         make the tables again from the runs already in the work directory, without running anything;
                   the header names the commit the runs were made at (read from the results file it replaces)
`;

/** A figure as reproduce runs it: its declaration with the kit in hand. */
interface Figure {
  id: string;
  title: string;
  about: string;
  parts(quick: boolean, work: string): Part[];
  render(work: string, quick: boolean): string;
  headline?(work: string, quick: boolean): string;
  fullOnly?: boolean;
  commands?: string[];
  tuning?: ScoredRange[];
  scored?: ScoredRange[];
}

export const LEDGER = join(RESULTS_DIR, "ledger.md");

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/**
 * What evals/ makes of the runs of a dataset whose experiments have a runner of their own (`eval --dataset critic`
 * hands that dataset to it the same way), by the dataset: the figures of it declare the shape they read.
 */
const OWN_RUNNERS: Record<string, unknown> = { critic: criticBenchmarkReader };

const KIT: FigureKit = {
  // The quick slices (run by CI on every change) read the retired scored ranges' first seeds, never a sealed one.
  quickScoredFrom: FIRST_SCORED_SEED,
  experiment: (work, name) => readJson<Report>(join(work, name, "report.json")),
  scoredOnly,
  tables: (report) => tables(report, { timing: false }),
  // Each episode's world: the world of the method its dataset family belongs to.
  worldOf: (episode) => method(experimentMethod({ families: [episode.family] })).world,
  ownRunner<T>(dataset: string): T {
    if (!(dataset in OWN_RUNNERS))
      throw new Error(`no report reader for the ${dataset} dataset's own runner (cli/reproduce.ts OWN_RUNNERS)`);
    return OWN_RUNNERS[dataset] as T;
  },
};

/** The latency bench's figure: every method's bench scenes (their descriptors' `benchScenes`) in one run. */
const LATENCY: DeclaredFigure = {
  order: 90,
  id: "latency",
  title: "What a hosted model costs per skill: calls, critical path, robot idle time, tokens, images",
  about:
    "The three default tasks (CLEA's tea to the trash, RePLan's task 3, VLM-PC's indoor_1) through the openai backend against a local OpenAI-compatible endpoint that answers as the symbolic reasoner would after 300 ms, the robots moving in real time; CLEA and RePLan also pipelined (configurable.pipeline: the next action prepared beside each skill). Round trips while the robot is idle count the parts of model calls no skill overlapped; tokens counted with gpt-tokenizer (o200k). Wall seconds per skill are left out: they measure this machine (robot idle seconds are kept, mostly the endpoint's fixed delays).",
  fullOnly: true,
  parts: (_quick, work) => [
    {
      label: "latency",
      argv: ["bench", "--latency-only", "--json", join(work, "latency.json")],
      shown: "npm run bench -- --latency-only",
    },
  ],
  render: (work) => {
    const figures = readJson<{ name: string; value: number; unit: string; target?: string }[]>(
      join(work, "latency.json"),
    ).filter((f) => !/wall/.test(f.name));
    return [
      "| figure | value | unit | target |",
      "|---|---|---|---|",
      ...figures.map(
        (figure) =>
          `| ${figure.name.replace(/^latency /, "")} | ${Number.isInteger(figure.value) ? figure.value : figure.value.toFixed(2)} | ${figure.unit} | ${figure.target ?? ""} |`,
      ),
    ].join("\n");
  },
};

/** A declared figure with the kit in hand. */
function bound(figure: DeclaredFigure): Figure {
  const { headline, fullOnly, commands, tuning, scored } = figure;
  return {
    id: figure.id,
    title: figure.title,
    about: typeof figure.about === "string" ? figure.about : figure.about(KIT),
    parts: (quick, work) => figure.parts(quick, work, KIT),
    render: (work, quick) => figure.render(work, quick, KIT),
    ...(headline ? { headline: (work: string, quick: boolean) => headline(work, quick, KIT) } : {}),
    ...(fullOnly ? { fullOnly } : {}),
    ...(commands ? { commands } : {}),
    ...(tuning ? { tuning } : {}),
    ...(scored ? { scored } : {}),
  };
}

/** Every figure, in the order they are made: each method's (its descriptor's `figures`) and the bench's. */
export const FIGURES: Figure[] = [...METHODS.flatMap((m) => m.figures ?? []), LATENCY]
  .sort((a, b) => a.order - b.order)
  .map(bound);

const IDS = FIGURES.map((f) => f.id).join(", ");

/** The commit the figures were made at, and whether the working tree had changes. */
function commitOf(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    // The docs and README are what this command writes (the ledger among them): only a change elsewhere is the figures' code.
    const dirty = execFileSync(
      "git",
      ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs", ":!README.md"],
      { cwd: ROOT, encoding: "utf8" },
    ).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** The line that ends a results file's header: what comes after it is compared by --check. */
export const HEADER_END = "<!-- end of header: what follows is compared by npm run reproduce -- --quick --check -->";

function header(figure: Figure, parts: Part[], quick: boolean, runsMadeAt?: string): string {
  const ledger = quick ? [] : readLedger(LEDGER);
  return [
    `<!-- Generated by npm run reproduce${quick ? " -- --quick" : ""} (cli/reproduce.ts): regenerate, do not edit. -->`,
    `# ${figure.title}${quick ? " (quick slice)" : ""}`,
    "",
    `- commit: ${runsMadeAt ? `${runsMadeAt} (the runs); tables made again at ${commitOf()}` : commitOf()}`,
    `- date: ${new Date().toISOString().slice(0, 10)}`,
    ...(figure.commands ?? parts.map((p) => `${parts.length > 1 ? `(${p.label}) ` : ""}\`${p.shown}\``)).map(
      (c) => `- command: ${c}`,
    ),
    `- the set: ${figure.about}`,
    ...(quick ? [] : (figure.scored ?? []).map((r) => scoredRangeLine(ledger, r))),
    "",
    HEADER_END,
    "",
  ].join("\n");
}

/** A results file's body: what follows its header. */
export function bodyOf(text: string): string {
  const at = text.indexOf(HEADER_END);
  return at < 0 ? text : text.slice(at + HEADER_END.length).replace(/^\n+/, "");
}

/** Runs `robograph ARGS` as a child process, its output to `log`, its progress lines (stderr) shown with a prefix. */
function runPart(part: Part, log: string, prefix: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, programArgs(part.script ?? "cli/robograph.ts", part.argv), {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OPENAI_API_KEY: "" },
    });
    const chunks: string[] = [];
    let last = 0;
    const show = (chunk: Buffer) => {
      const text = chunk.toString();
      chunks.push(text);
      // A line every few seconds is enough to show it is alive.
      const line = text
        .trim()
        .split(/[\r\n]/)
        .filter(Boolean)
        .at(-1);
      if (line && Date.now() - last > 3000) {
        last = Date.now();
        process.stderr.write(`${prefix} ${line.slice(0, 140)}\n`);
      }
    };
    child.stdout.on("data", show);
    child.stderr.on("data", show);
    const stop = () => child.kill("SIGINT");
    process.once("SIGINT", stop);
    child.on("exit", (code) => {
      process.off("SIGINT", stop);
      writeFileSync(log, chunks.join(""));
      if ((part.okCodes ?? [0]).includes(code ?? -1)) resolve();
      else reject(new Error(`${part.shown} exited with ${code}; its output is in ${log}`));
    });
  });
}

/**
 * Rewrites every marked region of the docs from the results files; returns the files changed and the figures that
 * some region names but no results file holds yet (their regions are left as they are). With `write` false it only
 * says which files would change.
 */
export function includeResults(resultsDir = RESULTS_DIR, write = true): { changed: string[]; missing: string[] } {
  const changed: string[] = [];
  const missing = new Set<string>();
  const ledger = readLedger(LEDGER);
  for (const file of DOCS()) {
    const text = readFileSync(file, "utf8");
    const next = fillMarkers(text, (kind, id) => {
      const path = join(resultsDir, `${id}.md`);
      if (!existsSync(path)) {
        missing.add(id);
        return null;
      }
      const body = readFileSync(path, "utf8");
      // A figure the ledger marks stale says so wherever it is shown, until it is run again on a fresh range.
      const stale = staleness(ledger, id);
      if (kind === "headline") {
        const match = /^<!-- headline: (.*) -->$/m.exec(body);
        if (!match) throw new Error(`docs/results/${id}.md has no headline`);
        return stale ? `${match[1]} — **stale since ${stale.commit}**: ${stale.why}` : match[1];
      }
      return `\n${stale ? `> **Stale since ${stale.commit} (${stale.date}).** ${stale.why} These figures were made before that change and are not yet made again on a fresh scored range (docs/results/ledger.md).\n\n` : ""}${forDocs(bodyOf(body).replace(/^<!-- headline: .* -->\n+/m, "")).trim()}\n\nMade by \`npm run reproduce -- --only ${id}\` (commands, commit, date and every episode: [docs/results/${id}.md](${relative(dirname(file), path)})).\n`;
    });
    if (next !== text) {
      if (write) writeFileSync(file, next);
      changed.push(relative(ROOT, file));
    }
  }
  return { changed, missing: [...missing] };
}

/**
 * A results body as a docs page shows it: its headings two levels down (under the page's "## Results"), without the
 * per-episode tables (the results file keeps them).
 */
export function forDocs(body: string): string {
  const kept: string[] = [];
  let skipping = false;
  for (const line of body.split("\n")) {
    const heading = /^(#+) (.*)$/.exec(line);
    if (heading) skipping = heading[1].length === 2 && heading[2] === "Episodes";
    if (skipping) continue;
    kept.push(heading ? `${heading[1]}## ${heading[2]}` : line);
  }
  return kept.join("\n").replace(/\n{3,}/g, "\n\n");
}

/** Replaces each `<!-- KIND:ID -->…<!-- /KIND -->` region's inside with `fill(kind, id)`. */
export function fillMarkers(text: string, fill: (kind: "results" | "headline", id: string) => string | null): string {
  return text.replace(
    /<!-- (results|headline):([a-z0-9-]+) -->([\s\S]*?)<!-- \/\1 -->/g,
    (all, kind: "results" | "headline", id: string) => {
      const inside = fill(kind, id);
      return inside === null ? all : `<!-- ${kind}:${id} -->${inside}<!-- /${kind} -->`;
    },
  );
}

/** Rewrites the docs' marked regions from docs/results/ and says what changed and what is not generated yet. */
function includeOnly(): number {
  const { changed, missing } = includeResults();
  process.stderr.write(
    `\ndocs rewritten from the results: ${changed.length ? changed.join(", ") : "nothing changed"}\n`,
  );
  if (missing.length)
    process.stderr.write(
      `not yet generated, left as they were in the docs: ${missing.join(", ")} (npm run reproduce -- --only ${missing.join(",")})\n`,
    );
  return 0;
}

export async function reproduceCommand(argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      only: { type: "string" },
      work: { type: "string" },
      list: { type: "boolean", default: false },
      include: { type: "boolean", default: false },
      "mark-stale": { type: "string" },
      why: { type: "string" },
      render: { type: "boolean", default: false },
      concurrency: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    process.stdout.write(REPRODUCE_HELP.replace("${IDS}", IDS));
    return 0;
  }
  if (flags.include) return includeOnly();
  if (flags["mark-stale"] !== undefined) {
    const figure = FIGURES.find((x) => x.id === flags["mark-stale"]);
    if (!figure?.scored?.length)
      throw new Error(
        `--mark-stale: ${flags["mark-stale"]} is no figure with a scored range; those are ${FIGURES.filter(
          (x) => x.scored?.length,
        )
          .map((x) => x.id)
          .join(", ")}`,
      );
    if (!flags.why?.trim()) throw new Error("--mark-stale needs --why: what changed on the figure's code path");
    appendToLedger(
      LEDGER,
      figure.scored.map((range) => ({
        date: new Date().toISOString().slice(0, 10),
        commit: commitOf(),
        figure: figure.id,
        range,
        note: `stale: ${flags.why!.trim().replace(/\|/g, "/")}`,
      })),
    );
    process.stderr.write(`${figure.id} marked stale in docs/results/ledger.md\n`);
    return includeOnly();
  }
  const quick = flags.quick || flags.check;
  const only = flags.only?.split(",").map((s) => s.trim());
  for (const id of only ?? []) if (!FIGURES.some((f) => f.id === id)) throw new Error(`no figure ${id}; one of ${IDS}`);
  const figures = FIGURES.filter((f) => (!only || only.includes(f.id)) && !(quick && f.fullOnly));
  if (flags.list) {
    for (const f of figures)
      process.stdout.write(
        `${f.id}: ${f.title}\n${f
          .parts(quick, "<work>")
          .map((p) => `  ${p.shown}\n`)
          .join("")}`,
      );
    return 0;
  }
  const work =
    flags.work ??
    (flags.check
      ? mkdtempSync(join(tmpdir(), "robograph-reproduce-"))
      : join(ROOT, "runs", quick ? "reproduce-quick" : "reproduce"));
  const outDir = flags.check ? join(work, "results") : quick ? join(RESULTS_DIR, "quick") : RESULTS_DIR;
  mkdirSync(outDir, { recursive: true });
  const t0 = performance.now();
  const differ: string[] = [];
  // Its commands and their simulators are processes of their own: one build of them for the run halves what each start costs.
  const programs = flags.render ? undefined : await precompile();
  try {
    for (const [i, f] of figures.entries()) {
      const prefix = `[${i + 1}/${figures.length} ${f.id}]`;
      const dir = join(work, f.id);
      const file = join(outDir, `${f.id}.md`);
      let madeAt: string | undefined;
      if (flags.render) {
        if (!existsSync(dir)) throw new Error(`--render: no runs of ${f.id} in ${dir}`);
        // The runs' commit as the header gave it, "(with uncommitted changes)" and all.
        madeAt = existsSync(file)
          ? /^- commit: (.+?)(?: \(the runs\);.*)?$/m.exec(readFileSync(file, "utf8"))?.[1]
          : undefined;
        if (!madeAt)
          throw new Error(`--render: ${relative(ROOT, file)} does not say which commit its runs were made at`);
      } else {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
      // A scored range is run once: refused before anything runs if the ledger shows it run, or it overlaps tuning.
      if (!flags.render && !quick && f.scored?.length) freshRanges(readLedger(LEDGER), f.scored, f.tuning);
      const parts = f.parts(quick, dir);
      for (const [k, p] of flags.render ? [] : parts.entries()) {
        process.stderr.write(`${prefix} ${p.shown}\n`);
        // A dataset's own runner (the critic benchmark's) has no --concurrency option.
        if (flags.concurrency && p.argv[0] === "eval" && !Object.keys(OWN_RUNNERS).some((d) => p.argv.includes(d)))
          p.argv.push("--concurrency", flags.concurrency);
        await runPart(p, join(dir, `log${parts.length > 1 ? `-${k + 1}` : ""}.txt`), prefix);
      }
      // A full figure's scored ranges were run once more: the ledger says so, and the header reads it.
      if (!flags.render && !quick && f.scored?.length) {
        appendToLedger(
          LEDGER,
          f.scored.map((range) => ({
            date: new Date().toISOString().slice(0, 10),
            commit: commitOf(),
            figure: f.id,
            range,
            note: "",
          })),
        );
      }
      const headline = f.headline ? `<!-- headline: ${f.headline(dir, quick)} -->\n\n` : "";
      const text = `${header(f, parts, quick, madeAt)}${headline}${f.render(dir, quick).trim()}\n`;
      writeFileSync(file, text);
      if (flags.check) {
        const committed = join(RESULTS_DIR, "quick", `${f.id}.md`);
        const same = existsSync(committed) && bodyOf(readFileSync(committed, "utf8")) === bodyOf(text);
        if (!same) differ.push(f.id);
        process.stderr.write(
          `${prefix} ${same ? "same as committed" : `DIFFERS from docs/results/quick/${f.id}.md (made: ${file})`}\n`,
        );
      } else process.stderr.write(`${prefix} wrote ${relative(ROOT, file)}\n`);
    }
  } finally {
    programs?.remove();
    if (flags.check && !differ.length) rmSync(work, { recursive: true, force: true });
  }
  const minutes = ((performance.now() - t0) / 60000).toFixed(1);
  if (flags.check) {
    if (differ.length) {
      process.stderr.write(
        `\nreproduce --check: ${differ.join(", ")} differ from what is committed in docs/results/quick/ (${minutes} min). ` +
          `If the change is meant, run npm run reproduce -- --quick (and the full npm run reproduce for the docs) and commit the results.\n`,
      );
      return 1;
    }
    process.stderr.write(`\nreproduce --check: every quick figure is as committed (${minutes} min)\n`);
    return 0;
  }
  if (!quick) includeOnly();
  process.stderr.write(`reproduce: ${figures.length} figure(s) in ${minutes} min\n`);
  return 0;
}
