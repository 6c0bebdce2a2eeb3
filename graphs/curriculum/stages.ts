/**
 * Table 2 as the paper made it: one image (the run's first view of the basket) and the library as it stood at each stage
 * of the run, and what the curriculum proposes, decomposes and retrieves with it — asked after the run, as the paper's
 * Appendix E asked it, with the stage's library standing in for the completed tasks and no failures.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { imagePart, type Usage, addUsage } from "../../models";
import type { ProposeContext } from "./schemas";
import type { Run } from "../../runtime/run";
import { askProposal } from "./nodes/propose";
import { decompose } from "./nodes/decompose";
import { retrieve } from "./nodes/retrieve";
import type { CurriculumStateType, CycleRecord, Retrieval } from "./state";

export interface StageRow {
  iteration: number;
  library: string[];
  proposal: { task: string; reasoning: string };
  steps: string[];
  retrievals: Retrieval[];
}

export async function sameImageStages(
  state: CurriculumStateType,
  run: Run,
): Promise<{ frame: string; rows: StageRow[]; usage: Usage }> {
  const first = state.cycles[0];
  if (!first) return { frame: "", rows: [], usage: {} };
  const ms = run;
  const config: RunnableConfig = { context: run.context } as RunnableConfig;
  const stages = [...new Set(state.library.map((l) => l.since))].sort((a, b) => a - b);
  const rows: StageRow[] = [];
  let usage: Usage = {};
  for (const it of stages) {
    const library = state.library.filter((l) => l.since <= it);
    const captions = library.map((l) => l.caption);
    const context: ProposeContext = {
      blocks: first.scene.blocks,
      holding: first.scene.holding,
      library: captions,
      succeeded: captions,
      failed: [],
      proposedBefore: [],
    };
    const images =
      ms.modelConfig.backend === "openai"
        ? [await imagePart(ms.artifacts.get(first.scene.frame), ms.modelConfig.imageMaxSide)]
        : [];
    const proposal = await askProposal(ms, context, images);
    usage = addUsage(usage, proposal.usage);
    const current: CycleRecord = { cycle: -1, library: captions, scene: first.scene, proposal: proposal.value };
    const stage = {
      ...state,
      library,
      current,
      targets: {},
      counters: { ...state.counters, discardsInRow: 0 },
    } as CurriculumStateType;
    const decomposeUpdate = await decompose(stage, config);
    const decomposed = decomposeUpdate.current as CycleRecord;
    // Retrieval's own proposals for learning are not kept: this is a look at the run, not a part of it.
    const retrieveUpdate = await retrieve(
      { ...stage, current: decomposed },
      { ...config, configurable: { ...config.configurable, variant: "base-only" } },
    );
    const record = ((retrieveUpdate.cycles as CycleRecord[] | undefined)?.[0] ?? retrieveUpdate.current) as CycleRecord;
    usage = addUsage(addUsage(usage, (decomposeUpdate.usage as Usage) ?? {}), (retrieveUpdate.usage as Usage) ?? {});
    rows.push({
      iteration: it,
      library: captions,
      proposal: proposal.value,
      steps: decomposed.decomposition!.steps,
      retrievals: record.retrievals ?? [],
    });
  }
  return { frame: first.scene.frame, rows, usage };
}
