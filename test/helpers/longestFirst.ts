/**
 * The suite's order: within each project, the files that took longest last time start first (longest-processing-time
 * first), so the two workers end together instead of one running a long file alone at the end. The times are
 * test/durations.json, which `npm run test:times` rewrites (evals/bench/suite.ts) and which is committed, so a fresh
 * clone (CI) gets the order too; vitest's own results cache does the same, but only after a local run.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { longestFirst, readDurations } from "../../evals/bench/suite";

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = readDurations();
    const byProject = new Map<string, TestSpecification[]>();
    // vitest's order decides which project goes first; within each, the recorded times.
    for (const spec of await super.sort(files))
      byProject.set(spec.project.name, [...(byProject.get(spec.project.name) ?? []), spec]);
    return [...byProject.values()].flatMap((list) =>
      longestFirst(list, (spec) => relative(this.ctx.config.root, spec.moduleId), seconds),
    );
  }
}
