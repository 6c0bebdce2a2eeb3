/**
 * What a method publishes as figures (`npm run reproduce`, cli/reproduce.ts collects them from METHODS): for each, the
 * commands that make it and its quick slice, its scored and tuning ranges, and how its tables and headline are made
 * from what the commands wrote. Declarations only: what they read through layers above graphs/ (evals' report writers,
 * the simulators' seeds) reproduce hands them as a FigureKit.
 */
import { counted, type ExperimentReport } from "./report";

/** A range of generated worlds' seeds of one dataset (evals/ledger.ts records each run of a scored one). */
export interface SeedRange {
  dataset: string;
  from: number;
  count: number;
}

/** One command a figure is made of: robograph's arguments (or a script's), and what a user types for it. */
export interface FigurePart {
  label: string;
  argv: string[];
  /** A script to run instead of the robograph command (a path from the repository's root). */
  script?: string;
  /** Shown in the header: the command a user types for the same result. */
  shown: string;
  /** Exit codes that mean the command made its record (a curriculum run that learned nothing exits 2). */
  okCodes?: number[];
}

/** What reproduce hands a figure: the facts and readers that live above graphs/. */
export interface FigureKit {
  /** Where quick slices read generated worlds from: the retired scored ranges' first seed, never a sealed range. */
  quickScoredFrom: number;
  /** The report of an experiment a part made (evalPart's `name`, under the figure's work directory). */
  experiment(work: string, name: string): ExperimentReport;
  /** The report, refused if any of its worlds lies below its scored range (or below the first scored seed). */
  scoredOnly(report: ExperimentReport, range?: { from: number; count: number }): ExperimentReport;
  /** Its tables as the docs print them: nothing the wall clock measured. */
  tables(report: ExperimentReport): string;
  /** The world an episode ran in: that of the method its dataset family belongs to. */
  worldOf(episode: ExperimentReport["episodes"][number]): string;
  /**
   * What evals/ makes of the runs of a dataset whose experiments have a runner of their own (`eval --dataset critic`),
   * by that dataset; the figure declares the shape it reads (cli/reproduce.ts holds one per such dataset).
   */
  ownRunner<T>(dataset: string): T;
}

export interface Figure {
  id: string;
  title: string;
  /** Which set this is and how it was used: what was tuned on it and what was not. */
  about: string | ((kit: FigureKit) => string);
  /** Where reproduce makes and lists it among every figure, lower first (the latency bench's is 90). */
  order: number;
  parts(quick: boolean, work: string, kit: FigureKit): FigurePart[];
  /** The figure's Markdown body from its parts' outputs. */
  render(work: string, quick: boolean, kit: FigureKit): string;
  /** A one-line summary the README carries. */
  headline?(work: string, quick: boolean, kit: FigureKit): string;
  /** Not in the quick slices (nothing smaller would say the same). */
  fullOnly?: boolean;
  /** The header's commands in a few lines, where listing every part's would run to dozens. */
  commands?: string[];
  /** The tuning ranges of generated worlds it runs: a scored range may not overlap them. */
  tuning?: SeedRange[];
  /** The scored ranges of generated worlds its full figure runs: each run goes into the ledger (evals/ledger.ts). */
  scored?: SeedRange[];
}

/** An experiment of `robograph eval`, named after its figure so its report is found again. */
export function evalPart(label: string, name: string, work: string, args: string[]): FigurePart {
  return { label, argv: ["eval", ...args, "--root", work, "--name", name], shown: `npm run eval -- ${args.join(" ")}` };
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The share of a variant's episodes that count as a success. */
export const rateOf = (report: ExperimentReport, variant: string) => {
  const eps = report.episodes.filter((e) => e.variant === variant);
  return eps.length ? eps.filter(counted).length / eps.length : 0;
};

/**
 * A generated-world figure's two sets (`args` give the variants and a noise of 0.15) — the scored range first (its
 * quick slice reads the kit's quickScoredFrom on, never the sealed range), then the tuning range — and its tables and
 * headline, the scored report refused if it reads a tuning world.
 */
export function scoredAndTuning(spec: {
  id: string;
  seedFlag: string;
  scored: SeedRange;
  tuning: { from: number; count: number };
  quickCount: number;
  args: string[];
  worlds: string;
}): Pick<Figure, "scored" | "tuning" | "parts" | "render" | "headline"> {
  const name = (set: string) => `${spec.id}-${set}`;
  const scoredRange = (quick: boolean, kit: FigureKit) =>
    quick ? { from: kit.quickScoredFrom, count: spec.quickCount } : spec.scored;
  return {
    scored: [spec.scored],
    tuning: [{ dataset: spec.scored.dataset, ...spec.tuning }],
    parts: (quick, work, kit) =>
      (
        [
          ["scored", spec.scored],
          ["tuning", spec.tuning],
        ] as const
      ).map(([set, range]) =>
        evalPart(`${set} noise 0.15`, name(set), work, [
          "--dataset",
          spec.id,
          "--count",
          quick ? String(spec.quickCount) : String(range.count),
          `--${spec.seedFlag}`,
          String(quick && set === "scored" ? kit.quickScoredFrom : range.from),
          ...spec.args,
        ]),
      ),
    render: (work, quick, kit) =>
      [
        `# Scored set, noise 0.15\n\n${kit.tables(kit.scoredOnly(kit.experiment(work, name("scored")), scoredRange(quick, kit)))}`,
        `# Tuning set, noise 0.15\n\n${kit.tables(kit.experiment(work, name("tuning")))}`,
      ].join("\n"),
    headline: (work, quick, kit) => {
      const scored = kit.scoredOnly(kit.experiment(work, name("scored")), scoredRange(quick, kit));
      const tuning = kit.experiment(work, name("tuning"));
      return `scored: ${scored.variants.map((v) => `${v} ${pct(rateOf(scored, v))}`).join(" · ")} (${scored.tasks.length} ${spec.worlds}, noise ${scored.noise}); tuning: full ${pct(rateOf(tuning, "full"))}`;
    },
  };
}
