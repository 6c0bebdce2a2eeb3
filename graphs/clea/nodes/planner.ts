/** Planner: a sub-goal and the next few skill calls across both robots (CLEA's planner; also the open-loop baseline's). */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { Belief, Plan } from "../schemas";
import { summarize as summarizeHistory } from "../belief";
import type { Session } from "../../../runtime/session";
import { robotsForModel, worldForModel } from "../../../nodes/modelContext";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { CleaSettings } from "../configuration";

export const PLANNER_PROMPT = `You coordinate a team of robots in a kitchen. Each robot offers the skills in its manifest;
a skill may only be used with argument values its schema allows, and only when its preconditions hold.
Given the instruction, the belief (or the raw history), the robots' latest observations, the last failure or critic
feedback and the plans that already failed, decide the next sub-goal and write the next skill calls for it, in order,
as {robot, skill, args}. Objects you have not seen yet are probably inside a closed container: open containers to
look for them. Give each skill to a robot that can reach the place. Do not repeat a plan that already failed for the
same reason. When a plan is there to look for something (a search, or to settle what a robot holds or where a thing
is), name those things and places in lookFor so the cameras are asked about them. If a place you must put something in
is full, make room first (move something out of it). Set done when the belief shows the whole task complete, and giveUp
(with why) only when nothing is left to try.`;

/** The belief a planner works from when the summarizer is ablated: rebuilt from the bounded raw history alone. */
export async function rawBelief(state: ClosedLoopStateType, session: Session): Promise<Belief> {
  return summarizeHistory({
    goal: state.goal,
    previousBelief: null,
    entries: state.history,
    robots: session.robots.map((r) => r.id),
    world: session.world,
  });
}

export async function plan(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const run = runOf<CleaSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  const openLoop = opts.variant === "open-loop";
  const calls = Object.values(state.usage).reduce((n, u) => n + u.calls, 0);
  if (state.counters.replans >= opts.maxReplans || calls >= opts.maxModelCalls) {
    return {
      status: "budget_exhausted",
      statusReason: `stopped after ${state.counters.replans} replans and ${calls} model calls`,
    };
  }
  // CLEA's baseline gets one replan after its first plan; a third plan is not allowed.
  if (openLoop && state.counters.replans >= 1) {
    return {
      status: "failed",
      statusReason: `open-loop baseline: still not done after its one replan (${state.lastFailure ?? "plan ended"})`,
    };
  }
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: Plan,
    schemaName: "Plan",
    system: PLANNER_PROMPT,
    task: "plan",
    // What holds for the whole run first (a prompt-cache prefix), then what changed.
    context: {
      robots: robotsForModel(session.robots, session.world),
      world: worldForModel(session.world),
      goal: state.goal,
      // CLEA plans a short stretch at a time; the open-loop baseline writes the whole sequence at once.
      maxSteps: openLoop ? 30 : 5,
      belief: opts.variant === "no-summarizer" ? await rawBelief(state, session) : state.belief,
      observations: Object.values(state.observations).map(({ image: _image, ...o }) => o),
      lastFailure: state.lastFailure,
      critique: state.critique,
      failedPlans: state.failedPlans,
      replansSoFar: state.counters.replans,
    },
  });
  // A replan is a plan made because something went wrong (a failure, a rejection); a new sub-goal after a finished
  // stretch is ordinary planning.
  const replans = state.lastFailure ? state.counters.replans + 1 : state.counters.replans;
  const counters = { ...state.counters, replans };
  const plannedAt = state.counters.iterations;
  if (value.done)
    return {
      plan: value,
      cursor: 0,
      status: "succeeded",
      statusReason: "the planner judges the task complete",
      usage,
      counters,
      plannedAt,
    };
  if (value.giveUp)
    return { plan: value, cursor: 0, status: "gave_up", statusReason: value.giveUp, usage, counters, plannedAt };
  if (value.steps.length === 0)
    return {
      plan: value,
      cursor: 0,
      status: "gave_up",
      statusReason: "the planner wrote no steps",
      usage,
      counters,
      plannedAt,
    };
  // A search plan names what its look is for; the perceiver asks the cameras about it after the plan's last step.
  const focus =
    value.lookFor && (value.lookFor.objects.length || value.lookFor.places.length)
      ? { ...value.lookFor, why: value.subgoal, afterPlan: true }
      : null;
  return { plan: value, cursor: 0, critique: null, lastFailure: null, usage, counters, plannedAt, focus };
}
