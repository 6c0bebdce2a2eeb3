/** CLEA's closed loop as the product knows it (graphs/method.ts): its run lines, report frames and summary. */
import type { ClosedLoopStateType } from "./state";
import { CLEA_VARIANTS, ClosedLoopConfiguration } from "./configuration";
import { compileClosedLoop } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { cleaReport } from "./report";
import { summarize } from "./nodes/summarizer";
import { checkGoal } from "./nodes/goalCheck";
import { plan } from "./nodes/planner";
import { verify } from "./nodes/verifier";
import { critique } from "./nodes/critic";
import { loopsText } from "./loops";

const call = (c: { robot: string; skill: string; args: Record<string, string> }) =>
  `${c.robot}.${c.skill}(${Object.values(c.args).join(", ")})`;

/** One readable line per node update. */
function describeClea(node: string, u: Partial<ClosedLoopStateType>, before: ClosedLoopStateType | undefined): Line {
  switch (node) {
    case "perceiver":
      return {
        node,
        text:
          Object.values(u.observations ?? {})
            .map((o) => o.summary)
            .join(" | ") || "no change in view",
      };
    case "summarizer":
      return { node, text: u.belief ? `belief: ${u.belief.progress}` : "(raw history)" };
    case "goal_check":
      return { node, text: u.status ? `${u.status}: ${u.statusReason}` : "not done yet" };
    case "planner":
      if (u.status && u.status !== "running") return { node, text: `${u.status}: ${u.statusReason}` };
      return { node, text: `sub-goal "${u.plan?.subgoal}": ${u.plan?.steps.map(call).join(" → ")}` };
    case "verifier":
      return {
        node,
        text:
          u.plan === null
            ? `rejected: ${u.lastFailure}`
            : u.plan
              ? `ok: ${u.plan.steps
                  .slice(before?.cursor ?? 0)
                  .map(call)
                  .join(" → ")}`
              : "ok",
      };
    case "critic":
      if (u.critique?.overruled)
        return {
          node,
          text: `${call(u.critique.action)} → ${u.critique.verdict} again (${u.critique.feedback}): rejected twice before for this reason and looked for since — the planner's choice stands`,
        };
      return {
        node,
        text: u.critique
          ? `${call(u.critique.action)} → ${u.critique.verdict}${u.critique.verdict === "ok" ? "" : `: ${u.critique.feedback}`}${u.focus ? " (the second time: every camera looks for what is in question)" : ""}`
          : "",
      };
    case "dispatch":
      return { node, text: u.pendingGoal ? `goal ${u.pendingGoal.goalId}` : `declined: ${u.lastFailure}` };
    case "speculator": {
      const sp = u.speculation;
      if (!sp) return { node, text: "" };
      const ready = sp.action ? `${call(sp.action)}${sp.critique ? ` → ${sp.critique.verdict}` : ""}` : "no action";
      return { node, text: `beside the skill, on its predicted outcome: ${ready}${sp.note ? ` (${sp.note})` : ""}` };
    }
    case "prediction_check": {
      const sp = u.speculation;
      if (!sp) return { node, text: "" };
      if (sp.outcome === "used")
        return { node, text: `the look agrees with the prediction: ${call(sp.action!)} goes now` };
      return {
        node,
        text:
          sp.outcome === "revoked"
            ? `the look contradicts the prediction (${sp.why}): what was prepared is dropped`
            : `the look agrees with the prediction; nothing prepared to send (${sp.why})`,
      };
    }
    case "executor": {
      const e = u.history?.[0];
      return {
        node,
        text: e && e.kind === "action" ? `${call(e.call)} → ${e.ok ? "ok" : "FAILED"}: ${e.message}` : "",
      };
    }
  }
  return { node, text: "" };
}

/** What each run of it is given: its settings (Studio's form) and its part of the offline reasoner. */
const runtime = { configuration: ClosedLoopConfiguration, reasoner: TASKS };

export const clea: Method = {
  id: "clea",
  graph: "closedLoop",
  title: "CLEA",
  paper: "CLEA: Closed-Loop Embodied Agent for Enhancing Task Execution in Dynamic Environments",
  about: "CLEA: planner and critic over two robots in the kitchen, with memory",
  tool: "run_closed_loop",
  kind: "episode",
  world: "kitchen",
  datasets: ["kitchen", "kitchen-generated", "paraphrases"],
  variants: CLEA_VARIANTS,
  configuration: ClosedLoopConfiguration,
  nodes: [
    "perceiver",
    "summarizer",
    "goal_check",
    "planner",
    "verifier",
    "critic",
    "dispatch",
    "executor",
    "speculator",
    "prediction_check",
  ],
  approvals: true,
  report: cleaReport,
  recordable: {
    scenario: "integration_tea_to_trash",
    nodes: { summarizer: summarize, goal_check: checkGoal, planner: plan, verifier: verify, critic: critique },
  },
  runtime,
  compile: (checkpointer, store) => compileClosedLoop(runtime, checkpointer, store),
  input: (goal) => ({ goal }),
  describe: (node, u, before) =>
    describeClea(node, u as Partial<ClosedLoopStateType>, before as ClosedLoopStateType | undefined),
  // Each robot's view of a look, with its detections beside it.
  framesOf: (node, u, n) =>
    node === "perceiver"
      ? Object.values((u as Partial<ClosedLoopStateType>).observations ?? {}).map((o) => {
          const file = `frames/${String(n).padStart(3, "0")}-${o.robot}.png`;
          return {
            frames: [{ image: o.image, file, detectionsOf: o.robot }],
            markdown: `### ${n}. ${o.robot}\n\n![${o.robot} at step ${n}](${file})\n\n${o.summary}\n`,
          };
        })
      : [],
  summarize: (state) => {
    const s = state as Partial<ClosedLoopStateType> | undefined;
    return {
      steps: s?.counters?.steps ?? 0,
      replans: s?.counters?.replans ?? 0,
      criticVerdicts: s?.verdicts ?? {},
      loopsBroken: s?.loops ?? [],
      ...(s?.pipeline?.prepared || s?.pipeline?.revoked || s?.pipeline?.unused ? { pipeline: s.pipeline } : {}),
    };
  },
  explain: (state) => loopsText((state as Partial<ClosedLoopStateType>).loops ?? []),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = clea.compile();
