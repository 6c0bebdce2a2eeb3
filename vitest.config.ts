import { defineConfig } from "vitest/config";
import LongestFirst from "./test/helpers/sequencer.ts";

export default defineConfig({
  test: {
    // Generous: physics under a model-predictive controller on a shared two-core machine. A timeout is a hang guard,
    // never a speed check (speed lives in `npm run bench`).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Integration suites start simulator processes; two cores on these machines.
    maxWorkers: 2,
    // The programs the tests start as processes, built once for the run (test/helpers/precompiled.ts).
    globalSetup: ["test/helpers/precompiled.ts"],
    // Longest files first, by test/durations.json: a fresh clone has no vitest cache to order by.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // Unit files share a worker's modules (no process of their own each): importing LangGraph and the methods
        // once per worker rather than once per file is most of what they cost.
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/**/*.int.test.ts"], isolate: false },
      },
      // Integration files too: a fresh worker per file cost about 1.4 CPU s of imports each (71 files). What a file
      // starts it stops itself; what our modules keep process-wide is keyed by what it belongs to (a run's episodes
      // by the run, a pooled session by its robot's address), as a server running many runs needs anyway.
      { extends: true, test: { name: "int", include: ["test/**/*.int.test.ts"], isolate: false } },
    ],
  },
});
