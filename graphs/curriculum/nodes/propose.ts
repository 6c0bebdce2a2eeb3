/**
 * Propose: from the camera's current view of the basket and the record of what succeeded and failed so far, one new
 * task in free text — new enough to teach something, close enough to what the robot can do to be worth trying.
 * The budgets (episodes, learner iterations, model calls, wall time) are checked here, before anything is spent.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, totalUsage, type Ask } from "../../../models";
import { TaskProposal, type ProposeContext } from "../schemas";
import { overBudget } from "../../../nodes/budget";
import { lookAtBasket, proposalLayout } from "./scene";
import { captions, type CurriculumStateType, type CurriculumUpdate } from "../state";
import { runOf, type Run } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

export const PROPOSER_PROMPT = `You run the practice schedule of a robot arm with a parallel gripper that is learning to handle three
coloured blocks (red, green, blue) in a basket. You are shown the current camera image of the basket, the detector's
report of the blocks (colour, image position, height above the basket floor), the skills the robot has mastered, and
the tasks it has tried before: those it completed and those it failed or could not plan for (with the reason).
Propose ONE next task, in plain words, about the blocks you see. Good tasks:
- are new, or practise something that failed, rather than repeat what already works;
- are a small step beyond the hardest thing the robot has completed (reach a block → pick one up → hold one above
  another → put one on top of another → a tower of three → other arrangements), not a leap;
- can be judged from the final arrangement of the blocks.
Answer with your reasoning (what you see, what the record says, why this task now) and the task.`;

/** The record as the prompt shows it: completed and failed tasks, each once per trial (the paper lists them all). */
function record(state: CurriculumStateType): Pick<ProposeContext, "succeeded" | "failed" | "proposedBefore"> {
  const succeeded: string[] = [];
  const failed: string[] = [];
  for (const c of state.cycles) {
    const outcome = c.outcome;
    if (!outcome) continue;
    if (outcome.kind === "discarded") failed.push(`${c.proposal.task} (no skill for: ${outcome.missing.join(", ")})`);
    else {
      for (let i = 0; i < outcome.successes; i++) succeeded.push(c.proposal.task);
      for (let i = 0; i < outcome.episodes - outcome.successes; i++) failed.push(c.proposal.task);
    }
  }
  return { succeeded, failed, proposedBefore: state.cycles.map((c) => c.proposal.task) };
}

export async function propose(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  const startedAt = state.startedAt || Date.now();
  const counters = state.counters;
  const over =
    counters.episodes >= opts.maxEpisodes
      ? `${counters.episodes} episodes (budget ${opts.maxEpisodes})`
      : counters.iterations >= opts.maxIterations
        ? `${counters.iterations} learner iterations (budget ${opts.maxIterations})`
        : overBudget(opts, { actions: 0, replans: 0, modelCalls: totalUsage(state.usage).calls, startedAt });
  if (over)
    return {
      status: "budget_exhausted",
      statusReason: `stopped after ${over}; the library has ${state.library.length} skills`,
      startedAt,
    };
  const session = await run.session();
  const scene = await lookAtBasket(session, proposalLayout(opts.seed, counters.cycles));
  const context: ProposeContext = {
    blocks: scene.blocks,
    holding: scene.holding,
    library: captions(state),
    ...record(state),
  };
  const { value, usage } = await askProposal(session, context, [scene.image]);
  const current = {
    cycle: counters.cycles,
    library: captions(state),
    scene: { frame: scene.frame, blocks: scene.blocks, holding: scene.holding },
    proposal: value,
  };
  return { current, plan: null, usage, startedAt, counters: { ...counters, cycles: counters.cycles + 1 } };
}

/** The proposer's question: a task for this library, from this view (the node's, and Table 2's stages after a run). */
export const askProposal = (
  session: Pick<Run, "models" | "modelConfig">,
  context: ProposeContext,
  images: Ask<unknown>["images"],
) =>
  askStructured(session.models, session.modelConfig, {
    role: "proposer",
    schema: TaskProposal,
    schemaName: "TaskProposal",
    system: PROPOSER_PROMPT,
    task: "propose_task",
    context: context as unknown as Record<string, unknown>,
    images,
  });
