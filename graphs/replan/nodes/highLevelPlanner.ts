/**
 * High-level planner (RePLan's HIGHLEVELPLANNER): abstract subtasks typed vision or motion. Asked again with the
 * diagnosed reasons after a failed step (a replan), or with the failed procedures when a plan ended without the goal
 * or a failure had no known cause (a new procedure). Budgets end the run here.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { HighLevelPlan } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { sceneVocabulary } from "./view";
import { budgetEnd } from "./budget";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const HIGH_LEVEL_PROMPT = `You plan for a one-armed robot (a palm that can grasp one thing at a time) in a tabletop
scene. Given the goal, the things the robot can see, the facts established so far and any failures, write short,
abstract subtasks in order. Each subtask handles one object and is either:
- "vision": something answered by looking (check a colour, look inside something once it is open), or
- "motion": something the palm does (open a door, move an object somewhere, move an object out of the way, pull a lever).
Use only the scene's names. Assume each step succeeds as planned and keep the plan short (usually under five steps).
When failures are listed, the reasons say what stood in the way: plan around them, and never repeat a plan that
already failed for the same reason.`;

export async function planHighLevel(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  const ended = budgetEnd(state, opts);
  if (ended) return ended;
  const counters = state.counters;
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: HighLevelPlan,
    schemaName: "HighLevelPlan",
    system: HIGH_LEVEL_PROMPT,
    task: "high_level_plan",
    context: {
      goal: state.goal,
      ...sceneVocabulary(session),
      world: worldForModel(session.world),
      scene: state.scene,
      facts: [...state.sceneFacts, ...state.facts],
      reasons: state.reasons,
      failedAttempts: state.failedAttempts,
      replansSoFar: counters.replans,
      proceduresSoFar: counters.procedures,
    },
  });
  if (!value.steps.length)
    return {
      plan: value,
      cursor: 0,
      usage,
      status: "gave_up",
      statusReason: `the planner wrote no steps: ${value.thought}`,
    };
  return {
    plan: value,
    cursor: 0,
    failure: null,
    usage,
    log: [{ kind: "note", text: `plan: ${value.steps.map((x) => `[${x.kind}] ${x.action}`).join("; ")}` }],
  };
}
