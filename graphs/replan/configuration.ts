/** RePLan's variants and its own settings (Algorithm 1's budgets, the perceiver's phrasings). */
import { z } from "zod";
import { count, pipelineSetting, runConfiguration } from "../../runtime/settings";

/** The full method, its ablations, and Language to Rewards' one-shot baseline. */
export const REPLAN_VARIANTS = ["full", "no-verifier", "no-perceiver", "no-replan", "one-shot"] as const;

/** RePLan's own settings. */
export const REPLAN_SETTINGS = {
  maxProcedures: count("new procedures after a plan ended without the goal", 3),
  pipeline: pipelineSetting,
  diagnosisPhrasings: z.coerce
    .number()
    .int()
    .min(1)
    .max(6)
    .default(6)
    .describe("differently worded questions the perceiver is asked about a failure (1–6, default 6)"),
};

/** The run configuration Studio's assistant form shows and every run of the graph is checked against. */
export const ReplanConfiguration = runConfiguration(REPLAN_VARIANTS, REPLAN_SETTINGS);

/** A run's settings, parsed (nodes read them from the run: runtime/run.ts). */
export type ReplanSettings = z.infer<typeof ReplanConfiguration>;
