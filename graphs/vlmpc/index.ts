/** VLM-PC as the product knows it (graphs/method.ts): its run lines, report frames and summary. */
import type { VlmpcStateType } from "./state";
import { VLMPC_VARIANTS, VlmpcConfiguration } from "./configuration";
import { compileVlmpc } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { vlmpcReport } from "./report";
import { planCourse } from "./nodes/planner";
import { VLMPC_FIGURES } from "./figures";
import { vlmpcViewer } from "./viewer";
import { courseExamplesPath } from "./examples";

/** One readable line per node update. */
function describeVlmpc(node: string, update: Partial<VlmpcStateType>, before: VlmpcStateType | undefined): Line {
  const cmd = (c: { skill: string; magnitude: string }) => `${c.skill} ${c.magnitude}`;
  switch (node) {
    case "look":
      if (update.status && update.status !== "running")
        return { node, text: `${update.status}: ${update.statusReason}` };
      return {
        node,
        text: update.sight?.detections.length
          ? update.sight.detections
              .map((d) => `${d.label} ${d.distance.toFixed(1)} m ${d.bearing >= 0 ? "+" : ""}${Math.round(d.bearing)}°`)
              .join(", ")
          : "nothing detected",
      };
    case "planner": {
      const planned = Array.isArray(update.steps) ? update.steps[0] : undefined;
      if (!planned) return { node, text: "" };
      if (planned.answer.reached) return { node, text: `reached: ${planned.answer.progress}` };
      return {
        node,
        text: `${planned.answer.plan.map(cmd).join(" → ")} (${planned.answer.keepsPrevious ? "keeps" : "revises"}: ${planned.answer.comparison})`,
      };
    }
    case "dispatch":
      return { node, text: update.pendingGoal ? `goal ${update.pendingGoal.goalId}` : "" };
    case "executor": {
      const result =
        update.steps && !Array.isArray(update.steps)
          ? (update.steps as { result?: VlmpcStateType["steps"][number]["result"] }).result
          : undefined;
      return {
        node,
        text: result
          ? `${cmd(result)} → moved ${result.moved.toFixed(2)} m, turned ${Math.round(result.turned)}°${result.stalled ? ", STALLED" : ""} (${(before?.counters.skillSeconds ?? 0) + result.seconds} s of skill time)`
          : "",
      };
    }
  }
  return { node, text: "" };
}

/** What each run of it is given: its settings (Studio's form) and its part of the offline reasoner. */
const runtime = { configuration: VlmpcConfiguration, reasoner: TASKS };

export const vlmpc: Method = {
  id: "vlmpc",
  graph: "vlmpc",
  title: "VLM-PC",
  paper: "Commonsense Reasoning for Legged Robot Adaptation with Vision-Language Models",
  about: "VLM-PC: history-conditioned multi-step skill planning for a legged robot on an obstacle course",
  tool: "run_vlmpc",
  world: "course",
  datasets: ["course", "course-generated"],
  variants: VLMPC_VARIANTS,
  configuration: VlmpcConfiguration,
  // The variant with labelled examples is shown the course's own, unless given others.
  scenarioSettings: {
    keys: ["labelledExamples"],
    of: (scenario, variant) => (variant === "full+ic" ? { labelledExamples: courseExamplesPath(scenario) } : {}),
  },
  nodes: ["look", "planner", "dispatch", "executor"],
  approvals: true,
  report: vlmpcReport,
  figures: VLMPC_FIGURES,
  viewer: vlmpcViewer,
  benchScenes: [{ label: "VLM-PC indoor_1", scenario: "indoor_1", skillsCounter: "skills", targets: false }],
  recordable: { scenario: "indoor_1", nodes: { planner: planCourse } },
  runtime,
  compile: (checkpointer, store) => compileVlmpc(runtime, checkpointer, store),
  input: (goal) => ({ goal }),
  describe: (node, update, before) =>
    describeVlmpc(node, update as Partial<VlmpcStateType>, before as VlmpcStateType | undefined),
  // The egocentric frames in order, each with what the planner decided from it.
  framesOf: (node, update, step, text) => {
    const sight = (update as Partial<VlmpcStateType>).sight;
    if (node !== "look" || !sight) return [];
    const file = `frames/${String(step).padStart(3, "0")}-head.png`;
    return [
      {
        frames: [{ image: sight.frame, file }],
        markdown: `### ${step}. head camera\n\n![head camera at step ${step}](${file})\n\n${text}\n`,
      },
    ];
  },
  // Its plans are revised, not replanned after a failure; it has no critic of actions.
  summarize: (state) => ({
    steps: (state as Partial<VlmpcStateType> | undefined)?.counters?.skills ?? 0,
    replans: 0,
    criticVerdicts: {},
  }),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = vlmpc.compile();
