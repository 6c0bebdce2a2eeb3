/**
 * The behaviour-critic benchmark generator (paper 003 §4.2, on our simulator): for each undesirable behaviour, cases
 * of one task with a positive rollout and two negatives that reach the goal but show that behaviour. Every rollout is
 * run in process on the workbench world (the same code the bridge serves), from a fresh reset, and checked: the goal
 * must hold; a positive must log no undesirable event; a negative must log its behaviour (and, preferably, nothing
 * else). A rollout that fails is regenerated with the next seed, a bounded number of times, and reported.
 *
 *   npm run make:critic-benchmark -- [--out DIR] [--seed N] [--cases-per-behaviour K] [--behaviours a,b]
 *
 * The generated set (`--generated [--seed S] [--count N]`, generateEditedBenchmark) instead draws one or two edits of a
 * task's careful program from robots/sim/workbench/edits.ts per case seed, with the careful program as the clean twin.
 *
 * A case's truth (`outputs.truth`) is what its author did: the hand-made negative's behaviour, or the generated
 * negatives' edit families. Writes DIR/cases.jsonl (one LangSmith example per case), DIR/rollouts/<id>.json (+ <id>/NN.png
 * key frames) and DIR/events/<id>.json (the world's event log: what "perfect grounding" reads, never the truth scored).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import type { PrimitiveProgramInput } from "../../robots/msgs/primitives";
import { UNDESIRABLE_KINDS, type Rollout, type Undesirable } from "../../robots/msgs/rollout";
import type { SimEvent } from "../../robots/sim/events";
import { BEHAVIOURS, HAND_MADE_BEHAVIOURS, type HandMadeBehaviour } from "../../robots/sim/workbench/behaviours";
import { drawCase, editedProgram, buildProgram, carefulSpec, EDIT_NAMES, EDITS } from "../../robots/sim/workbench/edits";
import type { RecordedRollout } from "../../robots/sim/workbench/recorder";
import { motionChanges } from "./motionChange";
import { buildWorkbenchScene, type WorkbenchSceneName } from "../../robots/sim/workbench/scenes";
import { WorkbenchWorld } from "../../robots/sim/workbench/world";
import { CRITIC_SCORED_FROM } from "../../graphs/behaviorCritic/figures";

export const BENCHMARK_VERSION = "workbench-critic-5";
// Where the generated set's scored range starts is the critic figure's to say; the generator starts there unless told.
export { CRITIC_SCORED_FROM };
export const DEFAULT_BENCHMARK_DIR = "data/critic-benchmark";
export const DEFAULT_GENERATED_DIR = "data/critic-benchmark-generated";
/** Seeds tried per rollout before the case is given up. */
const ATTEMPTS = 6;

export interface CriticCaseRow {
  inputs: { instruction: string; scene: string; positive: string; negatives: [string, string] };
  outputs: { behaviour: string; truth: string[]; events: { kind: Undesirable; object: string; detail: string; cause: string; t: number }[]; narration: string[] };
  metadata: {
    case: string;
    behaviour: string;
    scene: string;
    seed: number;
    version: string;
    edits?: string[];
    jitter?: number[];
    changes?: [string[], string[]];
    twin?: string;
    displaced?: [Record<string, number>, Record<string, number>];
  };
}

export interface GenerateOptions {
  out?: string;
  seed?: number;
  casesPerBehaviour?: number;
  behaviours?: HandMadeBehaviour[];
  log?: (line: string) => void;
}

export interface GenerateReport {
  dir: string;
  cases: CriticCaseRow[];
  /** Rollouts that had to be regenerated (and cases given up), with why. */
  retries: string[];
  dropped: string[];
  rollouts: number;
  seconds: number;
  simulatedSeconds: number;
}

const isUndesirable = (k: string): k is Undesirable => (UNDESIRABLE_KINDS as string[]).includes(k);

interface Run {
  id: string;
  seed: number;
  recorded: RecordedRollout;
  events: SimEvent[];
  success: boolean;
  undesirable: SimEvent[];
  /** Loose supports and things that ended more than a millimetre from where they lay, and how far (m): the simulator's truth. */
  displaced: Record<string, number>;
}

async function runOne(world: WorkbenchWorld, id: string, scene: WorkbenchSceneName, seed: number, make: (w: WorkbenchWorld) => PrimitiveProgramInput): Promise<Run> {
  world.reset({ scenario: scene, seed });
  const result = await world.runProgram(make(world), { id });
  if (!result.recorded) throw new Error(`rollout ${id} was refused: ${String(result.values.message)}`);
  const { startTime, duration } = result.recorded.rollout;
  const events = world.events.since().filter((e) => e.t >= startTime - 1e-9 && e.t <= startTime + duration + 1e-9);
  const success = result.status === "succeeded" && world.evaluate().success;
  const focus = new Set(world.scene.focus);
  const displaced = Object.fromEntries(
    Object.entries(world.displacements())
      .filter(([name, d]) => !focus.has(name) && d.moved > 0.001)
      .map(([name, d]) => [name, d.moved]),
  );
  return { id, seed, recorded: result.recorded, events, success, undesirable: events.filter((e) => isUndesirable(e.kind)), displaced };
}

function writeRollout(dir: string, run: Run): void {
  const rel = (k: number) => `${run.id}/${String(k).padStart(2, "0")}.png`;
  mkdirSync(join(dir, "rollouts", run.id), { recursive: true });
  run.recorded.images.forEach((png, k) => writeFileSync(join(dir, "rollouts", rel(k)), png));
  const rollout: Rollout = { ...run.recorded.rollout, frames: run.recorded.rollout.frames.map((f, k) => ({ ...f, image: rel(k) })) };
  writeFileSync(join(dir, "rollouts", `${run.id}.json`), JSON.stringify(rollout));
  writeFileSync(join(dir, "events", `${run.id}.json`), JSON.stringify(run.events, null, 1));
}

/** The annotation: undesirable events (kind, object) that both negatives logged, as the first one logged them. */
export function commonEvents(first: SimEvent[], second: SimEvent[], start = 0): CriticCaseRow["outputs"]["events"] {
  const key = (e: SimEvent) => `${e.kind}:${e.object ?? ""}`;
  const inB = new Set(second.filter((e) => isUndesirable(e.kind)).map(key));
  const seen = new Set<string>();
  const out: CriticCaseRow["outputs"]["events"] = [];
  for (const e of first) {
    if (!isUndesirable(e.kind) || !inB.has(key(e)) || seen.has(key(e))) continue;
    seen.add(key(e));
    out.push({ kind: e.kind, object: e.object ?? "", detail: e.detail ?? "", cause: e.cause ?? "unknown", t: Math.round((e.t - start) * 1000) / 1000 });
  }
  return out;
}

export async function generateCriticBenchmark(options: GenerateOptions = {}): Promise<GenerateReport> {
  const dir = resolve(options.out ?? DEFAULT_BENCHMARK_DIR);
  const seed = options.seed ?? 0;
  const perBehaviour = options.casesPerBehaviour ?? 5;
  // Always in UNDESIRABLE's order, so the same selection writes the same file whatever order it was named in.
  const behaviours = HAND_MADE_BEHAVIOURS.filter((b) => !options.behaviours || options.behaviours.includes(b));
  const log = options.log ?? (() => {});
  const t0 = performance.now();
  clearOutput(dir);
  const first = BEHAVIOURS[behaviours[0]].scenes[0];
  const world = await WorkbenchWorld.create({ scene: first, seed: 0 });
  const cases: CriticCaseRow[] = [];
  const retries: string[] = [];
  const dropped: string[] = [];
  let rollouts = 0;
  const total = behaviours.length * perBehaviour * 3;
  try {
    for (const [bp, behaviour] of behaviours.entries()) {
      const spec = BEHAVIOURS[behaviour];
      const bi = HAND_MADE_BEHAVIOURS.indexOf(behaviour);
      for (let k = 0; k < perBehaviour; k++) {
        const scene = spec.scenes[k % spec.scenes.length];
        const caseId = `${behaviour}-${String(k).padStart(2, "0")}`;
        // Seeds of one case: the positive on ≡0 (mod 3), the negatives on ≡1 and ≡2, each retry 3 further on.
        const base = seed * 100_000 + bi * 5_000 + k * 50;
        const attempt = async (role: string, offset: number, make: (w: WorkbenchWorld) => PrimitiveProgramInput, ok: (r: Run) => string | null, prefer?: (r: Run) => boolean): Promise<Run | null> => {
          let fallback: Run | null = null;
          for (let a = 0; a < ATTEMPTS; a++) {
            const attemptSeed = base + offset + 3 * a;
            const w0 = performance.now();
            const run = await runOne(world, `${caseId}-${role}`, scene, attemptSeed, make);
            rollouts++;
            const why = ok(run);
            const clean = !why && (!prefer || prefer(run));
            log(`[${(bp * perBehaviour + k) * 3 + ["pos", "neg1", "neg2"].indexOf(role) + 1}/${total}] ${caseId} ${role} (${scene}, seed ${attemptSeed}): ${why ?? (clean ? "ok" : "ok, with other events")} — ${run.recorded.rollout.duration.toFixed(1)} s simulated in ${((performance.now() - w0) / 1000).toFixed(1)} s`);
            if (clean) return run;
            if (!why) fallback ??= run;
            retries.push(`${caseId} ${role} seed ${attemptSeed}: ${why ?? `also ${run.undesirable.filter((e) => e.kind !== behaviour).map((e) => `${e.kind}(${e.object})`).join(", ")}`}`);
          }
          return fallback;
        };
        const goal = (r: Run) => (r.success ? null : "goal not reached");
        const pos = await attempt("pos", 0, (w) => spec.positive(w.scene, k), (r) => goal(r) ?? (r.undesirable.length ? `undesirable events ${r.undesirable.map((e) => `${e.kind}(${e.object})`).join(", ")}` : null));
        const negs: Run[] = [];
        for (const v of [0, 1]) {
          const negative = await attempt(
            `neg${v + 1}`,
            1 + v,
            (w) => spec.negative(w.scene, v, k),
            (r) => goal(r) ?? (r.undesirable.some((e) => e.kind === behaviour) ? null : `no ${behaviour} event`),
            (r) => r.undesirable.every((e) => e.kind === behaviour || spec.entails?.includes(e.kind as Undesirable)),
          );
          if (negative) negs.push(negative);
        }
        if (!pos || negs.length < 2) {
          dropped.push(`${caseId}: ${!pos ? "no clean positive" : "fewer than two negatives"} after ${ATTEMPTS} seeds each`);
          continue;
        }
        // The careful program again on the first negative's very layout: what a rewrite of it is measured against.
        const twin = await runOne(world, `${caseId}-twin`, scene, negs[0].seed, (w) => spec.positive(w.scene, k));
        rollouts++;
        if (!twin.success) retries.push(`${caseId} twin seed ${negs[0].seed}: goal not reached (no twin: refinement not measured)`);
        for (const r of [pos, ...negs, ...(twin.success ? [twin] : [])]) writeRollout(dir, r);
        const events = commonEvents(negs[0].events, negs[1].events, negs[0].recorded.rollout.startTime);
        cases.push({
          inputs: { instruction: pos.recorded.rollout.instruction, scene, positive: pos.id, negatives: [negs[0].id, negs[1].id] },
          outputs: { behaviour, truth: [behaviour, ...(spec.alsoDoes ?? [])], events, narration: negs[0].recorded.rollout.narration.map((n) => `${n.text} (${n.from.toFixed(1)}–${n.to.toFixed(1)} s)`) },
          metadata: {
            case: caseId,
            behaviour,
            scene,
            seed: base,
            version: BENCHMARK_VERSION,
            ...(twin.success ? { twin: twin.id } : {}),
            displaced: [negs[0].displaced, negs[1].displaced],
          },
        });
      }
    }
  } finally {
    await world.close();
  }
  writeCases(dir, cases, { seed, casesPerBehaviour: perBehaviour, behaviours, byBehaviour: Object.fromEntries(behaviours.map((b) => [b, cases.filter((c) => c.outputs.behaviour === b).length])), retries, dropped });
  return { dir, cases, retries, dropped, rollouts, seconds: (performance.now() - t0) / 1000, simulatedSeconds: world.stats.simulated };
}

/** Only what a generator writes is replaced; anything else in the directory is left alone. */
function clearOutput(dir: string): void {
  for (const sub of ["rollouts", "events"]) rmSync(join(dir, sub), { recursive: true, force: true });
  mkdirSync(join(dir, "rollouts"), { recursive: true });
  mkdirSync(join(dir, "events"), { recursive: true });
}

function writeCases(dir: string, cases: CriticCaseRow[], summary: Record<string, unknown>): void {
  writeFileSync(join(dir, "cases.jsonl"), cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  writeFileSync(join(dir, "summary.json"), JSON.stringify({ version: BENCHMARK_VERSION, ...summary, cases: cases.length }, null, 2) + "\n");
}

export interface GeneratedOptions {
  out?: string;
  /** The first case seed: below CRITIC_SCORED_FROM tuning data, from it on the scored range. */
  seed?: number;
  count?: number;
  log?: (line: string) => void;
}

/** Layouts tried per generated case before it is given up. */
const LAYOUT_ATTEMPTS = 4;

/**
 * The generated set: per case seed, a task and one or two edits from the grammar (./edits.ts); the careful program as
 * the clean twin and two edited programs (two magnitudes), the first on the twin's very layout, the second on the next
 * (mirrored) one, where the twin is run too. A case is kept when every rollout reaches the goal and each edited one
 * differs measurably from the twin on its layout (./motionChange.ts); its truth is its edits. No monitor is asked what
 * the rollouts show. Otherwise the next layout is tried.
 */
export async function generateEditedBenchmark(options: GeneratedOptions = {}): Promise<GenerateReport> {
  const dir = resolve(options.out ?? DEFAULT_GENERATED_DIR);
  const from = options.seed ?? CRITIC_SCORED_FROM;
  const count = options.count ?? 100;
  const log = options.log ?? (() => {});
  const t0 = performance.now();
  clearOutput(dir);
  const world = await WorkbenchWorld.create({ scene: "apple_plate", seed: 0 });
  const cases: CriticCaseRow[] = [];
  const retries: string[] = [];
  const dropped: string[] = [];
  let rollouts = 0;
  try {
    for (let k = 0; k < count; k++) {
      const seed = from + k;
      const drawn = drawCase(seed, (name) => buildWorkbenchScene(name, 0));
      const caseId = `gen-${seed}`;
      let kept: CriticCaseRow | null = null;
      for (let a = 0; a < LAYOUT_ATTEMPTS && !kept; a++) {
        const layout = seed * 16 + 2 * a;
        const w0 = performance.now();
        const careful = (w: WorkbenchWorld) => buildProgram(w.scene, carefulSpec(w.scene));
        const pos = await runOne(world, `${caseId}-pos`, drawn.scene, layout, careful);
        const neg1 = await runOne(world, `${caseId}-neg1`, drawn.scene, layout, (w) => editedProgram(w.scene, drawn, 0));
        const twin2 = await runOne(world, `${caseId}-twin2`, drawn.scene, layout + 1, careful);
        const neg2 = await runOne(world, `${caseId}-neg2`, drawn.scene, layout + 1, (w) => editedProgram(w.scene, drawn, 1));
        rollouts += 4;
        const changes: [string[], string[]] = [motionChanges(neg1.recorded.rollout, pos.recorded.rollout), motionChanges(neg2.recorded.rollout, twin2.recorded.rollout)];
        const why = [
          !pos.success || !twin2.success ? "the twin missed the goal" : null,
          ...[neg1, neg2].map((n, i) => (!n.success ? `edited ${i + 1} missed the goal` : changes[i].length === 0 ? `edited ${i + 1} changed nothing measurable` : null)),
        ].filter(Boolean);
        log(`[${k + 1}/${count}] ${caseId} ${drawn.scene} ${drawn.edits.join("+")} (layout ${layout}): ${why.length ? why.join("; ") : "ok"} (${((performance.now() - w0) / 1000).toFixed(1)} s)`);
        if (why.length) {
          retries.push(`${caseId} layout ${layout}: ${why.join("; ")}`);
          continue;
        }
        for (const r of [pos, neg1, neg2]) writeRollout(dir, r);
        kept = {
          inputs: { instruction: pos.recorded.rollout.instruction, scene: drawn.scene, positive: pos.id, negatives: [neg1.id, neg2.id] },
          outputs: {
            behaviour: drawn.edits[0],
            truth: drawn.edits,
            events: commonEvents(neg1.events, neg2.events, neg1.recorded.rollout.startTime),
            narration: neg1.recorded.rollout.narration.map((n) => `${n.text} (${n.from.toFixed(1)}–${n.to.toFixed(1)} s)`),
          },
          metadata: {
            case: caseId,
            behaviour: drawn.edits[0],
            scene: drawn.scene,
            seed,
            version: BENCHMARK_VERSION,
            edits: drawn.edits,
            jitter: drawn.jitter,
            changes,
            twin: pos.id,
            displaced: [neg1.displaced, neg2.displaced],
          },
        };
      }
      if (kept) cases.push(kept);
      else dropped.push(`${caseId} (${drawn.scene}, ${drawn.edits.join("+")}): no layout of ${LAYOUT_ATTEMPTS} gave twins and edited rollouts that reach the goal with the edit changing the motion`);
    }
  } finally {
    await world.close();
  }
  const byEdit: Record<string, number> = {};
  for (const c of cases) for (const e of c.metadata.edits ?? []) byEdit[e] = (byEdit[e] ?? 0) + 1;
  writeCases(dir, cases, { generated: true, seed: from, count, scored: from >= CRITIC_SCORED_FROM, byEdit, retries, dropped });
  return { dir, cases, retries, dropped, rollouts, seconds: (performance.now() - t0) / 1000, simulatedSeconds: world.stats.simulated };
}

const HELP = `usage: npm run make:critic-benchmark -- [--out DIR] [--seed N] [--cases-per-behaviour K] [--behaviours a,b]
       npm run make:critic-benchmark -- --generated [--out DIR] [--seed S] [--count N]

Generates the behaviour-critic benchmark from the workbench simulator (in process): per case a positive rollout and
two negatives showing undesirable behaviour, with key frames, detection tracks, narrations and event logs.

The hand-made set (default): for each of the nine behaviours it was built from, cases of one scripted program each.
  --out DIR                  output directory (default ${DEFAULT_BENCHMARK_DIR})
  --seed N                   layout seed; the same seed writes the same cases.jsonl (default 0)
  --cases-per-behaviour K    cases per behaviour (default 5)
  --behaviours a,b           only these (default all: ${HAND_MADE_BEHAVIOURS.join(", ")})

The generated set (--generated): per case seed a task and one or two edits of its careful program, the careful
program as the clean twin; a case's truth is its edits, kept when each edited rollout changes the motion measurably
against its twin (the edits are listed below).
  --out DIR                  output directory (default ${DEFAULT_GENERATED_DIR})
  --seed S                   first case seed (default ${CRITIC_SCORED_FROM}); seeds below ${CRITIC_SCORED_FROM} are tuning data,
                             looked at while improving the critic; ${CRITIC_SCORED_FROM} and up are scored, run once
  --count N                  cases (default 100)

The edits of the generated set:
${EDIT_NAMES.map((e) => `  ${e.padEnd(25)}  ${EDITS[e].does}`).join("\n")}
`;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" },
      seed: { type: "string" },
      "cases-per-behaviour": { type: "string" },
      behaviours: { type: "string" },
      generated: { type: "boolean", default: false },
      count: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const int = (name: string, text: string, min: number, max: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(text)}`);
    return value;
  };
  const log = (line: string) => process.stdout.write(`${line}\n`);
  let report: GenerateReport;
  if (values.generated) {
    for (const flag of ["cases-per-behaviour", "behaviours"] as const) if (values[flag] !== undefined) throw new Error(`--${flag} is for the hand-made set; the generated set takes --seed and --count`);
    const seed = int("seed", values.seed ?? String(CRITIC_SCORED_FROM), 0, 1_000_000);
    log(`generated cases from seed ${seed} (${seed >= CRITIC_SCORED_FROM ? "the scored range" : `the tuning range: seeds below ${CRITIC_SCORED_FROM} are looked at while tuning`})`);
    report = await generateEditedBenchmark({ out: values.out, seed, count: int("count", values.count ?? "100", 1, 2000), log });
  } else {
    if (values.count !== undefined) throw new Error("--count is for the generated set (--generated); the hand-made set takes --cases-per-behaviour");
    const behaviours = values.behaviours?.split(",").map((b) => b.trim()).filter(Boolean);
    const unknown = behaviours?.filter((b) => !(HAND_MADE_BEHAVIOURS as readonly string[]).includes(b)) ?? [];
    if (unknown.length) throw new Error(`unknown behaviour(s) ${unknown.join(", ")}; the hand-made set has: ${HAND_MADE_BEHAVIOURS.join(", ")}`);
    report = await generateCriticBenchmark({
      out: values.out,
      seed: int("seed", values.seed ?? "0", 0, 10_000),
      casesPerBehaviour: int("cases-per-behaviour", values["cases-per-behaviour"] ?? "5", 1, 40),
      behaviours: behaviours as HandMadeBehaviour[] | undefined,
      log,
    });
  }
  const kinds = new Set(report.cases.map((c) => c.outputs.behaviour));
  process.stdout.write(
    `\n${report.cases.length} cases over ${kinds.size} behaviours (${report.rollouts} rollouts run, ${report.retries.length} regenerated, ${report.dropped.length} cases given up) in ${report.seconds.toFixed(1)} s; ` +
      `${report.simulatedSeconds.toFixed(0)} s simulated (${(report.simulatedSeconds / report.seconds).toFixed(1)}x real time)\nwritten to ${report.dir}\n`,
  );
  for (const d of report.dropped) process.stdout.write(`given up: ${d}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`make:critic-benchmark: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
