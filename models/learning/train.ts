/**
 * A plain learning loop over simulator instances (what `npm run make:base-skills` runs, and the learnability checks):
 * each iteration explores every skill being learned with samples of its policy, adds the episodes to the data, runs one
 * learner iteration on all of it (relabelled for every skill), and evaluates each skill's new policy.
 */
import type { BridgeClient } from "../../robots/bridge/client";
import type { Episode } from "../../robots/msgs/runSkills";
import { evaluateSkill, explorePlan } from "./evaluation";
import { learnerIteration, type SkillUpdate } from "./learner";
import { priorPolicy, type SkillLibrary } from "./policy";
import type { Rng } from "../../robots/random";
import type { SegmentReturns } from "./relabel";

export interface TrainOptions {
  /** Skills whose policies are updated (and evaluated). */
  skills: string[];
  iterations: number;
  /** Episodes per plan per iteration. */
  episodesPerPlan: number;
  /** Plans explored each iteration (default: each learned skill alone). */
  plans?: string[][];
  rng: Rng;
  /** Episodes collected before (relabelled with the rest). */
  data?: Episode[];
  onIteration?: (i: number, stats: Record<string, SkillUpdate>, scores: Record<string, number>) => void;
}

export async function trainSkills(
  clients: readonly BridgeClient[],
  library: SkillLibrary,
  opts: TrainOptions,
): Promise<{ library: SkillLibrary; data: Episode[] }> {
  const policies = { ...library.policies };
  const curves: Record<string, number[]> = Object.fromEntries(
    Object.entries(library.curves).map(([k, v]) => [k, [...v]]),
  );
  const data = [...(opts.data ?? [])];
  const cache = new WeakMap<Episode, SegmentReturns[]>();
  for (const s of opts.skills) {
    policies[s] ??= priorPolicy(s);
    // The curve starts at the policy as it is before any learning.
    if (!curves[s]?.length) curves[s] = [(await evaluateSkill(clients, policies[s])).score];
  }
  const plans = opts.plans ?? opts.skills.map((s) => [s]);
  for (let i = 1; i <= opts.iterations; i++) {
    for (const plan of plans)
      data.push(
        ...(
          await explorePlan(clients, plan, policies, {
            episodes: opts.episodesPerPlan,
            rng: opts.rng,
            purpose: "pretrain",
          })
        ).episodes,
      );
    const { policies: next, stats } = learnerIteration(policies, data, opts.skills, { cache });
    Object.assign(policies, next);
    const scores: Record<string, number> = {};
    for (const s of opts.skills) {
      scores[s] = (await evaluateSkill(clients, policies[s])).score;
      curves[s].push(scores[s]);
    }
    opts.onIteration?.(i, stats, scores);
  }
  return { library: { ...library, policies, curves }, data };
}
