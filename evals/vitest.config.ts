import { defineConfig } from "vitest/config";

// Offline (no key), LangSmith's test tracking would try to reach its API: keep the suite local.
if (!process.env.LANGSMITH_API_KEY) process.env.LANGSMITH_TEST_TRACKING ??= "false";

// The LangSmith test suite (npm run eval:vitest): its reporter prints a results table with the logged feedback.
export default defineConfig({
  test: {
    include: ["evals/**/*.eval.ts"],
    testTimeout: 180_000,
    reporters: ["default", "langsmith/vitest/reporter"],
  },
});
