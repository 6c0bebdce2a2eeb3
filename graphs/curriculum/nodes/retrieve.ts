/**
 * Retrieve: each free-text step mapped to exactly one library skill, or to none. A plan with a step no skill does is
 * discarded (as the paper does), and — the paper's future work, done here — the missing step is recorded as a proposal
 * for learning: retrieved once more against the skills the embodiment can reward but has not learned, and when one
 * matches, it becomes a learning target. A plan of several steps also proposes the task itself as one skill, when the
 * embodiment can reward it (what a composite plan did, a single skill can learn to do).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, type Usage, addUsage } from "../../../models";
import { SkillRetrieval } from "../schemas";
import { rewardableSkills, familyOf, maxReturn } from "./skills";
import {
  captions,
  type CurriculumStateType,
  type CurriculumUpdate,
  type LearningTarget,
  type Retrieval,
  type SkillProposal,
} from "../state";
import { runOf, type Run } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

export const RETRIEVER_PROMPT = `You match one step of a robot's plan to the skill that performs it. You get the step, in free text, and a
list of skills, each a fixed caption. Answer with exactly one caption copied character for character from the list —
the skill that brings about what the step asks for, on the same blocks — or null when no skill in the list does.
Never rephrase a caption and never pick a skill that only does part of the step or acts on other blocks.
Answer with your reasoning and the skill.`;

async function retrieveOne(run: Run, step: string, library: string[]): Promise<{ r: Retrieval; usage: Usage }> {
  if (!library.length) return { r: { step, skill: null, reasoning: "no skills to choose from" }, usage: {} };
  const { value, usage } = await askStructured(run.models, run.modelConfig, {
    role: "retriever",
    schema: SkillRetrieval,
    schemaName: "SkillRetrieval",
    system: RETRIEVER_PROMPT,
    task: "retrieve_skill",
    context: { step, library },
  });
  // A caption that is not in the list is no retrieval: the plan cannot run a skill the robot does not have.
  const skill = value.skill !== null && library.includes(value.skill) ? value.skill : null;
  const reasoning =
    value.skill !== null && skill === null
      ? `${value.reasoning} (answered "${value.skill}", which is not in the list)`
      : value.reasoning;
  return { r: { step, skill, reasoning }, usage };
}

export async function retrieve(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  // Needs no robot: captions in, captions out.
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  const cur = state.current!;
  const library = captions(state);
  let usage: Usage = {};
  const retrievals: Retrieval[] = [];
  for (const step of cur.decomposition!.steps) {
    const { r: retrieval, usage: spent } = await retrieveOne(run, step, library);
    retrievals.push(retrieval);
    usage = addUsage(usage, spent);
  }
  const missing = retrievals.filter((r) => r.skill === null).map((r) => r.step);
  // What the embodiment can reward but the library lacks: where a missing step may be learned. The task itself is
  // matched against every skill the embodiment rewards: when it is one, its reward tells whether an episode's start
  // already showed the task done (which is then no success of the plan), and when the library lacks it, it is learned.
  const learnable = rewardableSkills().filter((c) => !library.includes(c));
  const single = retrievals.length === 1 && !missing.length;
  const wanted = [
    ...missing.map((step) => ({ step, among: learnable })),
    ...(single ? [] : [{ step: cur.proposal.task, among: rewardableSkills() }]),
  ];
  const proposals: SkillProposal[] = [];
  const targets: Record<string, LearningTarget> = { ...state.targets };
  let taskSkill = single ? retrievals[0].skill! : undefined;
  for (const { step, among } of wanted) {
    const { r: retrieval, usage: spent } = await retrieveOne(run, step, among);
    usage = addUsage(usage, spent);
    if (step === cur.proposal.task && retrieval.skill) taskSkill = retrieval.skill;
    if (retrieval.skill && library.includes(retrieval.skill)) continue;
    proposals.push({ cycle: cur.cycle, step, task: cur.proposal.task, skill: retrieval.skill });
    if (retrieval.skill && !targets[retrieval.skill] && opts.variant !== "base-only") {
      targets[retrieval.skill] = {
        caption: retrieval.skill,
        family: familyOf(retrieval.skill),
        proposedFor: `${step} (for "${cur.proposal.task}")`,
        since: state.counters.iterations,
        returns: [],
        finalSuccess: [],
        snapshots: [],
        maxReturn: maxReturn(),
        analyses: [],
        converged: false,
      };
    }
  }
  const counters = state.counters;
  if (missing.length) {
    const record = { ...cur, retrievals, outcome: { kind: "discarded" as const, missing } };
    return {
      current: null,
      cycles: [record],
      plan: null,
      proposals,
      targets,
      usage,
      counters: { ...counters, discards: counters.discards + 1, discardsInRow: counters.discardsInRow + 1 },
    };
  }
  return {
    current: { ...cur, retrievals, ...(taskSkill ? { taskSkill } : {}) },
    plan: retrievals.map((r) => r.skill!),
    proposals,
    targets,
    usage,
    counters: { ...counters, discardsInRow: 0 },
  };
}
