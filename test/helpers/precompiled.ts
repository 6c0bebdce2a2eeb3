/**
 * The suite's global setup: one precompiled build of RoboGraph's programs (robots/programs.ts) for the whole run, so
 * the hundreds of CLIs and simulators the integration tests start each start in half the time. Not in watch mode,
 * where a build would go stale as sources change.
 */
import type { TestProject } from "vitest/node";
import { precompile } from "../../robots/programs";

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (project.config.watch) return undefined;
  const programs = await precompile();
  return () => programs.remove();
}
