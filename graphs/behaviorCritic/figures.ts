/**
 * The behaviour critic's figure (`npm run reproduce`): the paper's Tables 1–4 and policy refinement, on the hand-made
 * benchmark and on generated rollouts. Its experiments have a runner of their own (`eval --dataset critic`, in
 * evals/): what it reads of them comes through the kit, in the shape CriticBenchmarkReader says.
 */
import { join } from "node:path";
import { pct, type Figure, type FigureKit, type FigurePart } from "../figure";

/**
 * The generated set's scored range starts here (issue 49): seeds below it are tuning data — 0–999 looked at while
 * writing cues, and 1000–1099, the old scored range, which was run more than once. Run once, at the end.
 */
export const CRITIC_SCORED_FROM = 3000;
/**
 * The critic's generated sets (issue 49): truth from the edits, six new families, three held back; issue 62 added the
 * shove families and free supports. 3000–3099 was run once, at 208c62b, before the supports were freed; 3100–3199 was
 * run once, at 8ce48b3, before issue 63's norm: both are marked stale in the ledger (docs/results/ledger.md). The figure
 * stays on the range it was run on until it is made again. A run on 3200–3299 was started for issue 63 and stopped
 * before it finished, with no figure made or read, so issue 63's figure is on the fresh range 3300–3399, run once.
 * 1000–1099, run twice, is tuning data. The tuning set is where the
 * cues were set (held-back cases filtered out), issue 62's side-effect thresholds, and where issue 63's norm learned
 * careful motion (its careful twins only).
 */
const CRITIC_TUNING = { from: 0, count: 120 };
const CRITIC_SCORED = { dataset: "critic-generated", from: CRITIC_SCORED_FROM + 300, count: 100 };

/** The figure's sets: the hand-made benchmark, and the generated set's scored and tuning ranges. */
interface CriticSet {
  id: "hand-made" | "generated" | "generated-tuning";
  title: string;
  dir: string;
  /** The benchmark directory a user would name (the generator's default for the scored set). */
  shownDir: string;
}
const criticSets = (work: string, quick: boolean): CriticSet[] => [
  { id: "hand-made", title: "Hand-made benchmark", dir: join(work, "benchmark"), shownDir: "data/critic-benchmark" },
  // The quick slice reads the retired scored range (tuning data now), never the sealed one.
  {
    id: "generated",
    title: quick ? "Generated rollouts, retired scored range" : "Generated rollouts, scored set",
    dir: join(work, "benchmark-generated"),
    shownDir: "data/critic-benchmark-generated",
  },
  {
    id: "generated-tuning",
    title: "Generated rollouts, tuning set",
    dir: join(work, "benchmark-generated-tuning"),
    shownDir: "data/critic-benchmark-generated-tuning",
  },
];

/** What the figure reads of a critic experiment's scores (evals/behaviorCritic.ts criticScores). */
interface CriticScores {
  clean: number;
  flagged: number;
  recall: number;
  precision: number;
  groundedPrecision: number;
  prefer: Record<"pos-neg" | "neg-neg" | "pos-pos", number>;
  seen: { families: number; recall: number | null; precision: number | null };
  heldBack: { families: number; recall: number | null; precision: number | null };
}

/** A critic experiment as the figure reads it. */
export interface CriticRunRead {
  cases: number;
  seeds: number;
  scores(): CriticScores;
  /** Its report's tables as the docs print them (nothing the wall clock measured), its refinement's after them. */
  report(): string;
}

/** What the figure reads of evals/ (evals/behaviorCriticFigure.ts), handed over by reproduce for the `critic` dataset. */
export interface CriticBenchmarkReader {
  /** The edit families held back from the critic's author, and the seed that chose them (robots/sim/workbench/edits.ts). */
  heldBack: { families: readonly string[]; seed: number };
  /** The sha256 of the matcher that reads the critic's claims (evals/behaviourWords.ts), as it is now. */
  matcherHash(): string;
  /** The experiment `eval --dataset critic` left in `dir`, if any; `scoredOnly`: refused if it reads a case below the scored range. */
  read(dir: string, scoredOnly: boolean): CriticRunRead | undefined;
}

const readerOf = (kit: FigureKit) => kit.ownRunner<CriticBenchmarkReader>("critic");

interface CriticRun extends CriticRunRead {
  set: CriticSet;
  noise: string;
}

/** Every critic experiment the figure made, in the order shown; the scored set's refused if it reads a tuning case. */
function criticRuns(work: string, quick: boolean, kit: FigureKit): CriticRun[] {
  const out: CriticRun[] = [];
  for (const set of criticSets(work, quick))
    for (const noise of quick ? ["0.3"] : ["0.3", "0"]) {
      const read = readerOf(kit).read(join(work, `critic-${set.id}-noise${noise}`), set.id === "generated" && !quick);
      if (read) out.push({ ...read, set, noise });
    }
  return out;
}

/** One row per set and noise: the paper's Tables 1, 2 and 4 in brief, side by side. */
function criticSummary(runs: CriticRun[], heldBack: CriticBenchmarkReader["heldBack"]): string {
  const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
  return [
    "# Side by side",
    "",
    "The critic alone (no grounding) unless named; recall and precision on negative rollouts against what the author did to them (a precise claim's words name the behaviour or edit family, with a cause that fits it; evals/behaviourWords.ts reads them).",
    "",
    "| set | noise | cases | positives judged clean | negatives flagged | recall | precision | precision + detector grounding | pos–neg preferred right | neg–neg equal | pos–pos equal |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...runs.map((x) => {
      const scores = x.scores();
      return `| ${x.set.title} | ${x.noise} | ${x.cases} | ${percent(scores.clean)} | ${percent(scores.flagged)} | ${percent(scores.recall)} | ${percent(scores.precision)} | ${percent(scores.groundedPrecision)} | ${percent(scores.prefer["pos-neg"])} | ${percent(scores.prefer["neg-neg"])} | ${percent(scores.prefer["pos-pos"])} |`;
    }),
    "",
    `Seen families and held-back ones (${heldBack.families.join(", ")}: fixed by seed ${heldBack.seed} before any cue for the new families was written, never looked at by the critic's author), the critic alone on negatives:`,
    "",
    "| set | noise | seen: families shown | seen recall | seen precision | held back: families shown | held-back recall | held-back precision |",
    "|---|---|---|---|---|---|---|---|",
    ...runs.map((x) => {
      const { seen, heldBack: held } = x.scores();
      const percentOrDash = (v: number | null) => (v === null ? "—" : percent(v));
      return `| ${x.set.title} | ${x.noise} | ${seen.families / x.seeds} | ${percentOrDash(seen.recall)} | ${percentOrDash(seen.precision)} | ${held.families / x.seeds} | ${percentOrDash(held.recall)} | ${percentOrDash(held.precision)} |`;
    }),
    "",
  ].join("\n");
}

export const CRITIC_FIGURES: Figure[] = [
  {
    id: "critic",
    order: 50,
    title:
      "Behaviour critics: the paper's Tables 1–4 and policy refinement, on the hand-made benchmark and on generated rollouts",
    scored: [CRITIC_SCORED],
    tuning: [{ dataset: CRITIC_SCORED.dataset, ...CRITIC_TUNING }],
    about: (kit) => {
      const heldBack = readerOf(kit).heldBack;
      return `Two sets. The hand-made benchmark is in-sample: the offline critic was written while looking at its 45 cases (nine behaviours × five); its truth is the behaviour each negative was written to show. The generated set is rollouts of careful programs changed by one or two edits from a grammar of 19 families (robots/sim/workbench/edits.ts; the destination shoved and a neighbour knocked added in issue 62, with the plates, trays and bowls loose on the table); its truth is the edits, kept where each edit changed the motion measurably against the careful twin — no monitor labels it. Three of the six newest families (${heldBack.families.join(", ")}) were held back by seed ${heldBack.seed} before any cue for them was written. Tuning cases (seeds ${CRITIC_TUNING.from}–${CRITIC_TUNING.from + CRITIC_TUNING.count - 1}) were read, held-back ones left out, while the new cues were set, and their careful twins alone are what the norm of careful motion was learned from (graphs/behaviorCritic/norm.ts, issue 63); the scored cases (seeds ${CRITIC_SCORED.from}–${CRITIC_SCORED.from + CRITIC_SCORED.count - 1}) are run once, at the end. The critic answers in its own words; evals/behaviourWords.ts (sha256 ${readerOf(kit).matcherHash()}), tightened for issue 63 before the critic changed and frozen, reads which family a claim names — only when its words name both the thing that family acts on and the quantity it changes, never by a kind or a catch-all word alone — and whether its cause fits. Key frames are chosen by the robot's own recorder (its primitives' ends and starts, the rest evenly).`;
    },
    parts: (quick, work, kit) => {
      const sets = criticSets(work, quick);
      // The tuning set is not where the generator puts a set by default: its command names the place.
      const make = (label: string, set: CriticSet, args: string[]): FigurePart => {
        const shown = [...args, ...(set.id === "generated-tuning" ? ["--out", set.shownDir] : [])];
        return {
          label,
          script: "evals/datasets/behaviorCriticBenchmark.ts",
          argv: [...args, "--out", set.dir],
          shown: `npm run make:critic-benchmark${shown.length ? ` -- ${shown.join(" ")}` : ""}`,
        };
      };
      const critic = (set: CriticSet, noise: string, seeds: string, refine?: string): FigurePart => ({
        label: `critic ${set.id} noise ${noise}`,
        argv: [
          "eval",
          "--dataset",
          "critic",
          "--benchmark",
          set.dir,
          "--noise",
          noise,
          "--seeds",
          seeds,
          ...(refine ? ["--refine-limit", refine] : []),
          "--root",
          work,
          "--name",
          `critic-${set.id}-noise${noise}`,
        ],
        shown: `npm run eval -- --dataset critic${set.id === "hand-made" ? "" : ` --benchmark ${set.shownDir}`} --noise ${noise} --seeds ${seeds}${refine ? ` --refine-limit ${refine}` : ""}`,
      });
      const [hand, scored, tuning] = sets;
      if (quick)
        return [
          make("hand-made benchmark", hand, [
            "--cases-per-behaviour",
            "1",
            "--behaviours",
            "knocked_over,dropped,squeezed",
          ]),
          make("generated benchmark (retired scored range)", scored, [
            "--generated",
            "--seed",
            String(kit.quickScoredFrom),
            "--count",
            "3",
          ]),
          critic(hand, "0.3", "1", "1"),
          critic(scored, "0.3", "1", "1"),
        ];
      return [
        make("hand-made benchmark", hand, []),
        make("generated benchmark (scored)", scored, [
          "--generated",
          "--seed",
          String(CRITIC_SCORED.from),
          "--count",
          String(CRITIC_SCORED.count),
        ]),
        make("generated benchmark (tuning)", tuning, [
          "--generated",
          "--seed",
          String(CRITIC_TUNING.from),
          "--count",
          String(CRITIC_TUNING.count),
        ]),
        critic(hand, "0.3", "3"),
        critic(hand, "0", "1"),
        critic(scored, "0.3", "3"),
        critic(scored, "0", "1"),
        critic(tuning, "0.3", "1", "0"),
        critic(tuning, "0", "1", "0"),
      ];
    },
    render: (work, quick, kit) => {
      const runs = criticRuns(work, quick, kit);
      return [
        criticSummary(runs, readerOf(kit).heldBack),
        ...runs.map((x) => x.report().replace(/^# /, `# ${x.set.title}, noise ${x.noise}: `)),
      ].join("\n");
    },
    headline: (work, quick, kit) => {
      const at = (id: string, noise: string) =>
        criticRuns(work, quick, kit).find((x) => x.set.id === id && x.noise === noise);
      const say = (x: CriticRun | undefined) => {
        if (!x) return "";
        const scores = x.scores();
        return `recall ${pct(scores.recall)}, precision ${pct(scores.precision)}`;
      };
      const noisy = at("hand-made", "0.3")!;
      const gen = at("generated", "0.3");
      const held = (x: CriticRun) => {
        const heldBack = x.scores().heldBack;
        return heldBack.recall === null ? "" : `, held-back families recall ${pct(heldBack.recall)}`;
      };
      return `critic alone on negatives at noise 0.3: hand-made ${say(noisy)} (${noisy.cases} cases)${gen ? `; generated, ${quick ? "retired scored range" : "scored set, run once"}: ${say(gen)}${held(gen)} (${gen.cases} cases)` : ""}`;
    },
  },
];
