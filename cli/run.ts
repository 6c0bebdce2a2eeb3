/**
 * `robograph run` (npm start): one closed-loop episode end to end — starts the world's simulator as a child process
 * (unless --bridge-url points at a running robot), runs the agent with a SQLite checkpointer, prints a line per node,
 * and leaves a run record in runs/<thread_id>/ (events.jsonl, report.md with frames, summary.json).
 */
import { parseArgs } from "node:util";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash, randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import { Command } from "@langchain/langgraph";
import type { Session } from "../runtime/session";
import { openRun } from "../runtime/run";
import { pngOf } from "../robots/msgs/images";
import { follow } from "./follow";
import { METHODS, methodOfGraph, methodOfWorld, type Method, type MethodGraph } from "../graphs";
import type { RunnableConfig } from "@langchain/core/runnables";
import { UNDESIRABLE_KINDS } from "../robots/msgs/rollout";
import { dataDir, openPersistence } from "../memory/checkpointer";
import { totalUsage } from "../models";
import { learnDialect } from "../tools/skills";
import { BridgeClient } from "../robots/bridge/client";
import { parseLiteral } from "../robots/manifests";
import { emergencyStop, stopReason } from "../runtime/estop";
import { resumeHint } from "../nodes/guard";
import type { SkillFeedbackChunk } from "../nodes/executor";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { world } from "../robots/sim/worlds";
import { courseExamplesPath } from "../evals/datasets";

/** How a run asks its parent process for an approval (--ask-via-stdio). */
export const APPROVAL_PREFIX = "APPROVAL ";

/** The next line on stdin (a parent's answer). */
function nextStdinLine(): Promise<string> {
  return new Promise((resolve) => {
    let buf = "";
    const done = (line: string) => {
      process.stdin.off("data", onData);
      process.stdin.off("end", onEnd);
      process.stdin.pause();
      // A pipe read once keeps the process alive: let it end when the run does.
      (process.stdin as { unref?: () => void }).unref?.();
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      const i = buf.indexOf("\n");
      if (i >= 0) done(buf.slice(0, i));
    };
    const onEnd = () => done(buf);
    process.stdin.on("data", onData);
    process.stdin.once("end", onEnd);
    (process.stdin as { ref?: () => void }).ref?.();
    process.stdin.resume();
  });
}

export const RUN_HELP = `usage: robograph run [options]      (npm start -- [options])

Runs one episode of a method's graph until the task is done or a budget ends it. Without --bridge-url it starts
the method's world as a simulator child process.

options:
  --graph G            ${METHODS.map((m, i) => `${m.graph} (${m.title}, ${m.world} world${i === 0 ? "; default" : ""}${m.kind === "campaign" ? `; see --graph ${m.graph} --help` : ""})`).join(" |\n                       ")}
  --world W            the same choice by world: ${METHODS.filter((m) => m.kind === "episode")
    .map((m) => m.world)
    .join(" | ")}
  --scenario NAME      the world's scenario (a kitchen scenario may also be a JSON file):
                       ${METHODS.filter((m) => m.kind === "episode")
                         .map((m) => world(m.world))
                         .map(
                           (worldSpec) =>
                             `${worldSpec.name} (default ${worldSpec.defaultScenario}): ${worldSpec.scenarios().join(", ")}${worldSpec.name === "course" ? ", or generated_<seed>" : ""}`,
                         )
                         .join("\n                       ")}
  --goal TEXT          the instruction (default: the scenario's)
  --check LITERALS     what the simulator checks at the end, as goal literals ("in(apple, sink); closed(oven)");
                       default the scenario's goal. A run given another --goal without --check is not checked:
                       its record says checked false, success null, and why
  --model B            symbolic | openai (default: openai when OPENAI_API_KEY is set, else symbolic)
  --variant V          ${METHODS.filter((m) => m.kind === "episode")
    .map((m, i) => `${i === 2 ? "\n                       " : ""}${m.graph}: ${m.variants.join(" | ")}`)
    .join("; ")
    .replace(/; \n/, ";\n")} (default full)
  --pipeline           closedLoop, replan: prepare the next action and its check while a skill runs, against the
                       skill's predicted effects; the look after it sends it at once or drops it (default off)
  --history-window K   vlmpc: the planner sees the last K steps with images, older ones as a summary (default 0: all)
  --examples FILE      vlmpc full+ic: labelled example frames (default evals/datasets/course_examples/<course>.json)
  --program FILE       behaviorCritic: a primitive program (JSON) to start from instead of the writer's first draft
  --grounding G        behaviorCritic: what checks the critic's claims: detector (default) | events (the simulator's
                       log, as a person watching would)
  --noise P            symbolic backend noise level, 0..1 (default 0; the knobs it sets: docs/models.md)
  --seed N             seed of the symbolic backend's noise and the detector's (default 0)
  --thread ID          thread id (default: a new one); checkpoints and runs/<ID>/ are keyed by it
  --resume             continue thread --thread from its last checkpoint (needs the same robot: use --bridge-url);
                       an interrupted run (model endpoint down, emergency stop) runs the node it stopped in again
  --bridge-url URL     use a running robot or simulator instead of starting one
  --manifest FILE      the robot's manifests ({ robots, world }) when its bridge serves no /robograph/manifest (a plain
                       ROS robot: robograph connect drafts them)
  --approve R/S,...    skills that need human approval, e.g. arm/release_to (asked on the terminal)
  --auto-approve       approve every such request without asking
  --ask-via-stdio      ask as a line "${APPROVAL_PREFIX}{json}" on stdout and read "accept" (or anything else: decline)
                       from stdin — for a parent process that asks someone (robograph mcp asks its client)
  --speed X            simulator speed, simulated seconds per wall second (default max)
  --detector-noise P   the simulated detector's miss and mislabel rate (default 0)
  --grasp-sensing on|off  whether the simulated grippers sense a grasp (default on)
  --data-dir DIR       checkpoints and artifacts (default ./data or ROBOGRAPH_DATA_DIR)
  --runs-dir DIR       run records (default ./runs)
  --forget             no memory across episodes (by default, where objects were found is kept in
                       <data-dir>/memory.sqlite and recalled at the start of the next episode)
  --quiet              only the summary

environment:
  OPENAI_API_KEY, OPENAI_BASE_URL      an OpenAI-compatible endpoint (hosted, vLLM, Ollama, LM Studio)
  ROBOGRAPH_MODEL, ROBOGRAPH_MODEL_<ROLE>   model names (roles: PLANNER PERCEIVER VERIFIER CRITIC SUMMARIZER)
  ROBOGRAPH_STRUCTURED_METHOD          functionCalling (default) | jsonSchema | jsonMode
  ROBOGRAPH_MODEL_RETRIES              retries of a request that failed in transport (default 4; backoff with jitter,
                                       Retry-After honoured); ROBOGRAPH_MODEL_BACKOFF_MS first delay (default 1000)
  ROBOGRAPH_MODEL_TIMEOUT_MS           time limit of one model request (default 60000)

exit code: 0 done (the simulator confirms it), 2 not done, 3 interrupted (resume with --thread ID --resume)
SIGINT/SIGTERM: emergency stop — the robot's goal in flight is canceled and the run ends interrupted
  ROBOGRAPH_MODEL_BACKEND              force symbolic or openai
  ROBOGRAPH_DATA_DIR                   as --data-dir
  ROBOGRAPH_BRIDGE_TOKEN               token for a bridge that requires one
`;

/**
 * The detector's message of a frame the record keeps, written beside it (frames/NNN-robot.json) so `robograph view` can
 * draw its boxes: only when a robot's latest view is still that very image (the state keeps the image, not the boxes).
 */
async function keepDetections(session: Session, image: string, file: string, robot?: string): Promise<void> {
  for (const [id, v] of session.views) {
    if ((robot && id !== robot) || !v.image || !v.detections) continue;
    // The frame as the agent kept it (a raw or JPEG frame is kept as the PNG it was read into).
    const png = await pngOf(v.image, session.robots.find((r) => r.id === id)?.cameras[0]?.image ?? id);
    if (`sha256:${createHash("sha256").update(png).digest("hex")}.png` !== image) continue;
    writeFileSync(file.replace(/\.png$/, ".json"), JSON.stringify({ robot: id, image, detections: v.detections }));
    return;
  }
}

/** The method a run's options name (--graph, or --world) and its scenario, every choice checked. */
function methodAndScenario(flags: { graph?: string; world?: string; variant?: string; scenario?: string }): {
  m: Method;
  scenario: { name: string; instruction: string };
} {
  // The methods one episode runs (a campaign, the curriculum, went its own way before this).
  const episodic = METHODS.filter((m) => m.kind === "episode");
  if (flags.graph && !episodic.some((m) => m.graph === flags.graph))
    throw new Error(`--graph must be one of ${episodic.map((m) => m.graph).join(", ")}, not ${flags.graph}`);
  if (flags.world && !episodic.some((m) => m.world === flags.world))
    throw new Error(`--world must be one of ${episodic.map((m) => m.world).join(", ")}, not ${flags.world}`);
  const method: Method = flags.graph ? methodOfGraph(flags.graph)! : methodOfWorld(flags.world ?? "kitchen");
  if (flags.world && flags.world !== method.world)
    throw new Error(`--graph ${flags.graph} runs in the ${method.world} world, not ${flags.world}`);
  if (!method.variants.includes(flags.variant!))
    throw new Error(`--variant must be one of ${method.variants.join(", ")} for the ${method.world} world`);
  const worldSpec = world(method.world);
  // A scenario given as a file is the world's to read (the kitchen's are JSON).
  return { m: method, scenario: worldSpec.scenario(flags.scenario ?? worldSpec.defaultScenario ?? "") };
}

interface ApprovalRequest {
  action_request: { action: string; args: unknown };
  description: string;
}

/** A person's answer to a skill that waits for approval: --auto-approve, a parent process (--ask-via-stdio), or the terminal. */
async function askApproval(
  request: ApprovalRequest,
  flags: { "auto-approve"?: boolean; "ask-via-stdio"?: boolean },
  say: (s: string) => void,
): Promise<{ type: string; args?: unknown }> {
  let answer: { type: string; args?: unknown } = { type: "ignore" };
  if (flags["auto-approve"]) answer = { type: "accept" };
  else if (flags["ask-via-stdio"]) {
    // A parent process asks someone (robograph mcp: the MCP client) and answers on our stdin.
    process.stdout.write(
      `${APPROVAL_PREFIX}${JSON.stringify({ action: request.action_request.action, args: request.action_request.args, description: request.description })}\n`,
    );
    const line = await nextStdinLine();
    answer = line.trim() === "accept" ? { type: "accept" } : { type: "ignore" };
  } else if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const reply = (await rl.question(`${request.description} [y/N] `)).trim().toLowerCase();
    rl.close();
    answer = reply === "y" || reply === "yes" ? { type: "accept" } : { type: "ignore" };
  } else
    say(`approval needed for ${request.action_request.action} but no terminal to ask: declined (use --auto-approve)`);
  return answer;
}

/**
 * The world's own verdict, where it has one (a simulator's evaluator; a real robot has none): whether the goal holds,
 * and, for a method judged on behaviour, what undesirable happened. The world's event log is kept beside the record
 * (`robograph view` shows each motion's term residuals from it).
 */
async function worldCheck(
  bridgeUrl: string,
  runDir: string,
  method: Method,
  check: GoalCheckPlan,
): Promise<{ truth?: { success: boolean; goal: unknown }; undesirable?: string[]; unchecked?: string }> {
  let truth: { success: boolean; goal: unknown } | undefined;
  let undesirable: string[] | undefined;
  let unchecked = check.unchecked;
  try {
    const client = await BridgeClient.connect(bridgeUrl, { connectAttempts: 1 });
    // Asked the way the agent asks (a ROS 1 robot's answers are JSON text).
    await learnDialect(client, 5000).catch(() => {});
    if (!unchecked) {
      truth = await client
        .callService<{ success: boolean; goal: unknown }>("/evaluator/check", check.goal ? { goal: check.goal } : {}, {
          timeoutMs: 5000,
        })
        .catch((err: Error) => {
          // The world refused the literals (a name it does not have): said in the record, never taken for "not done".
          if (check.goal) unchecked = `the simulator could not check ${check.goal.join("; ")}: ${err.message}`;
          else throw err;
          return undefined;
        });
    }
    const { events } = await client.callService<{ events: { kind: string; object?: string }[] }>(
      "/evaluator/events",
      {},
      { timeoutMs: 5000 },
    );
    writeFileSync(join(runDir, "world-events.json"), JSON.stringify(events));
    // A method that is judged on behaviour has its task done well only if the rollout had nothing undesirable in it.
    if (method.cleanRollout) {
      undesirable = [
        ...new Set(
          events
            .filter((e) => (UNDESIRABLE_KINDS as string[]).includes(e.kind))
            .map((e) => `${e.kind}(${e.object ?? ""})`),
        ),
      ];
      if (truth) truth = { ...truth, success: truth.success && undesirable.length === 0 };
    }
    await client.close();
  } catch {
    // A real robot has no evaluator: the run's own status stands alone.
  }
  return { truth, undesirable, unchecked };
}

/** What the simulator is to check at a run's end: the scenario's goal, these literals, or nothing (and why). */
interface GoalCheckPlan {
  goal?: string[];
  unchecked?: string;
}

/**
 * A run is checked on its own goal: `--check`'s literals when given, the scenario's goal when the run's instruction
 * is the scenario's, and otherwise not at all — a sentence the simulator cannot read is not scored against another
 * task's literals. Kept beside the run (check.json), so a resumed run is checked as it began.
 */
function goalCheckPlan(
  flags: { goal?: string; check?: string; resume?: boolean },
  scenario: { name: string; instruction: string },
  runDir: string,
): GoalCheckPlan {
  const file = join(runDir, "check.json");
  if (flags.resume && existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as GoalCheckPlan;
  let plan: GoalCheckPlan = {};
  if (flags.check !== undefined) {
    const goal = flags.check
      .split(";")
      .map((l) => l.trim())
      .filter(Boolean);
    if (!goal.length)
      throw new Error('--check: give one or more goal literals, e.g. --check "in(apple, sink); closed(oven)"');
    for (const l of goal) parseLiteral(l);
    plan = { goal };
  } else if (flags.goal !== undefined && flags.goal.trim() !== scenario.instruction.trim()) {
    plan = {
      unchecked: `the run's goal is not scenario ${scenario.name}'s, and the simulator checks goal literals, not sentences: give --check "in(apple, sink); …" to have it checked`,
    };
  }
  writeFileSync(file, JSON.stringify(plan));
  return plan;
}

/**
 * How a run ended. It never ends `running`: an error that escaped the graph ends it `interrupted` when resuming can
 * continue it (stopped, or the robot unreachable mid-goal), `failed` otherwise.
 */
function endStatus(
  state: { status?: string; statusReason?: string } | undefined,
  crash: Error | undefined,
  thread: string,
): { status: string; statusReason: string } {
  let status: string = state?.status ?? "unknown";
  let statusReason = state?.statusReason ?? "";
  if (crash || status === "running" || status === "unknown") {
    const stop = stopReason();
    // A graph whose model nodes are not guarded (the behaviour critic's) lets an unavailable endpoint's error out.
    const resumable =
      !!stop ||
      crash?.name === "ModelUnavailableError" ||
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

/** The end's reason with what the method's final state adds (CLEA: the loops it broke). */
function explained(
  end: { status: string; statusReason: string },
  method: Method,
  state: unknown,
): { status: string; statusReason: string } {
  return state
    ? { ...end, statusReason: end.statusReason + (method.explain?.(state as Record<string, unknown>) ?? "") }
    : end;
}

/** The world's simulator as a child process of its own (its own process group: a Ctrl-C reaches the agent first). */
function startWorld(
  name: string,
  scenarioName: string,
  flags: { scenario?: string; speed?: string; seed?: string; "detector-noise"?: string; "grasp-sensing"?: string },
): Promise<SimProcess> {
  const detector = flags["detector-noise"]!;
  const worldArgs = world(name).options({ graspSensing: flags["grasp-sensing"] !== "off" });
  // A scenario given as a file goes to the simulator as that file (by absolute path), wherever it lives.
  const scenarioArg = flags.scenario?.endsWith(".json") ? resolve(flags.scenario) : scenarioName;
  return startSimProcess(
    name,
    [
      "--scenario",
      scenarioArg,
      "--speed",
      flags.speed!,
      "--seed",
      flags.seed!,
      "--miss-rate",
      detector,
      "--mislabel-rate",
      detector,
      ...worldArgs,
    ],
    undefined,
    { ownProcessGroup: true },
  );
}

/** What a finished run leaves: summary.json, report.md with its frames, and the closing lines on the terminal. */
function writeRecord(record: {
  thread: string;
  method: Method;
  scenario: string;
  variant: string;
  bridgeUrl?: string;
  backend: string;
  state: { usage?: Record<string, unknown>; counters?: { skillSeconds?: number } } | undefined;
  truth?: { success: boolean; goal: unknown };
  undesirable?: string[];
  /** Why the simulator did not check this run's goal. */
  unchecked?: string;
  status: string;
  statusReason: string;
  started: number;
  runDir: string;
  report: string[];
  frames: string[];
}): { verified: boolean; interrupted: boolean } {
  const { thread, state, truth, undesirable, unchecked, status, statusReason, runDir, report, frames } = record;
  const usage = totalUsage(state?.usage ?? {});
  const interrupted = status === "interrupted";
  const summary = {
    thread,
    method: record.method.id,
    scenario: record.scenario,
    variant: record.variant,
    model: record.backend,
    status,
    statusReason,
    ...(interrupted
      ? {
          resume: `npm start -- --thread ${thread} --resume${record.bridgeUrl ? ` --bridge-url ${record.bridgeUrl}` : ""}`,
        }
      : {}),
    // Unchecked on a simulator (another goal than the scenario's), success is unknown, never a false "not done".
    success: truth ? truth.success : unchecked ? null : status === "succeeded",
    ...record.method.summarize(state as Record<string, unknown> | undefined),
    modelCalls: usage.calls,
    // Every request sent, by outcome (ok, invalid, timeout, http_429, http_503, connection, …).
    modelCallOutcomes: usage.outcomes ?? {},
    tokens: { input: usage.inputTokens, output: usage.outputTokens, estimated: record.backend === "symbolic" },
    skillSeconds: Math.round((state?.counters?.skillSeconds ?? 0) * 100) / 100,
    wallSeconds: Math.round((Date.now() - record.started) / 100) / 10,
    goal: truth?.goal,
    ...(undesirable ? { undesirable } : {}),
  };
  // Where the simulator's check and the agent's own verdict disagree, the record says both and the check decides.
  const disagreement =
    truth && truth.success !== (summary.status === "succeeded")
      ? `the agent reports ${summary.status}, but the simulator's check says the goal is ${truth.success ? "met" : "not met"}`
      : undefined;
  Object.assign(summary, {
    agentStatus: summary.status,
    checked: !!truth,
    ...(unchecked ? { unchecked } : {}),
    ...(disagreement ? { disagreement } : {}),
  });
  writeFileSync(join(runDir, "summary.json"), JSON.stringify(summary, null, 2));
  report.push(
    "",
    `## Result: ${summary.status}${summary.success ? " (goal verified on the simulator)" : ""}`,
    "",
    summary.statusReason,
    "",
    ...(interrupted ? [`Continue it with \`${(summary as { resume?: string }).resume}\`.`, ""] : []),
    "```json",
    JSON.stringify(summary, null, 2),
    "```",
    "",
    "## Frames",
    "",
    ...frames,
  );
  writeFileSync(join(runDir, "report.md"), report.join("\n") + "\n");
  process.stdout.write(
    `\n${summary.success ? "SUCCESS" : interrupted ? "INTERRUPTED" : summary.success === null ? "UNCHECKED" : "NOT DONE"} — ${summary.status}: ${summary.statusReason}\n` +
      (disagreement ? `(${disagreement})\n` : "") +
      (unchecked ? `(not checked: ${unchecked})\n` : "") +
      `steps ${summary.steps}, replans ${summary.replans}, model calls ${summary.modelCalls}, tokens ${summary.tokens.input}+${summary.tokens.output}${summary.tokens.estimated ? " (o200k, counted offline)" : ""}, skill time ${summary.skillSeconds} s, wall ${summary.wallSeconds} s\n` +
      `run record: ${runDir}/report.md\n`,
  );
  // The exit code follows the check where there was one, the agent's own status where there was none.
  return { verified: truth ? truth.success : status === "succeeded", interrupted };
}

const RUN_OPTIONS = {
  graph: { type: "string" },
  world: { type: "string" },
  scenario: { type: "string" },
  goal: { type: "string" },
  check: { type: "string" },
  model: { type: "string" },
  variant: { type: "string", default: "full" },
  noise: { type: "string", default: "0" },
  seed: { type: "string", default: "0" },
  thread: { type: "string" },
  resume: { type: "boolean", default: false },
  "bridge-url": { type: "string" },
  manifest: { type: "string" },
  approve: { type: "string", default: "" },
  "auto-approve": { type: "boolean", default: false },
  "ask-via-stdio": { type: "boolean", default: false },
  speed: { type: "string", default: "max" },
  "detector-noise": { type: "string", default: "0" },
  "grasp-sensing": { type: "string", default: "on" },
  "data-dir": { type: "string" },
  "runs-dir": { type: "string", default: "runs" },
  quiet: { type: "boolean", default: false },
  forget: { type: "boolean", default: false },
  "history-window": { type: "string", default: "0" },
  pipeline: { type: "boolean", default: false },
  examples: { type: "string" },
  program: { type: "string" },
  grounding: { type: "string", default: "detector" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** What the CLI reads of any method's state (each descriptor reads the rest). */
type AnyState = {
  status?: string;
  statusReason?: string;
  counters?: { steps?: number; motions?: number; skills?: number; skillSeconds?: number };
  pendingGoal?: { goalId: string } | null;
  usage?: Record<string, unknown>;
};

/**
 * Where a resumed thread goes on: its last state, and what to send the graph — nothing (it carries on from its last
 * checkpoint) or, for a run that was interrupted mid-node, the node(s) to run again.
 */
async function resumePoint(
  graph: MethodGraph,
  config: RunnableConfig,
  thread: string,
  say: (s: string) => void,
): Promise<{ state: AnyState; input: unknown }> {
  const last = await graph.getState(config);
  const state = last.values as AnyState;
  say(
    `resuming thread ${thread} at step ${(state?.counters?.steps ?? 0) + (state?.counters?.motions ?? 0) + (state?.counters?.skills ?? 0)}${state?.pendingGoal ? ` (re-attaching to goal ${state.pendingGoal.goalId})` : ""}`,
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

export async function run(argv: string[]): Promise<number> {
  // Game On's curriculum is a run of its own kind: many episodes on several simulators, with learning in between.
  const graphAt = argv.indexOf("--graph");
  const named = graphAt >= 0 ? argv[graphAt + 1] : argv.find((a) => a.startsWith("--graph="))?.slice("--graph=".length);
  if (named && methodOfGraph(named)?.kind === "campaign") return (await import("./curriculum")).runCurriculum(argv);
  const { values: flags } = parseArgs({ args: argv, options: RUN_OPTIONS });
  if (flags.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (flags.resume && !flags.thread) throw new Error("--resume needs --thread ID");
  if (flags.model && flags.model !== "symbolic" && flags.model !== "openai")
    throw new Error(`--model must be symbolic or openai, not ${flags.model}`);
  const { m: method, scenario } = methodAndScenario(flags);
  const goal = flags.goal ?? scenario.instruction;
  const thread = flags.thread ?? `${scenario.name}-${randomUUID().slice(0, 8)}`;
  const dir = flags["data-dir"] ? resolve(flags["data-dir"]) : dataDir();
  const persistence = await openPersistence(dir, { forget: flags.forget });
  const { checkpointer, store } = persistence;
  // A thread killed before its first checkpoint, or a mistyped id, has nothing to resume: say so before starting anything.
  if (flags.resume && !(await checkpointer.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } }))) {
    await persistence.close();
    throw new Error(
      `thread ${thread} has nothing to resume: no checkpoint for it in ${persistence.where} (killed before its first step, or a mistyped id); run it again without --resume`,
    );
  }
  const runDir = resolve(flags["runs-dir"]!, thread);
  mkdirSync(join(runDir, "frames"), { recursive: true });
  const check = goalCheckPlan(flags, scenario, runDir);
  const say = (s: string) => !flags.quiet && process.stdout.write(`${s}\n`);
  const sim = flags["bridge-url"] ? undefined : await startWorld(method.world, scenario.name, flags);
  const bridgeUrl = flags["bridge-url"] ?? sim!.url;
  // Only VLM-PC has the variant with labelled examples.
  const examples =
    flags.variant === "full+ic"
      ? flags.examples
        ? resolve(flags.examples)
        : courseExamplesPath(scenario.name)
      : undefined;
  const graph = method.compile(checkpointer, store);
  // The command line's method settings, each passed to the methods whose configuration has it.
  const own = Object.fromEntries(
    Object.entries({
      historyWindow: Number(flags["history-window"]),
      examples,
      grounding: flags.grounding,
      ...(flags.pipeline ? { pipeline: true } : {}),
    }).filter(([k]) => k in method.configuration.shape),
  );
  if (flags.pipeline && !("pipeline" in method.configuration.shape))
    throw new Error(
      `--pipeline: the ${method.graph} graph does not speculate; ${METHODS.filter(
        (x) => "pipeline" in x.configuration.shape,
      )
        .map((x) => x.graph)
        .join(" and ")} do`,
    );
  // The run's settings, parsed once with the environment's: the graph gets them, and the run, as its context.
  const run = openRun(method.runtime, {
    bridgeUrl,
    manifest: flags.manifest ? resolve(flags.manifest) : undefined,
    variant: flags.variant,
    backend: flags.model,
    seed: flags.seed,
    noise: flags.noise,
    approve: flags.approve,
    dataDir: dir,
    ...own,
  });
  const mc = run.modelConfig;
  say(
    `robograph: ${mc.backend === "symbolic" ? "symbolic reasoner (offline, no API key needed)" : `openai-compatible models ${[...new Set(Object.values(mc.models))].join(", ")} at ${mc.baseURL ?? "api.openai.com"}`}; variant ${run.settings.variant}${(run.settings as { pipeline?: boolean }).pipeline ? ", pipelined" : ""}; thread ${thread}`,
  );
  if (sim) say(`${method.world} simulator (scenario ${scenario.name}) at ${bridgeUrl}`);
  const config = {
    configurable: { thread_id: thread },
    context: run.context,
    recursionLimit: 1000,
    durability: "sync" as const,
  };
  const session = await run.session();
  const events = join(runDir, "events.jsonl");
  // A skill's feedback as it runs: every message in feedback.jsonl, a line on the terminal at most once a second.
  const feedbackFile = join(runDir, "feedback.jsonl");
  const lastSaid = new Map<string, number>();
  const onFeedback = (chunk: unknown) => {
    const feedback = (chunk as Partial<SkillFeedbackChunk>)?.feedback;
    if (!feedback) return;
    appendFileSync(feedbackFile, `${JSON.stringify({ t: Date.now() - started, ...feedback })}\n`);
    const now = Date.now();
    if (now - (lastSaid.get(feedback.goalId) ?? 0) < 1000) return;
    lastSaid.set(feedback.goalId, now);
    say(`      ${feedback.robot}/${feedback.skill}: ${JSON.stringify(feedback.values).slice(0, 160)}`);
  };
  const report: string[] = [
    `# Run ${thread}`,
    "",
    `- goal: ${goal}`,
    `- method: ${method.title} (${method.paper})`,
    `- scenario: ${scenario.name}`,
    `- variant: ${flags.variant}${flags.pipeline ? " (pipelined)" : ""}`,
    `- model: ${mc.backend}${mc.backend === "symbolic" ? ` (noise ${flags.noise}, seed ${flags.seed})` : ""}`,
    "",
    "| # | node | what |",
    "|---|---|---|",
  ];
  const frames: string[] = [];
  /** Detections written beside the frames they go with (a frame is read into its PNG first). */
  const kept: Promise<void>[] = [];
  const started = Date.now();
  let stepCount = 0;
  const program = flags.program ? JSON.parse(readFileSync(resolve(flags.program), "utf8")) : undefined;
  let input: unknown = flags.resume ? null : method.input(goal, { program });
  let state: AnyState | undefined;
  if (flags.resume) ({ state, input } = await resumePoint(graph, config, thread, say));
  // Emergency stop: the first SIGINT/SIGTERM cancels the robot's goal in flight and lets the run end `interrupted`
  // (a second one ends the process at once).
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(`\n${sig}: emergency stop — canceling the robot's goal in flight (again to quit at once)\n`);
    emergencyStop(`${sig} to the agent`);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let verified: boolean;
  let interrupted: boolean;
  let crash: Error | undefined;
  try {
    for (;;) {
      await follow<AnyState>(
        graph,
        input,
        config,
        {
          state: (x) => (state = x),
          custom: onFeedback,
          update: (node, update, before) => {
            const line = method.describe(node, update, before);
            stepCount++;
            say(`[${String(stepCount).padStart(3)}] ${node.padEnd(11)} ${line.text}`);
            appendFileSync(events, `${JSON.stringify({ t: Date.now() - started, node, update })}\n`);
            report.push(`| ${stepCount} | ${node} | ${line.text.replace(/\|/g, "\\|")} |`);
            for (const section of method.framesOf?.(node, update, stepCount, line.text, session.artifacts) ?? []) {
              for (const f of section.frames) {
                copyFileSync(session.artifacts.path(f.image), join(runDir, f.file));
                if (f.detectionsOf)
                  kept.push(
                    keepDetections(
                      session,
                      f.image,
                      join(runDir, f.file),
                      f.detectionsOf === true ? undefined : f.detectionsOf,
                    ),
                  );
              }
              frames.push(section.markdown);
            }
          },
        },
        state,
      );
      const snapshot = await graph.getState(config);
      const pending = snapshot.tasks.flatMap((t) => t.interrupts ?? []);
      if (!pending.length) break;
      const request = (pending[0].value as ApprovalRequest[])[0];
      const answer = await askApproval(request, flags, say);
      say(`approval of ${request.action_request.action}: ${answer.type}`);
      input = new Command({ resume: [answer] });
    }
  } catch (err) {
    crash = err as Error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await Promise.allSettled(kept);
    const { truth, undesirable, unchecked } = await worldCheck(bridgeUrl!, runDir, method, check);
    ({ verified, interrupted } = writeRecord({
      thread,
      method,
      scenario: scenario.name,
      variant: flags.variant!,
      bridgeUrl: flags["bridge-url"],
      backend: mc.backend,
      state,
      truth,
      undesirable,
      unchecked,
      ...explained(endStatus(state, crash, thread), method, state),
      started,
      runDir,
      report,
      frames,
    }));
    await run.close();
    await persistence.close();
    await sim?.stop();
  }
  if (crash && !interrupted) throw crash;
  // The exit code follows the simulator's check where there is one, the agent's own status where there is not; an
  // interrupted run says so (3), for a script that resumes it.
  return verified ? 0 : interrupted ? 3 : 2;
}
