/** What the run viewer shows of a CLEA run: the critic's verdict, the verifier's rejection, the belief, the plan, skills. */
import { callText, skillResult, SKILL_RESULTS_PANEL, type MethodViewer } from "../viewer";
import type { HistoryEntry } from "./schemas";
import type { ClosedLoopStateType } from "./state";

type Action = Extract<HistoryEntry, { kind: "action" }>;
/** The skill an executor's update reports (its history's action entry), if any. */
const actionOf = (update: Partial<ClosedLoopStateType>) =>
  Array.isArray(update.history) ? (update.history.find((x) => x.kind === "action") as Action | undefined) : undefined;

export const cleaViewer: MethodViewer = {
  panels: [
    {
      id: "critic-panel",
      title: "critic (step {at})",
      values: { critique: { latest: "critique", nonEmpty: true } },
      alertIf: { path: "critique.verdict", isNot: "ok" },
      blocks: [
        {
          line: [
            { bold: "{critique.verdict}", good: { path: "critique.verdict", is: "ok" } },
            " on ",
            { code: "{critique.action|call}" },
          ],
        },
        { line: "{critique.feedback}", if: "critique.feedback" },
      ],
    },
    {
      title: "verifier rejected the plan",
      values: { rejection: { thisStep: "verifierRejection" } },
      look: "alert",
      blocks: [{ line: "{rejection}" }],
    },
    {
      id: "belief-panel",
      title: "belief",
      values: { belief: { latest: "belief" } },
      blocks: [
        { line: "{belief.progress}" },
        { list: "belief.objects", item: "{name} at {place} ({source})" },
        { joined: "belief.containers", item: "{name} {state}", separator: ", ", muted: true },
        { joined: "belief.holding", item: "{robot} holds {object|or:nothing}", separator: "; ", muted: true },
      ],
    },
    {
      id: "plan-panel",
      title: "plan",
      values: { plan: { latest: "plan" }, cursor: { latest: "cursor", initial: 0 } },
      when: ["plan"],
      blocks: [
        { line: [{ bold: "sub-goal: " }, "{plan.subgoal}"], if: "plan.subgoal" },
        { line: "{plan.rationale}", muted: true, if: "plan.rationale" },
        { list: "plan.steps", item: "{.|call}", ordered: true, cursor: "cursor" },
      ],
    },
    SKILL_RESULTS_PANEL,
    {
      title: "last failure",
      values: { lastFailure: { latest: "lastFailure" } },
      // At the verifier's own step its rejection says it.
      hiddenAt: ["verifier"],
      look: "diag",
      blocks: [{ line: "{lastFailure}" }],
    },
  ],
  fields(steps) {
    let skillSeconds = 0;
    return steps.map(({ n: stepNumber, node, update: raw }) => {
      const update = raw as Partial<ClosedLoopStateType>;
      const before = skillSeconds;
      if (typeof update.counters?.skillSeconds === "number") skillSeconds = update.counters.skillSeconds;
      const action = node === "executor" ? actionOf(update) : undefined;
      return {
        ...(action
          ? {
              skillResults: [
                skillResult({
                  n: stepNumber,
                  what: callText(action.call),
                  ok: action.ok,
                  message: action.message,
                  seconds: skillSeconds - before,
                }),
              ],
            }
          : {}),
        ...(node === "verifier" && update.plan === null && update.lastFailure
          ? { verifierRejection: update.lastFailure }
          : {}),
      };
    });
  },
  mark(node, raw) {
    const update = raw as Partial<ClosedLoopStateType>;
    if (node === "critic" && update.critique && update.critique.verdict !== "ok") return "objection";
    if (node === "verifier" && update.plan === null) return "objection";
    const action = node === "executor" ? actionOf(update) : undefined;
    if (action && !action.ok) return "failed";
    return undefined;
  },
};
