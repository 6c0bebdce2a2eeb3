/**
 * One episode of a method on a robot or a simulator — the one loop every way in runs: `robograph run` (and MCP's
 * method tools through it), the experiment runner and its queue workers. It opens the run (settings parsed once
 * against the method's configuration, the models, the robots' session), streams the graph with its approvals, ends
 * with a true status, asks the world's own evaluator over the run's own bridge client, and closes the run. What a
 * caller does with each step (print it, keep its frames, write a record) is its own, through the callbacks.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Command, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { UNDESIRABLE_KINDS } from "../robots/msgs/rollout";
import { resumeHint, stoppedBy } from "./estop";
import { follow, type RunnableGraph } from "./follow";
import { openRun, type MethodRuntime, type Run } from "./run";
import { traceRun, type EpisodeTrace } from "./tracing";

/** What the runner uses of a method's descriptor (graphs/method.ts: every method is one). */
export interface EpisodeMethod {
  runtime: MethodRuntime;
  compile(checkpointer?: BaseCheckpointSaver, store?: BaseStore): RunnableGraph;
  /** The graph's input for an instruction. */
  input(goal: string, extra?: { program?: unknown }): Record<string, unknown>;
  /** Judged on behaviour: the task is done well only if the world's event log shows nothing undesirable either. */
  cleanRollout?: boolean;
  /** What the final state adds to the reason a run ends with. */
  explain?(state: Record<string, unknown>): string;
}

/** A skill waiting for a person's approval (the graph's interrupt). */
export interface ApprovalRequest {
  action_request: { action: string; args: unknown };
  description: string;
}

/**
 * What the world's evaluator is asked at the end: these goal literals, or (neither given) the scenario's own goal, or
 * nothing, with the reason (`unchecked`).
 */
export interface GoalCheck {
  goal?: string[];
  unchecked?: string;
}

/** The world's verdict and log, where it has an evaluator (a simulator; a real robot has none). */
export interface WorldVerdict {
  truth?: { success: boolean; goal: unknown };
  events?: { kind: string; object?: string }[];
  /** For a method judged on behaviour: what undesirable happened (and the truth's success already counts it). */
  undesirable?: string[];
  unchecked?: string;
}

export interface TraceStep {
  node: string;
  update: Record<string, unknown>;
}

export interface EpisodeRequest {
  method: EpisodeMethod;
  /** The run's settings as the caller gives them (over the environment's), parsed once against the configuration. */
  settings: Record<string, unknown>;
  goal: string;
  /** behaviorCritic: a program to start from instead of the writer's first draft. */
  program?: unknown;
  thread: string;
  checkpointer: BaseCheckpointSaver;
  store?: BaseStore;
  /** Continue the thread from its last checkpoint (a goal in flight is re-attached to; an interrupted node runs again). */
  resume?: boolean;
  /** This run's emergency stop: its nodes end it `interrupted`, the robot's goal canceled, resumable. */
  signal?: AbortSignal;
  /** A person's answer to a skill that waits for approval (none given: declined). */
  approve?(request: ApprovalRequest): Promise<boolean>;
  /** Once the run is open, before the first step. */
  onStart?(run: Run): Promise<void> | void;
  /** Every node's update as it happens, with the state before it. */
  onUpdate?(node: string, update: Record<string, unknown>, before: unknown): void;
  /** What a node wrote to the custom stream while it ran (a skill's feedback). */
  onFeedback?(chunk: unknown): void;
  /** The runner's own lines (where a resume goes on, an approval's answer). */
  say?(line: string): void;
  /** Every node update as a JSON line `{ t, node, update }` (t: ms since the start; null for steps replayed from checkpoints). */
  eventsFile?: string;
  /** What the world checks at the end (default: its scenario's goal). */
  check?: GoalCheck;
  /** How the run is named and tagged in a LangSmith trace (traced only with LANGSMITH_TRACING=true). */
  trace?: EpisodeTrace;
}

export interface EpisodeOutcome<S = Record<string, unknown>> extends WorldVerdict {
  trace: TraceStep[];
  /** The final state (undefined when the run stopped before its first step). */
  state: S | undefined;
  /** How the run ended, never `running`: an escaped error ends it `interrupted` when resuming can continue it. */
  status: string;
  statusReason: string;
  /** The error that escaped the graph, if one did. */
  crash?: Error;
  wallSeconds: number;
  /** Which models answered (the offline reasoner or an endpoint). */
  backend: string;
}

/** Runs one episode to its end and reports it; the run it opened is closed before this returns. */
export async function runEpisode<S = Record<string, unknown>>(request: EpisodeRequest): Promise<EpisodeOutcome<S>> {
  const { method, thread } = request;
  const graph = method.compile(request.checkpointer, request.store);
  // A stop of this run's own reaches its nodes through the run, as the process's emergency stop does: each ends
  // `interrupted` at a checkpoint (the robot's goal canceled), which a resume runs again. (Aborting the graph's stream
  // instead would lose the interrupted node's write, and a resume would re-attach to the canceled goal.)
  const run = openRun(method.runtime, request.settings, request.signal ? { stop: request.signal } : {});
  // Named after the thread unless the caller names it; nothing is traced unless LANGSMITH_TRACING is on.
  const traced = traceRun({ runName: thread, ...request.trace });
  const config = {
    // Durable before the next step: a goal id is on disk before its goal is sent (TOOLCHAIN.md's lesson).
    durability: "sync" as const,
    configurable: { thread_id: thread },
    context: run.context,
    ...traced.config,
  };
  const started = performance.now();
  const trace: TraceStep[] = [];
  let state: S | undefined;
  let crash: Error | undefined;
  let verdict: WorldVerdict;
  try {
    await request.onStart?.(run);
    let input: unknown = request.method.input(request.goal, { program: request.program });
    if (request.resume) {
      // Its record starts with what the checkpoints hold of the steps before (another process may have run them).
      trace.push(...(await traceFromCheckpoints(graph, config)));
      const point = await resumePoint(graph, config, thread, request.say);
      state = point.state as S;
      input = point.input;
    }
    if (request.eventsFile) {
      mkdirSync(dirname(request.eventsFile), { recursive: true });
      writeFileSync(request.eventsFile, trace.map((step) => `${JSON.stringify({ t: null, ...step })}\n`).join(""));
    }
    for (;;) {
      await follow<S>(
        graph,
        input,
        config,
        {
          state: (latest) => (state = latest),
          custom: (chunk) => request.onFeedback?.(chunk),
          update: (node, update, before) => {
            trace.push({ node, update });
            if (request.eventsFile)
              appendFileSync(
                request.eventsFile,
                `${JSON.stringify({ t: Math.round(performance.now() - started), node, update })}\n`,
              );
            request.onUpdate?.(node, update, before);
          },
        },
        state,
      );
      const snapshot = await graph.getState(config);
      const pending = snapshot.tasks.flatMap((task) => task.interrupts ?? []);
      if (!pending.length) break;
      const asked = (pending[0].value as ApprovalRequest[])[0];
      const approved = (await request.approve?.(asked)) ?? false;
      request.say?.(`approval of ${asked.action_request.action}: ${approved ? "accept" : "ignore"}`);
      input = new Command({ resume: [{ type: approved ? "accept" : "ignore" }] });
    }
  } catch (err) {
    crash = err as Error;
  } finally {
    verdict = await worldVerdict(run, method, request.check ?? {});
    await run.close();
    await traced.flush();
  }
  const ended = endStatus(state as EndState | undefined, crash, thread, request.signal);
  const explanation = state ? (method.explain?.(state as Record<string, unknown>) ?? "") : "";
  return {
    trace,
    state,
    status: ended.status,
    statusReason: ended.statusReason + explanation,
    ...(crash ? { crash } : {}),
    wallSeconds: (performance.now() - started) / 1000,
    backend: run.modelConfig.backend,
    ...verdict,
  };
}

type EndState = { status?: string; statusReason?: string };

/**
 * How a run ended. It never ends `running`: an error that escaped the graph ends it `interrupted` when resuming can
 * continue it (stopped, or the robot unreachable mid-goal), `failed` otherwise.
 */
function endStatus(
  state: EndState | undefined,
  crash: Error | undefined,
  thread: string,
  signal?: AbortSignal,
): { status: string; statusReason: string } {
  let status: string = state?.status ?? "unknown";
  let statusReason = state?.statusReason ?? "";
  if (crash || status === "running" || status === "unknown") {
    // The process's emergency stop, or this run's own (a canceled server run, MCP's emergency_stop).
    const stop = stoppedBy(signal);
    // A graph whose model nodes are not guarded (the behaviour critic's) lets an unavailable endpoint's error out.
    const resumable =
      !!stop ||
      crash?.name === "ModelUnavailableError" ||
      // A robot lost in a node that does not end itself `interrupted` (nodes/guard.ts's `resumable` does).
      crash?.name === "RobotLostError" ||
      /robot unreachable|resume this thread/.test(crash?.message ?? "");
    status = resumable ? "interrupted" : "failed";
    statusReason = stop
      ? `emergency stop (${stop})`
      : crash
        ? `${resumable ? "" : "error: "}${crash.message}`
        : "the run stopped before its end";
    if (resumable) statusReason += `; ${resumeHint(thread)}`;
  }
  return { status, statusReason };
}

/**
 * The world's own verdict, asked over the run's own bridge client the way the agent asks (a ROS 1 robot's answers are
 * JSON text): whether the goal holds and, for a method judged on behaviour, what undesirable happened. A robot with no
 * evaluator (a real one) leaves the run's own status standing alone.
 */
async function worldVerdict(run: Run, method: EpisodeMethod, check: GoalCheck): Promise<WorldVerdict> {
  let truth: WorldVerdict["truth"];
  let unchecked = check.unchecked;
  try {
    const { client } = await run.session(undefined, { world: false });
    if (!unchecked) {
      truth = await client
        .callService<{ success: boolean; goal: unknown }>("/evaluator/check", check.goal ? { goal: check.goal } : {}, {
          timeoutMs: 5000,
        })
        .catch((err: Error) => {
          // The world refused the literals (a name it does not have): said in the record, never taken for "not done".
          if (!check.goal) throw err;
          unchecked = `the simulator could not check ${check.goal.join("; ")}: ${err.message}`;
          return undefined;
        });
    }
    const { events } = await client.callService<{ events: { kind: string; object?: string }[] }>(
      "/evaluator/events",
      {},
      { timeoutMs: 5000 },
    );
    if (!method.cleanRollout) return { truth, events, unchecked };
    // A method judged on behaviour has its task done well only if the rollout had nothing undesirable in it.
    const undesirable = [
      ...new Set(
        events
          .filter((event) => (UNDESIRABLE_KINDS as string[]).includes(event.kind))
          .map((event) => `${event.kind}(${event.object ?? ""})`),
      ),
    ];
    if (truth) truth = { ...truth, success: truth.success && undesirable.length === 0 };
    return { truth, events, undesirable, unchecked };
  } catch {
    return { truth, unchecked };
  }
}

/**
 * Where a resumed thread goes on: its last state, and what to send the graph — nothing (it carries on from its last
 * checkpoint) or, for a run that was interrupted mid-node, the node(s) to run again.
 */
async function resumePoint(
  graph: RunnableGraph,
  config: RunnableConfig,
  thread: string,
  say: (line: string) => void = () => {},
): Promise<{ state: unknown; input: unknown }> {
  const last = await graph.getState(config);
  const state = last.values as {
    status?: string;
    statusReason?: string;
    counters?: Record<string, number>;
    pendingGoal?: { goalId: string } | null;
  };
  const counters = state?.counters ?? {};
  say(
    `resuming thread ${thread} at step ${(counters.steps ?? 0) + (counters.motions ?? 0) + (counters.skills ?? 0)}${state?.pendingGoal ? ` (re-attaching to goal ${state.pendingGoal.goalId})` : ""}`,
  );
  // An interrupted run ended its node early: run that node again (the one the checkpoint before the last was to run).
  if (state?.status !== "interrupted") return { state, input: null };
  const before = last.parentConfig ? await graph.getState(last.parentConfig) : undefined;
  // Nodes that ran side by side (the summarizer and the critic of one look) run again together.
  const nodes = before?.next ?? [];
  if (!nodes.length)
    throw new Error(`thread ${thread} is interrupted but its checkpoints do not say which node to run again`);
  say(`it was interrupted (${state.statusReason}); running ${nodes.join(" and ")} again`);
  // The nodes, run again, clear the interruption themselves (nodes/guard.ts, `resumable`).
  return { state, input: new Command({ goto: [...nodes] }) };
}

/**
 * The node updates a thread's checkpoints record, oldest first: each checkpoint keeps the writes of the tasks that ran
 * from it, which are the updates the graph streamed when they ran.
 */
async function traceFromCheckpoints(graph: RunnableGraph, config: RunnableConfig): Promise<TraceStep[]> {
  const snapshots = [];
  for await (const snapshot of graph.getStateHistory(config)) snapshots.push(snapshot);
  // History comes newest first. A task of an older checkpoint ran (one that wrote nothing too); of the newest, only one
  // that wrote has run (the others are what the resume runs).
  return snapshots
    .reverse()
    .flatMap((snapshot, index) =>
      snapshot.tasks
        .filter((task) => !task.name.startsWith("__") && (task.result !== undefined || index < snapshots.length - 1))
        .map((task) => ({ node: task.name, update: (task.result ?? {}) as Record<string, unknown> })),
    );
}
