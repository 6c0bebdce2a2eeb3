/**
 * Runs the plan's first skill, in two steps like every executor here so a crash never sends it twice: `dispatchSkill`
 * checkpoints the goal id, `runSkill` sends it and records what the body did, as its odometry reports it.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CourseResult } from "../schemas";
import { goalIdFor, runRecordedGoal } from "../../../nodes/executor";
import type { Session } from "../../../runtime/session";
import type { VlmpcStateType, VlmpcUpdate } from "../state";
import { resumeHint, runSignal, stopReason } from "../../../runtime/estop";
import { countFailure } from "../../../nodes/repeats";
import { runOf } from "../../../runtime/run";

const threadOf = (config?: RunnableConfig) => (config?.configurable as { thread_id?: string } | undefined)?.thread_id;

/** The legged robot: the one whose manifest offers walking. */
function leggedRobot(session: Session): string {
  const robot = session.robots.find((r) => r.skills.some((k) => k.name === "walk"));
  if (!robot) throw new Error("no robot on this bridge offers walk; VLM-PC needs a legged robot's skills");
  return robot.id;
}

export async function dispatchSkill(state: VlmpcStateType, config?: RunnableConfig): Promise<VlmpcUpdate> {
  // Stopped: no new goal is recorded; resuming runs this node again.
  const stop = stopReason(config);
  if (stop)
    return {
      status: "interrupted",
      statusReason: `interrupted before the next skill: emergency stop (${stop}); ${resumeHint(threadOf(config))}`,
    };
  const session = await runOf(config).session();
  const record = state.steps[state.steps.length - 1];
  const command = record.answer.plan[0];
  const goalId = goalIdFor(config, state.counters.skills, leggedRobot(session), command.skill, state.startedAt);
  return { pendingGoal: { goalId, command, step: record.step } };
}

export async function runSkill(state: VlmpcStateType, config?: RunnableConfig): Promise<VlmpcUpdate> {
  // Resumed after the skill was canceled (and recorded as such): nothing is pending, the robot looks again.
  if (!state.pendingGoal) return {};
  const session = await runOf(config).session();
  const { goalId, command, step } = state.pendingGoal;
  const outcome = await runRecordedGoal(
    session,
    goalId,
    leggedRobot(session),
    command.skill,
    { magnitude: command.magnitude },
    runSignal(config),
    config,
  );
  const reported = (outcome.values ?? {}) as {
    moved?: unknown;
    turned?: unknown;
    stalled?: unknown;
    seconds?: unknown;
  };
  const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  // A skill the robot refused or aborted moved the body no further than its odometry says: to the planner, a stall.
  const result: CourseResult & { seconds: number } = {
    ...command,
    moved: num(reported.moved),
    turned: num(reported.turned),
    stalled: !outcome.ok || reported.stalled === true,
    seconds: num(reported.seconds),
  };
  const counters = { skills: state.counters.skills + 1, skillSeconds: state.counters.skillSeconds + result.seconds };
  // The robot was stopped: the run pauses; after a resume the robot looks and plans again.
  if (outcome.status === "canceled") {
    const why =
      stopReason(config) ?? "its goal was canceled on the robot (an emergency stop: /robograph/stop or another client)";
    return {
      pendingGoal: null,
      steps: { step, result },
      counters,
      status: "interrupted",
      statusReason: `interrupted during ${command.skill} ${command.magnitude}: ${why}; ${resumeHint(threadOf(config))}`,
    };
  }
  // A refusal (not a stall: a stalled skill ran, and trying it again is how a slippery log is climbed) is counted.
  const refused = !outcome.ok
    ? countFailure(state.repeats, `${command.skill} ${command.magnitude}`, outcome.error ?? outcome.status)
    : undefined;
  return {
    pendingGoal: null,
    steps: { step, result },
    counters,
    ...(refused ? { repeats: refused.repeats, ...refused.end } : {}),
  };
}
