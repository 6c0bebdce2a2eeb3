/** CLEA's variants: the full loop, without its critic, without its summarizer, and the open-loop baseline. */

export const CLEA_VARIANTS = ["full", "no-critic", "no-summarizer", "open-loop"] as const;


