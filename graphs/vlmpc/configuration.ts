/** VLM-PC's variants and its own settings. */
import { z } from "zod";
import { count, runConfiguration } from "../../runtime/settings";

/** The full method, its two ablations, the random baseline, and the full method with labelled examples. */
export const VLMPC_VARIANTS = ["full", "no-history", "no-multi-step", "random", "full+ic"] as const;

/** VLM-PC's own settings. */
export const VLMPC_SETTINGS = {
  maxSkillSeconds: count("seconds of skill time before the run ends (the paper's 100 s)", 100),
  historyWindow: count(
    "how many recent steps the planner sees with their images; older ones as a text summary (0: the whole history, as the paper)",
    0,
  ),
  labelledExamples: z
    .string()
    .optional()
    .describe(
      "full+ic: a JSON file of labelled example frames (default: the course's, evals/datasets/course_examples/<course>.json)",
    ),
};

/** The run configuration Studio's assistant form shows and every run of the graph is checked against. */
export const VlmpcConfiguration = runConfiguration(VLMPC_VARIANTS, VLMPC_SETTINGS);

/** A run's settings, parsed (nodes read them from the run: runtime/run.ts). */
export type VlmpcSettings = z.infer<typeof VlmpcConfiguration>;
