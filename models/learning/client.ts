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
  const parsed = RunSkillsGoal.safeParse(goal);
  if (!parsed.success) throw new InvalidPlanError(`invalid run_skills goal: ${explainGoalError(parsed.error)}`);
  const result = await client.sendGoal(RUN_SKILLS_ACTION, RUN_SKILLS_TYPE, parsed.data, {
    timeoutMs: opts.timeoutMs ?? 300_000,
    signal: opts.signal,
  }).result;
  const values = result.values as RunSkillsResult & { error?: string };
  if (result.status !== GoalStatus.SUCCEEDED)
    throw new Error(
      `run_skills ${result.status === GoalStatus.CANCELED ? "was canceled" : `failed: ${values?.error ?? values?.message ?? result.status}`}`,
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
      const page = await client.callService<{ episodes: Episode[] }>(
        EPISODES_SERVICE,
        { ids: req.ids.slice(i, i + 50) },
        { timeoutMs: 60_000 },
      );
      out.push(...page.episodes);
    }
    return out;
  }
  const answer = await client.callService<{ episodes: Episode[] }>(
    EPISODES_SERVICE,
    { since: req.since ?? 0, limit: req.limit ?? 200 },
    { timeoutMs: 60_000 },
  );
  return answer.episodes;
}
