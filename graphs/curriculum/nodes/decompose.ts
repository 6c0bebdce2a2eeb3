/**
 * Decompose: the proposed task into steps in free text, given the image and the skills available now. The steps are
 * not restricted to the library: a step no skill does is named as plainly as any other, so retrieval can tell the
 * curriculum which skill is missing.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { TaskDecomposition, type DecomposeContext } from "../schemas";
import { imagePart } from "../../../models";
import { captions, type CurriculumStateType, type CurriculumUpdate } from "../state";
import { runOf } from "../../../runtime/run";

export const DECOMPOSER_PROMPT = `You break a task for a robot arm with a parallel gripper into the steps it takes, in order. The arm works
in a basket with three coloured blocks (red, green, blue); you get the task, the current camera image with the
detector's report of the blocks, and the list of skills the robot has. Where a skill does a step, write the step with
that skill's exact wording; where no skill does it, still write the step (plainly, in the same short style, e.g.
"lift red") — do not leave out a step because no skill does it, and do not bend a step into a skill that does
something else. Use as few steps as do the task; prefer one skill that does several steps at once when there is one.
Answer with your reasoning and the steps.`;

export async function decompose(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  // Needs no robot: the frame it was proposed from is in the artifact store.
  const run = runOf(config);
  const cur = state.current!;
  const context: DecomposeContext = { proposal: cur.proposal.task, blocks: cur.scene.blocks, library: captions(state) };
  const { value, usage } = await askStructured(run.models, run.modelConfig, {
    role: "decomposer",
    schema: TaskDecomposition,
    schemaName: "TaskDecomposition",
    system: DECOMPOSER_PROMPT,
    task: "decompose_task",
    context: context as unknown as Record<string, unknown>,
    images:
      run.modelConfig.backend === "openai"
        ? [await imagePart(run.artifacts.get(cur.scene.frame), run.modelConfig.imageMaxSide)]
        : [],
  });
  return { current: { ...cur, decomposition: value }, usage };
}
