/**
 * ROS 2 actions: the action servers by name, and the goals clients send them. A goal keeps running when its client
 * disconnects; finished goals are remembered by id (bounded by count and by bytes, the oldest finished forgotten
 * first, a running one never) so a client that comes back re-attaches by sending the same goal id — the goal is not
 * executed twice — or asks `/robograph/goal_status`. Whatever a handler does, the goal ends with a result.
 */
import type { z } from "zod";
import { GoalStatus, type SendActionGoalMsg } from "../protocol";
import type { Allowed } from "./auth";
import { short, type Connection, type Msg, type Outbox } from "./connection";

export interface ActionContext {
  goalId: string;
  /** Aborted when a client cancels the goal or the server closes. */
  signal: AbortSignal;
  feedback(values: unknown): void;
}
export type ActionOutcome = { status: "succeeded" | "aborted" | "canceled"; values: unknown };
export type ActionHandler<A = unknown> = (args: A, ctx: ActionContext) => Promise<ActionOutcome>;

interface GoalRecord {
  id: string;
  action: string;
  status: number;
  values?: unknown;
  controller: AbortController;
  listeners: Set<Connection>;
  feedbackTo: Set<Connection>;
  fragmentSize?: number;
  /** What remembering it costs (id, action, result), counted against `goalMemoryBytes`. */
  bytes: number;
}

export class Actions {
  /** Every action server, by name; with `schema`, goal arguments are validated before the handler runs. */
  readonly byName = new Map<string, { type: string; handler: ActionHandler; schema?: z.ZodType }>();
  /** Goals running and finished goals remembered, by goal id, oldest first. */
  readonly goals = new Map<string, GoalRecord>();
  private goalBytes = 0;

  constructor(
    private readonly opts: { goalMemory: number; goalMemoryBytes: number; log: (line: string) => void },
    private readonly allowed: Allowed,
    private readonly out: Outbox,
  ) {}

  /** Cancels every goal in flight (the robots stop); returns their ids. */
  cancelAll(): string[] {
    const ids: string[] = [];
    for (const g of this.goals.values()) {
      if (g.status > GoalStatus.EXECUTING) continue;
      g.status = GoalStatus.CANCELING;
      g.controller.abort();
      ids.push(g.id);
    }
    if (ids.length) this.opts.log(`stop: canceled ${ids.join(", ")}`);
    return ids;
  }

  /** Resolves once no goal is running (accepted, executing or being canceled), or after `timeoutMs`; true if none is. */
  async goalsEnded(timeoutMs = 10_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    const busy = () => [...this.goals.values()].some((g) => g.status <= GoalStatus.CANCELING);
    while (busy() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    return !busy();
  }

  /** Forgets every finished goal (a world restarted for a new episode: no goal id of the last one re-attaches). */
  forgetFinishedGoals(): number {
    let forgotten = 0;
    for (const [id, g] of this.goals) {
      if (g.status < GoalStatus.SUCCEEDED) continue;
      this.goals.delete(id);
      this.goalBytes -= g.bytes;
      forgotten++;
    }
    return forgotten;
  }

  onSendGoal(conn: Connection, message: SendActionGoalMsg): void {
    const goalId = message.id ?? `goal:${message.action}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
    const fail = (msg: string) => {
      this.out.status(conn, "error", msg, goalId);
      this.out.send(conn, {
        op: "action_result",
        id: goalId,
        action: message.action,
        values: msg,
        status: GoalStatus.ABORTED,
        result: false,
      });
    };
    // Before anything else, a re-attach by goal id included: the allowlist decides what a client may reach.
    if (!this.allowed.action(message.action))
      return fail(`action ${short(message.action, 200)} is not allowed by this bridge's actions allowlist`);
    const existing = this.goals.get(goalId);
    if (existing) {
      // Same goal id again: re-attach instead of executing twice.
      if (existing.action !== message.action) return fail(`goal id ${goalId} is already used by ${existing.action}`);
      if (existing.status >= GoalStatus.SUCCEEDED) this.sendResult(conn, existing);
      else {
        existing.listeners.add(conn);
        if (message.feedback !== false) existing.feedbackTo.add(conn);
      }
      return;
    }
    const action = this.byName.get(message.action);
    if (!action) return fail(`action ${message.action} does not exist`);
    if (message.action_type !== action.type)
      return fail(`action ${message.action} has type ${action.type}, not ${message.action_type}`);
    let args: unknown = message.args ?? {};
    if (action.schema) {
      const parsed = action.schema.safeParse(args);
      if (!parsed.success) {
        return fail(
          `invalid arguments for ${message.action}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ")}`,
        );
      }
      args = parsed.data;
    }
    const rec: GoalRecord = {
      id: goalId,
      action: message.action,
      status: GoalStatus.EXECUTING,
      controller: new AbortController(),
      listeners: new Set([conn]),
      feedbackTo: new Set(message.feedback === false ? [] : [conn]),
      fragmentSize: message.fragment_size,
      bytes: 2 * (goalId.length + message.action.length),
    };
    this.remember(rec);
    const ctx: ActionContext = {
      goalId,
      signal: rec.controller.signal,
      feedback: (values) => {
        for (const c of rec.feedbackTo)
          this.out.send(
            c,
            { op: "action_feedback", id: goalId, action: message.action, values },
            rec.fragmentSize,
            goalId,
            true,
          );
      },
    };
    // Whatever the handler does — throw at once, reject, resolve with nothing — the goal ends with a result.
    Promise.resolve()
      .then(() => action.handler(args, ctx))
      .then((out) => {
        if (!out) throw new Error(`action ${message.action} ended without an outcome`);
        this.finish(
          rec,
          out.status === "succeeded"
            ? GoalStatus.SUCCEEDED
            : out.status === "canceled"
              ? GoalStatus.CANCELED
              : GoalStatus.ABORTED,
          out.values,
        );
      })
      .catch((err) => {
        if (rec.status >= GoalStatus.SUCCEEDED) return this.opts.log(`goal ${goalId}: ${(err as Error).message}`);
        this.finish(rec, GoalStatus.ABORTED, { success: false, message: `internal error: ${(err as Error).message}` });
      });
  }

  onCancelGoal(conn: Connection, message: Msg<"cancel_action_goal">): void {
    const goal = this.goals.get(message.id);
    if (!goal || goal.action !== message.action) {
      this.out.status(conn, "warning", `no goal ${message.id} on ${message.action} to cancel`, message.id);
      return;
    }
    if (goal.status <= GoalStatus.EXECUTING) {
      goal.status = GoalStatus.CANCELING;
      goal.controller.abort();
    }
  }

  private finish(rec: GoalRecord, status: number, values: unknown): void {
    rec.status = status;
    rec.values = values;
    for (const c of rec.listeners) this.sendResult(c, rec);
    rec.listeners.clear();
    rec.feedbackTo.clear();
    // The result is what a finished goal costs to remember.
    let size: number;
    try {
      size = 2 * (JSON.stringify(values)?.length ?? 0);
    } catch {
      size = 0;
    }
    if (this.goals.get(rec.id) === rec) {
      this.goalBytes += size;
      rec.bytes += size;
      this.prune();
    }
  }

  private sendResult(conn: Connection, rec: GoalRecord): void {
    this.out.send(
      conn,
      { op: "action_result", id: rec.id, action: rec.action, values: rec.values, status: rec.status, result: true },
      rec.fragmentSize,
      rec.id,
    );
  }

  private remember(rec: GoalRecord): void {
    this.goals.set(rec.id, rec);
    this.goalBytes += rec.bytes;
    this.prune();
  }

  /** Forgets the oldest finished goals while more are remembered than the count or the bytes allow. */
  private prune(): void {
    const over = () => this.goals.size > this.opts.goalMemory || this.goalBytes > this.opts.goalMemoryBytes;
    if (!over()) return;
    for (const [id, g] of this.goals) {
      if (g.status < GoalStatus.SUCCEEDED) continue; // a running goal is never forgotten
      this.goals.delete(id);
      this.goalBytes -= g.bytes;
      if (!over()) return;
    }
  }

  /** Bytes the remembered goals take (ids, actions and results), for diagnostics and tests. */
  get rememberedGoalBytes(): number {
    return this.goalBytes;
  }
}
