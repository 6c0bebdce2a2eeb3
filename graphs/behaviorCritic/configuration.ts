/** The behaviour critic's variants and its own settings. */
import { z } from "zod";
import { count, runConfiguration } from "../../runtime/settings";

/** With grounding feedback (the paper's augmented critic) or its raw critique. */
export const CRITIC_VARIANTS = ["full", "no-grounding"] as const;

/** The behaviour critic's own settings. */
export const CRITIC_SETTINGS = {
  grounding: z
    .enum(["detector", "events"])
    .default("detector")
    .describe(
      "what checks the critic's claims: detector (the tracked detections of the whole rollout) or events (the simulator's event log: perfect grounding, as a person watching would give)",
    ),
  maxRewrites: count("programs the writer may rewrite after a critique", 5),
  maxImages: z.coerce
    .number()
    .int()
    .min(2)
    .max(60)
    .default(30)
    .describe("most images in one request (the paper's 30 key frames; lower it for endpoints that cap images)"),
  evaluatorKey: z
    .string()
    .optional()
    .describe(
      "the key a simulator's /evaluator/* services require (grounding on events, live); falls back to ROBOGRAPH_EVALUATOR_KEY",
    ),
};

/** The run configuration Studio's assistant form shows and every run of the graph is checked against. */
export const CriticConfiguration = runConfiguration(CRITIC_VARIANTS, CRITIC_SETTINGS);

/** A run's settings, parsed (nodes read them from the run: runtime/run.ts). */
export type CriticSettings = z.infer<typeof CriticConfiguration>;
