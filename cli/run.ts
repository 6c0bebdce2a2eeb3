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
import { frameAgeLine, type Session } from "../runtime/session";
import { pngOf } from "../robots/msgs/images";
import { METHODS, methodOfGraph, methodOfWorld, type Method } from "../graphs";
import { dataDir, openPersistence } from "../memory/checkpointer";
import { totalUsage } from "../models";
import { parseLiteral } from "../robots/manifests";
import { emergencyStop } from "../runtime/estop";
import { runEpisode, type ApprovalRequest, type GoalCheck } from "../runtime/episode";
import type { SkillFeedbackChunk } from "../nodes/executor";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { world } from "../robots/sim/worlds";
import { ownSettingValues } from "../runtime/settings";
import { helpLine, settingFlagHelp, settingFlagOptions, settingsFromFlags } from "./settingFlags";

/** The methods one run of `robograph run` is an episode of (a campaign, the curriculum, has its own options). */
const EPISODIC = METHODS.filter((m) => !m.campaign);

export const RUN_HELP = `usage: robograph run [options]      (npm start -- [options])

Runs one episode of a method's graph until the task is done or a budget ends it. Without --bridge-url it starts
the method's world as a simulator child process.

options:
  --graph G            ${METHODS.map((m, i) => `${m.graph} (${m.title}, ${m.world} world${i === 0 ? "; default" : ""}${m.campaign ? `; see --graph ${m.graph} --help` : ""})`).join(" |\n                       ")}
  --world W            the same choice by world: ${EPISODIC.map((m) => m.world).join(" | ")}
  --scenario NAME      the world's scenario (a kitchen scenario may also be a JSON file):
                       ${EPISODIC.map((m) => world(m.world))
                         .map(
                           (worldSpec) =>
                             `${worldSpec.name} (default ${worldSpec.defaultScenario}): ${worldSpec.scenarios().join(", ")}${worldSpec.name === "course" ? ", or generated_<seed>" : ""}`,
                         )
                         .join("\n                       ")}
  --goal TEXT          the instruction (default: the scenario's; needed on a robot of your own, whose manifest file
                       describes another world: its run is named after that world and the goal)
  --check LITERALS     what the simulator checks at the end, as goal literals ("in(apple, sink); closed(oven)");
                       default the scenario's goal. A run given another --goal without --check is not checked:
                       its record says checked false, success null, and why
  --model B            symbolic | openai (default: openai when OPENAI_API_KEY is set, else symbolic)
  --variant V          ${EPISODIC.map(
    (m, i) => `${i === 2 ? "\n                       " : ""}${m.graph}: ${m.variants.join(" | ")}`,
  )
    .join("; ")
    .replace(/; \n/, ";\n")} (default full)
${settingFlagHelp(EPISODIC, (m) => m.graph)}
${EPISODIC.filter((m) => m.startsFrom)
  .map((m) => helpLine("--program FILE", `${m.graph}: ${m.startsFrom} (JSON)`))
  .join("\n")}
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

exit code: 0 done (the simulator confirms it; unchecked, the agent says so), 1 refused before it ran (an option, a
file or a robot it cannot use: the message says why), 2 not done, 3 interrupted (resume with --thread ID --resume)
SIGINT/SIGTERM: emergency stop — the robot's goal in flight is canceled and the run ends interrupted
  ROBOGRAPH_MODEL_BACKEND              force symbolic or openai
  ROBOGRAPH_DATA_DIR                   as --data-dir
  ROBOGRAPH_BRIDGE_TOKEN               token for a bridge that requires one
  ROBOGRAPH_ROS_SECRET(_FILE)          rosauth's secret (or a file whose first line it is) for a rosbridge run with
                                       authenticate:=true
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
  if (flags.graph && !EPISODIC.some((m) => m.graph === flags.graph))
    throw new Error(`--graph must be one of ${EPISODIC.map((m) => m.graph).join(", ")}, not ${flags.graph}`);
  if (flags.world && !EPISODIC.some((m) => m.world === flags.world))
    throw new Error(`--world must be one of ${EPISODIC.map((m) => m.world).join(", ")}, not ${flags.world}`);
  const method: Method = flags.graph ? methodOfGraph(flags.graph)! : methodOfWorld(flags.world ?? "kitchen");
  if (flags.world && flags.world !== method.world)
    throw new Error(`--graph ${flags.graph} runs in the ${method.world} world, not ${flags.world}`);
  if (!method.variants.includes(flags.variant!))
    throw new Error(`--variant must be one of ${method.variants.join(", ")} for the ${method.world} world`);
  const worldSpec = world(method.world);
  // A scenario given as a file is the world's to read (the kitchen's are JSON).
  return { m: method, scenario: worldSpec.scenario(flags.scenario ?? worldSpec.defaultScenario ?? "") };
}

/** A person's answer to a skill that waits for approval: --auto-approve, or the terminal. */
async function askApproval(
  request: ApprovalRequest,
  flags: { "auto-approve"?: boolean },
  say: (line: string) => void,
): Promise<boolean> {
  if (flags["auto-approve"]) return true;
  if (process.stdin.isTTY) {
    const terminal = createInterface({ input: process.stdin, output: process.stdout });
    const reply = (await terminal.question(`${request.description} [y/N] `)).trim().toLowerCase();
    terminal.close();
    return reply === "y" || reply === "yes";
  }
  say(`approval needed for ${request.action_request.action} but no terminal to ask: declined (use --auto-approve)`);
  return false;
}

/**
 * A run is checked on its own goal: `--check`'s literals when given, the scenario's goal when the run's instruction
 * is the scenario's, and otherwise not at all — a sentence the simulator cannot read is not scored against another
 * task's literals; a robot of the user's own, on `--check`'s literals alone. Kept beside the run (check.json), so a
 * resumed run is checked as it began.
 */
function goalCheckPlan(
  flags: { goal?: string; check?: string; resume?: boolean },
  /** Undefined: a robot of the user's own, with no scenario to check against. */
  scenario: { name: string; instruction: string } | undefined,
  runDir: string,
): GoalCheck {
  const file = join(runDir, "check.json");
  if (flags.resume && existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as GoalCheck;
  let plan: GoalCheck = {};
  if (flags.check !== undefined) {
    const goal = flags.check
      .split(";")
      .map((l) => l.trim())
      .filter(Boolean);
    if (!goal.length)
      throw new Error('--check: give one or more goal literals, e.g. --check "in(apple, sink); closed(oven)"');
    for (const l of goal) parseLiteral(l);
    plan = { goal };
  } else if (!scenario) {
    plan = {
      unchecked:
        "a robot of your own has no scenario to check against: the status is the agent's own; give --check literals where its bridge serves /evaluator/check",
    };
  } else if (flags.goal !== undefined && flags.goal.trim() !== scenario.instruction.trim()) {
    plan = {
      unchecked: `the run's goal is not scenario ${scenario.name}'s, and the simulator checks goal literals, not sentences: give --check "in(apple, sink); …" to have it checked`,
    };
  }
  writeFileSync(file, JSON.stringify(plan));
  return plan;
}

/**
 * A robot of the user's own: one whose manifest file describes another world than the method's simulator (or none).
 * It has no scenario to take a task or a check from, so --goal is needed; a method plans over a world's places, labels
 * and navigation points, so a file with no world block is refused naming what to add. Undefined: the method's world.
 */
function robotOfItsOwn(
  file: string,
  method: Method,
  flags: { goal?: string; scenario?: string; resume?: boolean },
): { name: string; instruction: string; threadName: string } | undefined {
  let parsed: { world?: { name?: unknown } };
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as typeof parsed;
  } catch {
    // The manifest loader says what is wrong with the file, when the run opens it.
    return undefined;
  }
  const name = typeof parsed?.world?.name === "string" ? parsed.world.name : undefined;
  if (name === method.world) return undefined;
  if (!name)
    throw new Error(
      `${file} has no "world" block: the ${method.graph} graph plans over its world's places, labels and navigation points. Add one beside "robots", e.g. "world": { "name": "lab", "places": [{ "name": "table", "kind": "surface", "openable": false }], "labels": ["cup"], "navigationPoints": ["by_the_table"] } (docs/manifests.md, "The world block")`,
    );
  if (flags.scenario !== undefined)
    throw new Error(
      `--scenario: the robot of ${file} (world ${name}) is not a ${method.world} simulator; it has no scenarios`,
    );
  // A resumed run goes on with the goal it began with.
  if (!flags.goal?.trim() && !flags.resume)
    throw new Error(
      `--goal: the robot of ${file} (world ${name}) has no scenario to take a task from; say what it should do with --goal "…"`,
    );
  const words = flags.goal?.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return { name, instruction: flags.goal ?? "", threadName: [name, ...words.slice(0, 5)].join("-").slice(0, 60) };
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
  /** The simulator's scenario; none on a robot of the user's own. */
  scenario: string | undefined;
  world: string;
  variant: string;
  bridgeUrl?: string;
  manifest?: string;
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
}): { verified: boolean; interrupted: boolean; summary: Record<string, unknown>; closing: string } {
  const { thread, state, truth, undesirable, unchecked, status, statusReason, runDir, report, frames } = record;
  const usage = totalUsage(state?.usage ?? {});
  const interrupted = status === "interrupted";
  const summary = {
    thread,
    method: record.method.id,
    ...(record.scenario ? { scenario: record.scenario } : {}),
    world: record.world,
    variant: record.variant,
    model: record.backend,
    status,
    statusReason,
    ...(interrupted
      ? {
          resume: `npm start -- --thread ${thread} --resume${record.bridgeUrl ? ` --bridge-url ${record.bridgeUrl}` : ""}${record.manifest ? ` --manifest ${record.manifest}` : ""}`,
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
  const closing =
    `\n${summary.success ? "SUCCESS" : interrupted ? "INTERRUPTED" : summary.success === null ? "UNCHECKED" : "NOT DONE"} — ${summary.status}: ${summary.statusReason}\n` +
    (disagreement ? `(${disagreement})\n` : "") +
    (unchecked ? `(not checked: ${unchecked})\n` : "") +
    `steps ${summary.steps}, replans ${summary.replans}, model calls ${summary.modelCalls}, tokens ${summary.tokens.input}+${summary.tokens.output}${summary.tokens.estimated ? " (o200k, counted offline)" : ""}, skill time ${summary.skillSeconds} s, wall ${summary.wallSeconds} s\n` +
    `run record: ${runDir}/report.md\n`;
  // The exit code follows the check where there was one, the agent's own status where there was none.
  return { verified: truth ? truth.success : status === "succeeded", interrupted, summary, closing };
}

const COMMON_OPTIONS = {
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
  speed: { type: "string", default: "max" },
  "detector-noise": { type: "string", default: "0" },
  "grasp-sensing": { type: "string", default: "on" },
  "data-dir": { type: "string" },
  "runs-dir": { type: "string", default: "runs" },
  quiet: { type: "boolean", default: false },
  forget: { type: "boolean", default: false },
  program: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The command line: the options every run has, and the methods' own settings (cli/settingFlags.ts). */
const RUN_OPTIONS = { ...COMMON_OPTIONS, ...settingFlagOptions(EPISODIC) };

/** What the CLI reads of any method's state (each descriptor reads the rest). */
type AnyState = {
  status?: string;
  statusReason?: string;
  counters?: { steps?: number; motions?: number; skills?: number; skillSeconds?: number };
  pendingGoal?: { goalId: string } | null;
  usage?: Record<string, unknown>;
};

/** A run's options as the command line gives them (`--help` says what each means). */
export type RunFlags = ReturnType<typeof parseArgs<{ options: typeof COMMON_OPTIONS }>>["values"] &
  Record<string, string | boolean | undefined>;

/** Every option at its default (what a caller in this process starts from, as the command line would). */
export const defaultRunFlags = (): RunFlags => parseArgs({ args: [], options: RUN_OPTIONS }).values as RunFlags;

/** Where a run's words go and who answers it: the terminal, or an MCP client (cli/mcp.ts). */
export interface RunIo {
  /** A line of the run as it goes (a node's update, a skill's feedback). */
  say(line: string): void;
  /** A person's answer to a skill that waits for approval. */
  approve(request: ApprovalRequest): Promise<boolean>;
  /** Stops this run as an emergency stop does (the goal in flight canceled; the run ends interrupted). */
  signal?: AbortSignal;
}

export interface TaskResult {
  /** 0 done (the simulator confirms it), 2 not done, 3 interrupted. */
  code: number;
  thread: string;
  runDir: string;
  /** What summary.json holds. */
  summary: Record<string, unknown>;
  /** The closing lines (the status, the effort, where the record is). */
  closing: string;
}

export async function run(argv: string[]): Promise<number> {
  // Game On's curriculum is a run of its own kind: many episodes on several simulators, with learning in between.
  const graphAt = argv.indexOf("--graph");
  const named = graphAt >= 0 ? argv[graphAt + 1] : argv.find((a) => a.startsWith("--graph="))?.slice("--graph=".length);
  const campaignOf = named ? methodOfGraph(named) : undefined;
  if (campaignOf?.campaign) return (await import("./campaign")).runCampaign(campaignOf, campaignOf.campaign, argv);
  const flags = parseArgs({ args: argv, options: RUN_OPTIONS }).values as RunFlags;
  if (flags.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  const say = (line: string) => !flags.quiet && process.stdout.write(`${line}\n`);
  // Emergency stop: the first SIGINT/SIGTERM cancels the robot's goal in flight and lets the run end `interrupted`
  // (a second one ends the process at once).
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(
      `\n${signal}: emergency stop — canceling the robot's goal in flight (again to quit at once)\n`,
    );
    emergencyStop(`${signal} to the agent`);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const result = await runTask(flags, { say, approve: (request) => askApproval(request, flags, say) });
    process.stdout.write(result.closing);
    return result.code;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * One task of a method, end to end, as `robograph run` does it: the robot or a simulator of its own, the episode
 * (runtime/episode.ts), and its record in runs/<thread>/. The command line and MCP's method tools both run it here.
 */
export async function runTask(flags: RunFlags, io: RunIo): Promise<TaskResult> {
  if (flags.resume && !flags.thread) throw new Error("--resume needs --thread ID");
  if (flags.model && flags.model !== "symbolic" && flags.model !== "openai")
    throw new Error(`--model must be symbolic or openai, not ${flags.model}`);
  const { m: method, scenario: worldScenario } = methodAndScenario(flags);
  // A robot of the user's own (a manifest file of another world than the method's simulator) has no scenario: its task
  // is --goal, and its run is named after its world and goal.
  const ownRobot = flags.manifest ? robotOfItsOwn(resolve(flags.manifest), method, flags) : undefined;
  const scenario = ownRobot ?? worldScenario;
  const goal = flags.goal ?? scenario.instruction;
  // The method's own settings as the command line gives them, over what its scenario decides (VLM-PC's examples).
  const own = {
    ...(ownRobot ? {} : method.scenarioSettings?.of(scenario.name, flags.variant!)),
    ...settingsFromFlags(method, flags, EPISODIC, (m) => m.graph),
  };
  // A value its configuration refuses is refused here, before a simulator starts.
  ownSettingValues(method.configuration, own);
  // The settings the run was given beyond its method's defaults, said where its variant is.
  const settingsSaid = Object.entries(own)
    .map(([key, value]) => (value === true ? key : `${key} ${JSON.stringify(value)}`))
    .join(", ");
  if (flags.program && !method.startsFrom)
    throw new Error(`--program: the ${method.graph} graph starts from its goal alone`);
  const thread = flags.thread ?? `${ownRobot ? ownRobot.threadName : scenario.name}-${randomUUID().slice(0, 8)}`;
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
  const check = goalCheckPlan(flags, ownRobot ? undefined : scenario, runDir);
  const say = io.say;
  const sim = flags["bridge-url"] ? undefined : await startWorld(method.world, scenario.name, flags);
  const bridgeUrl = flags["bridge-url"] ?? sim!.url;
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
  const report: string[] = [];
  const reportHeader = (backend: string) => [
    `# Run ${thread}`,
    "",
    `- goal: ${goal}`,
    `- method: ${method.title} (${method.paper})`,
    ownRobot ? `- robot: world ${scenario.name} (${flags.manifest})` : `- scenario: ${scenario.name}`,
    `- variant: ${flags.variant}${settingsSaid ? ` (${settingsSaid})` : ""}`,
    `- model: ${backend}${backend === "symbolic" ? ` (noise ${flags.noise}, seed ${flags.seed})` : ""}`,
    "",
    "| # | node | what |",
    "|---|---|---|",
  ];
  const frames: string[] = [];
  /** Detections written beside the frames they go with (a frame is read into its PNG first). */
  const kept: Promise<void>[] = [];
  const started = Date.now();
  let stepCount = 0;
  let session: Session | undefined;
  let outcome;
  try {
    outcome = await runEpisode<AnyState>({
      method,
      // The run's settings, parsed once with the environment's: the graph gets them, and the run, as its context.
      settings: {
        bridgeUrl,
        manifest: flags.manifest ? resolve(flags.manifest) : undefined,
        variant: flags.variant,
        backend: flags.model,
        seed: flags.seed,
        noise: flags.noise,
        approve: flags.approve,
        dataDir: dir,
        ...own,
      },
      goal,
      program: flags.program ? JSON.parse(readFileSync(resolve(flags.program), "utf8")) : undefined,
      thread,
      checkpointer,
      store,
      resume: flags.resume,
      check,
      eventsFile: events,
      say,
      approve: io.approve,
      signal: io.signal,
      onFeedback,
      onStart: async (run) => {
        const models = run.modelConfig;
        say(
          `robograph: ${models.backend === "symbolic" ? "symbolic reasoner (offline, no API key needed)" : `openai-compatible models ${[...new Set(Object.values(models.models))].join(", ")} at ${models.baseURL ?? "api.openai.com"}`}; variant ${run.settings.variant}${settingsSaid ? `, ${settingsSaid}` : ""}; thread ${thread}`,
        );
        if (sim) say(`${method.world} simulator (scenario ${scenario.name}) at ${bridgeUrl}`);
        session = await run.session();
        report.push(...reportHeader(models.backend));
      },
      onUpdate: (node, update, before) => {
        const line = method.describe(node, update, before);
        stepCount++;
        say(`[${String(stepCount).padStart(3)}] ${node.padEnd(11)} ${line.text}`);
        report.push(`| ${stepCount} | ${node} | ${line.text.replace(/\|/g, "\\|")} |`);
        for (const section of method.framesOf?.(node, update, stepCount, line.text, session!.artifacts) ?? []) {
          for (const frame of section.frames) {
            copyFileSync(session!.artifacts.path(frame.image), join(runDir, frame.file));
            if (frame.detectionsOf)
              kept.push(
                keepDetections(
                  session!,
                  frame.image,
                  join(runDir, frame.file),
                  frame.detectionsOf === true ? undefined : frame.detectionsOf,
                ),
              );
          }
          // Each frame with its age when kept, or its camera's state (its robot lost, its topic quiet).
          const robot = section.frames[0]?.detectionsOf;
          frames.push(section.markdown + frameAgeLine(session!, typeof robot === "string" ? robot : undefined));
        }
      },
    });
    await Promise.allSettled(kept);
    // The world's event log beside the record (`robograph view` shows each motion's term residuals from it).
    if (outcome.events) writeFileSync(join(runDir, "world-events.json"), JSON.stringify(outcome.events));
  } finally {
    await persistence.close();
    await sim?.stop();
  }
  // A run that ended before its first step still has a record that says what it was.
  if (!report.length) report.push(...reportHeader(outcome.backend));
  const { verified, interrupted, summary, closing } = writeRecord({
    thread,
    method,
    scenario: ownRobot ? undefined : scenario.name,
    world: ownRobot ? scenario.name : method.world,
    variant: flags.variant!,
    bridgeUrl: flags["bridge-url"],
    manifest: flags.manifest ? resolve(flags.manifest) : undefined,
    backend: outcome.backend,
    state: outcome.state,
    truth: outcome.truth,
    undesirable: outcome.undesirable,
    unchecked: outcome.unchecked,
    status: outcome.status,
    statusReason: outcome.statusReason,
    started,
    runDir,
    report,
    frames,
  });
  if (outcome.crash && !interrupted) throw outcome.crash;
  // The exit code follows the simulator's check where there is one, the agent's own status where there is not; an
  // interrupted run says so (3), for a script that resumes it.
  return { code: verified ? 0 : interrupted ? 3 : 2, thread, runDir, summary, closing };
}
