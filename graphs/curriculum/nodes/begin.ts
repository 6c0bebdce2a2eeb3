/** Begin: the library holds the pretrained base skills only (as the paper starts), with their policies. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { loadBaseSkills } from "../../../models/learning/policy";
import { storePolicies } from "./policies";
import { baseLibrary, skillId } from "./skills";
import type { CurriculumStateType, CurriculumUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

export async function begin(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  if (state.library.length) return {};
  const base = opts.baseSkills ? loadBaseSkills(opts.baseSkills) : loadBaseSkills();
  const library = baseLibrary();
  const missing = library.filter((c) => !base.policies[skillId(c)]);
  if (missing.length)
    throw new Error(
      `the base skills' policies lack ${missing.join(", ")}: pretrain them first (see the blocks world's README section)`,
    );
  return {
    library: library.map((caption) => ({ caption, since: 0, source: "base" as const })),
    policies: storePolicies(run.artifacts, base.policies),
    startedAt: state.startedAt || Date.now(),
  };
}
