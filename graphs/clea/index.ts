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
import { CLEA_FIGURES } from "./figures";
import { cleaViewer } from "./viewer";

const call = (skillCall: { robot: string; skill: string; args: Record<string, string> }) =>
  `${skillCall.robot}.${skillCall.skill}(${Object.values(skillCall.args).join(", ")})`;

/** One readable line per node update. */
function describeClea(
  node: string,
  update: Partial<ClosedLoopStateType>,
  before: ClosedLoopStateType | undefined,
): Line {
  switch (node) {
    case "perceiver":
      return {
        node,
        text:
          Object.values(update.observations ?? {})
            .map((o) => o.summary)
            .join(" | ") || "no change in view",
      };
    case "summarizer":
      return { node, text: update.belief ? `belief: ${update.belief.progress}` : "(raw history)" };
    case "goal_check":
      return { node, text: update.status ? `${update.status}: ${update.statusReason}` : "not done yet" };
    case "planner":
      if (update.status && update.status !== "running")
        return { node, text: `${update.status}: ${update.statusReason}` };
      return { node, text: `sub-goal "${update.plan?.subgoal}": ${update.plan?.steps.map(call).join(" → ")}` };
    case "verifier":
      return {
        node,
        text:
          update.plan === null
            ? `rejected: ${update.lastFailure}`
            : update.plan
              ? `ok: ${update.plan.steps
                  .slice(before?.cursor ?? 0)
                  .map(call)
                  .join(" → ")}`
              : "ok",
      };
    case "critic":
      if (update.critique?.overruled)
        return {
          node,
          text: `${call(update.critique.action)} → ${update.critique.verdict} again (${update.critique.feedback}): rejected twice before for this reason and looked for since — the planner's choice stands`,
        };
      return {
        node,
        text: update.critique
          ? `${call(update.critique.action)} → ${update.critique.verdict}${update.critique.verdict === "ok" ? "" : `: ${update.critique.feedback}`}${update.focus ? " (the second time: every camera looks for what is in question)" : ""}`
          : "",
      };
    case "dispatch":
      return {
        node,
        text: update.pendingGoal ? `goal ${update.pendingGoal.goalId}` : `declined: ${update.lastFailure}`,
      };
    case "speculator": {
      const sp = update.speculation;
      if (!sp) return { node, text: "" };
      const ready = sp.action ? `${call(sp.action)}${sp.critique ? ` → ${sp.critique.verdict}` : ""}` : "no action";
      return { node, text: `beside the skill, on its predicted outcome: ${ready}${sp.note ? ` (${sp.note})` : ""}` };
    }
    case "prediction_check": {
      const sp = update.speculation;
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
      const entry = update.history?.[0];
      return {
        node,
        text:
          entry && entry.kind === "action"
            ? `${call(entry.call)} → ${entry.ok ? "ok" : "FAILED"}: ${entry.message}`
            : "",
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
  figures: CLEA_FIGURES,
  viewer: cleaViewer,
  // The critic clears the action a dispatch sends; the prediction check clears one prepared beside the skill before.
  speculation: { clearing: ["critic", "planner", "verifier"], prepared: "prediction_check", looks: "perceiver" },
  benchScenes: [
    {
      label: "CLEA default task",
      scenario: "integration_tea_to_trash",
      skillsCounter: "steps",
      targets: true,
      pipelinedTarget: 1.0,
      generatedDataset: "kitchen-generated",
    },
  ],
  recordable: {
    scenario: "integration_tea_to_trash",
    nodes: { summarizer: summarize, goal_check: checkGoal, planner: plan, verifier: verify, critic: critique },
  },
  runtime,
  compile: (checkpointer, store) => compileClosedLoop(runtime, checkpointer, store),
  input: (goal) => ({ goal }),
  describe: (node, update, before) =>
    describeClea(node, update as Partial<ClosedLoopStateType>, before as ClosedLoopStateType | undefined),
  // Each robot's view of a look, with its detections beside it.
  framesOf: (node, update, step) =>
    node === "perceiver"
      ? Object.values((update as Partial<ClosedLoopStateType>).observations ?? {}).map((observation) => {
          const file = `frames/${String(step).padStart(3, "0")}-${observation.robot}.png`;
          return {
            frames: [{ image: observation.image, file, detectionsOf: observation.robot }],
            markdown: `### ${step}. ${observation.robot}\n\n![${observation.robot} at step ${step}](${file})\n\n${observation.summary}\n`,
          };
        })
      : [],
  summarize: (state) => {
    const loopState = state as Partial<ClosedLoopStateType> | undefined;
    return {
      steps: loopState?.counters?.steps ?? 0,
      replans: loopState?.counters?.replans ?? 0,
      criticVerdicts: loopState?.verdicts ?? {},
      loopsBroken: loopState?.loops ?? [],
      ...(loopState?.pipeline?.prepared || loopState?.pipeline?.revoked || loopState?.pipeline?.unused
        ? { pipeline: loopState.pipeline }
        : {}),
    };
  },
  explain: (state) => loopsText((state as Partial<ClosedLoopStateType>).loops ?? []),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = clea.compile();
