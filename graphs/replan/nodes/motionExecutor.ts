/**
 * Motion controller call, in two steps like the CLEA executor so a crash never runs a motion twice: `dispatchMotion`
 * checkpoints the goal id, `runMotion` sends the reward terms to the robot's `execute_motion` skill (re-attaching to
 * the same goal after a dropped connection) and records the outcome.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { termText } from "../../../robots/msgs/motion";
import { goalIdFor, runRecordedGoal } from "../../../nodes/executor";
import { budgetEnd } from "./budget";
import { resumeHint, runSignal, stopReason } from "../../../runtime/estop";
import { countFailure } from "../../../nodes/repeats";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

const threadOf = (config?: RunnableConfig) => (config?.configurable as { thread_id?: string } | undefined)?.thread_id;

const MOTION_SKILL = "execute_motion";

export async function dispatchMotion(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  // Stopped: no new goal is recorded; resuming runs this node again.
  const stop = stopReason(config);
  if (stop)
    return {
      status: "interrupted",
      statusReason: `interrupted before the next motion: emergency stop (${stop}); ${resumeHint(threadOf(config))}`,
    };
  const run = runOf<ReplanSettings>(config);
  const opts = run.settings;
  const ended = budgetEnd(state, opts);
  if (ended) return ended;
  const session = await run.session();
  const robot = session.robots.find((r) => r.skills.some((k) => k.name === MOTION_SKILL));
  if (!robot)
    throw new Error(`no robot on this bridge offers ${MOTION_SKILL}; the hierarchical mode needs reward-driven motion`);
  const motion = state.motion!;
  return {
    pendingGoal: { goalId: goalIdFor(config, state.counters.motions, robot.id, MOTION_SKILL, state.startedAt), motion },
  };
}

export async function runMotion(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  // Resumed after the motion was canceled (and recorded as such): nothing is pending; the step is planned again.
  if (!state.pendingGoal) return {};
  const run = runOf<ReplanSettings>(config);
  const session = await run.session();
  const { goalId, motion } = state.pendingGoal;
  const robot = session.robots.find((r) => r.skills.some((k) => k.name === MOTION_SKILL))!;
  const terms = motion.terms.map((t) => termText(t));
  const result = await runRecordedGoal(
    session,
    goalId,
    robot.id,
    MOTION_SKILL,
    { terms: motion.terms, duration: motion.duration },
    runSignal(config),
    config,
  );
  const seconds = Number((result.values as { duration_sec?: unknown } | undefined)?.duration_sec ?? 0);
  const counters = {
    ...state.counters,
    motions: state.counters.motions + 1,
    skillSeconds: state.counters.skillSeconds + (Number.isFinite(seconds) ? seconds : 0),
  };
  const message = result.ok ? "done" : String(result.error ?? result.status);
  const log = [{ kind: "motion" as const, step: motion.step, terms, ok: result.ok, message, seconds }];
  if (result.ok) return { pendingGoal: null, motion: null, cursor: state.cursor + 1, counters, log };
  // The robot was stopped: the run pauses; after a resume the step's motion is planned and sent anew.
  if (result.status === "canceled") {
    const why =
      stopReason(config) ?? "its goal was canceled on the robot (an emergency stop: /robograph/stop or another client)";
    return {
      pendingGoal: null,
      motion: null,
      counters,
      log: [{ ...log[0], message: `canceled: ${why}` }],
      status: "interrupted",
      statusReason: `interrupted during "${motion.step}": ${why}; ${resumeHint(threadOf(config))}`,
    };
  }
  const { repeats, end } = countFailure(state.repeats, `the motion for "${motion.step}"`, message);
  return { pendingGoal: null, counters, log, repeats, failure: { step: motion.step, message }, ...end };
}
