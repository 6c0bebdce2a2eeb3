/**
 * Learn: one learner iteration over every episode collected so far, relabelled with the reward of each skill being
 * learned (reward-weighted regression over the controller's parameters, models/learning), then each such skill's policy
 * evaluated from fixed layouts (its own: the first that do not start with it done) on the simulator instances: one learning-curve point per skill, scaled to the known
 * maximum return. Before the iteration each skill being learned is practised: tried alone a few times with samples of
 * its policy (the paper's future work: a missing skill gets data of its own). Skills judged converged are not trained
 * further.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { learnerIteration } from "../../../models/learning/learner";
import { createHash } from "node:crypto";
import {
  EVAL_SEEDS,
  SELECTION_SEEDS,
  evaluateSkill,
  explorePlan,
  layoutsFor,
} from "../../../models/learning/evaluation";
import { type SkillPolicy } from "../../../models/learning/policy";
import { Rng } from "../../../robots/random";
import { instanceUrls } from "./embody";
import { episodesOf, keepEpisodes, summarise } from "./episodes";
import { loadPolicies, storePolicies } from "./policies";
import { captionedPrior, skillId } from "./skills";
import type { CurriculumStateType, CurriculumUpdate, EpisodeSummary, LearningTarget } from "../state";
import type { SegmentReturns } from "../../../models/learning/relabel";
import type { Episode } from "../../../robots/msgs/runSkills";
import { runOf } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

// Episodes never change once recorded: their relabelled segment returns are computed once per episode.
const relabelled = new WeakMap<Episode, SegmentReturns[]>();

export async function learn(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  // A few skills at a time, first proposed first: practice and evaluation are spent where they can finish a skill.
  const learning = Object.values(state.targets)
    .filter((t) => !t.converged)
    .slice(0, opts.maxLearning);
  const counters = { ...state.counters, discardsInRow: 0 };
  if (!learning.length || !state.episodes.length) return { counters };
  const sessions = await Promise.all(instanceUrls(config).map((url) => run.session(url)));
  const clients = sessions.map((s) => s.client);
  const artifacts = sessions[0].artifacts;
  const ids = learning.map((t) => skillId(t.caption));
  // A skill learned for the first time starts from the prior its caption conditions (./skills.ts).
  const before = { ...loadPolicies(artifacts, state.policies) };
  for (const id of ids) before[id] ??= captionedPrior(id);
  // Practice: each skill being learned tried alone with samples of its policy (what gives a new skill data of its own;
  // the curriculum's plans, relabelled, give the rest).
  const practice: EpisodeSummary[] = [];
  const budgetLeft = Math.max(0, opts.maxEpisodes - state.counters.episodes);
  for (const [k, id] of ids.entries()) {
    const count = Math.min(opts.practiceEpisodes, budgetLeft - practice.length);
    if (count <= 0) break;
    const rng = new Rng(
      createHash("sha256").update(`practice|${opts.seed}|${state.counters.iterations}|${id}`).digest().readUInt32BE(0),
    );
    const { results, episodes } = await explorePlan(clients, [id], before, { episodes: count, rng });
    keepEpisodes(run, episodes);
    results.forEach((result, j) =>
      practice.push(
        summarise(result, episodes[j], {
          instance: k % clients.length,
          cycle: state.counters.cycles,
          purpose: "practice",
          plan: [learning[k].caption],
          k: j,
        }),
      ),
    );
  }
  const episodes = await episodesOf(run, [...state.episodes, ...practice], clients);
  const targets: Record<string, LearningTarget> = { ...state.targets };
  // A curve starts at the policy as it was before learning (a new skill's uninformed prior).
  // Each point twice: on the reported layouts (the curve) and on the selection layouts (what early stopping reads).
  // Each skill's layouts are chosen once, at its first point: those of the sequences that do not start with it done.
  const measure = async (policy: SkillPolicy, target: LearningTarget) => {
    const [reported, selected] = [
      await evaluateSkill(clients, policy, { seeds: target.layouts!.evaluation }),
      await evaluateSkill(clients, policy, { seeds: target.layouts!.selection }),
    ];
    return { score: reported.score, successRate: reported.successRate, selection: selected.score };
  };
  for (const t of learning) {
    if (t.returns.length) continue;
    const id = skillId(t.caption);
    const layouts = {
      evaluation: await layoutsFor(clients, id, EVAL_SEEDS),
      selection: await layoutsFor(clients, id, SELECTION_SEEDS),
    };
    const { score, successRate, selection } = await measure(before[id], { ...t, layouts });
    targets[t.caption] = {
      ...t,
      layouts,
      since: state.counters.iterations,
      returns: [score * t.maxReturn],
      finalSuccess: [successRate],
      snapshots: [state.policies],
      selection: [selection * t.maxReturn],
    };
  }
  // The curriculum's elite and step (run settings, defaults chosen on tuning seeds apart from the reported runs): among
  // the relabelled samples of a new skill, layout luck scores nearly as well as the skill done right (a block lying
  // beside another earns part of the shaped place reward), so a broad elite averages a grasp gate below its threshold.
  const { policies } = learnerIteration(before, episodes, ids, {
    cache: relabelled,
    eliteFraction: opts.learnerElite,
    step: opts.learnerStep,
  });
  const ref = storePolicies(artifacts, policies);
  for (const t of learning) {
    const was = targets[t.caption];
    const { score, successRate, selection } = await measure(policies[skillId(t.caption)], was);
    targets[t.caption] = {
      ...was,
      returns: [...was.returns, score * t.maxReturn],
      finalSuccess: [...was.finalSuccess, successRate],
      snapshots: [...was.snapshots, ref],
      selection: [...(was.selection ?? []), selection * t.maxReturn],
    };
  }
  return {
    policies: ref,
    targets,
    episodes: practice,
    counters: { ...counters, episodes: counters.episodes + practice.length, iterations: counters.iterations + 1 },
  };
}
