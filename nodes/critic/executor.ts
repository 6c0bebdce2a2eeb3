/**
 * Runs the written program on the robot and keeps its recording. In two steps like every executor here, so a crash
 * never sends it twice: `dispatchProgram` checkpoints the goal id (the writer has reset the scene); `runProgram` sends the
 * program, then fetches the robot's recording of it (key frames, detection track, narration) into the artifact store.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { PrimitiveProgram, explainProgramError } from "../../robots/msgs/primitives";
import { LAST_ROLLOUT_SERVICE, type Rollout } from "../../robots/msgs/rollout";
import { goalIdFor, runRecordedGoal } from "../dispatch";
import { runOptions, session, type Session } from "../runtime";
import type { CriticStateType, CriticUpdate } from "./state";


/** The hand that runs primitive programs. */
function programmableRobot(s: Session): string {
  const robot = s.robots.find((r) => r.skills.some((k) => k.name === "run_primitives"));
  if (!robot) throw new Error("no robot on this bridge offers run_primitives; the behaviour critic's refinement needs a programmable hand (npm run sim -- workbench)");
  return robot.id;
}

export async function dispatchProgram(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  const s = await session(runOptions(config));
  const parsed = PrimitiveProgram.safeParse(state.program);
  if (!parsed.success) return { status: "failed", statusReason: `the program to run is not a primitive program: ${explainProgramError(parsed.error)}` };
  const iteration = state.attempts.length;
  const goalId = goalIdFor(config, iteration, programmableRobot(s), "run_primitives", state.startedAt);
  return { program: parsed.data, pendingGoal: { goalId, iteration } };
}

export async function runProgram(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  const s = await session(runOptions(config));
  const { goalId, iteration } = state.pendingGoal!;
  const program = state.program as PrimitiveProgram;
  const r = await runRecordedGoal(s, goalId, programmableRobot(s), "run_primitives", program);
  const recording = await s.client.callService<Rollout>(LAST_ROLLOUT_SERVICE, {});
  // Frames go to the artifact store; the checkpoint keeps only the rollout's reference.
  const frames = recording.frames.map((f) => ({ ...f, image: s.artifacts.put(Buffer.from(f.image, "base64")) }));
  const ref = s.artifacts.put(Buffer.from(JSON.stringify({ ...recording, instruction: state.goal, frames })), "json");
  const completed = r.ok && recording.completed;
  const update: CriticUpdate = { pendingGoal: null, attempts: { iteration, program, rollout: ref, completed } };
  // A program that stopped short did not do the task: its video is still critiqued, and the verdict says it failed.
  if (!completed) update.statusReason = `program ${iteration} stopped short: ${String((r.values as { message?: unknown } | undefined)?.message ?? r.error ?? "no reason given")}`;
  return update;
}
