/** What Game On's curriculum publishes: its report (graphs/curriculum/record.ts writes it) and the viewer's charts. */
import { z } from "zod";
import { REPORT_FORMAT, tablesOf, type ChartSpec, type MethodReport } from "../report";

const TABLES = ["library", "same-image", "cycles", "proposals", "curve", "fig-5", "diversity"] as const;

export const CurriculumReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  method: z.literal("curriculum"),
  thread: z.string(),
  status: z.string(),
  statusReason: z.string(),
  facts: z.looseObject({
    model: z.string(),
    instances: z.number(),
    seed: z.number(),
    noise: z.number(),
    budgets: z.object({ episodes: z.number(), iterations: z.number(), wallSeconds: z.number() }),
  }),
  timing: z.object({ wallSeconds: z.number() }),
  counters: z.looseObject({ episodes: z.number(), iterations: z.number(), cycles: z.number() }),
  library: z.array(z.looseObject({ caption: z.string(), since: z.number(), source: z.string() })),
  cycles: z.array(z.looseObject({ cycle: z.number() })),
  proposals: z.array(z.looseObject({ cycle: z.number(), step: z.string() })),
  curves: z.record(
    z.string(),
    z.looseObject({
      family: z.string(),
      since: z.number(),
      returns: z.array(z.number()),
      maxReturn: z.number(),
      converged: z.boolean(),
    }),
  ),
  convergedShare: z.array(z.object({ family: z.string(), skills: z.array(z.string()), share: z.array(z.number()) })),
  diversity: z.looseObject({ proposals: z.number(), uniqueProposals: z.number() }),
  sameImageStages: z.array(z.unknown()),
  episodes: z.array(z.unknown()),
  tables: tablesOf(TABLES),
});
export type CurriculumReportJson = z.infer<typeof CurriculumReportSchema>;

function charts(report: CurriculumReportJson): ChartSpec[] {
  const out: ChartSpec[] = [];
  const stages = [...new Set(report.library.map((l) => l.since))].sort((a, b) => a - b);
  out.push({
    id: "chart-library",
    title: "The library over time: skills after each learner iteration that added some",
    type: "line",
    x: "learner iteration",
    labels: stages,
    datasets: [{ label: "library size", data: stages.map((it) => report.library.filter((l) => l.since <= it).length) }],
  });
  const curves = Object.entries(report.curves);
  const iterations = Math.max(0, ...curves.map(([, c]) => c.since + c.returns.length));
  if (curves.length)
    out.push({
      id: "chart-curves",
      title: "Learning curves: evaluation return as a share of the known maximum",
      type: "line",
      x: "learner iteration",
      labels: Array.from({ length: iterations }, (_, i) => i),
      datasets: curves.map(([caption, curve]) => ({
        label: caption,
        data: Array.from({ length: iterations }, (_, i) =>
          i >= curve.since && i - curve.since < curve.returns.length
            ? curve.returns[i - curve.since] / (curve.maxReturn || 1)
            : null,
        ),
      })),
      yMax: 1,
    });
  const its = Math.max(0, ...report.convergedShare.map((f) => f.share.length));
  out.push({
    id: "chart-fig-5",
    title: "Cumulative share of curves judged converged, per task family (Fig. 5)",
    type: "line",
    x: "learner iteration",
    labels: Array.from({ length: its }, (_, i) => i),
    datasets: report.convergedShare.map((f) => ({ label: f.family, data: f.share })),
    yMax: 1,
  });
  return out;
}

export const curriculumReport: MethodReport = {
  tables: TABLES,
  headings: [
    [/^The library over time/, "library"],
    [/^The same image/, "same-image"],
    [/^Every proposal/, "cycles"],
    [/^Skills proposed/, "proposals"],
    // Each learning curve is a ### section of its own under "Learning curves".
    [/^#curve /, "curve"],
    [/^Cumulative share/, "fig-5"],
    [/^Data diversity/, "diversity"],
  ],
  schema: CurriculumReportSchema,
  charts,
  facts: (report: CurriculumReportJson) => [
    `Game On curriculum`,
    `${report.status}: ${report.statusReason}`,
    `model ${report.facts.model}`,
    `seed ${report.facts.seed}`,
    `${report.counters.episodes} episodes`,
    `${report.counters.iterations} learner iterations`,
    `library ${report.library.length} skills`,
    `${Math.round(report.timing.wallSeconds)} s`,
  ],
  slim: (r: CurriculumReportJson) => ({ ...r, cycles: undefined, episodes: undefined, sameImageStages: undefined }),
};
