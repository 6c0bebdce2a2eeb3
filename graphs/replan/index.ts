/** RePLan's hierarchical replanning as the product knows it (graphs/method.ts): its run lines, report frames and summary. */
import type { ReplanStateType } from "./state";
import { REPLAN_VARIANTS, ReplanConfiguration } from "./configuration";
import { termText } from "../../robots/msgs/motion";
import { compileReplan } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { replanReport } from "./report";
import { planHighLevel } from "./nodes/highLevelPlanner";
import { verifyPlan } from "./nodes/planVerifier";
import { askQuestions } from "./nodes/visionQuestions";
import { checkStep } from "./nodes/stepCheck";
import { planMotion } from "./nodes/lowLevelPlanner";
import { verifyMotion } from "./nodes/rewardVerifier";
import { consolidate } from "./nodes/consolidate";
import { remapReasons } from "./nodes/remapReasons";
import { REPLAN_FIGURES } from "./figures";
import { replanViewer } from "./viewer";

/** One readable line per node update. */
function describeReplan(node: string, update: Partial<ReplanStateType>, before: ReplanStateType | undefined): Line {
  const last = (update.log ?? []).at(-1);
  switch (node) {
    case "scan":
      return {
        node,
        text: `sees ${update.scene?.join(", ") || "nothing it knows"}${update.facts?.length ? `; ${update.facts.join("; ")}` : ""}`,
      };
    case "high_level_planner":
    case "plan_verifier":
      if (update.status && update.status !== "running")
        return { node, text: `${update.status}: ${update.statusReason}` };
      return {
        node,
        text: `${update.plan ? update.plan.steps.map((x, i) => `${i + 1}. [${x.kind}] ${x.action}`).join("  ") : ""}${last?.kind === "note" && node === "plan_verifier" ? ` (${last.text})` : ""}`,
      };
    case "vision_questions":
      return {
        node,
        text: update.answers?.length ? update.answers.map((a) => a.question).join(" / ") : "nothing to ask",
      };
    case "vision_answer":
      return { node, text: (update.answers ?? []).map((a) => a.answer).join(" / ") };
    case "step_check":
      return {
        node,
        text:
          last?.kind === "vision"
            ? `${last.done ? "done" : "not done"}${update.facts?.length ? `: ${update.facts.join("; ")}` : ""}`
            : "",
      };
    case "low_level_planner":
    case "reward_verifier":
      return {
        node,
        text: `${update.motion?.step ?? before?.motion?.step ?? ""}: ${(update.motion?.terms ?? []).map((t) => termText(t)).join(", ")}`,
      };
    case "dispatch":
      return { node, text: update.pendingGoal ? `goal ${update.pendingGoal.goalId}` : "" };
    case "executor":
      return {
        node,
        text:
          last?.kind === "motion"
            ? `${last.step} → ${last.ok ? "ok" : "FAILED"}${last.ok ? "" : `: ${last.message}`} (${last.seconds.toFixed(1)} s)`
            : "",
      };
    case "diagnose":
    case "remap_reasons":
      return { node, text: (update.explanations ?? []).join(" | ") };
    case "consolidate":
      return {
        node,
        text:
          last?.kind === "diagnosis"
            ? last.reasons.length
              ? `reasons: ${last.reasons.join("; ")}`
              : "no cause found: a new procedure"
            : "",
      };
    case "speculator": {
      const sp = update.speculation;
      if (!sp) return { node, text: "" };
      const ready = sp.motion
        ? `${sp.motion.step}: ${sp.motion.terms.map((t) => termText(t)).join(", ")}`
        : sp.answers
          ? `questions for "${sp.step}": ${sp.answers.map((a) => a.question).join(" | ") || "none needed"}`
          : "nothing";
      return { node, text: `beside the motion, on its predicted success: ${ready}${sp.note ? ` (${sp.note})` : ""}` };
    }
    case "prediction_check": {
      const sp = update.speculation;
      if (!sp) return { node, text: "" };
      if (sp.outcome === "used")
        return { node, text: `the motion succeeded as predicted: the work prepared for "${sp.step}" is used` };
      return {
        node,
        text:
          sp.outcome === "revoked"
            ? `prediction contradicted (${sp.why}): the prepared work is dropped`
            : `as predicted, but nothing prepared to use (${sp.why})`,
      };
    }
    case "task_check":
      return {
        node,
        text:
          update.status && update.status !== "running"
            ? `${update.status}: ${update.statusReason}`
            : `not done: ${update.failedAttempts?.[0]?.reason ?? ""}`,
      };
  }
  return { node, text: "" };
}

/** The nodes that look: the report keeps the frame each look was made from. */
const LOOKS = ["scan", "vision_answer", "diagnose", "task_check"];

/** What each run of it is given: its settings (Studio's form) and its part of the offline reasoner. */
const runtime = { configuration: ReplanConfiguration, reasoner: TASKS };

export const replan: Method = {
  id: "replan",
  graph: "replan",
  title: "RePLan",
  paper: "RePLan: Robotic Replanning with Perception and Language Models",
  about: "RePLan: hierarchical replanning with a perceiver, a verifier and reward-driven motion at the tabletop",
  tool: "run_replan",
  world: "tabletop",
  datasets: ["tabletop", "paraphrases"],
  variants: REPLAN_VARIANTS,
  configuration: ReplanConfiguration,
  nodes: [
    "scan",
    "high_level_planner",
    "plan_verifier",
    "vision_questions",
    "vision_answer",
    "step_check",
    "low_level_planner",
    "reward_verifier",
    "dispatch",
    "executor",
    "diagnose",
    "remap_reasons",
    "consolidate",
    "task_check",
    "speculator",
    "plan_check_speculator",
    "name_check_speculator",
    "prediction_check",
  ],
  approvals: true,
  report: replanReport,
  figures: REPLAN_FIGURES,
  viewer: replanViewer,
  // The motion the reward verifier passed is what a dispatch sends; the prediction check passes one prepared before.
  speculation: { clearing: ["low_level_planner", "reward_verifier"], prepared: "prediction_check" },
  benchScenes: [
    {
      label: "RePLan task 3",
      scenario: "cabinet_barred",
      skillsCounter: "motions",
      targets: false,
      pipelinedTarget: 2.0,
    },
  ],
  recordable: {
    scenario: "cabinet_barred",
    nodes: {
      high_level_planner: planHighLevel,
      plan_verifier: verifyPlan,
      vision_questions: askQuestions,
      step_check: checkStep,
      low_level_planner: planMotion,
      reward_verifier: verifyMotion,
      consolidate,
      remap_reasons: remapReasons,
    },
  },
  runtime,
  compile: (checkpointer, store) => compileReplan(runtime, checkpointer, store),
  input: (goal) => ({ goal }),
  describe: (node, update, before) =>
    describeReplan(node, update as Partial<ReplanStateType>, before as ReplanStateType | undefined),
  framesOf: (node, update, step, text) => {
    const frame = (update as Partial<ReplanStateType>).frame;
    if (!frame || !LOOKS.includes(node)) return [];
    const file = `frames/${String(step).padStart(3, "0")}-${node}.png`;
    return [
      {
        frames: [{ image: frame, file, detectionsOf: true }],
        markdown: `### ${step}. ${node}\n\n![${node} at step ${step}](${file})\n\n${text}\n`,
      },
    ];
  },
  summarize: (state) => {
    const counters = (state as Partial<ReplanStateType> | undefined)?.counters;
    const pipeline = (state as Partial<ReplanStateType> | undefined)?.pipeline;
    return {
      steps: (counters?.motions ?? 0) + (counters?.visionSteps ?? 0),
      replans: counters?.replans ?? 0,
      procedures: counters?.procedures ?? 0,
      motions: counters?.motions ?? 0,
      visionSteps: counters?.visionSteps ?? 0,
      ...(pipeline?.prepared || pipeline?.revoked || pipeline?.unused ? { pipeline: pipeline } : {}),
    };
  },
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = replan.compile();
