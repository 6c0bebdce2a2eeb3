/**
 * Game On's figures (`npm run reproduce`): the learner's settings chosen on tuning seeds, what a 400-episode curriculum
 * learns on seeds never tuned on, and the same from other starts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Figure, FigurePart } from "../figure";
import { CURRICULUM_SETTINGS } from "./configuration";

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/** Curriculum seeds the learner's settings are chosen on, and the seeds its reported runs use. */
const TUNING_SEEDS = [0, 1, 2, 3, 4];
const REPORTED_SEEDS = [100, 101, 102, 103, 104];
/** The blocks world's starts other than the floor (the curriculum figure is the floor's). */
const STARTS_SHOWN = ["stacked", "leaning", "held"] as const;
const LEARNER_GRID: [number, number][] = [0.05, 0.1, 0.2].flatMap((elite) =>
  [0.7, 0.9].map((s) => [elite, s] as [number, number]),
);

/** What the figures read of a curriculum run's report.json. */
interface CurriculumRecord {
  counters: { episodes: number; iterations: number };
  library: { caption: string; since: number; source: string }[];
  convergedShare: { family: string; skills: string[]; share: number[] }[];
  diversity: Record<"base" | "curriculum" | "all", { episodes: number; l2: number; cluster: number }> & {
    proposals: number;
    uniqueProposals: number;
  };
}

/** A curriculum run (`npm start -- --graph curriculum …`), its record under the work directory. */
function curriculumPart(
  work: string,
  thread: string,
  seed: number,
  episodes: number,
  extra: string[] = [],
): FigurePart {
  const args = ["--graph", "curriculum", "--budget-episodes", String(episodes), "--seed", String(seed), ...extra];
  return {
    label: thread,
    argv: ["run", ...args, "--runs-dir", work, "--data-dir", join(work, "data"), "--thread", thread, "--quiet"],
    shown: `npm start -- ${args.join(" ")}`,
    okCodes: [0, 2],
  };
}
const curriculumRecord = (work: string, thread: string) =>
  readJson<CurriculumRecord>(join(work, thread, "report.json"));
const curriculumRecordMaybe = (work: string, thread: string) =>
  existsSync(join(work, thread, "report.json")) ? curriculumRecord(work, thread) : undefined;

/** Skills learned, Fig. 5 and data diversity of curriculum runs, one row per seed. */
function curriculumTables(runs: { seed: number; r: CurriculumRecord }[]): string[] {
  const families = [...new Set(runs.flatMap(({ r }) => r.convergedShare.map((f) => f.family)))];
  return [
    "| seed | episodes / learner iterations | skills learned (learner iteration they joined) | a stack or more | proposals (unique) |",
    "|---|---|---|---|---|",
    ...runs.map(({ seed, r: record }) => {
      const learned = record.library.filter((l) => l.source === "learned");
      const stack = learned.some((l) => /^stack|^tower|^pyramid/.test(l.caption));
      return `| ${seed} | ${record.counters.episodes} / ${record.counters.iterations} | ${learned.map((l) => `${l.caption} (@${l.since})`).join(", ") || "none"} | ${stack ? "yes" : "no"} | ${record.diversity.proposals} (${record.diversity.uniqueProposals}) |`;
    }),
    "",
    "Fig. 5 — share of each family's proposed skills judged converged by the run's last learner iteration (skills proposed):",
    "",
    `| seed | ${families.join(" | ")} |`,
    `|---|${families.map(() => "---").join("|")}|`,
    ...runs.map(
      ({ seed, r: record }) =>
        `| ${seed} | ${families
          .map((family) => {
            const x = record.convergedShare.find((c) => c.family === family);
            return x ? `${Math.round((x.share.at(-1) ?? 0) * 100)}% (${x.skills.length})` : "–";
          })
          .join(" | ")} |`,
    ),
    "",
    "Data diversity (Table 1's idea: final block centres, normalised on the base-skill data): L2 spread within the set / mean distance to the base-skill clusters.",
    "",
    "| seed | base-skill plans | plans with learned skills | all episodes |",
    "|---|---|---|---|",
    ...runs.map(
      ({ seed, r: record }) =>
        `| ${seed} | ${record.diversity.base.l2} / ${record.diversity.base.cluster} (${record.diversity.base.episodes}) | ${record.diversity.curriculum.l2} / ${record.diversity.curriculum.cluster} (${record.diversity.curriculum.episodes}) | ${record.diversity.all.l2} / ${record.diversity.all.cluster} (${record.diversity.all.episodes}) |`,
    ),
  ];
}

export const CURRICULUM_FIGURES: Figure[] = [
  {
    id: "curriculum-tuning",
    order: 60,
    title: "Game On: the learner's elite share and step, chosen on tuning seeds",
    about:
      "The tuning set: curriculum seeds 0–4, looked at while choosing the learner's elite share and step. The reported runs (docs/results/curriculum.md) use seeds 100–104, never looked at while choosing.",
    fullOnly: true,
    commands: [
      `\`npm start -- --graph curriculum --budget-episodes 400 --seed S --learner-elite E --learner-step T\` for S in ${TUNING_SEEDS.join(", ")} and (E, T) in ${LEARNER_GRID.map(([e, t]) => `(${e}, ${t})`).join(", ")}`,
    ],
    parts: (_quick, work) =>
      LEARNER_GRID.flatMap(([elite, step]) =>
        TUNING_SEEDS.map((seed) =>
          curriculumPart(work, `e${elite}-s${step}-seed${seed}`, seed, 400, [
            "--learner-elite",
            String(elite),
            "--learner-step",
            String(step),
          ]),
        ),
      ),
    render: (work) => {
      const rows = LEARNER_GRID.map(([elite, step]) => {
        const runs = TUNING_SEEDS.map((seed) => curriculumRecord(work, `e${elite}-s${step}-seed${seed}`));
        const learned = runs.map((r) => r.library.filter((l) => l.source === "learned").length);
        const stacks = runs.filter((record) =>
          record.library.some((l) => /^stack|^tower|^pyramid/.test(l.caption) && l.source === "learned"),
        ).length;
        return { elite, step, learned, stacks, mean: learned.reduce((a, b) => a + b, 0) / learned.length };
      });
      const best = [...rows].sort((a, b) => b.stacks - a.stacks || b.mean - a.mean)[0];
      const defaults = {
        elite: CURRICULUM_SETTINGS.learnerElite.parse(undefined),
        step: CURRICULUM_SETTINGS.learnerStep.parse(undefined),
      };
      return [
        `| elite share | step | skills learned, seeds ${TUNING_SEEDS.join(", ")} | mean | seeds that learned a stack (or more) |`,
        "|---|---|---|---|---|",
        ...rows.map(
          (row) =>
            `| ${row.elite} | ${row.step} | ${row.learned.join(", ")} | ${row.mean.toFixed(1)} | ${row.stacks} of ${TUNING_SEEDS.length} |`,
        ),
        "",
        `Best on the tuning seeds (most seeds with a stack, then most skills): elite ${best.elite}, step ${best.step}. ` +
          (best.elite === defaults.elite && best.step === defaults.step
            ? "These are the defaults the reported runs use."
            : `The defaults are elite ${defaults.elite}, step ${defaults.step}: NOT the best here — change them in runtime/session.ts.`),
      ].join("\n");
    },
  },
  {
    id: "curriculum",
    order: 61,
    title: "Game On: what a 400-episode curriculum learns, on seeds never tuned on",
    about:
      "Reported seeds 100–104 (the learner's settings were chosen on seeds 0–4: docs/results/curriculum-tuning.md); symbolic reasoner, noise 0, two simulator instances. The order the curriculum proposes in follows from the offline proposer's design (what each task's plan lacks, the library, the record), not a finding. Seed 100 runs twice: its run records must be identical apart from the wall clock.",
    parts: (quick, work) =>
      quick
        ? [curriculumPart(work, "seed100", 100, 80)]
        : [
            ...REPORTED_SEEDS.map((seed) => curriculumPart(work, `seed${seed}`, seed, 400)),
            curriculumPart(work, "seed100-again", 100, 400),
          ],
    render: (work, quick) => {
      const seeds = quick ? [100] : REPORTED_SEEDS;
      const out = curriculumTables(seeds.map((seed) => ({ seed, r: curriculumRecord(work, `seed${seed}`) })));
      if (!quick) {
        const same =
          JSON.stringify({
            ...curriculumRecord(work, "seed100"),
            timing: undefined,
            thread: undefined,
            facts: undefined,
          }) ===
          JSON.stringify({
            ...curriculumRecord(work, "seed100-again"),
            timing: undefined,
            thread: undefined,
            facts: undefined,
          });
        out.push(
          "",
          `Seed 100 run a second time: ${same ? "the same run record (report.json apart from the wall clock and the thread's name)" : "A DIFFERENT run record — runs do not repeat under their seed"}.`,
        );
      }
      return out.join("\n");
    },
    headline: (work) => {
      const runs = REPORTED_SEEDS.map((seed) => curriculumRecordMaybe(work, `seed${seed}`)).filter(
        (r): r is CurriculumRecord => !!r,
      );
      const learned = runs.map((r) => r.library.filter((l) => l.source === "learned").length);
      const stacks = runs.filter((record) =>
        record.library.some((l) => l.source === "learned" && /^stack|^tower|^pyramid/.test(l.caption)),
      ).length;
      const episodes = [...new Set(runs.map((r) => r.counters.episodes))].join("/");
      return `${runs.length === 1 ? "one run" : `${runs.length} runs`} of ${episodes} episodes: ${learned.join(", ")} skills learned; a stack learned in ${stacks} of ${runs.length} (seeds never tuned on)`;
    },
  },
  {
    id: "curriculum-starts",
    order: 62,
    title: "Game On from other starts: blocks stacked, leaning, or in the gripper",
    about:
      "The same 400-episode runs as the curriculum figure (reported seeds 100–104, never tuned on; settings as chosen there), with every block layout of the run starting otherwise (`--start`): one block resting on another (in one layout of three a tower of all three), one block leaning against another, or one block in the gripper — which blocks, drawn per layout. The proposer reads what rests on what from the detector (never proposing what the image already shows done, clearing a block before moving or building on it), and an episode that starts with its task already done is no success.",
    parts: (quick, work) =>
      quick
        ? [curriculumPart(work, "stacked-seed100", 100, 40, ["--start", "stacked"])]
        : STARTS_SHOWN.flatMap((start) =>
            REPORTED_SEEDS.map((seed) => curriculumPart(work, `${start}-seed${seed}`, seed, 400, ["--start", start])),
          ),
    render: (work, quick) =>
      (quick ? (["stacked"] as const) : STARTS_SHOWN)
        .flatMap((start) => [
          `## Start: ${start}`,
          "",
          ...curriculumTables(
            (quick ? [100] : REPORTED_SEEDS).map((seed) => ({
              seed,
              r: curriculumRecord(work, `${start}-seed${seed}`),
            })),
          ),
          "",
        ])
        .join("\n"),
    headline: (work) =>
      STARTS_SHOWN.map((start) => {
        const runs = REPORTED_SEEDS.map((seed) => curriculumRecordMaybe(work, `${start}-seed${seed}`)).filter(
          (r): r is CurriculumRecord => !!r,
        );
        return `${start}: ${runs.map((r) => r.library.filter((l) => l.source === "learned").length).join(", ")} skills learned`;
      }).join("; "),
  },
];
