/** A node called alone, as its graph would call it: in a run of its method (runtime/run.ts), opened from these settings. */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Method } from "../../graphs";
import { openRun, type Run } from "../../runtime/run";

/** The config a node of `method` gets in a run with settings `given` (over the environment's); close the run after. */
export function inRunOf(
  method: Method,
  given: Record<string, unknown>,
  env?: NodeJS.ProcessEnv,
): RunnableConfig & { run: Run } {
  const run = openRun(method.runtime, given, env ? { env } : {});
  return { context: run.context, run } as RunnableConfig & { run: Run };
}
