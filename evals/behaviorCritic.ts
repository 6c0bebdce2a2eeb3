/**
 * The behaviour-critic benchmark's experiment (the paper's §5): every rollout of every case critiqued by the
 * `behaviorCritic` graph without grounding, with the detector's grounding and with perfect grounding (the event log);
 * preferences over positive–negative, negative–negative and positive–positive pairs; scored against the rollouts' own
 * event logs. Tables 1–4 and the error taxonomy in the paper's layout.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { behaviorCritic } from "../methods/behaviorCritic";
import { openRun } from "../nodes/run";
import { totalUsage } from "../models";
import type { BehaviourCritique, ClaimedEvent, Preference } from "../methods/behaviorCritic/schemas";
import { claimFound } from "../methods/behaviorCritic/nodes/ground";
import { readRollout, seenFrame } from "../methods/behaviorCritic/nodes/rollouts";
import { observedEvents } from "../methods/behaviorCritic/evidence";
import type { CriticStateType } from "../methods/behaviorCritic/state";
import { UNDESIRABLE_KINDS } from "../robots/msgs/rollout";
import type { SimEvent } from "../robots/sim/events";
import { loadCriticBenchmark } from "./datasets/behaviorCritic";
import { FIRST_SCORED_SEED } from "../robots/sim/generated";
import { refineReport, type RefineRun } from "./behaviorCriticRefine";
import { truthOf } from "./criticTruth";
import { checkedReport, REPORT_FORMAT, reportHtml, tablesOfMarkdown } from "./reportFiles";

export type CriticSetting = "raw" | "detector" | "events";
export const CRITIC_SETTINGS_RUN: CriticSetting[] = ["raw", "detector", "events"];

export interface ScoredCritique {
  rollout: string;
  case: string;
  behaviour: string;
  role: "positive" | "negative";
  seed: number;
  setting: CriticSetting;
  critique: BehaviourCritique;
  truth: { kind: string; object: string }[];
  /** Per truth event (in order): whether some claim names it. */
  found: boolean[];
  /** The program edits of a generated case (the generated benchmark's grammar). */
  edits?: string[];
  /** Truth events some claim names (kind and thing). */
  recalled: number;
  /** Claims that name a true event with its cause. */
  precise: number;
  /** Claims naming no event that happened (visual grounding errors). */
  hallucinated: number;
  /** Claims naming a true event with the wrong cause. */
  wrongCause: number;
  calls: number;
}

export interface ScoredPreference {
  pair: "pos-neg" | "neg-pos" | "neg-neg" | "pos-pos";
  case: string;
  seed: number;
  preference: Preference;
  correct: boolean;
  /** The negative's events as listed in the comparison (pos–neg pairs), scored like a critique. */
  negative?: { truth: number; recalled: number; claims: number; precise: number };
}

export { truthOf };

/**
 * Scores a list of claims against the events that happened: a claim is precise when it names a logged event and the
 * cause the world's monitor measured for it (an event whose cause it could not measure has no precise claim).
 */
export function scoreClaims(claims: ClaimedEvent[], truth: SimEvent[]) {
  const found = truth.map((t) => claims.some((c) => claimFound(c, [t])));
  const recalled = found.filter(Boolean).length;
  let precise = 0, hallucinated = 0, wrongCause = 0;
  for (const c of claims) {
    const hit = truth.filter((t) => claimFound(c, [t]));
    if (hit.length === 0) hallucinated++;
    else if (hit.some((t) => t.cause === c.cause)) precise++;
    else wrongCause++;
  }
  return { found, recalled, precise, hallucinated, wrongCause };
}

export interface CriticExperimentOptions {
  dir: string;
  out: string;
  seeds: number;
  noise: number;
  /** Only the first N cases. */
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface CriticResults {
  meta: { dir: string; cases: number; behaviours: string[]; seeds: number; noise: number; durationSeconds: number };
  critiques: ScoredCritique[];
  preferences: ScoredPreference[];
  /** The detector grounding module alone against the event logs: does it find what happened, and only that? */
  detector: { truth: number; found: number; claimed: number; correct: number };
}

const graph = behaviorCritic.compile();

async function runJob(input: { goal: string; job: "critique" | "prefer"; rollouts: string[] }, o: { seed: number; noise: number; variant: string; grounding: string; dataDir: string }): Promise<CriticStateType> {
  const run = openRun(behaviorCritic.runtime, { ...o, backend: "symbolic" });
  try {
    return (await graph.invoke(input, { context: run.context })) as CriticStateType;
  } finally {
    await run.close();
  }
}

export async function runCriticExperiment(o: CriticExperimentOptions): Promise<CriticResults> {
  const t0 = Date.now();
  const bench = loadCriticBenchmark(o.dir);
  const cases = bench.cases.slice(0, o.limit ?? bench.cases.length);
  const dataDir = join(o.out, "data");
  const logOf = (id: string) => JSON.parse(readFileSync(bench.eventsPath(id), "utf8")) as SimEvent[];
  const critiques: ScoredCritique[] = [];
  const preferences: ScoredPreference[] = [];
  const total = o.seeds * cases.length;
  let done = 0;
  for (let seed = 0; seed < o.seeds; seed++) {
    for (const c of cases) {
      const roles = [
        { id: c.inputs.positive, role: "positive" as const },
        ...c.inputs.negatives.map((id) => ({ id, role: "negative" as const })),
      ];
      for (const r of roles) {
        const truth = truthOf(logOf(r.id));
        for (const setting of CRITIC_SETTINGS_RUN) {
          const s = await runJob(
            { goal: c.inputs.instruction, job: "critique", rollouts: [bench.rolloutPath(r.id)] },
            { seed, noise: o.noise, variant: setting === "raw" ? "no-grounding" : "full", grounding: setting === "raw" ? "detector" : setting, dataDir },
          );
          const critique = s.attempts[0].refined!;
          critiques.push({
            rollout: r.id, case: c.metadata.case, behaviour: c.outputs.behaviour, role: r.role, seed, setting, critique,
            ...(c.metadata.edits ? { edits: c.metadata.edits } : {}),
            truth: truth.map((t) => ({ kind: t.kind, object: t.object ?? "" })),
            ...scoreClaims(critique.events, truth),
            calls: totalUsage(s.usage).calls,
          });
        }
      }
      const [n1, n2] = c.inputs.negatives;
      const pairs: { pair: ScoredPreference["pair"]; ids: [string, string]; want: Preference["better"] }[] = [
        { pair: "pos-neg", ids: [c.inputs.positive, n1], want: "first" },
        { pair: "neg-pos", ids: [n2, c.inputs.positive], want: "second" },
        { pair: "neg-neg", ids: [n1, n2], want: "equal" },
      ];
      // Positive–positive: the next case of the same task (scene), so the pair is two good videos of one task.
      const sibling = cases.find((x) => x !== c && x.inputs.scene === c.inputs.scene && x.inputs.positive !== c.inputs.positive);
      if (sibling) pairs.push({ pair: "pos-pos", ids: [c.inputs.positive, sibling.inputs.positive], want: "equal" });
      for (const p of pairs) {
        const s = await runJob({ goal: c.inputs.instruction, job: "prefer", rollouts: p.ids.map((id) => bench.rolloutPath(id)) }, { seed, noise: o.noise, variant: "full", grounding: "detector", dataDir });
        const pref = s.preference!;
        const scored: ScoredPreference = { pair: p.pair, case: c.metadata.case, seed, preference: pref, correct: pref.better === p.want };
        if (p.pair === "pos-neg" || p.pair === "neg-pos") {
          const negFirst = p.pair === "neg-pos";
          const claims = negFirst ? pref.firstEvents : pref.secondEvents;
          const truth = truthOf(logOf(negFirst ? p.ids[0] : p.ids[1]));
          const sc = scoreClaims(claims, truth);
          scored.negative = { truth: truth.length, recalled: sc.recalled, claims: claims.length, precise: sc.precise };
        }
        preferences.push(scored);
      }
      done++;
      o.onProgress?.(done, total);
    }
  }
  // The detector module on its own: every rollout's dense track read without noise, against its event log.
  const detector = { truth: 0, found: 0, claimed: 0, correct: 0 };
  for (const c of cases) {
    for (const id of [c.inputs.positive, ...c.inputs.negatives]) {
      const r = readRollout(bench.rolloutPath(id));
      const seen = observedEvents(r.instruction, r.track.map((x) => seenFrame(x.t, x.detections)));
      const truth = truthOf(logOf(id));
      detector.truth += truth.length;
      detector.found += truth.filter((t) => seen.some((e) => claimFound(e, [t]))).length;
      detector.claimed += seen.length;
      detector.correct += seen.filter((e) => truth.some((t) => claimFound(e, [t]))).length;
    }
  }
  const results: CriticResults = {
    // Relative to the experiment's folder: the report names no path of this machine.
    meta: { dir: relative(o.out, o.dir) || ".", cases: cases.length, behaviours: [...new Set(cases.map((c) => c.outputs.behaviour))], seeds: o.seeds, noise: o.noise, durationSeconds: (Date.now() - t0) / 1000 },
    critiques,
    preferences,
    detector,
  };
  return results;
}

/**
 * The critic experiment's report.json (checked against the critic's schema: the results, the refinement loop's runs
 * and Tables 1–4 as data), report.md and report.html in its folder.
 */
export function writeCriticReport(out: string, name: string, results: CriticResults, refinement: RefineRun[] | null, settings: Record<string, unknown>): { json: string; md: string; html: string; markdown: string } {
  mkdirSync(out, { recursive: true });
  const markdown = criticReport(results, refinement ? refineReport(refinement) : undefined);
  const report = checkedReport({ format: REPORT_FORMAT, method: "behaviorCritic" as const, name, ...results, settings, refinement, tables: tablesOfMarkdown("behaviorCritic", markdown) });
  const files = { json: join(out, "report.json"), md: join(out, "report.md"), html: join(out, "report.html") };
  writeFileSync(files.json, JSON.stringify(report, null, 1));
  writeFileSync(files.md, markdown);
  const m = results.meta;
  writeFileSync(
    files.html,
    reportHtml({
      title: `Behaviour critics — ${name}`,
      facts: [`${m.cases} cases, ${m.behaviours.length} behaviours (${m.behaviours.join(", ")}), ${m.seeds} seed(s), noise ${m.noise}; benchmark ${m.dir} (relative to this folder); run time ${m.durationSeconds.toFixed(0)} s.`, `The detector grounding module alone finds ${results.detector.found} of the ${results.detector.truth} events that happened; ${results.detector.correct} of the ${results.detector.claimed} it reports happened.`],
      tables: report.tables,
    }),
  );
  return { ...files, markdown };
}

/** A critic report.json as the figures read it: the results and the refinement loop's runs (null: not run). */
export function readCriticReport(file: string): CriticResults & { refinement: RefineRun[] | null } {
  return JSON.parse(readFileSync(file, "utf8")) as CriticResults & { refinement: RefineRun[] | null };
}

/** A scored figure's results, refused if any case is not a generated case from the scored range. */
export function scoredCasesOnly(r: CriticResults): CriticResults {
  const outside = [...new Set(r.critiques.map((c) => c.case))].filter((c) => {
    const m = /^gen-(\d+)$/.exec(c);
    return !m || Number(m[1]) < FIRST_SCORED_SEED;
  });
  if (outside.length) throw new Error(`the scored figure reads cases outside the scored range (generated seeds from ${FIRST_SCORED_SEED}): ${outside.slice(0, 5).join(", ")}`);
  return r;
}

/** The critic alone on a run, in brief: Table 1's accuracies, Table 2's recall and precision, Table 4's preference accuracy. */
export function criticScores(r: CriticResults) {
  const raw = r.critiques.filter((c) => c.setting === "raw");
  const neg = raw.filter((c) => c.role === "negative"), pos = raw.filter((c) => c.role === "positive");
  const grounded = r.critiques.filter((c) => c.setting === "detector" && c.role === "negative");
  const sum = (xs: ScoredCritique[], f: (x: ScoredCritique) => number) => xs.reduce((n, x) => n + f(x), 0);
  const share = (a: number, b: number) => (b ? a / b : 0);
  const prefer = Object.fromEntries((["pos-neg", "neg-pos", "neg-neg", "pos-pos"] as const).map((k) => {
    const ps = r.preferences.filter((p) => p.pair === k);
    return [k, share(ps.filter((p) => p.correct).length, ps.length)];
  })) as Record<ScoredPreference["pair"], number>;
  return {
    clean: share(pos.filter((x) => !x.critique.undesirable).length, pos.length),
    flagged: share(neg.filter((x) => x.critique.undesirable).length, neg.length),
    recall: share(sum(neg, (x) => x.recalled), sum(neg, (x) => x.truth.length)),
    precision: share(sum(neg, (x) => x.precise), sum(neg, (x) => x.critique.events.length)),
    groundedPrecision: share(sum(grounded, (x) => x.precise), sum(grounded, (x) => x.critique.events.length)),
    prefer,
  };
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "—");

/** Generated cases: recall and precision of the critic alone on the negatives of each program edit (a case counts for each of its edits). */
function editTable(raw: ScoredCritique[]): string[] {
  const edits = [...new Set(raw.flatMap((x) => x.edits ?? []))].sort();
  if (!edits.length) return [];
  return [
    "",
    "## Per program edit (critic alone, negatives)",
    "",
    "| edit | negatives | recall | precision | flagged (negative) | clean twin flagged |",
    "|---|---|---|---|---|---|",
    ...edits.map((e) => {
      const xs = raw.filter((x) => x.edits?.includes(e));
      const neg = xs.filter((x) => x.role === "negative"), pos = xs.filter((x) => x.role === "positive");
      const sum = (ys: ScoredCritique[], f: (y: ScoredCritique) => number) => ys.reduce((n, y) => n + f(y), 0);
      return `| ${e.replace(/_/g, " ")} | ${neg.length} | ${pct(sum(neg, (x) => x.recalled), sum(neg, (x) => x.truth.length))} | ${pct(sum(neg, (x) => x.precise), sum(neg, (x) => x.critique.events.length))} | ${pct(neg.filter((x) => x.critique.undesirable).length, neg.length)} | ${pct(pos.filter((x) => x.critique.undesirable).length, pos.length)} |`;
    }),
  ];
}

/** The paper's Tables 1–4 and its error taxonomy (Fig. 4), from our runs. */
export function criticReport(r: CriticResults, refine?: string, opts: { timing: boolean } = { timing: true }): string {
  const rows = (setting: CriticSetting) => r.critiques.filter((c) => c.setting === setting);
  const NAMES: Record<CriticSetting, string> = { raw: "critic", detector: "critic + detector grounding", events: "critic + perfect grounding (augmented)" };
  const sum = (xs: ScoredCritique[], f: (x: ScoredCritique) => number) => xs.reduce((n, x) => n + f(x), 0);
  const lines = [
    `# Behaviour critics — ${r.meta.cases} cases, ${r.meta.behaviours.length} behaviours, ${r.meta.seeds} seed(s), noise ${r.meta.noise}`,
    "",
    // The benchmark's place and the run time are this machine's: the published form (npm run reproduce) leaves them out.
    opts.timing ? `Benchmark: ${r.meta.dir} (relative to this report's folder). Behaviours: ${r.meta.behaviours.join(", ")}. Run time ${r.meta.durationSeconds.toFixed(0)} s.` : `Behaviours: ${r.meta.behaviours.join(", ")}.`,
    "",
    "## Table 1 — accuracy on positive and negative samples (is anything undesirable?)",
    "",
    "| critic | positive | negative |",
    "|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((s) => {
      const xs = rows(s);
      const pos = xs.filter((x) => x.role === "positive"), neg = xs.filter((x) => x.role === "negative");
      return `| ${NAMES[s]} | ${pct(pos.filter((x) => !x.critique.undesirable).length, pos.length)} | ${pct(neg.filter((x) => x.critique.undesirable).length, neg.length)} |`;
    }),
    "",
    "## Table 2 — recall and precision on negative samples",
    "",
    "| critic | recall | precision | claims | hallucinated | wrong cause |",
    "|---|---|---|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((s) => {
      const neg = rows(s).filter((x) => x.role === "negative");
      const claims = sum(neg, (x) => x.critique.events.length);
      return `| ${NAMES[s]} | ${pct(sum(neg, (x) => x.recalled), sum(neg, (x) => x.truth.length))} | ${pct(sum(neg, (x) => x.precise), claims)} | ${claims} | ${sum(neg, (x) => x.hallucinated)} | ${sum(neg, (x) => x.wrongCause)} |`;
    }),
    "",
    "Error taxonomy (Fig. 4): of every claim on negative and positive samples, the share that names no event that happened",
    "(visual grounding error) and the share that names a real event with the wrong cause.",
    "",
    "| critic | claims | visual grounding errors | wrong cause | precise |",
    "|---|---|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((s) => {
      const xs = rows(s);
      const claims = sum(xs, (x) => x.critique.events.length);
      return `| ${NAMES[s]} | ${claims} | ${pct(sum(xs, (x) => x.hallucinated), claims)} | ${pct(sum(xs, (x) => x.wrongCause), claims)} | ${pct(sum(xs, (x) => x.precise), claims)} |`;
    }),
    "",
    "## Table 3 — critique recall and precision when contrasting a positive with a negative",
    "",
    "| pairs | recall | precision |",
    "|---|---|---|",
    (() => {
      const ps = r.preferences.filter((p) => p.negative);
      const s = (f: (n: NonNullable<ScoredPreference["negative"]>) => number) => ps.reduce((n, p) => n + f(p.negative!), 0);
      return `| positive–negative (both orders, ${ps.length}) | ${pct(s((n) => n.recalled), s((n) => n.truth))} | ${pct(s((n) => n.precise), s((n) => n.claims))} |`;
    })(),
    "",
    "## Table 4 — preference accuracy",
    "",
    "| pair | accuracy | pairs |",
    "|---|---|---|",
    ...(["pos-neg", "neg-pos", "neg-neg", "pos-pos"] as const).map((k) => {
      const ps = r.preferences.filter((p) => p.pair === k);
      return `| ${k.replace("-", "–")} | ${pct(ps.filter((p) => p.correct).length, ps.length)} | ${ps.length} |`;
    }),
    "",
    "## The detector grounding module against the event logs",
    "",
    `Reading every rollout's whole detection track (every 0.1 s): it finds ${pct(r.detector.found, r.detector.truth)} of the ${r.detector.truth} events that happened, and ${pct(r.detector.correct, r.detector.claimed)} of the ${r.detector.claimed} events it reports happened.`,
    "",
    "## Per kind of event (critic, negatives): recall",
    "",
    "Of the events of each kind that happened in negative rollouts, the share some claim names.",
    "",
    "| event | events | critic | + detector | + perfect |",
    "|---|---|---|---|---|",
    ...UNDESIRABLE_KINDS.flatMap((k) => {
      const cell = (s: CriticSetting) => {
        const pairs = rows(s).filter((x) => x.role === "negative").flatMap((x) => x.truth.map((t, i) => ({ t, found: x.found[i] })));
        const ofKind = pairs.filter((p) => p.t.kind === k);
        return { n: ofKind.length, text: pct(ofKind.filter((p) => p.found).length, ofKind.length) };
      };
      const raw = cell("raw");
      return raw.n ? [`| ${k} | ${raw.n / r.meta.seeds} | ${raw.text} | ${cell("detector").text} | ${cell("events").text} |`] : [];
    }),
    ...editTable(rows("raw")),
  ];
  if (refine) lines.push("", refine);
  return lines.join("\n") + "\n";
}

