/**
 * Runs the written program on the robot and keeps its recording. In two steps like every executor here, so a crash
 * never sends it twice: `dispatchProgram` checkpoints the goal id (the writer has reset the scene); `runProgram` sends the
 * program, then fetches the robot's recording of it (key frames, detection track, narration) into the artifact store.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { PrimitiveProgram, explainProgramError } from "../../../robots/msgs/primitives";
import { LAST_ROLLOUT_SERVICE, type Rollout } from "../../../robots/msgs/rollout";
import { RESET_SERVICE } from "../../../robots/msgs/rollout";
import { goalIdFor, runRecordedGoal } from "../../../nodes/executor";
import type { Session } from "../../../runtime/session";
import { resumeHint, runSignal, stopReason } from "../../../runtime/estop";
import type { CriticStateType, CriticUpdate } from "../state";
import { runOf } from "../../../runtime/run";

/** The hand that runs primitive programs. */
function programmableRobot(session: Session): string {
  const robot = session.robots.find((r) => r.skills.some((k) => k.name === "run_primitives"));
  if (!robot)
    throw new Error(
      "no robot on this bridge offers run_primitives; the behaviour critic's refinement needs a programmable hand (npm run sim -- workbench)",
    );
  return robot.id;
}
const threadOf = (config?: RunnableConfig) => (config?.configurable as { thread_id?: string } | undefined)?.thread_id;

export async function dispatchProgram(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  // Stopped: nothing is recorded or sent; resuming runs this node again.
  const stop = stopReason(config);
  if (stop)
    return {
      status: "interrupted",
      statusReason: `interrupted before the program ran: emergency stop (${stop}); ${resumeHint(threadOf(config))}`,
    };
  const session = await runOf(config).session();
  const parsed = PrimitiveProgram.safeParse(state.program);
  if (!parsed.success)
    return {
      status: "failed",
      statusReason: `the program to run is not a primitive program: ${explainProgramError(parsed.error)}`,
    };
  // A program stopped halfway left the scene halfway: it runs again from the scene every try starts from.
  if (state.redo) await session.client.callService(RESET_SERVICE, {});
  const iteration = state.attempts.length;
  const goalId = goalIdFor(config, state.dispatched, programmableRobot(session), "run_primitives", state.startedAt);
  return { program: parsed.data, pendingGoal: { goalId, iteration }, dispatched: state.dispatched + 1, redo: false };
}

export async function runProgram(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  // Resumed after the program was stopped: nothing is pending, and the edge sends it to be dispatched again.
  if (!state.pendingGoal) return {};
  const session = await runOf(config).session();
  const { goalId, iteration } = state.pendingGoal;
  const program = state.program as PrimitiveProgram;
  const result = await runRecordedGoal(
    session,
    goalId,
    programmableRobot(session),
    "run_primitives",
    program,
    runSignal(config),
    config,
  );
  // The hand was stopped (our emergency stop, /robograph/stop, an operator): the run pauses; no attempt is kept, since
  // half a program's video says nothing about the program.
  if (result.status === "canceled") {
    const why =
      stopReason(config) ?? "its goal was canceled on the robot (an emergency stop: /robograph/stop or another client)";
    return {
      pendingGoal: null,
      redo: true,
      status: "interrupted",
      statusReason: `interrupted during program ${iteration}: ${why}; ${resumeHint(threadOf(config))}`,
    };
  }
  const message = String(
    (result.values as { message?: unknown } | undefined)?.message ?? result.error ?? "no reason given",
  );
  let recording: Rollout;
  try {
    recording = await session.client.callService<Rollout>(LAST_ROLLOUT_SERVICE, {});
  } catch (err) {
    // Refused before it ran (a name the scene does not have…): there is no video to critique, and the run ends saying why.
    if (!result.ok)
      return {
        pendingGoal: null,
        status: "failed",
        statusReason: `program ${iteration} was refused by the robot: ${message}`,
      };
    throw err;
  }
  // Frames go to the artifact store; the checkpoint keeps only the rollout's reference.
  const frames = recording.frames.map((f) => ({ ...f, image: session.artifacts.put(Buffer.from(f.image, "base64")) }));
  const ref = session.artifacts.put(
    Buffer.from(JSON.stringify({ ...recording, instruction: state.goal, frames })),
    "json",
  );
  const completed = result.ok && recording.completed;
  const update: CriticUpdate = { pendingGoal: null, attempts: { iteration, program, rollout: ref, completed } };
  // A program that stopped short did not do the task: its video is still critiqued, and the verdict says it failed.
  if (!completed) update.statusReason = `program ${iteration} stopped short: ${message}`;
  return update;
}
