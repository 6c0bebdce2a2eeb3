/**
 * The behaviour-critic benchmark's experiment (the paper's §5): every rollout of every case critiqued by the
 * `behaviorCritic` graph without grounding, with the detector's grounding and with perfect grounding (the event log);
 * preferences over positive–negative, negative–negative and positive–positive pairs. Scored against what the case's
 * author did — the hand-made negative's behaviour, or the generated negatives' edits (a positive: nothing) — with the
 * critic's open answers read by the frozen matcher of ./behaviourWords.ts. Tables 1–4 and the error taxonomy in the
 * paper's layout, and recall and precision on the families the critic's author looked at and on those held back.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { behaviorCritic } from "../graphs/behaviorCritic";
import { openRun } from "../runtime/run";
import { totalUsage } from "../models";
import type { BehaviourCritique, ClaimedEvent, Preference } from "../graphs/behaviorCritic/schemas";
import { claimFound } from "../graphs/behaviorCritic/nodes/ground";
import { causeFits, familiesNamed, type CaseThings } from "./behaviourWords";
import { HELD_BACK } from "../robots/sim/workbench/edits";
import { readRollout, seenFrame } from "../graphs/behaviorCritic/nodes/rollouts";
import { observedEvents } from "../graphs/behaviorCritic/evidence";
import type { CriticStateType } from "../graphs/behaviorCritic/state";
import type { SimEvent } from "../robots/sim/events";
import { loadCriticBenchmark } from "./datasets/behaviorCritic";
import { CRITIC_SCORED_FROM } from "./datasets/behaviorCriticBenchmark";
import { refineReport, type RefineRun } from "./behaviorCriticRefine";
import { caseThings, truthOf } from "./criticTruth";
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
  /** What the author did to this rollout: behaviour families (a positive: none). */
  truth: string[];
  /** Per truth family (in order): whether some claim names it. */
  found: boolean[];
  /** The program edits of a generated case (the generated benchmark's grammar). */
  edits?: string[];
  /** Truth families some claim names. */
  recalled: number;
  /** Claims that name a true family with a cause that fits it. */
  precise: number;
  /** Claims naming none of the true families (visual grounding errors). */
  hallucinated: number;
  /** Claims naming a true family with a cause that does not fit it. */
  wrongCause: number;
  /** What each claim naming no family at all said (for a person to read). */
  unmatched: string[];
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
 * The sha256 of the matcher that reads the critic's claims (./behaviourWords.ts, its bytes as they are on disk: the
 * hash docs/behavior-critic.md records and a test holds it to). Reports print it, so a figure says which reader made it.
 */
export const matcherHash = () =>
  createHash("sha256")
    .update(readFileSync(new URL("./behaviourWords.ts", import.meta.url)))
    .digest("hex");

/**
 * Scores a list of claims against what the author did (behaviour families): a claim is precise when its words name a
 * true family (its thing, by the case's names in `things`, and its quantity) and the cause it gives fits that family;
 * a claim naming none of them is a visual grounding error.
 */
export function scoreClaims(claims: ClaimedEvent[], truth: string[], things: CaseThings = {}) {
  const named = claims.map((c) => familiesNamed(c, things));
  const found = truth.map((f) => named.some((n) => n.includes(f)));
  const recalled = found.filter(Boolean).length;
  let precise = 0,
    hallucinated = 0,
    wrongCause = 0;
  claims.forEach((claim, i) => {
    const hit = truth.filter((f) => named[i].includes(f));
    if (hit.length === 0) hallucinated++;
    else if (hit.some((f) => causeFits(claim, f))) precise++;
    else wrongCause++;
  });
  const unmatched = claims
    .filter((_, i) => named[i].length === 0)
    .map((c) => `${c.kind ? `${c.kind}: ` : ""}${c.what}`);
  return { found, recalled, precise, hallucinated, wrongCause, unmatched };
}

/** What the author did to a case's rollout: the negatives' families, nothing to the positive. */
const truthFor = (criticCase: { outputs: { truth: string[] } }, role: "positive" | "negative") =>
  role === "negative" ? criticCase.outputs.truth : [];

/** Whether a family was held back from the critic's author (robots/sim/workbench/edits.ts HELD_BACK). */
export const isHeldBack = (family: string) => (HELD_BACK as readonly string[]).includes(family);

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
  meta: {
    dir: string;
    cases: number;
    behaviours: string[];
    seeds: number;
    noise: number;
    durationSeconds: number;
    /** The sha256 of the matcher that scored the claims (./behaviourWords.ts when the run was made). */
    matcher?: string;
  };
  critiques: ScoredCritique[];
  preferences: ScoredPreference[];
  /** The detector grounding module alone against the event logs: does it find what happened, and only that? */
  detector: { truth: number; found: number; claimed: number; correct: number };
}

const graph = behaviorCritic.compile();

async function runJob(
  input: { goal: string; job: "critique" | "prefer"; rollouts: string[] },
  settings: { seed: number; noise: number; variant: string; grounding: string; dataDir: string },
): Promise<CriticStateType> {
  const run = openRun(behaviorCritic.runtime, { ...settings, backend: "symbolic" });
  try {
    return (await graph.invoke(input, { context: run.context })) as CriticStateType;
  } finally {
    await run.close();
  }
}

export async function runCriticExperiment(options: CriticExperimentOptions): Promise<CriticResults> {
  const t0 = Date.now();
  const bench = loadCriticBenchmark(options.dir);
  const cases = bench.cases.slice(0, options.limit ?? bench.cases.length);
  const dataDir = join(options.out, "data");
  const logOf = (id: string) => JSON.parse(readFileSync(bench.eventsPath(id), "utf8")) as SimEvent[];
  const critiques: ScoredCritique[] = [];
  const preferences: ScoredPreference[] = [];
  const total = options.seeds * cases.length;
  let done = 0;
  for (let seed = 0; seed < options.seeds; seed++) {
    for (const c of cases) {
      const things = caseThings(c.inputs.scene);
      const roles = [
        { id: c.inputs.positive, role: "positive" as const },
        ...c.inputs.negatives.map((id) => ({ id, role: "negative" as const })),
      ];
      for (const r of roles) {
        const truth = truthFor(c, r.role);
        for (const setting of CRITIC_SETTINGS_RUN) {
          const state = await runJob(
            { goal: c.inputs.instruction, job: "critique", rollouts: [bench.rolloutPath(r.id)] },
            {
              seed,
              noise: options.noise,
              variant: setting === "raw" ? "no-grounding" : "full",
              grounding: setting === "raw" ? "detector" : setting,
              dataDir,
            },
          );
          const critique = state.attempts[0].refined!;
          critiques.push({
            rollout: r.id,
            case: c.metadata.case,
            behaviour: c.outputs.behaviour,
            role: r.role,
            seed,
            setting,
            critique,
            ...(c.metadata.edits ? { edits: c.metadata.edits } : {}),
            truth,
            ...scoreClaims(critique.events, truth, things),
            calls: totalUsage(state.usage).calls,
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
      const sibling = cases.find(
        (x) => x !== c && x.inputs.scene === c.inputs.scene && x.inputs.positive !== c.inputs.positive,
      );
      if (sibling) pairs.push({ pair: "pos-pos", ids: [c.inputs.positive, sibling.inputs.positive], want: "equal" });
      for (const p of pairs) {
        const state = await runJob(
          { goal: c.inputs.instruction, job: "prefer", rollouts: p.ids.map((id) => bench.rolloutPath(id)) },
          { seed, noise: options.noise, variant: "full", grounding: "detector", dataDir },
        );
        const pref = state.preference!;
        const scored: ScoredPreference = {
          pair: p.pair,
          case: c.metadata.case,
          seed,
          preference: pref,
          correct: pref.better === p.want,
        };
        if (p.pair === "pos-neg" || p.pair === "neg-pos") {
          const negFirst = p.pair === "neg-pos";
          const claims = negFirst ? pref.firstEvents : pref.secondEvents;
          const truth = truthFor(c, "negative");
          const sc = scoreClaims(claims, truth, things);
          scored.negative = { truth: truth.length, recalled: sc.recalled, claims: claims.length, precise: sc.precise };
        }
        preferences.push(scored);
      }
      done++;
      options.onProgress?.(done, total);
    }
  }
  // The detector module on its own: every rollout's dense track read without noise, against its event log.
  const detector = { truth: 0, found: 0, claimed: 0, correct: 0 };
  for (const c of cases) {
    for (const id of [c.inputs.positive, ...c.inputs.negatives]) {
      const rollout = readRollout(bench.rolloutPath(id));
      const seen = observedEvents(
        rollout.instruction,
        rollout.track.map((x) => seenFrame(x.t, x.detections)),
      );
      const truth = truthOf(logOf(id));
      detector.truth += truth.length;
      detector.found += truth.filter((t) => seen.some((e) => claimFound(e, [t]))).length;
      detector.claimed += seen.length;
      detector.correct += seen.filter((e) => truth.some((t) => claimFound(e, [t]))).length;
    }
  }
  const results: CriticResults = {
    // Relative to the experiment's folder: the report names no path of this machine.
    meta: {
      dir: relative(options.out, options.dir) || ".",
      cases: cases.length,
      behaviours: [...new Set(cases.map((c) => c.outputs.behaviour))],
      seeds: options.seeds,
      noise: options.noise,
      durationSeconds: (Date.now() - t0) / 1000,
      matcher: matcherHash(),
    },
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
export function writeCriticReport(
  out: string,
  name: string,
  results: CriticResults,
  refinement: RefineRun[] | null,
  settings: Record<string, unknown>,
): { json: string; md: string; html: string; markdown: string } {
  mkdirSync(out, { recursive: true });
  const markdown = criticReport(results, refinement ? refineReport(refinement) : undefined);
  const report = checkedReport({
    format: REPORT_FORMAT,
    method: "behaviorCritic" as const,
    name,
    ...results,
    settings,
    refinement,
    tables: tablesOfMarkdown("behaviorCritic", markdown),
  });
  const files = { json: join(out, "report.json"), md: join(out, "report.md"), html: join(out, "report.html") };
  writeFileSync(files.json, JSON.stringify(report, null, 1));
  writeFileSync(files.md, markdown);
  const meta = results.meta;
  writeFileSync(
    files.html,
    reportHtml({
      title: `Behaviour critics — ${name}`,
      facts: [
        `${meta.cases} cases, ${meta.behaviours.length} behaviours (${meta.behaviours.join(", ")}), ${meta.seeds} seed(s), noise ${meta.noise}; benchmark ${meta.dir} (relative to this folder); run time ${meta.durationSeconds.toFixed(0)} s.`,
        `The detector grounding module alone finds ${results.detector.found} of the ${results.detector.truth} events that happened; ${results.detector.correct} of the ${results.detector.claimed} it reports happened.`,
      ],
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
export function scoredCasesOnly(results: CriticResults): CriticResults {
  const outside = [...new Set(results.critiques.map((c) => c.case))].filter((caseId) => {
    const match = /^gen-(\d+)$/.exec(caseId);
    return !match || Number(match[1]) < CRITIC_SCORED_FROM;
  });
  if (outside.length)
    throw new Error(
      `the scored figure reads cases outside the scored range (generated seeds from ${CRITIC_SCORED_FROM}): ${outside.slice(0, 5).join(", ")}`,
    );
  return results;
}

/**
 * Recall and precision of the critic alone on negatives, split by whether the behaviour families were seen by the
 * critic's author or held back: recall over (rollout, family) pairs of the group; precision over the claims on
 * negatives whose families all lie in the group.
 */
export function seenAndHeldBack(critiques: ScoredCritique[], setting: CriticSetting = "raw") {
  const neg = critiques.filter((c) => c.setting === setting && c.role === "negative");
  const group = (held: boolean) => {
    const pairs = neg
      .flatMap((x) => x.truth.map((f, i) => ({ f, found: x.found[i] })))
      .filter((p) => isHeldBack(p.f) === held);
    const whole = neg.filter((x) => x.truth.length > 0 && x.truth.every((f) => isHeldBack(f) === held));
    const claims = whole.reduce((n, x) => n + x.critique.events.length, 0);
    return {
      rollouts: whole.length,
      families: pairs.length,
      recall: pairs.length ? pairs.filter((p) => p.found).length / pairs.length : null,
      precision: claims ? whole.reduce((n, x) => n + x.precise, 0) / claims : null,
      named: claims ? whole.reduce((n, x) => n + x.precise + x.wrongCause, 0) / claims : null,
    };
  };
  return { seen: group(false), heldBack: group(true) };
}

/** The critic alone on a run, in brief: Table 1's accuracies, Table 2's recall and precision, Table 4's preference accuracy. */
export function criticScores(results: CriticResults) {
  const raw = results.critiques.filter((c) => c.setting === "raw");
  const neg = raw.filter((c) => c.role === "negative"),
    pos = raw.filter((c) => c.role === "positive");
  const grounded = results.critiques.filter((c) => c.setting === "detector" && c.role === "negative");
  const sum = (xs: ScoredCritique[], f: (x: ScoredCritique) => number) => xs.reduce((n, x) => n + f(x), 0);
  const share = (a: number, b: number) => (b ? a / b : 0);
  const prefer = Object.fromEntries(
    (["pos-neg", "neg-pos", "neg-neg", "pos-pos"] as const).map((k) => {
      const ps = results.preferences.filter((p) => p.pair === k);
      return [k, share(ps.filter((p) => p.correct).length, ps.length)];
    }),
  ) as Record<ScoredPreference["pair"], number>;
  return {
    clean: share(pos.filter((x) => !x.critique.undesirable).length, pos.length),
    flagged: share(neg.filter((x) => x.critique.undesirable).length, neg.length),
    recall: share(
      sum(neg, (x) => x.recalled),
      sum(neg, (x) => x.truth.length),
    ),
    precision: share(
      sum(neg, (x) => x.precise),
      sum(neg, (x) => x.critique.events.length),
    ),
    groundedPrecision: share(
      sum(grounded, (x) => x.precise),
      sum(grounded, (x) => x.critique.events.length),
    ),
    prefer,
    ...seenAndHeldBack(results.critiques),
  };
}

const NAMES: Record<CriticSetting, string> = {
  raw: "critic",
  detector: "critic + detector grounding",
  events: "critic + perfect grounding (augmented)",
};
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "—");

/**
 * Per behaviour family (what the author did), seen and held back: recall in each setting, precision of the critic
 * alone on negatives that show that family only; then the answers whose words the matcher could not place.
 */
function familyTables(results: CriticResults, rows: (s: CriticSetting) => ScoredCritique[]): string[] {
  const raw = rows("raw");
  const families = [...new Set(raw.flatMap((x) => x.truth))].sort(
    (a, b) => Number(isHeldBack(a)) - Number(isHeldBack(b)) || a.localeCompare(b),
  );
  if (!families.length) return [];
  const sum = (xs: ScoredCritique[], f: (x: ScoredCritique) => number) => xs.reduce((n, x) => n + f(x), 0);
  const recallOf = (setting: CriticSetting, family: string) => {
    const pairs = rows(setting)
      .filter((x) => x.role === "negative")
      .flatMap((x) => x.truth.map((f, i) => ({ f, found: x.found[i] })))
      .filter((p) => p.f === family);
    return pct(pairs.filter((p) => p.found).length, pairs.length);
  };
  const split = (s: CriticSetting) => seenAndHeldBack(results.critiques, s);
  const percent = (v: number | null) => (v === null ? "—" : `${(100 * v).toFixed(1)}%`);
  const counts = new Map<string, number>();
  for (const x of raw) for (const u of x.unmatched) counts.set(u, (counts.get(u) ?? 0) + 1);
  const unmatched = [...counts].sort((a, b) => b[1] - a[1]);
  return [
    "## Seen and held-back families",
    "",
    `Held back (fixed by a seed before any cue was written for the new families; never looked at by the critic's author): ${HELD_BACK.join(", ")}. Recall over every (negative, family) pair of the group; precision over claims on negatives whose families all lie in it.`,
    "",
    "| families | critic | negatives | families shown | recall | precision | names a true family |",
    "|---|---|---|---|---|---|---|",
    ...CRITIC_SETTINGS_RUN.flatMap((setting) => {
      const groups = split(setting);
      return [
        `| seen | ${NAMES[setting]} | ${groups.seen.rollouts} | ${groups.seen.families} | ${percent(groups.seen.recall)} | ${percent(groups.seen.precision)} | ${percent(groups.seen.named)} |`,
        `| held back | ${NAMES[setting]} | ${groups.heldBack.rollouts} | ${groups.heldBack.families} | ${percent(groups.heldBack.recall)} | ${percent(groups.heldBack.precision)} | ${percent(groups.heldBack.named)} |`,
      ];
    }),
    "",
    "## Per behaviour family (negatives)",
    "",
    "Recall: of the negatives the author gave this family, the share some claim names. Precision: of the critic's claims on negatives showing this family alone, the share that name it with a cause that fits.",
    "",
    "| family | held back | negatives | critic | + detector | + perfect | precision (critic) |",
    "|---|---|---|---|---|---|---|",
    ...families.map((family) => {
      const only = raw.filter((x) => x.role === "negative" && x.truth.length === 1 && x.truth[0] === family);
      const negatives =
        raw.filter((x) => x.role === "negative" && x.truth.includes(family)).length / results.meta.seeds;
      return `| ${family.replace(/_/g, " ")} | ${isHeldBack(family) ? "yes" : ""} | ${negatives} | ${recallOf("raw", family)} | ${recallOf("detector", family)} | ${recallOf("events", family)} | ${pct(
        sum(only, (x) => x.precise),
        sum(only, (x) => x.critique.events.length),
      )} |`;
    }),
    "",
    "## Answers the matcher could not place",
    "",
    unmatched.length
      ? `${unmatched.reduce((n, [, k]) => n + k, 0)} claim(s) of the critic alone named no behaviour family the matcher knows (evals/behaviourWords.ts); they count as visual grounding errors. For a person to read:`
      : "Every claim of the critic alone named a behaviour family the matcher knows.",
    ...(unmatched.length
      ? [
          "",
          "| times | what the critic said |",
          "|---|---|",
          ...unmatched.slice(0, 20).map(([u, k]) => `| ${k} | ${u.replace(/\|/g, "/")} |`),
        ]
      : []),
  ];
}

/** The paper's Tables 1–4 and its error taxonomy (Fig. 4), from our runs. */
export function criticReport(
  results: CriticResults,
  refine?: string,
  opts: { timing: boolean } = { timing: true },
): string {
  const rows = (setting: CriticSetting) => results.critiques.filter((c) => c.setting === setting);
  const sum = (xs: ScoredCritique[], f: (x: ScoredCritique) => number) => xs.reduce((n, x) => n + f(x), 0);
  const lines = [
    `# Behaviour critics — ${results.meta.cases} cases, ${results.meta.behaviours.length} behaviours, ${results.meta.seeds} seed(s), noise ${results.meta.noise}`,
    "",
    // The benchmark's place and the run time are this machine's: the published form (npm run reproduce) leaves them out.
    opts.timing
      ? `Benchmark: ${results.meta.dir} (relative to this report's folder). Behaviours: ${results.meta.behaviours.join(", ")}. Run time ${results.meta.durationSeconds.toFixed(0)} s.`
      : `Behaviours: ${results.meta.behaviours.join(", ")}.`,
    "",
    results.meta.matcher
      ? `Claims were read by the frozen matcher evals/behaviourWords.ts, sha256 ${results.meta.matcher}: a claim names a family when its words name both the thing that family acts on and the quantity it changes.`
      : "Claims were read by evals/behaviourWords.ts; this run did not record the matcher's hash.",
    "",
    "## Table 1 — accuracy on positive and negative samples (is anything undesirable?)",
    "",
    "| critic | positive | negative |",
    "|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((setting) => {
      const xs = rows(setting);
      const pos = xs.filter((x) => x.role === "positive"),
        neg = xs.filter((x) => x.role === "negative");
      return `| ${NAMES[setting]} | ${pct(pos.filter((x) => !x.critique.undesirable).length, pos.length)} | ${pct(neg.filter((x) => x.critique.undesirable).length, neg.length)} |`;
    }),
    "",
    "## Table 2 — recall and precision on negative samples",
    "",
    "| critic | recall | precision | claims | hallucinated | wrong cause |",
    "|---|---|---|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((setting) => {
      const neg = rows(setting).filter((x) => x.role === "negative");
      const claims = sum(neg, (x) => x.critique.events.length);
      return `| ${NAMES[setting]} | ${pct(
        sum(neg, (x) => x.recalled),
        sum(neg, (x) => x.truth.length),
      )} | ${pct(
        sum(neg, (x) => x.precise),
        claims,
      )} | ${claims} | ${sum(neg, (x) => x.hallucinated)} | ${sum(neg, (x) => x.wrongCause)} |`;
    }),
    "",
    "Error taxonomy (Fig. 4): of every claim on negative and positive samples, the share whose words name none of the",
    "behaviours the author gave the rollout (visual grounding error; on a positive, every claim) and the share that names",
    "one with a cause that does not fit it. Truth is what the author did; the matcher is evals/behaviourWords.ts.",
    "",
    "| critic | claims | visual grounding errors | wrong cause | precise |",
    "|---|---|---|---|---|",
    ...CRITIC_SETTINGS_RUN.map((setting) => {
      const xs = rows(setting);
      const claims = sum(xs, (x) => x.critique.events.length);
      return `| ${NAMES[setting]} | ${claims} | ${pct(
        sum(xs, (x) => x.hallucinated),
        claims,
      )} | ${pct(
        sum(xs, (x) => x.wrongCause),
        claims,
      )} | ${pct(
        sum(xs, (x) => x.precise),
        claims,
      )} |`;
    }),
    "",
    "## Table 3 — critique recall and precision when contrasting a positive with a negative",
    "",
    "| pairs | recall | precision |",
    "|---|---|---|",
    (() => {
      const ps = results.preferences.filter((p) => p.negative);
      const total = (measure: (n: NonNullable<ScoredPreference["negative"]>) => number) =>
        ps.reduce((n, p) => n + measure(p.negative!), 0);
      return `| positive–negative (both orders, ${ps.length}) | ${pct(
        total((n) => n.recalled),
        total((n) => n.truth),
      )} | ${pct(
        total((n) => n.precise),
        total((n) => n.claims),
      )} |`;
    })(),
    "",
    "## Table 4 — preference accuracy",
    "",
    "| pair | accuracy | pairs |",
    "|---|---|---|",
    ...(["pos-neg", "neg-pos", "neg-neg", "pos-pos"] as const).map((k) => {
      const ps = results.preferences.filter((p) => p.pair === k);
      return `| ${k.replace("-", "–")} | ${pct(ps.filter((p) => p.correct).length, ps.length)} | ${ps.length} |`;
    }),
    "",
    "## The detector grounding module against the event logs",
    "",
    `Reading every rollout's whole detection track (every 0.1 s): it finds ${pct(results.detector.found, results.detector.truth)} of the ${results.detector.truth} events that happened, and ${pct(results.detector.correct, results.detector.claimed)} of the ${results.detector.claimed} events it reports happened.`,
    "",
    ...familyTables(results, rows),
  ];
  if (refine) lines.push("", refine);
  return lines.join("\n") + "\n";
}
