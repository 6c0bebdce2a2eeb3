/**
 * What ROS 1's reference rosbridge_server does differently from ours (and ROS 2's), handled in one place:
 * - no action ops: an action is actionlib's five topics (`goal`, `cancel`, `status`, `feedback`, `result`), driven
 *   here with plain publish/subscribe; goal ids are ours, so a goal sent again after a crash is recognised by id;
 * - headers stamp in `secs`/`nsecs` (ROS 2: `sec`/`nanosec`) and carry a `seq`;
 * - a message has every field: an optional text our messages leave out comes as an empty string;
 * - values without a fixed message shape (manifests, the evaluator's answers) go through services of type
 *   robograph_msgs/Json, whose request and response are one JSON text each.
 */
import { BridgeConnectionError, BridgeTimeoutError, RobotLostError } from "./errors";
import { GoalStatus } from "./protocol";
import type { BridgeClient, GoalHandle, GoalResult } from "./client";

export { fromRos1, toRos1, JSON_SERVICE_TYPE } from "./ros1Messages";

/** actionlib_msgs/GoalStatus codes. */
export const ActionlibStatus = {
  PENDING: 0,
  ACTIVE: 1,
  PREEMPTED: 2,
  SUCCEEDED: 3,
  ABORTED: 4,
  REJECTED: 5,
  PREEMPTING: 6,
  RECALLING: 7,
  RECALLED: 8,
  LOST: 9,
} as const;
/** A status code as actionlib names it, for what a person reads. */
export const actionlibStatusName = (status: number) =>
  Object.entries(ActionlibStatus).find(([, code]) => code === status)?.[0] ?? `status ${status}`;

const TERMINAL = new Set<number>([
  ActionlibStatus.PREEMPTED,
  ActionlibStatus.SUCCEEDED,
  ActionlibStatus.ABORTED,
  ActionlibStatus.REJECTED,
  ActionlibStatus.RECALLED,
  ActionlibStatus.LOST,
]);

/** An actionlib end state as the ROS 2 code the rest of the client speaks. */
export function fromActionlibStatus(status: number): number {
  if (status === ActionlibStatus.SUCCEEDED) return GoalStatus.SUCCEEDED;
  if (status === ActionlibStatus.PREEMPTED || status === ActionlibStatus.RECALLED) return GoalStatus.CANCELED;
  return GoalStatus.ABORTED;
}

/** `pkg/Name` (or `pkg/action/Name`) → the package and the action's name, for its generated message types. */
export function actionTypes(actionType: string) {
  const [pkg, ...rest] = actionType.split("/");
  const name = rest.at(-1)!;
  return {
    goal: `${pkg}/${name}ActionGoal`,
    result: `${pkg}/${name}ActionResult`,
    feedback: `${pkg}/${name}ActionFeedback`,
    status: "actionlib_msgs/GoalStatusArray",
    cancel: "actionlib_msgs/GoalID",
  };
}

export interface ActionlibResultMsg {
  header?: { stamp?: { sec: number; nanosec: number } };
  status: { goal_id: { id: string }; status: number; text: string };
  result: Record<string, unknown>;
}

interface Waiting {
  onFeedback?: (v: unknown) => void;
  onResult(m: ActionlibResultMsg): void;
  onStatus(status: number, text: string): void;
}

interface StatusArray {
  status_list: { goal_id: { id: string }; status: number; text?: string }[];
}

/** One action's five topics as seen by a client, shared by every goal it sends on that action. */
class ActionChannel {
  readonly waiting = new Map<string, Waiting>();
  /**
   * When its status last arrived (Date.now(); 0 before the first): the action server's sign of life, sent at a steady
   * rate whether or not a goal runs.
   */
  lastStatusAt = 0;
  constructor(
    readonly client: BridgeClient,
    readonly action: string,
    actionType: string,
  ) {
    const types = actionTypes(actionType);
    client.advertise(`${action}/goal`, types.goal);
    client.advertise(`${action}/cancel`, types.cancel);
    client.subscribe<ActionlibResultMsg>(`${action}/result`, types.result, (message) =>
      this.waiting.get(message.status?.goal_id?.id)?.onResult(message),
    );
    client.subscribe<{ status: { goal_id: { id: string } }; feedback: unknown }>(
      `${action}/feedback`,
      types.feedback,
      (message) => {
        const waiter = this.waiting.get(message.status?.goal_id?.id);
        waiter?.onFeedback?.(parseJsonField(message.feedback));
      },
    );
    client.subscribe<StatusArray>(`${action}/status`, types.status, (message) => {
      this.lastStatusAt = Date.now();
      for (const s of message.status_list ?? []) this.waiting.get(s.goal_id?.id)?.onStatus(s.status, s.text ?? "");
    });
    client.on("disconnect", () => {
      for (const [id, w] of this.waiting)
        w.onResult({ status: { goal_id: { id }, status: -1, text: "connection lost" }, result: {} });
    });
  }
}
const channels = new WeakMap<BridgeClient, Map<string, ActionChannel>>();

/** Feedback and result values: our actions put theirs in a `json` / `values_json` text; other robots' come as fields. */
function parseJsonField(value: unknown): unknown {
  const wrapped = value as { json?: unknown } | undefined;
  if (wrapped && typeof wrapped.json === "string" && Object.keys(wrapped).length === 1) {
    try {
      return JSON.parse(wrapped.json);
    } catch {
      return wrapped;
    }
  }
  return value;
}

/** The goal is sent again every so often until the robot's status or result shows it arrived (ROS 1 connects late). */
const RESEND_MS = 1000;
/** How long a result waits for the frames it names before it is given anyway. */
const FRAMES_WAIT_MS = 3000;
/**
 * How long after the status says a goal ended its result may still come; then the status alone says how it ended (a
 * result published before this client listened, by a server that ignores a goal id it has seen).
 */
const RESULT_WAIT_MS = 3000;

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * Whether the action server lists goal `goalId` in its status — running, or ended within actionlib's status_list_timeout
 * (5 s) — by the first status message that arrives: how a goal lost with its robot is reconciled once the robot is back.
 * Rejects with RobotLostError when no status arrives within `timeoutMs`.
 */
export async function actionlibGoalKnown(
  client: BridgeClient,
  action: string,
  actionType: string,
  goalId: string,
  timeoutMs: number,
): Promise<boolean> {
  const started = Date.now();
  try {
    const message = await client.nextMessage<StatusArray>(
      `${action}/status`,
      actionTypes(actionType).status,
      timeoutMs,
    );
    return (message.status_list ?? []).some((s) => s.goal_id?.id === goalId);
  } catch (err) {
    if (!(err instanceof BridgeTimeoutError)) throw err;
    const silent = Date.now() - started;
    throw new RobotLostError(
      `action ${action}`,
      silent,
      `robot lost — no status from ${action}/status in ${seconds(silent)} s`,
      {
        goalId,
        cause: err,
      },
    );
  }
}

/**
 * Sends a goal to a ROS 1 actionlib server through a rosbridge: publishes it on `<action>/goal` with our goal id
 * (again every second until the robot's status lists it: a topic's first messages can be lost while ROS 1 connects
 * publisher and subscriber), follows `feedback`, `status` and `result`, and cancels on `<action>/cancel`. Resolves
 * and rejects as `BridgeClient.sendGoal` does.
 */
export function sendActionlibGoal<R = unknown, F = unknown>(
  client: BridgeClient,
  action: string,
  actionType: string,
  args: unknown,
  opts: {
    goalId: string;
    onFeedback?: (f: F) => void;
    /** Each change of what the robot's status says of the goal (`ACTIVE`, `SUCCEEDED: arrived` …). */
    onStatus?: (said: string) => void;
    timeoutMs?: number;
    signal?: AbortSignal;
    /**
     * How long the action's status may stay silent while the goal runs before the robot is taken for lost (rejects
     * with RobotLostError); absent: only the time limit ends the wait.
     */
    livenessMs?: number;
  },
): GoalHandle<R> {
  let byClient = channels.get(client);
  if (!byClient) channels.set(client, (byClient = new Map()));
  let ch = byClient.get(action);
  if (!ch) byClient.set(action, (ch = new ActionChannel(client, action, actionType)));
  const channel = ch;
  const goalId = opts.goalId;
  const cancel = () => {
    if (client.connected && channel.waiting.has(goalId))
      client.publish(`${action}/cancel`, { stamp: { sec: 0, nanosec: 0 }, id: goalId });
  };
  const result = new Promise<GoalResult<R>>((resolve, reject) => {
    let seen = false;
    let timer: NodeJS.Timeout | undefined;
    // Set once the goal is sent; `done` clears it and runs sooner when the goal never is (abort, failed send).
    // eslint-disable-next-line prefer-const -- a const at that assignment would be read before it exists and throw
    let resend: NodeJS.Timeout | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let statusOnly: NodeJS.Timeout | undefined;
    /** What the robot's status last said of this goal. */
    let said: { status: number; text: string } | undefined;
    const sentAt = Date.now();
    const done = () => {
      clearTimeout(timer);
      clearInterval(resend);
      clearInterval(watchdog);
      clearTimeout(statusOnly);
      channel.waiting.delete(goalId);
      opts.signal?.removeEventListener("abort", cancel);
    };
    const saidText = (status: number, text: string) => `${actionlibStatusName(status)}${text ? `: ${text}` : ""}`;
    const send = () => {
      const now = Date.now();
      const stamp = { sec: Math.floor(now / 1000), nanosec: (now % 1000) * 1e6 };
      client.publish(`${action}/goal`, { header: { stamp, frame_id: "" }, goal_id: { stamp, id: goalId }, goal: args });
    };
    channel.waiting.set(goalId, {
      onFeedback: opts.onFeedback as ((v: unknown) => void) | undefined,
      onStatus: (status, text) => {
        seen = true;
        if (said?.status !== status || said.text !== text) opts.onStatus?.(saidText(status, text));
        said = { status, text };
        // Ended, but its result went by before this client's subscription was connected: asking again by the same id
        // makes the robot publish the result again (it never runs a goal id twice).
        if (TERMINAL.has(status))
          setTimeout(() => channel.waiting.has(goalId) && client.connected && send(), RESEND_MS);
        // A server that ignores a goal id it has seen publishes nothing again: then the status says how it ended.
        if (TERMINAL.has(status) && !statusOnly)
          statusOnly = setTimeout(() => {
            if (!channel.waiting.has(goalId) || !said) return;
            done();
            const ended = fromActionlibStatus(said.status);
            resolve({
              goalId,
              action,
              status: ended,
              succeeded: ended === GoalStatus.SUCCEEDED,
              values: {} as R,
              statusText: said.text || undefined,
            });
          }, RESULT_WAIT_MS);
      },
      onResult: (message) => {
        done();
        if (message.status.status < 0)
          return reject(new BridgeConnectionError(`connection lost while goal ${goalId} on ${action} was running`));
        const status = fromActionlibStatus(message.status.status);
        const fields = message.result ?? {};
        const values =
          "values_json" in fields
            ? {
                ...(parseJsonField({ json: fields.values_json }) as object),
                message: fields.message ?? message.status.text,
              }
            : fields;
        // ROS 1 keeps no order across topics: the frames the robot published before this result may still be on
        // their way. The result waits for them (a little), so whoever looks next sees the state the skill left.
        const named = typeof fields.frames_json === "string" && fields.frames_json;
        const frames = named ? (JSON.parse(fields.frames_json as string) as Record<string, number>) : {};
        // A standard action names no frames: its result's stamp is when it ended, and the caller waits for frames
        // stamped at or after it (the robot's clock stamps both).
        const stamp = message.header?.stamp;
        const endedAt =
          !named && stamp && (stamp.sec > 0 || stamp.nanosec > 0) ? stamp.sec + stamp.nanosec / 1e9 : undefined;
        void Promise.all(Object.entries(frames).map(([topic, t]) => client.stampedBy(topic, t, FRAMES_WAIT_MS))).then(
          () =>
            resolve({
              goalId,
              action,
              status,
              succeeded: status === GoalStatus.SUCCEEDED,
              values: values as R,
              statusText: message.status.text || undefined,
              ...(endedAt !== undefined ? { endedAt } : {}),
            }),
        );
      },
    });
    if (opts.signal?.aborted) {
      done();
      return reject(new BridgeConnectionError(`goal on ${action} aborted before it was sent`));
    }
    opts.signal?.addEventListener("abort", cancel, { once: true });
    if (opts.timeoutMs) {
      timer = setTimeout(() => {
        cancel();
        done();
        reject(new BridgeTimeoutError(`action ${action} (goal ${goalId})`, opts.timeoutMs!));
      }, opts.timeoutMs);
    }
    try {
      send();
    } catch (err) {
      done();
      return reject(err);
    }
    resend = setInterval(() => {
      if (!seen && client.connected) send();
    }, RESEND_MS);
    if (opts.livenessMs) {
      const window = opts.livenessMs;
      const silentFor = () => Date.now() - Math.max(sentAt, channel.lastStatusAt);
      const lost = () => {
        const silent = silentFor();
        const heard = channel.lastStatusAt >= sentAt;
        done();
        reject(
          new RobotLostError(
            `action ${action}`,
            silent,
            `robot lost — ${heard ? `its status (${action}/status) stopped ${seconds(silent)} s ago` : `no status from ${action}/status in the ${seconds(silent)} s since the goal was sent`}; ${said ? `it last said goal ${goalId} was ${saidText(said.status, said.text)}` : `it never listed goal ${goalId}`}`,
            { goalId },
          ),
        );
      };
      watchdog = setInterval(
        () => {
          // A closed socket is the disconnect's to report: silence is judged only while the bridge is there to hear.
          if (!client.connected || silentFor() <= window) return;
          // Status that reached the socket while this process was busy is read before the verdict.
          setImmediate(() => {
            if (channel.waiting.has(goalId) && client.connected && silentFor() > window) lost();
          });
        },
        Math.max(50, Math.min(100, window / 10)),
      );
    }
  });
  return { goalId, result, cancel };
}
