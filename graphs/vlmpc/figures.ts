/** VLM-PC's figures (`npm run reproduce`): Tables I–II and Figure 5 on the courses, the generated courses, a window. */
import { counted } from "../report";
import { evalPart, pct, rateOf, type Figure } from "../figure";

/**
 * The generated courses' scored range. It replaced 1000–1049, which was run after each of eight reasoner rounds
 * (docs/notes/vlmpc-tuning.md, docs/results/ledger.md) and so is tuning data now.
 */
const COURSE_SCORED = { dataset: "course-generated", from: 3000, count: 50 };

export const VLMPC_FIGURES: Figure[] = [
  {
    id: "course",
    order: 30,
    title: "VLM-PC on the obstacle courses: Tables I–II and Figure 5",
    about:
      "In-sample: the reasoner was written while running these six courses. The labelled examples of VLM-PC + IC are taken on a layout seed that no trial uses. Success is the simulator's check (the body came within reach of the toy within 100 s of skill time) for every variant.",
    parts: (quick, work) =>
      (quick ? ["0.2"] : ["0.2", "0"]).map((noise) =>
        evalPart(`course noise ${noise}`, `course-noise${noise}`, work, [
          "--dataset",
          "course",
          "--seeds",
          quick ? "1" : "5",
          "--noise",
          noise,
          ...(quick ? ["--examples", "indoor_1__paper,dead_end_stairs__paper"] : []),
        ]),
      ),
    render: (work, quick, kit) =>
      (quick ? ["0.2"] : ["0.2", "0"])
        .map((noise) => `# Noise ${noise}\n\n${kit.tables(kit.experiment(work, `course-noise${noise}`))}`)
        .join("\n"),
    headline: (work, _quick, kit) => {
      const report = kit.experiment(work, "course-noise0.2");
      return (
        report.variants.map((v) => `${v} ${pct(rateOf(report, v))}`).join(" · ") +
        ` (noise ${report.noise}, ${report.seeds} trials per course)`
      );
    },
  },
  {
    id: "course-generated",
    order: 31,
    title: "VLM-PC on generated courses: tuning set and scored set",
    about: `Generated courses (robots/sim/course/generate.ts), each checked solvable within 100 s by a search over its true layout. The tuning set (course seeds from 0) was looked at step by step while improving the reasoner. The scored set (${COURSE_SCORED.count} courses from seed ${COURSE_SCORED.from}, a range nobody had run) is run once and counted only; the scored set before it (seeds 1000–1049) was run after each of eight reasoner rounds, so it is tuning data now. +IC's labelled examples are taken on each course with the solver's way through, at a body seed no trial uses.`,
    scored: [COURSE_SCORED],
    tuning: [{ dataset: COURSE_SCORED.dataset, from: 0, count: 50 }],
    parts: (quick, work, kit) => [
      ...(quick ? ["0.2"] : ["0.2", "0"]).map((noise) =>
        evalPart(`scored noise ${noise}`, `generated-scored-noise${noise}`, work, [
          "--dataset",
          "course-generated",
          "--count",
          quick ? "3" : String(COURSE_SCORED.count),
          "--course-seed",
          String(quick ? kit.quickScoredFrom : COURSE_SCORED.from),
          "--noise",
          noise,
          ...(quick ? ["--variants", "full,no-history"] : []),
        ]),
      ),
      evalPart("tuning noise 0.2", "generated-tuning-noise0.2", work, [
        "--dataset",
        "course-generated",
        "--count",
        quick ? "3" : "50",
        "--course-seed",
        "0",
        "--noise",
        "0.2",
        ...(quick ? ["--variants", "full,no-history"] : []),
      ]),
    ],
    render: (work, quick, kit) =>
      [
        ...(quick ? ["0.2"] : ["0.2", "0"]).map(
          (noise) =>
            `# Scored set, noise ${noise}\n\n${kit.tables(kit.scoredOnly(kit.experiment(work, `generated-scored-noise${noise}`), quick ? { from: kit.quickScoredFrom, count: 3 } : COURSE_SCORED))}`,
        ),
        `# Tuning set, noise 0.2\n\n${kit.tables(kit.experiment(work, "generated-tuning-noise0.2"))}`,
      ].join("\n"),
    headline: (work, quick, kit) => {
      const scored = kit.scoredOnly(
        kit.experiment(work, "generated-scored-noise0.2"),
        quick ? { from: kit.quickScoredFrom, count: 3 } : COURSE_SCORED,
      );
      const tuning = kit.experiment(work, "generated-tuning-noise0.2");
      return `scored: ${scored.variants.map((v) => `${v} ${pct(rateOf(scored, v))}`).join(" · ")} (${scored.tasks.length} courses, noise ${scored.noise}); tuning: full ${pct(rateOf(tuning, "full"))}`;
    },
  },
  {
    id: "course-window",
    order: 32,
    title: "VLM-PC with a history window of five steps",
    about:
      "In-sample, as the course figures: VLM-PC (full) on the six courses, five trials each at noise 0.2, seeing the last five steps with their images and a summary of the older ones; the whole-history figures are in docs/results/course.md.",
    parts: (quick, work) => [
      evalPart("window 5", "course-window5", work, [
        "--dataset",
        "course",
        "--variants",
        "full",
        "--seeds",
        quick ? "1" : "5",
        "--noise",
        "0.2",
        "--history-window",
        "5",
        ...(quick ? ["--examples", "indoor_1__paper"] : []),
      ]),
    ],
    render: (work, _quick, kit) => kit.tables(kit.experiment(work, "course-window5")),
    headline: (work, _quick, kit) => {
      const report = kit.experiment(work, "course-window5");
      return `VLM-PC with a 5-step window: ${report.episodes.filter(counted).length} of ${report.episodes.length} trials reach the toy (noise ${report.noise})`;
    },
  },
];
