/** CLEA's variants: the full loop, without its critic, without its summarizer, and the open-loop baseline. */
import type { z } from "zod";
import { pipelineSetting, runConfiguration } from "../../runtime/settings";

export const CLEA_VARIANTS = ["full", "no-critic", "no-summarizer", "open-loop"] as const;

/** The run configuration Studio's assistant form shows and every run of the graph is checked against. */
export const ClosedLoopConfiguration = runConfiguration(CLEA_VARIANTS, { pipeline: pipelineSetting });

/** A run's settings, parsed (nodes read them from the run: runtime/run.ts). */
export type CleaSettings = z.infer<typeof ClosedLoopConfiguration>;
