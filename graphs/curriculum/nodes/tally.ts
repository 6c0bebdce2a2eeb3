/** Tally: the cycle's episodes from every instance, counted into the record of successes and failures. */
import type { CurriculumStateType, CurriculumUpdate } from "../state";

export async function tally(state: CurriculumStateType): Promise<CurriculumUpdate> {
  const cur = state.current!;
  const mine = state.episodes.filter((e) => e.cycle === cur.cycle && e.purpose === "plan");
  const successes = mine.filter((e) => e.success).length;
  const record = { ...cur, outcome: { kind: "embodied" as const, episodes: mine.length, successes } };
  return {
    current: null,
    cycles: [record],
    plan: null,
    counters: { ...state.counters, episodes: state.counters.episodes + mine.length },
  };
}
