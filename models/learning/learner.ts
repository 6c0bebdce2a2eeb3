/**
 * One learner iteration: reward-weighted regression of each skill's Gaussian onto its relabelled samples. The elite
 * (the best-scoring fifth, at least a few) is weighted exponentially by score; the new mean and spread are the weighted
 * moments, blended with the old ones (a trust region), the spread kept above a floor.
 */
import { PARAM_DIM } from "../../robots/msgs/blocks";
import { MIN_STD, priorPolicy, type SkillPolicy } from "./policy";
import { relabel, type SegmentReturns } from "./relabel";
import type { Episode } from "../../robots/msgs/runSkills";

export interface LearnerOptions {
  /** Share of the samples in the elite. */
  eliteFraction?: number;
  minElite?: number;
  /** Weight of the new moments against the old (1: replace). */
  step?: number;
  /** Below this best score a skill's samples carry no signal yet and its policy is left as it is. */
  minSignal?: number;
  /** Cache of per-episode segment returns across iterations (episodes are immutable). */
  cache?: WeakMap<Episode, SegmentReturns[]>;
}

export interface SkillUpdate {
  samples: number;
  best: number;
  /** Mean score of the elite. */
  elite: number;
  updated: boolean;
}

export function learnerIteration(
  policies: Record<string, SkillPolicy>,
  episodes: readonly Episode[],
  skills: readonly string[],
  opts: LearnerOptions = {},
): { policies: Record<string, SkillPolicy>; stats: Record<string, SkillUpdate> } {
  const fraction = opts.eliteFraction ?? 0.2,
    minElite = opts.minElite ?? 4,
    alpha = opts.step ?? 0.7,
    minSignal = opts.minSignal ?? 0.02;
  const out: Record<string, SkillPolicy> = { ...policies };
  const stats: Record<string, SkillUpdate> = {};
  for (const skill of skills) {
    const old = policies[skill] ?? priorPolicy(skill);
    const samples = relabel(episodes, skill, opts.cache).sort((a, b) => b.score - a.score);
    const best = samples[0]?.score ?? 0;
    const eliteCount = Math.min(samples.length, Math.max(minElite, Math.ceil(fraction * samples.length)));
    const elite = samples.slice(0, eliteCount);
    const eliteMean = elite.reduce((s, x) => s + x.score, 0) / Math.max(1, eliteCount);
    if (eliteCount < minElite || best < minSignal) {
      out[skill] = { ...old, iterations: old.iterations + 1, samples: samples.length };
      stats[skill] = { samples: samples.length, best, elite: eliteMean, updated: false };
      continue;
    }
    // Exponential weights with a temperature set by the elite's own spread: the best dominate, so the mean follows one
    // mode of a multimodal elite (e.g. "open by not grasping" vs "open while approaching") instead of falling between.
    const eta = Math.max(0.01, (best - elite[eliteCount - 1].score) / 3);
    const weights = elite.map((x) => Math.exp((x.score - best) / eta));
    const totalWeight = weights.reduce((a, b) => a + b, 0);
    const mean = new Array(PARAM_DIM).fill(0),
      vari = new Array(PARAM_DIM).fill(0);
    elite.forEach((x, i) => x.params.forEach((v, d) => (mean[d] += (weights[i] * v) / totalWeight)));
    elite.forEach((x, i) => x.params.forEach((v, d) => (vari[d] += (weights[i] * (v - mean[d]) ** 2) / totalWeight)));
    out[skill] = {
      skill,
      mean: old.mean.map((m, d) => (1 - alpha) * m + alpha * mean[d]),
      std: old.std.map((s, d) => Math.max(MIN_STD[d], Math.sqrt((1 - alpha) * s * s + alpha * vari[d]))),
      iterations: old.iterations + 1,
      samples: samples.length,
    };
    stats[skill] = { samples: samples.length, best, elite: eliteMean, updated: true };
  }
  return { policies: out, stats };
}
