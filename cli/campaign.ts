/**
 * `robograph run --graph G` for a campaign (Game On's curriculum): starts its world's simulators as child processes
 * (one episode store under the run's record), runs its graph with a SQLite checkpointer and a progress bar until a
 * budget ends it, and leaves runs/<thread>/ — what is the method's own (its budgets, its simulators' arguments, its
 * progress and record) it declares in its descriptor (graphs/<id>/campaign.ts); its settings' flags come from its
 * configuration, as `robograph run`'s do.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { Command } from "@langchain/langgraph";
import type { Campaign, Method } from "../graphs";
import { follow } from "../runtime/follow";
import { openRun, type Run } from "../runtime/run";
import { dataDir, openPersistence } from "../memory/checkpointer";
import { emergencyStop, resumeHint, stoppedBy } from "../runtime/estop";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { world } from "../robots/sim/worlds";
import { helpLine, settingFlagHelp, settingFlagOptions, settingsFromFlags } from "./settingFlags";

/** Its settings the command line does not give by their own names: its budgets' and the simulators' URLs. */
export const campaignSettings = (campaign: Campaign) => [
  campaign.instancesSetting,
  ...campaign.budgets.map((b) => b.setting),
];

/** Simulators a campaign runs in parallel unless told (`--instances`, MCP's `instances`). */
export const DEFAULT_INSTANCES = 2;

/** What `--instances` (MCP: `instances`) says of a campaign of this world. */
export const instancesHelp = (method: Method) =>
  `${method.world} simulators run in parallel, each a process (default ${DEFAULT_INSTANCES})`;

export function campaignHelp(method: Method, campaign: Campaign): string {
  const starts = world(method.world).starts;
  const at = 26;
  const options = [
    ...campaign.budgets.map((b) => helpLine(`--${b.flag} N`, `${b.help} (default ${b.default})`, at)),
    helpLine("--instances N", instancesHelp(method), at),
    ...(starts
      ? [helpLine("--start S", `how every layout starts: ${starts.join(", ")} (default ${starts[0]})`, at)]
      : []),
    settingFlagHelp([method], () => method.graph, campaignSettings(campaign), at),
    helpLine("--variant V", `${method.variants.join(" | ")} (default ${method.variants[0]})`, at),
    helpLine("--model B", "symbolic | openai (default: openai when OPENAI_API_KEY is set, else symbolic)", at),
    helpLine("--noise P  --seed N", "symbolic reasoner's noise level and the seed of everything (default 0, 0)", at),
    helpLine(
      "--thread ID [--resume]",
      "thread id; --resume continues it from its last checkpoint (its simulators are started anew on the same episode store)",
      at,
    ),
    helpLine("--data-dir DIR", "checkpoints and artifacts (default ./data)", at),
    helpLine("--runs-dir DIR", "run records (default ./runs)", at),
    helpLine("--quiet", "only the summary", at),
  ];
  return `usage: robograph run --graph ${method.graph} [options]      (npm start -- --graph ${method.graph} [options])

${campaign.about} Leaves runs/<thread>/.

options:
${options.join("\n")}
`;
}

/** A progress line: rewritten in place on a terminal, printed as a line per change when piped. */
function progressBar(total: number, unit: string) {
  let lastText = "";
  return (done: number, text: string, final = false) => {
    const width = 24;
    const filled = Math.min(width, Math.round((width * done) / Math.max(1, total)));
    const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${unit} · ${text}`;
    if (process.stdout.isTTY) process.stdout.write(`\r${line}\x1b[K${final ? "\n" : ""}`);
    else if (line !== lastText) process.stdout.write(`${line}\n`);
    lastText = line;
  };
}

const int = (name: string, x: string | undefined, min: number) => {
  const value = Number(x);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min}, not ${x}`);
  return value;
};

/** The options a campaign's command takes: its budgets, its simulators, its own settings, the run's. */
function campaignOptions(method: Method, campaign: Campaign): NonNullable<ParseArgsConfig["options"]> {
  const starts = world(method.world).starts;
  return {
    graph: { type: "string" },
    ...Object.fromEntries(campaign.budgets.map((b) => [b.flag, { type: "string", default: String(b.default) }])),
    instances: { type: "string", default: String(DEFAULT_INSTANCES) },
    ...(starts ? { start: { type: "string", default: starts[0] } } : {}),
    ...settingFlagOptions([method], campaignSettings(campaign)),
    variant: { type: "string", default: method.variants[0] },
    model: { type: "string" },
    noise: { type: "string", default: "0" },
    seed: { type: "string", default: "0" },
    thread: { type: "string" },
    resume: { type: "boolean", default: false },
    "data-dir": { type: "string" },
    "runs-dir": { type: "string", default: "runs" },
    quiet: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  };
}

/** A campaign's options as its command line would give them, defaults filled in (MCP's tool arguments, too). */
export type CampaignFlags = Record<string, string | boolean | undefined>;

function campaignFlags(method: Method, campaign: Campaign, given: CampaignFlags): CampaignFlags {
  const options = campaignOptions(method, campaign);
  const unknown = Object.keys(given).filter((key) => !(key in options));
  if (unknown.length) throw new Error(`${method.graph} takes no ${unknown.map((key) => `--${key}`).join(", ")}`);
  const defaults: CampaignFlags = {};
  for (const [key, option] of Object.entries(options))
    if (typeof option.default === "string" || typeof option.default === "boolean") defaults[key] = option.default;
  return { ...defaults, ...given };
}

/** What a campaign run leaves: its exit code (0 achieved, 2 not, 3 interrupted), thread, record and summary. */
export interface CampaignResult {
  code: number;
  thread: string;
  runDir: string;
  /** Its report.json (what the record says of the run), if it got as far as writing one. */
  summary?: Record<string, unknown>;
  /** The closing lines: the status, the effort, where the record is (empty if it ended before its first step). */
  closing: string;
  /** What ended it before its end, if something went wrong (its record, if any, is written first). */
  error?: Error;
}

export interface CampaignIO {
  /** A line of what the run did (a node's line, the run's start). */
  say(line: string): void;
  /** How far it is: `done` of `total` counted units, and the words beside it. */
  progress?(done: number, total: number, unit: string, text: string, final?: boolean): void;
  /** This run's own emergency stop (MCP's emergency_stop, a canceled call): it ends interrupted and resumable. */
  signal?: AbortSignal;
}

/** `robograph run --graph G` for a campaign: the command line's flags, a progress bar, SIGINT as the emergency stop. */
export async function runCampaign(method: Method, campaign: Campaign, argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({ args: argv, options: campaignOptions(method, campaign) }) as {
    values: CampaignFlags;
  };
  if (flags.help) {
    process.stdout.write(campaignHelp(method, campaign));
    return 0;
  }
  const quiet = flags.quiet === true;
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(
      `\n${sig}: emergency stop — the run ends interrupted after the step in flight (again to quit at once)\n`,
    );
    emergencyStop(`${sig} to the agent`);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let bar: ReturnType<typeof progressBar> | undefined;
  try {
    const result = await runCampaignTask(method, campaign, flags, {
      say: (line) => !quiet && process.stdout.write(`${process.stdout.isTTY ? "\r\x1b[K" : ""}${line}\n`),
      progress: (done, total, unit, words, final) => {
        if (quiet) return;
        bar ??= progressBar(total, unit);
        bar(done, words, final);
      },
    });
    if (result.closing) process.stdout.write(`\n${result.closing}`);
    if (result.error) throw result.error;
    return result.code;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * One campaign run in this process, whoever asks for it (the command line, MCP): its simulators started as child
 * processes, its graph run with a SQLite checkpointer until a budget or a stop ends it, its record written.
 */
export async function runCampaignTask(
  method: Method,
  campaign: Campaign,
  given: CampaignFlags,
  io: CampaignIO,
): Promise<CampaignResult> {
  const starts = world(method.world).starts;
  const flags = campaignFlags(method, campaign, given);
  const text = (name: string) => flags[name] as string | undefined;
  const instances = int("instances", text("instances"), 1);
  const budgets = Object.fromEntries(campaign.budgets.map((b) => [b.setting, int(b.flag, text(b.flag), 1)]));
  if (!(method.variants as readonly string[]).includes(text("variant")!))
    throw new Error(`--variant must be one of ${method.variants.join(", ")}`);
  const model = text("model");
  if (model && model !== "symbolic" && model !== "openai")
    throw new Error(`--model must be symbolic or openai, not ${model}`);
  if (flags.resume && !flags.thread) throw new Error("--resume needs --thread ID");
  const seed = int("seed", text("seed"), 0);
  const start = text("start");
  if (starts && !starts.includes(start!))
    throw new Error(`--start must be one of ${starts.join(", ")}, not ${JSON.stringify(start)}`);
  const own = settingsFromFlags(method, flags, [method], () => method.graph, campaignSettings(campaign));
  const thread = text("thread") ?? `${method.graph}-${randomUUID().slice(0, 8)}`;
  const dir = text("data-dir") ? resolve(text("data-dir")!) : dataDir();
  const runDir = resolve(text("runs-dir")!, thread);
  const episodesDir = join(runDir, "episodes");
  mkdirSync(episodesDir, { recursive: true });
  const persistence = await openPersistence(dir);
  if (
    flags.resume &&
    !(await persistence.checkpointer.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } }))
  ) {
    await persistence.close();
    throw new Error(`thread ${thread} has nothing to resume: no checkpoint for it in ${persistence.where}`);
  }
  const sims: SimProcess[] = [];
  const started = Date.now();
  let state: Record<string, unknown> | undefined;
  let crash: Error | undefined;
  const counted = campaign.budgets[0];
  const bar = (done: number, words: string, final = false) =>
    io.progress?.(done, budgets[counted.setting], counted.flag.replace(/^budget-/, ""), words, final);
  let run: Run | undefined;
  let closing = "";
  try {
    for (let i = 0; i < instances; i++) {
      sims.push(
        await startSimProcess(
          method.world,
          [...campaign.simulatorArgs(i, seed, episodesDir), ...(start ? ["--start", start] : [])],
          undefined,
          { ownProcessGroup: true },
        ),
      );
    }
    const graph = method.compile(persistence.checkpointer, persistence.store);
    // The run's settings, parsed once with the environment's: the graph gets them, and the run, as its context.
    run = openRun(
      method.runtime,
      {
        ...own,
        bridgeUrl: sims[0].url,
        [campaign.instancesSetting]: sims.map((s) => s.url),
        variant: text("variant"),
        backend: model,
        seed,
        noise: Number(text("noise")),
        dataDir: dir,
        ...budgets,
        maxModelCalls: 100_000,
      },
      io.signal ? { stop: io.signal } : {},
    ) as Run;
    const mc = run.modelConfig;
    io.say(
      `robograph ${method.graph}: ${mc.backend === "symbolic" ? "symbolic reasoner (offline)" : `openai-compatible models at ${mc.baseURL ?? "api.openai.com"}`}; ${instances} instance(s); thread ${thread}`,
    );
    io.say(`${method.world} simulators: ${sims.map((s) => s.url).join(", ")}; episodes in ${episodesDir}`);
    const config = { configurable: { thread_id: thread }, context: run.context, durability: "sync" as const };
    let input: unknown = method.input("");
    if (flags.resume) {
      const snap = await graph.getState(config);
      state = snap.values as Record<string, unknown>;
      // An interrupted run ended its node early: that node runs again; otherwise the graph continues where it stopped.
      const before = snap.parentConfig ? await graph.getState(snap.parentConfig) : undefined;
      input = state.status === "interrupted" && before?.next[0] ? new Command({ goto: before.next[0] }) : null;
      io.say(`resuming thread ${thread}: ${campaign.progress(state).text}`);
    }
    const events = join(runDir, "events.jsonl");
    await follow<Record<string, unknown>>(
      graph,
      input,
      config,
      {
        state: (x) => (state = x),
        update: (node, update, before) => {
          const logged = campaign.logged?.(node, update as Record<string, unknown>) ?? update;
          appendFileSync(events, `${JSON.stringify({ t: Date.now() - started, node, update: logged })}\n`);
          // What one node did, in a line (printed above the bar on a terminal, as its own line when piped).
          const line = method.describe(node, update as Record<string, unknown>, before).text;
          if (line) io.say(`  ${node.padEnd(9)} ${line}`);
        },
        stepped: () => {
          if (!state) return;
          const { done, text: words } = campaign.progress(state);
          bar(done, `${words} · ${Math.round((Date.now() - started) / 1000)} s`);
        },
      },
      state,
    );
  } catch (err) {
    crash = err as Error;
  } finally {
    if (state) bar(campaign.progress(state).done, "done", true);
    let status = (state?.status as string | undefined) ?? "failed";
    let reason = (state?.statusReason as string | undefined) ?? "";
    if (crash || status === "running") {
      const stop = stoppedBy(io.signal);
      status = stop || crash?.name === "ModelUnavailableError" ? "interrupted" : "failed";
      reason = stop
        ? `emergency stop (${stop}); ${resumeHint(thread)}`
        : crash
          ? `error: ${crash.message}`
          : "the run stopped before its end";
    }
    try {
      if (state) {
        state = { ...state, status, statusReason: reason };
        const facts = {
          thread,
          model: run?.modelConfig.backend ?? model ?? "symbolic",
          instances,
          seed,
          ...(start ? { start } : {}),
          noise: Number(text("noise")),
          wallSeconds: (Date.now() - started) / 1000,
        };
        const lines = await campaign.finish(runDir, state, facts, run);
        closing = `${status}: ${reason}\n${lines}run record: ${runDir}/report.md\n`;
      }
    } finally {
      // The simulators run in their own process groups: they are stopped whatever the record or the sessions did.
      await run?.close().catch(() => {});
      await persistence.close().catch(() => {});
      for (const s of sims) await s.stop();
    }
  }
  const report = join(runDir, "report.json");
  return {
    code: state?.status === "interrupted" ? 3 : state && campaign.achieved(state) ? 0 : 2,
    thread,
    runDir,
    // Only the record this run wrote (a resume that crashed before its first step leaves an earlier one in place).
    ...(closing && existsSync(report)
      ? { summary: JSON.parse(readFileSync(report, "utf8")) as Record<string, unknown> }
      : {}),
    closing,
    ...(crash ? { error: crash } : {}),
  };
}
