/**
 * The episodes the learner trains on: kept by the run as they are collected, and fetched again from the simulator's
 * episode store over the bridge when the run is new (a resumed one).
 */
import type { BridgeClient } from "../../../robots/bridge/client";
import { planSuccess, type Episode, type RunSkillsResult } from "../../../robots/msgs/runSkills";
import { blockCentres } from "./skills";
import { fetchEpisodes } from "../../../models/learning/client";
import type { EpisodeSummary } from "../state";
import type { Run } from "../../../runtime/run";

/** What the state keeps of one episode: its plan, each skill's rewards in its segment, the paper's success, the layouts. */
export function summarise(
  result: RunSkillsResult,
  ep: Episode | undefined,
  at: {
    instance: number;
    cycle: number;
    purpose: EpisodeSummary["purpose"];
    plan: string[];
    k: number;
    taskSkill?: string;
  },
): EpisodeSummary {
  // A task its episode started with already done (a start with a stack) says nothing of the plan: no success.
  const col = ep && at.taskSkill ? ep.skills.indexOf(at.taskSkill) : -1;
  const doneAtStart = col >= 0 && ep!.rewards[0][col] > 0.95;
  return {
    id: result.episode_id ?? `${at.instance}-unrecorded-${at.cycle}-${at.k}`,
    instance: at.instance,
    cycle: at.cycle,
    purpose: at.purpose,
    skills: at.plan,
    segmentMax: result.segments.map((g) => g.max),
    segmentEnd: result.segments.map((g) => g.final),
    // The paper's rule (each skill's reward above 0.5 in its segment, the last one's above 0.95), from the robot's report.
    success: planSuccess(result.segments) && !doneAtStart,
    ...(doneAtStart ? { doneAtStart } : {}),
    ...(ep ? { start: blockCentres(ep, 0), end: blockCentres(ep, ep.states.length - 1) } : {}),
  };
}

/**
 * The episodes each run holds, by id. Per run, not per process: an id names an episode only within its store, and two
 * campaigns in one process (an MCP or LangGraph server) number theirs alike (`i0-00001` …).
 */
const keptBy = new WeakMap<Run, Map<string, Episode>>();
function keptOf(run: Run): Map<string, Episode> {
  let kept = keptBy.get(run);
  if (!kept) keptBy.set(run, (kept = new Map()));
  return kept;
}

export function keepEpisodes(run: Run, eps: Episode[]): void {
  const kept = keptOf(run);
  for (const e of eps) kept.set(e.id, e);
}

/** The full episodes behind the summaries, asking each instance for those this run does not hold. */
export async function episodesOf(run: Run, summaries: EpisodeSummary[], clients: BridgeClient[]): Promise<Episode[]> {
  const kept = keptOf(run);
  const missing = new Map<number, string[]>();
  for (const s of summaries) if (!kept.has(s.id)) missing.set(s.instance, [...(missing.get(s.instance) ?? []), s.id]);
  for (const [instance, ids] of missing) {
    const client = clients[instance] ?? clients[0];
    for (let i = 0; i < ids.length; i += 200)
      keepEpisodes(run, await fetchEpisodes(client, { ids: ids.slice(i, i + 200) }));
  }
  const out = summaries.map((s) => kept.get(s.id));
  const lost = summaries.filter((_, i) => !out[i]).map((s) => s.id);
  if (lost.length)
    throw new Error(
      `the episode store no longer has ${lost.length} episode(s) of this run (e.g. ${lost[0]}); were the simulators restarted with another --episodes directory?`,
    );
  return out as Episode[];
}
