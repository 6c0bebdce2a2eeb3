/** Runs the closed-loop graph in this test's process against a simulator process (see evals/episode). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph";
import { runMethodEpisode, executedCalls, callText, type EpisodeRun } from "../../evals/episode";
import type { NoiseKnobs } from "../../models/symbolic/noise";
import { loadScenario } from "../../robots/sim/kitchen/scenario";

export type Episode = EpisodeRun;
export { callText };
export const scratchDir = () => mkdtempSync(join(tmpdir(), "robograph-"));
export const executed = (e: Episode) => executedCalls(e.trace);

export function runEpisode(options: {
  url: string;
  scenario: string;
  variant?: string;
  noise?: number;
  noiseKnobs?: Partial<NoiseKnobs>;
  seed?: number;
  thread?: string;
  maxSteps?: number;
  backend?: "symbolic" | "openai";
  store?: BaseStore;
  pipeline?: boolean;
}): Promise<Episode> {
  const { pipeline, ...rest } = options;
  return runMethodEpisode({
    ...rest,
    ...(pipeline ? { settings: { pipeline } } : {}),
    goal: loadScenario(options.scenario).instruction,
    thread: options.thread ?? `${options.scenario}-${options.variant ?? "full"}`,
    dataDir: scratchDir(),
  });
}
