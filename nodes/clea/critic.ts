/** Critic: before each action, is it still right given the belief and what the robot sees now? */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart } from "../../models";
import { Critique } from "../../models/schemas";
import { runOptions, session } from "../runtime";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "./state";
import { rawBelief } from "./planner";

export const CRITIC_PROMPT = `You check one action just before a robot performs it. Look at the robot's current image and
observation, the belief and the task, and answer with a verdict and short feedback:
- ok: the action is still right and can succeed;
- outdated: it rests on something the image shows is no longer true (an object is gone, a door has closed);
- redundant: what it would achieve is already the case;
- invalid: the robot cannot perform it as written (no such skill, out of its reach, a bad argument);
- wrong_plan: it cannot succeed now because the plan missed something (a door still closed, a hand not free), or it
  would succeed but does not bring the task closer (the wrong object, the wrong place).
Reject only for a reason you can name.`;

export async function critique(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const s = await session(runOptions(config));
  const plan = state.plan!;
  const action = plan.steps[state.cursor];
  const seen = state.observations[action.robot];
  const { image: ref, ...observation } = seen ?? ({} as Partial<typeof seen>);
  const { value, usage } = await askStructured(s.models, s.modelConfig, {
    role: "critic",
    schema: Critique,
    schemaName: "Critique",
    system: CRITIC_PROMPT,
    task: "critique",
    context: {
      goal: state.goal,
      action,
      belief: state.belief ?? (await rawBelief(state, s)),
      observation: seen ? observation : null,
      robots: s.robots,
      world: s.world,
      replansSoFar: state.counters.replans,
    },
    images: ref ? [await imagePart(s.artifacts.get(ref), s.modelConfig.imageMaxSide)] : [],
  });
  const verdicts = { [value.verdict]: 1 };
  if (value.verdict === "ok") return { critique: { ...value, action }, verdicts, usage };
  const reason = `critic: ${value.verdict} — ${value.feedback}`;
  return {
    critique: { ...value, action },
    verdicts,
    usage,
    plan: null,
    lastFailure: reason,
    failedPlans: [{ subgoal: plan.subgoal, steps: plan.steps.slice(state.cursor), reason }],
  };
}
