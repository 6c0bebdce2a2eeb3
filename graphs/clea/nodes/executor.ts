/**
 * Executor, in two steps so a crash can never send an action twice: `dispatch` records the goal id in the state
 * (checkpointed durably), then `act` sends it. A run resumed after a crash re-sends the recorded goal id, which the
 * bridge recognizes and answers with the goal's own result instead of running it again.
 * Skills that need approval pause in `dispatch` with a HumanInterrupt (the shape LangGraph's agent inbox shows).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { interrupt } from "@langchain/langgraph";
import { findSkill } from "../../../tools/skills";
import { reportsHoldUnsensed } from "../../../robots/manifests";
import { goalIdFor, runRecordedGoal } from "../../../nodes/executor";
import { resumeHint, runSignal, stopReason } from "../../../runtime/estop";
import { countFailure } from "../../../nodes/repeats";
import { actionKey, failedTwice, focusOn } from "../loops";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { CleaSettings } from "../configuration";

export interface HumanResponse {
  type: "accept" | "ignore" | "response" | "edit";
  args?: null | string | { action: string; args: Record<string, string> };
}

const threadOf = (config?: RunnableConfig) => (config?.configurable as { thread_id?: string } | undefined)?.thread_id;

export async function dispatch(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  // Stopped: no new goal is recorded; resuming runs this node again.
  const stop = stopReason(config);
  if (stop)
    return {
      status: "interrupted",
      statusReason: `interrupted before the next skill: emergency stop (${stop}); ${resumeHint(threadOf(config))}`,
    };
  const run = runOf<CleaSettings>(config);
  const opts = run.settings;
  const session = await run.session();
  let call = state.plan!.steps[state.cursor];
  const spec = findSkill(session.robots, call.robot, call.skill);
  if (spec.requiresApproval || opts.approve.includes(`${call.robot}/${call.skill}`)) {
    const answer = interrupt([
      {
        action_request: { action: `${call.robot}/${call.skill}`, args: call.args },
        config: { allow_ignore: true, allow_respond: true, allow_edit: true, allow_accept: true },
        description: `${call.robot} is about to ${call.skill} ${JSON.stringify(call.args)} for the sub-goal "${state.plan!.subgoal}". Approve?`,
      },
    ]) as HumanResponse | HumanResponse[];
    const response = Array.isArray(answer) ? answer[0] : answer;
    if (!response || response.type === "ignore" || response.type === "response") {
      const why = response?.type === "response" && typeof response.args === "string" ? `: ${response.args}` : "";
      const reason = `a human declined ${call.robot}/${call.skill}${why}`;
      return {
        plan: null,
        lastFailure: reason,
        failedPlans: [{ subgoal: state.plan!.subgoal, steps: state.plan!.steps.slice(state.cursor), reason }],
      };
    }
    if (response.type === "edit" && response.args && typeof response.args === "object")
      call = { ...call, args: response.args.args };
  }
  // An action that failed twice for the same reason, with a look made for it since, is not sent a third time.
  const twice = failedTwice(state.repeats, call);
  if (twice !== undefined) {
    return {
      status: "failed",
      statusReason: `${actionKey(call)} failed twice for the same reason (${twice}); the look after changed nothing the planner used, so it is not tried a third time`,
      loops: [{ kind: "failure", action: actionKey(call), reason: twice, how: "refused" }],
    };
  }
  const goalId = goalIdFor(config, state.counters.steps, call.robot, call.skill, state.startedAt);
  return { pendingGoal: { goalId, call } };
}

export async function act(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  // Resumed after the goal was canceled (and recorded as such): nothing is pending, the loop looks again.
  if (!state.pendingGoal) return {};
  const session = await runOf(config).session();
  const { goalId, call } = state.pendingGoal;
  const result = await runRecordedGoal(session, goalId, call.robot, call.skill, call.args, runSignal(config), config);
  const seconds = Number((result.values as { duration_sec?: unknown } | undefined)?.duration_sec ?? 0);
  const counters = {
    ...state.counters,
    steps: state.counters.steps + 1,
    skillSeconds: state.counters.skillSeconds + (Number.isFinite(seconds) ? seconds : 0),
    nextEntryId: state.counters.nextEntryId + 1,
  };
  // A hand's content reported by a gripper that cannot sense it is weighed as a report, not a fact (graphs/clea/belief.ts).
  const unsensed = result.ok && session.robots.some((r) => r.id === call.robot && reportsHoldUnsensed(r, call.skill));
  const entry = {
    id: state.counters.nextEntryId,
    step: counters.steps,
    kind: "action" as const,
    call,
    ok: result.ok,
    message: result.ok ? result.message : (result.error ?? result.status),
    ...(unsensed ? { unsensed } : {}),
  };
  if (result.ok) return { pendingGoal: null, cursor: state.cursor + 1, counters, history: [entry] };
  const reason = `${call.robot}/${call.skill} ${JSON.stringify(call.args)} failed: ${entry.message}`;
  // The robot was stopped (our emergency stop, /robograph/stop, an operator): the run pauses, the plan is redone after.
  if (result.status === "canceled") {
    const why =
      stopReason(config) ?? "its goal was canceled on the robot (an emergency stop: /robograph/stop or another client)";
    return {
      pendingGoal: null,
      counters,
      history: [{ ...entry, message: `canceled: ${why}` }],
      plan: null,
      lastFailure: `${call.robot}/${call.skill} ${JSON.stringify(call.args)} was canceled: ${why}`,
      status: "interrupted",
      statusReason: `interrupted during ${call.robot}/${call.skill} ${JSON.stringify(call.args)}: ${why}; ${resumeHint(threadOf(config))}`,
    };
  }
  const { repeats, n: count, end } = countFailure(state.repeats, actionKey(call), entry.message);
  if (end) return { pendingGoal: null, counters, history: [entry], repeats, ...end };
  // The same failure a second time: the look after it is asked about the action's things and places (loops.ts).
  const looked =
    count === 2
      ? {
          focus: focusOn(
            call,
            reason,
            session.world.places.map((p) => p.name),
          ),
          loops: [{ kind: "failure" as const, action: actionKey(call), reason: entry.message, how: "looked" as const }],
        }
      : { focus: null };
  // CLEA's ablation without the critic has no error check: the sub-goal's plan runs on to its end regardless.
  if (runOf<CleaSettings>(config).settings.variant === "no-critic") {
    return {
      pendingGoal: null,
      cursor: state.cursor + 1,
      counters,
      history: [entry],
      repeats,
      ...looked,
      lastFailure: reason,
      failedPlans: [{ subgoal: state.plan?.subgoal ?? "", steps: [call], reason }],
    };
  }
  return {
    pendingGoal: null,
    counters,
    history: [entry],
    repeats,
    ...looked,
    plan: null,
    lastFailure: reason,
    failedPlans: [
      { subgoal: state.plan?.subgoal ?? "", steps: state.plan?.steps.slice(state.cursor) ?? [call], reason },
    ],
  };
}
