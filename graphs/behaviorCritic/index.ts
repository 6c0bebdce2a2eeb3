/** The behaviour critic as the product knows it (graphs/method.ts): its run lines, report frames and summary. */
import type { CriticStateType } from "./state";
import { claimLabel } from "./schemas";
import { readRollout } from "./nodes/rollouts";
import { CRITIC_VARIANTS, CriticConfiguration } from "./configuration";
import { compileBehaviorCritic } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { behaviorCriticReport } from "./report";
import { CRITIC_FIGURES } from "./figures";

/** The loop in words: the program written, the rollout's critique, what grounding did not find, the verdict. */
function describeCritic(node: string, update: Partial<CriticStateType>): Line {
  const attempt = (Array.isArray(update.attempts) ? update.attempts[0] : update.attempts) as
    CriticStateType["attempts"][number] | undefined;
  const events = (es: { kind?: string; what?: string; object: string; cause?: string }[]) =>
    es.length ? es.map((e) => `${claimLabel(e)}${e.cause ? ` — ${e.cause}` : ""}`).join(", ") : "nothing undesirable";
  switch (node) {
    case "writer": {
      const program = update.program as { steps: { op: string }[] } | undefined;
      return {
        node,
        text: program ? `${program.steps.length} primitives: ${program.steps.map((x) => x.op).join(" ")}` : "",
      };
    }
    case "dispatch":
      return {
        node,
        text: update.pendingGoal ? `goal ${update.pendingGoal.goalId}` : `${update.status}: ${update.statusReason}`,
      };
    case "executor":
      return {
        node,
        text: attempt
          ? `program ${attempt.iteration} ${attempt.completed ? "ran to its end" : `stopped short: ${update.statusReason}`}; rollout ${attempt.rollout.slice(0, 19)}…`
          : update.status
            ? `${update.status}: ${update.statusReason}`
            : "",
      };
    case "critique":
      return { node, text: attempt?.critique ? events(attempt.critique.events) : "" };
    case "ground":
      return {
        node,
        text: attempt?.feedback
          ? `${attempt.feedback.source} grounding did not find: ${attempt.feedback.notFound.length ? events(attempt.feedback.notFound) : "—"}${attempt.feedback.unchecked?.length ? `; could not look for: ${events(attempt.feedback.unchecked)}` : ""}; kept: ${events(attempt.refined!.events)}`
          : attempt?.refined
            ? `kept: ${events(attempt.refined.events)}`
            : "",
      };
    case "verdict":
    case "begin":
    case "prefer":
      return {
        node,
        text: update.status && update.status !== "running" ? `${update.status}: ${update.statusReason}` : "",
      };
  }
  return { node, text: "" };
}

/** What each run of it is given: its settings (Studio's form) and its part of the offline reasoner. */
const runtime = { configuration: CriticConfiguration, reasoner: TASKS };

export const behaviorCritic: Method = {
  id: "behaviorCritic",
  graph: "behaviorCritic",
  title: "Behaviour critic",
  paper:
    "Task Success is not Enough: Investigating the Use of Video-Language Models as Behavior Critics for Catching Undesirable Agent Behaviors",
  about: "Behaviour critics: a policy writer refined by a critic of undesirable behaviour at the workbench",
  tool: "run_behavior_critic",
  world: "workbench",
  datasets: ["critic"],
  variants: CRITIC_VARIANTS,
  configuration: CriticConfiguration,
  startsFrom:
    "a primitive program ({ steps: [...] }, robots/msgs/primitives.ts) to start from instead of the writer's first draft",
  nodes: ["begin", "writer", "critique", "ground", "prefer", "dispatch", "executor", "verdict"],
  approvals: true,
  cleanRollout: true,
  report: behaviorCriticReport,
  figures: CRITIC_FIGURES,
  runtime,
  compile: (checkpointer, store) => compileBehaviorCritic(runtime, checkpointer, store),
  // From the command line and the tools, the refine job: write (or take) a program, run it, critique, rewrite.
  input: (goal, extra) => ({ goal, job: "refine", ...(extra?.program ? { program: extra.program } : {}) }),
  describe: (node, u) => describeCritic(node, u as Partial<CriticStateType>),
  // Each rollout's key frames, beside what the critic said of them.
  framesOf: (node, update, _n, _text, artifacts) => {
    const attempt = (update as Partial<CriticStateType>).attempts as unknown as
      CriticStateType["attempts"][number] | undefined;
    if (node !== "executor" || !attempt) return [];
    const rollout = readRollout(attempt.rollout, artifacts);
    const frames = rollout.frames.map((frame, k) => ({
      image: frame.image,
      file: `frames/${String(attempt.iteration).padStart(2, "0")}-${String(k).padStart(2, "0")}.png`,
      t: frame.t,
    }));
    const strip = frames.map((f) => `![${f.t.toFixed(1)} s](${f.file})`);
    return [
      {
        frames: frames.map(({ image, file }) => ({ image, file })),
        markdown: `### Program ${attempt.iteration}: ${rollout.frames.length} key frames over ${rollout.duration.toFixed(1)} s\n\n${rollout.narration.map((x) => `- ${x.from.toFixed(1)}–${x.to.toFixed(1)} s ${x.text}${x.ok ? "" : " (failed)"}`).join("\n")}\n\n${strip.join(" ")}\n`,
      },
    ];
  },
  // A run's steps are the programs it tried.
  summarize: (state) => ({
    steps: (state as Partial<CriticStateType> | undefined)?.attempts?.length ?? 0,
    replans: 0,
    criticVerdicts: {},
  }),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = behaviorCritic.compile();
