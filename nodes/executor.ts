/**
 * The recorded-goal path every method's executor sends skills through: the goal id is checkpointed before it is sent,
 * so a run resumed after a crash re-sends the same id and the bridge re-attaches instead of running the skill twice.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { channel } from "node:diagnostics_channel";
import type { RunnableConfig } from "@langchain/core/runnables";
import { RobotLostError } from "../robots/bridge/errors";
import { callSkill, type SkillResult } from "../tools/skills";
import type { Session } from "../runtime/session";

/**
 * Goals lost with their robot, by goal id, for the node a resume runs again (nodes/guard.ts puts them here from the
 * checkpointed `pendingGoal.lost`): the text is what was known when the robot went.
 */
const lostGoals = new AsyncLocalStorage<ReadonlyMap<string, string>>();

/** Runs `fn` with `goalId` known as lost with its robot (`why`): the recorded-goal path reconciles it, never resends it. */
export function withLostGoal<T>(goalId: string, why: string, fn: () => Promise<T>): Promise<T> {
  return lostGoals.run(new Map([[goalId, why]]), fn);
}

/**
 * When the robot was busy: each goal's start and end (performance.now()) in this process, published for whoever
 * measures robot idle time (evals/bench/latency.ts); nothing is published without a subscriber.
 */
export const skillTimes = channel("robograph:skill");
export interface SkillTime {
  goalId: string;
  robot: string;
  skill: string;
  start: number;
  end: number;
  ok: boolean;
}

/** A skill's feedback as the graphs stream it (LangGraph's "custom" stream mode). */
export interface SkillFeedbackChunk {
  feedback: { goalId: string; robot: string; skill: string; values: unknown };
}

/**
 * Sends a goal whose id is already checkpointed. Connection lost mid-goal: the goal may still be running, so the same
 * goal id is sent again once the client has reconnected — the bridge re-attaches instead of running it twice. A client
 * whose reconnection budget ran out is closed for good, so a new session's client re-attaches instead. If the robot
 * stays unreachable the node fails: the checkpoint keeps the recorded goal, and resuming the thread re-attaches.
 * A robot that gives no sign of life for its liveness window (tools/liveness.ts) throws RobotLostError, with what was
 * last known: the node ends `interrupted` (nodes/guard.ts), and on resume the lost goal is followed only if the robot,
 * back, still knows it — a restarted robot gets no goal id a second time; the step comes back failed and is planned anew.
 * `signal` is the emergency stop: aborted, it cancels the goal on the robot (the result comes back `canceled`).
 */
export async function runRecordedGoal(
  session: Session,
  goalId: string,
  robot: string,
  skill: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  config?: RunnableConfig,
): Promise<SkillResult> {
  const stopped = (): SkillResult => ({
    ok: false,
    robot,
    skill,
    goalId,
    status: "canceled",
    message: "",
    error: `not sent: ${(signal!.reason as Error)?.message ?? "stopped"}`,
    feedback: [],
    durationMs: 0,
  });
  if (signal?.aborted) return stopped();
  // The robot's feedback goes out on the graph's custom stream as it comes (Studio, the SDK, `robograph run`).
  const writer = (config as { writer?: (chunk: unknown) => void } | undefined)?.writer;
  const onFeedback =
    writer && ((f: unknown) => writer({ feedback: { goalId, robot, skill, values: f } } satisfies SkillFeedbackChunk));
  const start = performance.now();
  const lostBefore = lostGoals.getStore()?.get(goalId);
  // A client that gave up reconnecting earlier says nothing of the robot now: the session is opened again first, and a
  // robot that still cannot be reached is lost (the run pauses, resumable).
  if (session.client.closed)
    session = await session.reopen().catch((err: Error) => {
      throw new RobotLostError(`the bridge at ${session.client.url}`, 0, `robot lost — ${err.message}`, {
        goalId,
        cause: err,
      });
    });
  let result = await callSkill(session.client, session.robots, robot, skill, args, {
    goalId,
    signal,
    onFeedback,
    ...(lostBefore !== undefined ? { lostBefore } : {}),
  });
  for (let attempt = 0; result.status === "disconnected" && attempt < 3; attempt++) {
    // Stopped while the connection was down: the bridge cancels nothing it cannot hear, so say so rather than re-attach.
    if (signal?.aborted)
      return {
        ...stopped(),
        error: `stopped while the connection was lost (${result.error}); the goal may still be running`,
      };
    await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    if (session.client.closed) {
      try {
        session = await session.reopen();
      } catch (err) {
        result = { ...result, error: (err as Error).message };
        continue;
      }
    }
    result = await callSkill(session.client, session.robots, robot, skill, args, { goalId, signal, onFeedback });
  }
  if (result.status === "disconnected")
    throw new Error(
      `robot unreachable while goal ${goalId} was running (${result.error}); resume this thread to re-attach to it`,
    );
  if (result.status === "robot_lost") throw lostDuring(result);
  if (skillTimes.hasSubscribers)
    skillTimes.publish({ goalId, robot, skill, start, end: performance.now(), ok: result.ok } satisfies SkillTime);
  if (result.endedAt !== undefined) await framesAfter(session, result.endedAt);
  return result;
}

/** A lost robot as the error that pauses the run, saying what was last known of the goal. */
function lostDuring(result: SkillResult): RobotLostError {
  const lastFeedback = result.feedback.at(-1);
  const known = [
    result.lastStatus && !result.error?.includes(result.lastStatus) ? `its last status: ${result.lastStatus}` : "",
    lastFeedback !== undefined ? `its last feedback: ${JSON.stringify(lastFeedback).slice(0, 300)}` : "",
  ].filter(Boolean);
  return new RobotLostError(
    `${result.robot}/${result.skill} (goal ${result.goalId})`,
    result.durationMs,
    `${result.error ?? "no sign of life"}${known.length ? `; ${known.join("; ")}` : ""}`,
    { goalId: result.goalId },
  );
}

/** How long the look after a skill waits for frames taken after it ended before it takes what there is. */
const FRAMES_AFTER_MS = 3000;

/**
 * Waits (a little) until every camera has a frame stamped at or after `endedAt`: ROS keeps no order across topics, so the
 * frames a robot takes after a skill may arrive after its result, and the look after the skill must see them.
 */
async function framesAfter(session: Session, endedAt: number): Promise<void> {
  const topics = session.robots.flatMap((robot) =>
    robot.cameras.flatMap((c) => [c.image, ...(c.detections ? [c.detections] : [])]),
  );
  await Promise.all(topics.map((topic) => session.client.stampedBy(topic, endedAt, FRAMES_AFTER_MS)));
}

/** A goal id unique per episode (its start time), so a reused thread id never collides with goals a long-lived bridge remembers. */
export function goalIdFor(
  config: RunnableConfig | undefined,
  step: number,
  robot: string,
  skill: string,
  startedAt: number,
): string {
  const thread = (config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "run";
  return `${thread}/${step}/${robot}/${skill}#${(startedAt || Date.now()).toString(36)}`;
}
