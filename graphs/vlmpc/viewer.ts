/** What the run viewer shows of a VLM-PC run: the plan with the planner's reading of its progress, the skills' results. */
import { fixed, skillResult, SKILL_RESULTS_PANEL, type MethodViewer } from "../viewer";
import type { StepRecord, VlmpcStateType } from "./state";

export const vlmpcViewer: MethodViewer = {
  panels: [
    {
      id: "plan-panel",
      title: "plan",
      values: { plan: { latest: "plan" }, answer: { latest: "plannerAnswer" } },
      when: ["plan"],
      blocks: [
        { list: "plan", item: "{skill} {magnitude}", ordered: true },
        { line: "{answer.progress} — {answer.comparison}", muted: true, if: "answer" },
      ],
    },
    SKILL_RESULTS_PANEL,
  ],
  fields: (steps) =>
    steps.map(({ n: stepNumber, node, update: raw }) => {
      // The executor writes one step's result; the planner a new step with its answer.
      const update = raw as Omit<Partial<VlmpcStateType>, "steps"> & {
        steps?: StepRecord[] | { result?: StepRecord["result"] };
      };
      const result = node === "executor" && !Array.isArray(update.steps) ? update.steps?.result : undefined;
      const planned = node === "planner" && Array.isArray(update.steps) ? update.steps[0] : undefined;
      return {
        ...(result
          ? {
              skillResults: [
                skillResult({
                  n: stepNumber,
                  what: `${result.skill} ${result.magnitude}`,
                  ok: !result.stalled,
                  message: `moved ${fixed(result.moved, 2)} m, turned ${Math.round(result.turned)}°${result.stalled ? ", stalled" : ""}`,
                  seconds: result.seconds,
                }),
              ],
            }
          : {}),
        ...(planned ? { plannerAnswer: planned.answer } : {}),
      };
    }),
  mark: (node, update) =>
    node === "executor" && (update as { steps?: { result?: { stalled?: boolean } } }).steps?.result?.stalled
      ? "failed"
      : undefined,
};
