/** Critic: before each action, is it still right given the belief and what the robot sees now? */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart } from "../../../models";
import { Critique } from "../schemas";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { rawBelief } from "./planner";
import { robotsForModel, worldForModel } from "../../../nodes/modelContext";
import { runOf } from "../../../runtime/run";
import { actionKey, countRejection, focusOn } from "../loops";
import { readGoal } from "../belief";
import { parseLiteral } from "../../../robots/manifests";

export const CRITIC_PROMPT = `You check one action just before a robot performs it. Look at the robot's current image and
observation, the belief and the task, and answer with a verdict and short feedback. The belief may be one step
behind: "since" lists what happened after it was written (the last action's outcome, the latest observations) —
take those into account as the newest facts.
- ok: the action is still right and can succeed;
- outdated: it rests on something the image shows is no longer true (an object is gone, a door has closed);
- redundant: what it would achieve is already the case;
- invalid: the robot cannot perform it as written (no such skill, out of its reach, a bad argument);
- wrong_plan: it cannot succeed now because the plan missed something (a door still closed, a hand not free), or it
  would succeed but does not bring the task closer (the wrong object, the wrong place).
Reject only for a reason you can name.`;

/** Told to a critic judging beside the skill before the action (configurable.pipeline). */
const PREDICTED_NOTE =
  "the skill before this action is still running: the belief already holds the outcome predicted for it, and the image (and observationBefore) were taken before it; judge the action on the belief — the look after that skill will check the prediction";

export function critique(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  return judgeAction(state, config);
}

/**
 * `predicted`: judged while the skill before the action runs (graphs/clea/nodes/speculator.ts), on a belief that holds
 * that skill's predicted outcome; the robot's latest observation is from before that skill, so it is shown as such and
 * not read over the belief.
 */
export async function judgeAction(
  state: ClosedLoopStateType,
  config?: RunnableConfig,
  predicted = false,
): Promise<ClosedLoopUpdate> {
  const session = await runOf(config).session();
  const plan = state.plan!;
  const action = plan.steps[state.cursor];
  const seen = state.observations[action.robot];
  const { image: ref, stamp: _stamp, ...observation } = seen ?? ({} as Partial<typeof seen>);
  // The critic may run while the summarizer folds this look into the belief (graphs/clea/graph.ts): it gets the belief
  // as it was and the entries the belief does not hold yet. Without a summarizer the raw history's belief holds them all.
  const belief = state.belief ?? (await rawBelief(state, session));
  const since = state.belief ? state.history.filter((e) => e.id > state.beliefUpTo) : [];
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "critic",
    schema: Critique,
    schemaName: "Critique",
    system: CRITIC_PROMPT,
    task: "critique",
    // What holds for the whole run first (a prompt-cache prefix), then what changed, the action last.
    context: {
      robots: robotsForModel(session.robots, session.world),
      world: worldForModel(session.world),
      goal: state.goal,
      belief,
      since,
      observation: seen && !predicted ? observation : null,
      ...(predicted ? { observationBefore: seen ? observation : null, predicted: PREDICTED_NOTE } : {}),
      replansSoFar: state.counters.replans,
      action,
    },
    images: ref ? [await imagePart(session.artifacts.get(ref), session.modelConfig.imageMaxSide)] : [],
  });
  // `at`: the look this verdict was given in (a verdict from an earlier look does not clear an action now).
  const critique = { ...value, action, at: state.counters.iterations };
  const verdicts = { [value.verdict]: 1 };
  if (value.verdict === "ok") return { critique, verdicts, usage };
  const reason = `critic: ${value.verdict} — ${value.feedback}`;
  const { rejections, n: count } = countRejection(state.rejections, action, `${value.verdict}: ${value.feedback}`);
  const loop = { kind: "rejection" as const, action: actionKey(action), reason: `${value.verdict}: ${value.feedback}` };
  // The same rejection after a look made for it: the planner heard it twice and chose the action again (loops.ts).
  if (count === 3)
    return {
      critique: { ...critique, overruled: true },
      verdicts,
      usage,
      rejections,
      loops: [{ ...loop, how: "overruled" }],
    };
  // Again after that: neither the look nor the robot's result settled it; going on would only go round.
  if (count > 3) {
    const statusReason = `${actionKey(action)} was rejected ${count} times for the same reason (${loop.reason}); neither a look for it nor the robot's result settled it`;
    return {
      critique,
      verdicts,
      usage,
      rejections,
      plan: null,
      status: "failed",
      statusReason,
      loops: [{ ...loop, how: "ended" }],
    };
  }
  const rejected = {
    critique,
    verdicts,
    usage,
    rejections,
    plan: null,
    focus: null,
    lastFailure: reason,
    failedPlans: [{ subgoal: plan.subgoal, steps: plan.steps.slice(state.cursor), reason }],
  };
  if (count < 2) return rejected;
  // The second time: every camera looks for what is in question before the planner runs again.
  const places = session.world.places.map((p) => p.name);
  const focus = focusOn(action, reason, places);
  if (!focus.objects.length)
    focus.objects = readGoal(state.goal, session.world)
      .goals.map((g) => parseLiteral(g).args[0])
      .filter((o) => session.world.labels.includes(o));
  return { ...rejected, focus, loops: [{ ...loop, how: "looked" }] };
}
