/** CLEA's variants: the full loop, without its critic, without its summarizer, and the open-loop baseline. */
import { runConfiguration } from "../settings";

export const CLEA_VARIANTS = ["full", "no-critic", "no-summarizer", "open-loop"] as const;

/** The run configuration Studio's assistant form shows and every run of the graph is checked against. */
export const ClosedLoopConfiguration = runConfiguration(CLEA_VARIANTS);
