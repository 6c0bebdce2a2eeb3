/**
 * The recorded-goal path every method's executor sends skills through: the goal id is checkpointed before it is sent,
 * so a run resumed after a crash re-sends the same id and the bridge re-attaches instead of running the skill twice.
 */
import { channel } from "node:diagnostics_channel";
import type { RunnableConfig } from "@langchain/core/runnables";
import { callSkill, type SkillResult } from "../tools/skills";
import type { Session } from "../runtime/session";

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
  let result = await callSkill(session.client, session.robots, robot, skill, args, { goalId, signal, onFeedback });
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
  if (skillTimes.hasSubscribers)
    skillTimes.publish({ goalId, robot, skill, start, end: performance.now(), ok: result.ok } satisfies SkillTime);
  if (result.endedAt !== undefined) await framesAfter(session, result.endedAt);
  return result;
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
