/**
 * The blocks arm over the bridge, as the agent reaches it: run a plan of skills, fetch recorded episodes. Goals are
 * checked against the shared schema before anything is sent, so a bad step is refused here with the field named; the
 * robot checks them again.
 */
import type { BridgeClient } from "../../robots/bridge/client";
import { GoalStatus } from "../../robots/bridge/protocol";
import {
  EPISODES_SERVICE,
  RUN_SKILLS_ACTION,
  RUN_SKILLS_TYPE,
  RunSkillsGoal,
  explainGoalError,
  type Episode,
  type RunSkillsResult,
} from "../../robots/msgs/runSkills";

export class InvalidPlanError extends Error {
  override name = "InvalidPlanError";
}

export async function runSkills(
  client: BridgeClient,
  goal: RunSkillsGoal,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<RunSkillsResult> {
  const p = RunSkillsGoal.safeParse(goal);
  if (!p.success) throw new InvalidPlanError(`invalid run_skills goal: ${explainGoalError(p.error)}`);
  const r = await client.sendGoal(RUN_SKILLS_ACTION, RUN_SKILLS_TYPE, p.data, {
    timeoutMs: opts.timeoutMs ?? 300_000,
    signal: opts.signal,
  }).result;
  const values = r.values as RunSkillsResult & { error?: string };
  if (r.status !== GoalStatus.SUCCEEDED)
    throw new Error(
      `run_skills ${r.status === GoalStatus.CANCELED ? "was canceled" : `failed: ${values?.error ?? values?.message ?? r.status}`}`,
    );
  return values;
}

export async function fetchEpisodes(
  client: BridgeClient,
  req: { ids?: string[]; since?: number; limit?: number },
): Promise<Episode[]> {
  const out: Episode[] = [];
  // A few at a time keeps each answer well under the bridge's message limit.
  if (req.ids) {
    for (let i = 0; i < req.ids.length; i += 50) {
      const r = await client.callService<{ episodes: Episode[] }>(
        EPISODES_SERVICE,
        { ids: req.ids.slice(i, i + 50) },
        { timeoutMs: 60_000 },
      );
      out.push(...r.episodes);
    }
    return out;
  }
  const r = await client.callService<{ episodes: Episode[] }>(
    EPISODES_SERVICE,
    { since: req.since ?? 0, limit: req.limit ?? 200 },
    { timeoutMs: 60_000 },
  );
  return r.episodes;
}
