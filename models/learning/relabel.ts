/**
 * Relabelling (Game On §3.2): every segment of every episode, scored with every skill's reward. Because all skills
 * share one controller parameterisation, a segment run for one skill with parameters θ and scored by another skill's
 * reward is a sample (θ, return) for that other skill.
 */
import { SKILL_IDS } from "../../robots/manifests/blocks/skills";
import { type Episode } from "../../robots/msgs/runSkills";

export interface SegmentReturns {
  episode: string;
  segment: number;
  /** The skill the segment ran for. */
  skill: string;
  params: number[];
  start: number;
  end: number;
  /** Mean reward of every skill over the segment's steps (the scaled return, in [0, 1]). */
  returns: Record<string, number>;
  /** Every skill's reward at the segment's first state. */
  startRewards: Record<string, number>;
}

export function segmentReturns(ep: Episode): SegmentReturns[] {
  const cols = ep.skills.map((k) => SKILL_IDS.indexOf(k));
  if (cols.some((c) => c < 0))
    throw new Error(
      `episode ${ep.id} has rewards of unknown skills: ${ep.skills.filter((_, i) => cols[i] < 0).join(", ")}`,
    );
  return ep.plan.map((seg, i) => {
    const returns: Record<string, number> = {};
    const startRewards: Record<string, number> = {};
    ep.skills.forEach((k, column) => {
      let sum = 0;
      for (let t = seg.start + 1; t <= seg.end; t++) sum += ep.rewards[t][column];
      returns[k] = seg.end > seg.start ? sum / (seg.end - seg.start) : 0;
      startRewards[k] = ep.rewards[seg.start][column];
    });
    return {
      episode: ep.id,
      segment: i,
      skill: seg.skill,
      params: seg.params,
      start: seg.start,
      end: seg.end,
      returns,
      startRewards,
    };
  });
}

export interface Sample {
  params: number[];
  /** The segment's mean reward under the relabelled skill. */
  score: number;
  episode: string;
  segment: number;
  /** The skill the segment was collected for. */
  ranFor: string;
}

/** A segment that started with the skill already done says nothing about how to do it: it is left out. */
export const ALREADY_DONE = 0.5;

/**
 * `cache` holds each episode's segment returns by the episode itself, not its id: an id names an episode only within
 * its store, and two campaigns in one process (an MCP or LangGraph server) number theirs alike.
 */
export function relabel(
  episodes: readonly Episode[],
  skill: string,
  cache?: WeakMap<Episode, SegmentReturns[]>,
): Sample[] {
  const out: Sample[] = [];
  for (const ep of episodes) {
    let segs = cache?.get(ep);
    if (!segs) {
      segs = segmentReturns(ep);
      cache?.set(ep, segs);
    }
    for (const s of segs) {
      if (!(skill in s.returns)) throw new Error(`episode ${ep.id} has no reward for skill ${skill}`);
      if (s.startRewards[skill] > ALREADY_DONE) continue;
      out.push({ params: s.params, score: s.returns[skill], episode: s.episode, segment: s.segment, ranFor: s.skill });
    }
  }
  return out;
}
