/**
 * Embody: the retrieved plan goes to every simulator instance at once — a LangGraph `Send` per instance, each running
 * the plan open-loop for its share of the episodes; their episodes are gathered by the state's reducer before the
 * next node runs. (The paper's embodiment modules, one per robot, all running the curriculum's plan.)
 */
import { Send } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CurriculumStateType, RolloutOrder } from "../state";
import { runOf } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

/** The simulator instances of this run (the bridge URL alone when none are listed). */
export function instanceUrls(config?: RunnableConfig): string[] {
  const opts = runOf<CurriculumSettings>(config).settings;
  if (opts.instanceUrls.length) return opts.instanceUrls;
  if (!opts.bridgeUrl)
    throw new Error("no bridge URL: set configurable.bridgeUrl (or instanceUrls) or ROBOGRAPH_BRIDGE_URL");
  return [opts.bridgeUrl];
}

/** One `Send` to the rollout node per instance, with its episodes (never past the episode budget). */
export function fanOut(state: CurriculumStateType, config?: RunnableConfig): Send[] {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  const urls = instanceUrls(config);
  const cycle = state.current!.cycle;
  const left = Math.max(1, opts.maxEpisodes - state.counters.episodes);
  const orders: RolloutOrder[] = [];
  let given = 0;
  urls.forEach((url, instance) => {
    const episodes = Math.min(opts.episodesPerInstance, left - given);
    if (episodes <= 0) return;
    given += episodes;
    const taskSkill = state.current!.taskSkill;
    orders.push({
      plan: state.plan!,
      ...(taskSkill ? { taskSkill } : {}),
      instance,
      url,
      cycle,
      episodes,
      policies: state.policies,
    });
  });
  return orders.map((o) => new Send("rollout", o));
}
