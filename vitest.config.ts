import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The programs the tests start as processes, built once for the run (test/helpers/precompiled.ts).
    globalSetup: ["test/helpers/precompiled.ts"],
    // Generous: physics under a model-predictive controller on a shared two-core machine. A timeout is a hang guard,
    // never a speed check (speed lives in `npm run bench`).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Integration suites start simulator processes; two cores on these machines.
    maxWorkers: 2,
  },
});
