/**
 * `npm run eval:vitest`: a fixed slice of the kitchen dataset as LangSmith test cases (langsmith/vitest). Each case
 * runs one episode against its own simulator process and logs our evaluators as feedback; with LANGSMITH_API_KEY
 * the suite is recorded in LangSmith as a dataset ("robograph kitchen (slice)") and an experiment, each case a run
 * with its feedback (LANGSMITH_TEST_TRACKING=false keeps it local). The episode's graph is traced under its case only
 * with LANGSMITH_TRACING=true.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ls from "langsmith/vitest";
import { expect } from "vitest";
import { loadDataset } from "./datasets";
import { runExperiment } from "./runner";
import { EVALUATORS } from "./metrics";
import { withRunTree } from "langsmith/traceable";
import { RunTree } from "langsmith/run_trees";
import { tracingOn } from "../runtime/tracing";

const SLICE = ["search_tea_and_hamburger__c1", "manipulation_orange_and_pills__c1", "integration_tea_to_trash__c1"];
const rows = loadDataset("kitchen").filter((r) => SLICE.includes(r.id));

ls.describe(
  "robograph kitchen (slice)",
  () => {
    for (const row of rows) {
      ls.test(
        row.id,
        { inputs: row.example.inputs, referenceOutputs: row.example.outputs },
        async () => {
          const root = mkdtempSync(join(tmpdir(), "robograph-ls-"));
          const episode = () =>
            runExperiment({
              name: row.id,
              dataset: "kitchen",
              only: [row.id],
              variants: ["full"],
              seeds: 1,
              noise: 0,
              concurrency: 1,
              root,
              maxSteps: 40,
              maxWallSeconds: 300,
            });
          // Tracing off: the graph runs outside the case's context, which LangChain would otherwise trace it under.
          const [result] = tracingOn()
            ? await episode()
            : await withRunTree(new RunTree({ name: row.id, tracingEnabled: false }), episode);
          ls.logOutputs({ success: result.success, status: result.status, score: result.score, steps: result.steps });
          for (const evaluate of Object.values(EVALUATORS)) ls.logFeedback(evaluate({ outputs: result }));
          expect(result.success).toBe(true);
        },
        120_000,
      );
    }
    // Recorded in LangSmith with a key (the SDK would otherwise record only with LANGSMITH_TRACING=true).
  },
  { enableTestTracking: !!process.env.LANGSMITH_API_KEY && process.env.LANGSMITH_TEST_TRACKING !== "false" },
);
