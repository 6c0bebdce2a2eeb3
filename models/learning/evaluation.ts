/**
 * Embodiment and evaluation over N simulator instances. `explorePlan` runs a plan open-loop, each skill with a sample
 * of its policy, spread over the instances in parallel, and fetches the recorded episodes. `evaluateSkill` runs a
 * skill's mean parameters alone from fixed evaluation layouts: its score is the mean reward per step over the fixed
 * evaluation episode, i.e. the return scaled by the known maximum (rewards are clipped to [0, 1]), over the layouts
 * that do not start with the skill already done.
 */
import type { BridgeClient } from "../../robots/bridge/client";
import { CONTROL_TICK, EVAL_SECONDS } from "../../robots/msgs/blocks";
import { type Episode, type RunSkillsResult, type SkillStep } from "../../robots/msgs/runSkills";
import { fetchEpisodes, runSkills } from "./client";
import { meanParams, priorPolicy, samplePolicy, type SkillPolicy } from "./policy";
import type { Rng } from "../../robots/random";

/** Default duration of one skill of a plan, seconds. */
export const SKILL_SECONDS = 4;
/** Layouts every reported evaluation uses — learning curves, the kept policy's figures (never explored on). */
export const EVAL_SEEDS = [100_000, 100_001, 100_002, 100_003];
/**
 * Layouts early stopping chooses on: which point of a curve the library keeps is decided here, never on the layouts
 * the curve and the kept policy are reported on (and never explored on either).
 */
export const SELECTION_SEEDS = [200_000, 200_001, 200_002, 200_003];
/** Layouts the curriculum's proposer is shown (one per proposal), apart from those explored, evaluated and selected on. */
export const PROPOSAL_SEEDS = { from: 300_000, count: 100_000 };

/**
 * Runs `jobs` over the clients in turn — job j on client j mod N, each client's jobs in order — so which instance runs
 * which episode, what it is called there and which layout each instance is left showing never depend on which
 * instance happened to finish first (a run repeats under its seed however loaded the machine is).
 */
async function spread<T>(
  clients: readonly BridgeClient[],
  jobs: number,
  run: (client: BridgeClient, job: number) => Promise<T>,
): Promise<T[]> {
  if (clients.length === 0) throw new Error("no simulator instances to run on");
  const out: T[] = new Array(jobs);
  await Promise.all(
    clients.map(async (client, i) => {
      for (let j = i; j < jobs; j += clients.length) out[j] = await run(client, j);
    }),
  );
  return out;
}

export async function explorePlan(
  clients: readonly BridgeClient[],
  plan: readonly string[],
  policies: Record<string, SkillPolicy>,
  opts: { episodes: number; rng: Rng; seconds?: number; purpose?: "explore" | "pretrain"; signal?: AbortSignal },
): Promise<{ results: RunSkillsResult[]; episodes: Episode[] }> {
  // Layouts and parameters are drawn up front, in episode order, so a seed fixes the episodes however the instances
  // interleave. Exploration layouts stay below the evaluation layouts.
  const goals = Array.from({ length: opts.episodes }, () => ({
    seed: Math.floor(opts.rng.next() * EVAL_SEEDS[0]),
    steps: plan.map((skill) => ({
      skill,
      params: samplePolicy(policies[skill] ?? priorPolicy(skill), opts.rng),
      seconds: opts.seconds ?? SKILL_SECONDS,
    })),
  }));
  const runs = await spread(clients, opts.episodes, async (client, j) => {
    const result = await runSkills(
      client,
      { ...goals[j], purpose: opts.purpose ?? "explore" },
      { signal: opts.signal },
    );
    const [episode] = await fetchEpisodes(client, { ids: [result.episode_id!] });
    return { result, episode };
  });
  return { results: runs.map((r) => r.result), episodes: runs.map((r) => r.episode) };
}

/**
 * The layouts a skill is evaluated from: the first `count` of the sequence from `from[0]` whose start does not already
 * show the skill done (its reward at the first state at most 0.95, as the robot reports it after one control step).
 * From a start where every block is on the floor these are `from` itself; from a stacked start, "unstack green from
 * blue" is shown layouts with green on blue. Fewer when `tries` layouts show too few.
 */
export async function layoutsFor(
  clients: readonly BridgeClient[],
  skill: string,
  from: readonly number[],
  opts: { count?: number; tries?: number; signal?: AbortSignal } = {},
): Promise<number[]> {
  const count = opts.count ?? from.length,
    tries = opts.tries ?? 64;
  const step = { skill, params: meanParams(priorPolicy(skill)), seconds: CONTROL_TICK };
  const out: number[] = [];
  for (let k = 0; out.length < count && k < tries; k += clients.length) {
    const seeds = Array.from({ length: Math.min(clients.length, tries - k) }, (_, j) => from[0] + k + j);
    const firsts = await spread(
      clients,
      seeds.length,
      async (client, j) =>
        (
          await runSkills(
            client,
            { steps: [step], seed: seeds[j], record: false, purpose: "evaluate" },
            { signal: opts.signal },
          )
        ).segments[0].first,
    );
    seeds.forEach((seed, j) => firsts[j] <= 0.95 && out.length < count && out.push(seed));
  }
  return out;
}

export interface Evaluation {
  skill: string;
  /** Mean reward per step over the evaluation episodes, in [0, 1] (return / EVAL_STEPS). */
  score: number;
  /** Per layout. */
  returns: number[];
  /** The skill's reward at the end of each evaluation episode, and the share above 0.95 (the paper's success). */
  finals: number[];
  successRate: number;
}

export async function evaluateSkill(
  clients: readonly BridgeClient[],
  policy: SkillPolicy,
  opts: { seeds?: number[]; seconds?: number; prefix?: SkillStep[]; signal?: AbortSignal } = {},
): Promise<Evaluation> {
  const seeds = opts.seeds ?? EVAL_SEEDS;
  const step = { skill: policy.skill, params: meanParams(policy), seconds: opts.seconds ?? EVAL_SECONDS };
  const results = await spread(clients, seeds.length, (client, j) =>
    runSkills(
      client,
      { steps: [...(opts.prefix ?? []), step], seed: seeds[j], record: false, purpose: "evaluate" },
      { signal: opts.signal },
    ),
  );
  // A layout that starts with the skill already done (a start with a stack) shows nothing of the policy: left out;
  // with every layout so, there is nothing to score.
  const own = results.map((r) => r.segments[r.segments.length - 1]).filter((g) => g.first <= 0.95);
  const returns = own.map((g) => g.mean);
  const finals = own.map((g) => g.final);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    skill: policy.skill,
    score: mean(returns),
    returns,
    finals,
    successRate: mean(finals.map((f) => (f > 0.95 ? 1 : 0))),
  };
}
