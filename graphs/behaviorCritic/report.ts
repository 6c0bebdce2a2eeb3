/** What the behaviour critic publishes: its report (its runner, evals/behaviorCritic.ts, writes it) and the viewer's charts. */
import { z } from "zod";
import {
  REPORT_FORMAT,
  rowsAsSeries,
  cellNumber,
  tableById,
  tablesOf,
  type ChartSpec,
  type MethodReport,
} from "../report";

const TABLES = [
  "table-1",
  "table-2",
  "error-taxonomy",
  "table-3",
  "table-4",
  "seen-held-back",
  "per-family",
  "unmatched",
  "refinement",
  "refinement-per-program",
] as const;

const RefineRunSchema = z.object({
  case: z.string(),
  behaviour: z.string(),
  iterations: z.array(z.object({ events: z.array(z.string()), success: z.boolean() })),
  status: z.string(),
  statusReason: z.string(),
  calls: z.number(),
});

export const CriticReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  method: z.literal("behaviorCritic"),
  name: z.string(),
  meta: z.object({
    /** The benchmark, relative to the report's folder. */
    dir: z.string(),
    cases: z.number(),
    behaviours: z.array(z.string()),
    seeds: z.number(),
    noise: z.number(),
    durationSeconds: z.number(),
    /** The sha256 of the matcher that read the claims (evals/behaviourWords.ts), when the run recorded it. */
    matcher: z.string().optional(),
  }),
  settings: z.record(z.string(), z.unknown()),
  critiques: z.array(
    z.looseObject({
      rollout: z.string(),
      case: z.string(),
      behaviour: z.string(),
      role: z.enum(["positive", "negative"]),
      seed: z.number(),
      setting: z.enum(["raw", "detector", "events"]),
    }),
  ),
  preferences: z.array(
    z.looseObject({
      pair: z.enum(["pos-neg", "neg-pos", "neg-neg", "pos-pos"]),
      case: z.string(),
      seed: z.number(),
      correct: z.boolean(),
    }),
  ),
  detector: z.object({ truth: z.number(), found: z.number(), claimed: z.number(), correct: z.number() }),
  /** The refinement loop's runs, or null when it was skipped (--refine-limit 0). */
  refinement: z.array(RefineRunSchema).nullable(),
  tables: tablesOf(TABLES),
});
export type CriticReportJson = z.infer<typeof CriticReportSchema>;

function charts(report: CriticReportJson): ChartSpec[] {
  const out: ChartSpec[] = [];
  const t1 = tableById(report, "table-1");
  if (t1)
    out.push({
      id: "chart-table-1",
      title: "Table 1: accuracy on positive and negative samples",
      type: "bar",
      labels: ["positive", "negative"],
      datasets: rowsAsSeries(t1, ["positive", "negative"]),
      yMax: 1,
    });
  const t2 = tableById(report, "table-2");
  if (t2)
    out.push({
      id: "chart-table-2",
      title: "Table 2: recall and precision on negative samples",
      type: "bar",
      labels: ["recall", "precision"],
      datasets: rowsAsSeries(t2, ["recall", "precision"]),
      yMax: 1,
    });
  const t4 = tableById(report, "table-4");
  if (t4)
    out.push({
      id: "chart-table-4",
      title: "Table 4: preference accuracy per pair",
      type: "bar",
      labels: t4.rows.map((x) => x[0]),
      datasets: [{ label: "accuracy", data: t4.rows.map((x) => cellNumber(x[1])) }],
      yMax: 1,
    });
  if (report.refinement?.length) {
    const programs = Math.max(...report.refinement.map((x) => x.iterations.length));
    const at = (x: (typeof report.refinement)[number], i: number) => x.iterations[Math.min(i, x.iterations.length - 1)];
    out.push({
      id: "chart-refinement",
      title: "Policy refinement: undesirable events per program (all cases)",
      type: "line",
      x: "program",
      labels: Array.from({ length: programs }, (_, i) => i + 1),
      datasets: [
        {
          label: "undesirable events",
          data: Array.from({ length: programs }, (_, i) =>
            report.refinement!.reduce((k, x) => k + (at(x, i)?.events.length ?? 0), 0),
          ),
        },
      ],
    });
  }
  return out;
}

export const behaviorCriticReport: MethodReport = {
  tables: TABLES,
  headings: [
    [/^Table 1/, "table-1"],
    [/^Table 2/, "table-2", "error-taxonomy"],
    [/^Table 3/, "table-3"],
    [/^Table 4/, "table-4"],
    [/^Seen and held-back/, "seen-held-back"],
    [/^Per behaviour family/, "per-family"],
    [/^Answers the matcher/, "unmatched"],
    [/^Policy refinement/, "refinement", "refinement-per-program"],
  ],
  schema: CriticReportSchema,
  charts,
  facts: ({ meta: meta, refinement }: CriticReportJson) => [
    `behaviour critic`,
    `${meta.cases} case(s)`,
    `behaviours: ${meta.behaviours.join(", ")}`,
    `${meta.seeds} seed(s)`,
    `noise ${meta.noise}`,
    `benchmark ${meta.dir}`,
    ...(meta.matcher ? [`matcher sha256 ${meta.matcher}`] : []),
    refinement ? `refinement: ${refinement.length} case(s)` : "refinement not run",
    `${Math.round(meta.durationSeconds)} s`,
  ],
  slim: (r: CriticReportJson) => ({ ...r, critiques: undefined, preferences: undefined }),
};
