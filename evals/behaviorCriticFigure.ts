/**
 * What the behaviour critic's figure (graphs/behaviorCritic/figures.ts) reads of the critic's experiments: their
 * reports, scores and refinement as evals/ writes them, and the held-back edit families of the workbench's grammar.
 * cli/reproduce.ts hands it to the figure for the `critic` dataset.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HELD_BACK, HELD_BACK_SEED } from "../robots/sim/workbench/edits";
import type { CriticBenchmarkReader } from "../graphs/behaviorCritic/figures";
import { criticReport, criticScores, matcherHash, readCriticReport, scoredCasesOnly } from "./behaviorCritic";
import { refineReport } from "./behaviorCriticRefine";

export const criticBenchmarkReader: CriticBenchmarkReader = {
  heldBack: { families: HELD_BACK, seed: HELD_BACK_SEED },
  matcherHash,
  read(dir, scoredOnly) {
    if (!existsSync(join(dir, "report.json"))) return undefined;
    const { refinement, ...results } = readCriticReport(join(dir, "report.json"));
    if (scoredOnly) scoredCasesOnly(results);
    const refine = refinement ? refineReport(refinement) : undefined;
    return {
      cases: results.meta.cases,
      seeds: results.meta.seeds,
      scores: () => criticScores(results),
      report: () => criticReport(results, refine, { timing: false }),
    };
  },
};
