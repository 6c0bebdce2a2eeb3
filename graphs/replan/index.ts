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

/** One readable line per node update. */
function describeReplan(node: string, u: Partial<ReplanStateType>, before: ReplanStateType | undefined): Line {
  const last = (u.log ?? []).at(-1);
  switch (node) {
    case "scan":
      return {
        node,
        text: `sees ${u.scene?.join(", ") || "nothing it knows"}${u.facts?.length ? `; ${u.facts.join("; ")}` : ""}`,
      };
    case "high_level_planner":
    case "plan_verifier":
      if (u.status && u.status !== "running") return { node, text: `${u.status}: ${u.statusReason}` };
      return {
        node,
        text: `${u.plan ? u.plan.steps.map((x, i) => `${i + 1}. [${x.kind}] ${x.action}`).join("  ") : ""}${last?.kind === "note" && node === "plan_verifier" ? ` (${last.text})` : ""}`,
      };
    case "vision_questions":
      return { node, text: u.answers?.length ? u.answers.map((a) => a.question).join(" / ") : "nothing to ask" };
    case "vision_answer":
      return { node, text: (u.answers ?? []).map((a) => a.answer).join(" / ") };
    case "step_check":
      return {
        node,
        text:
          last?.kind === "vision"
            ? `${last.done ? "done" : "not done"}${u.facts?.length ? `: ${u.facts.join("; ")}` : ""}`
            : "",
      };
    case "low_level_planner":
    case "reward_verifier":
      return {
        node,
        text: `${u.motion?.step ?? before?.motion?.step ?? ""}: ${(u.motion?.terms ?? []).map((t) => termText(t)).join(", ")}`,
      };
    case "dispatch":
      return { node, text: u.pendingGoal ? `goal ${u.pendingGoal.goalId}` : "" };
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
      return { node, text: (u.explanations ?? []).join(" | ") };
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
      const sp = u.speculation;
      if (!sp) return { node, text: "" };
      const ready = sp.motion
        ? `${sp.motion.step}: ${sp.motion.terms.map((t) => termText(t)).join(", ")}`
        : sp.answers
          ? `questions for "${sp.step}": ${sp.answers.map((a) => a.question).join(" | ") || "none needed"}`
          : "nothing";
      return { node, text: `beside the motion, on its predicted success: ${ready}${sp.note ? ` (${sp.note})` : ""}` };
    }
    case "prediction_check": {
      const sp = u.speculation;
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
          u.status && u.status !== "running"
            ? `${u.status}: ${u.statusReason}`
            : `not done: ${u.failedAttempts?.[0]?.reason ?? ""}`,
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
  kind: "episode",
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
    "prediction_check",
  ],
  approvals: true,
  report: replanReport,
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
  describe: (node, u, before) =>
    describeReplan(node, u as Partial<ReplanStateType>, before as ReplanStateType | undefined),
  framesOf: (node, u, n, text) => {
    const frame = (u as Partial<ReplanStateType>).frame;
    if (!frame || !LOOKS.includes(node)) return [];
    const file = `frames/${String(n).padStart(3, "0")}-${node}.png`;
    return [
      {
        frames: [{ image: frame, file, detectionsOf: true }],
        markdown: `### ${n}. ${node}\n\n![${node} at step ${n}](${file})\n\n${text}\n`,
      },
    ];
  },
  summarize: (state) => {
    const c = (state as Partial<ReplanStateType> | undefined)?.counters;
    const p = (state as Partial<ReplanStateType> | undefined)?.pipeline;
    return {
      steps: (c?.motions ?? 0) + (c?.visionSteps ?? 0),
      replans: c?.replans ?? 0,
      procedures: c?.procedures ?? 0,
      motions: c?.motions ?? 0,
      visionSteps: c?.visionSteps ?? 0,
      ...(p?.prepared || p?.revoked || p?.unused ? { pipeline: p } : {}),
    };
  },
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = replan.compile();
