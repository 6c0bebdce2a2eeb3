/**
 * How a Game On curriculum run goes (`npm start -- --graph curriculum`), as the campaign runner (cli/campaign.ts)
 * asks it: N blocks simulators recording to one episode store under the run's record, its budgets, its progress, and
 * the record it leaves (report.json/md/html, curves, frames, Fig. 5, episodes/).
 */
import type { Campaign } from "../method";
import type { Run } from "../../runtime/run";
import { totalUsage } from "../../models";
import type { CurriculumSettings } from "./configuration";
import type { CurriculumStateType } from "./state";
import { writeCurriculumRecord, type RunFacts } from "./record";
import { sameImageStages } from "./stages";

export const curriculumCampaign: Campaign = {
  about:
    "Game On's curriculum: propose → decompose → retrieve → embody (N simulator instances in parallel) → learn → analyse,\nfrom the base skills (open/close gripper, grasp anything, reach X), until a budget ends it.",
  budgets: [
    { flag: "budget-episodes", setting: "maxEpisodes", default: 120, help: "embodied episodes" },
    { flag: "budget-iterations", setting: "maxIterations", default: 40, help: "learner iterations" },
    { flag: "budget-seconds", setting: "maxWallSeconds", default: 3600, help: "wall-clock seconds" },
  ],
  instancesSetting: "instanceUrls",
  // Each instance its own layout sequence; all record to the run's episode store.
  simulatorArgs: (i, seed, episodesDir) => [
    "--seed",
    String(seed * 1000 + i),
    "--episodes",
    episodesDir,
    "--instance",
    `i${i}`,
  ],
  // An embodiment's update carries every episode's rollout data: the log keeps its summaries.
  logged: (node, update) => (node === "rollout" ? { episodes: update.episodes } : update),
  progress: (raw) => {
    const state = raw as unknown as CurriculumStateType;
    const learning = Object.values(state.targets).filter((t) => !t.converged && t.returns.length).length;
    return {
      done: state.counters.episodes,
      text: `cycle ${state.counters.cycles} · iteration ${state.counters.iterations} · library ${state.library.length} · learning ${learning}`,
    };
  },
  finish: async (runDir, raw, facts, someRun) => {
    const state = raw as unknown as CurriculumStateType;
    const run = someRun as Run<CurriculumSettings> | undefined;
    const settings = run?.settings;
    const usage = totalUsage(state.usage);
    const record = {
      ...facts,
      ...(settings
        ? {
            budgets: {
              episodes: settings.maxEpisodes,
              iterations: settings.maxIterations,
              wallSeconds: settings.maxWallSeconds,
            },
          }
        : {}),
      ...(settings ? { learner: { elite: settings.learnerElite, step: settings.learnerStep } } : {}),
      modelCalls: usage.calls,
    };
    let stages: Awaited<ReturnType<typeof sameImageStages>> | undefined;
    try {
      if (!run) throw new Error("the run never opened");
      stages = await sameImageStages(state, run);
    } catch (err) {
      process.stderr.write(`the same-image table (Table 2) could not be made: ${(err as Error).message}\n`);
    }
    if (!run) throw new Error("the run never opened: no artifacts to keep its frames in");
    await writeCurriculumRecord(runDir, state, record as unknown as RunFacts, run.artifacts, stages);
    const learned = state.library.filter((l) => l.source === "learned").map((l) => l.caption);
    return (
      `cycles ${state.counters.cycles}, episodes ${state.counters.episodes}, learner iterations ${state.counters.iterations}, model calls ${usage.calls}, wall ${Math.round(Number(facts.wallSeconds))} s\n` +
      `library: ${state.library.length} skills; learned by this run: ${learned.join(", ") || "none"}\n`
    );
  },
  achieved: (raw) => (raw as unknown as CurriculumStateType).library.some((l) => l.source === "learned"),
};
