/**
 * Rollout (one per instance, fanned out by `embody`): the plan run open-loop on one simulator — each skill from the
 * library with a sample of its policy, for the fixed skill duration — its episodes recorded in the episode store, and
 * the paper's success per episode (every skill's reward above 0.5 in its segment, the last one's above 0.95).
 */
import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { explorePlan } from "../../../models/learning/evaluation";
import { Rng } from "../../../robots/random";
import { keepEpisodes, summarise } from "./episodes";
import { loadPolicies } from "./policies";
import { skillId } from "./skills";
import type { CurriculumUpdate, RolloutOrder } from "../state";
import { runOf } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

export async function rollout(order: RolloutOrder, config?: RunnableConfig): Promise<CurriculumUpdate> {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  const session = await run.session(order.url);
  const policies = loadPolicies(session.artifacts, order.policies);
  const ids = order.plan.map(skillId);
  // Policy samples keyed by run seed, cycle and instance; block layouts follow each instance's own seeded sequence.
  const rngSeed = createHash("sha256")
    .update(`rollout|${opts.seed}|${order.cycle}|${order.instance}`)
    .digest()
    .readUInt32BE(0);
  const { results, episodes } = await explorePlan([session.client], ids, policies, {
    episodes: order.episodes,
    rng: new Rng(rngSeed),
  });
  keepEpisodes(run, episodes);
  const byId = new Map(episodes.map((e) => [e.id, e]));
  const taskSkill = order.taskSkill ? skillId(order.taskSkill) : undefined;
  const summaries = results.map((result, k) =>
    summarise(result, result.episode_id ? byId.get(result.episode_id) : undefined, {
      instance: order.instance,
      cycle: order.cycle,
      purpose: "plan",
      plan: order.plan,
      k,
      taskSkill,
    }),
  );
  return { episodes: summaries };
}
