/**
 * `robograph run --graph curriculum` (npm start -- --graph curriculum …): a Game On curriculum run — starts N blocks
 * simulators as child processes (one episode store under the run's record), runs the curriculum graph with a SQLite
 * checkpointer and a progress bar until a budget ends it, and leaves runs/<thread>/ (report.md, report.json, curves,
 * frames, Fig. 5, events.jsonl, episodes/).
 */
import { parseArgs } from "node:util";
import { appendFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { Command } from "@langchain/langgraph";
import { curriculum, describeCurriculum } from "../graphs/curriculum/index";
import { follow } from "../runtime/follow";
import { openRun, type Run } from "../runtime/run";
import type { CurriculumSettings } from "../graphs/curriculum/configuration";
import { CURRICULUM_VARIANTS } from "../graphs/curriculum/configuration";
import type { CurriculumStateType } from "../graphs/curriculum/state";
import { dataDir, openPersistence } from "../memory/checkpointer";
import { totalUsage } from "../models";
import { emergencyStop, resumeHint, stopReason } from "../runtime/estop";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { STARTS } from "../robots/sim/blocks/scene";
import { writeCurriculumRecord } from "../evals/curriculumReport";
import { sameImageStages } from "../evals/curriculumStages";

export const CURRICULUM_HELP = `usage: robograph run --graph curriculum [options]      (npm start -- --graph curriculum [options])

Game On's curriculum: propose → decompose → retrieve → embody (N simulator instances in parallel) → learn → analyse,
from the base skills (open/close gripper, grasp anything, reach X), until a budget ends it. Leaves runs/<thread>/.

options:
  --budget-episodes N     embodied episodes (default 120)
  --budget-iterations N   learner iterations (default 40)
  --budget-seconds N      wall-clock seconds (default 3600)
  --instances N           blocks simulators run in parallel, each a process (default 2)
  --episodes-per-instance N   episodes each instance runs per embodied plan (default 2)
  --start S               how every block layout starts: floor (every block on the basket floor, default), stacked
                          (one block on another, sometimes a tower of three), leaning (one block tilted against
                          another) or held (one block in the gripper)
  --base-skills FILE      the pretrained base skills' policies (default data/blocks/base-skills.json)
  --learner-elite P  --learner-step S   the learner's elite share and step (defaults 0.05 and 0.7, chosen on seeds 0–4)
  --variant V             ${CURRICULUM_VARIANTS.join(" | ")} (default full; base-only never learns a new skill)
  --model B               symbolic | openai (default: openai when OPENAI_API_KEY is set, else symbolic)
  --noise P  --seed N     symbolic reasoner's noise level and the seed of everything (default 0, 0)
  --thread ID [--resume]  thread id; --resume continues it from its last checkpoint (simulators are started anew on the
                          same episode store, so the learner finds its episodes)
  --data-dir DIR          checkpoints and artifacts (default ./data)      --runs-dir DIR  run records (default ./runs)
  --quiet                 only the summary
`;

/** A progress line: rewritten in place on a terminal, printed as a line per change when piped. */
function progressBar(total: number) {
  let lastText = "";
  return (done: number, text: string, final = false) => {
    const width = 24;
    const filled = Math.min(width, Math.round((width * done) / Math.max(1, total)));
    const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} episodes · ${text}`;
    if (process.stdout.isTTY) process.stdout.write(`\r${line}\x1b[K${final ? "\n" : ""}`);
    else if (line !== lastText) process.stdout.write(`${line}\n`);
    lastText = line;
  };
}

export async function runCurriculum(argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      graph: { type: "string" },
      "budget-episodes": { type: "string", default: "120" },
      "budget-iterations": { type: "string", default: "40" },
      "budget-seconds": { type: "string", default: "3600" },
      instances: { type: "string", default: "2" },
      "episodes-per-instance": { type: "string", default: "2" },
      start: { type: "string", default: "floor" },
      "base-skills": { type: "string" },
      variant: { type: "string", default: "full" },
      model: { type: "string" },
      noise: { type: "string", default: "0" },
      seed: { type: "string", default: "0" },
      thread: { type: "string" },
      resume: { type: "boolean", default: false },
      "data-dir": { type: "string" },
      "runs-dir": { type: "string", default: "runs" },
      "learner-elite": { type: "string" },
      "learner-step": { type: "string" },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    process.stdout.write(CURRICULUM_HELP);
    return 0;
  }
  const int = (name: string, x: string | undefined, min: number) => {
    const value = Number(x);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min}, not ${x}`);
    return value;
  };
  const instances = int("instances", flags.instances, 1);
  const budgets = {
    episodes: int("budget-episodes", flags["budget-episodes"], 1),
    iterations: int("budget-iterations", flags["budget-iterations"], 1),
    wallSeconds: int("budget-seconds", flags["budget-seconds"], 1),
  };
  if (!(CURRICULUM_VARIANTS as readonly string[]).includes(flags.variant!))
    throw new Error(`--variant must be one of ${CURRICULUM_VARIANTS.join(", ")}`);
  if (flags.model && flags.model !== "symbolic" && flags.model !== "openai")
    throw new Error(`--model must be symbolic or openai, not ${flags.model}`);
  if (flags.resume && !flags.thread) throw new Error("--resume needs --thread ID");
  const seed = int("seed", flags.seed, 0);
  if (!(STARTS as readonly string[]).includes(flags.start!))
    throw new Error(`--start must be one of ${STARTS.join(", ")}, not ${JSON.stringify(flags.start)}`);
  const thread = flags.thread ?? `curriculum-${randomUUID().slice(0, 8)}`;
  const dir = flags["data-dir"] ? resolve(flags["data-dir"]) : dataDir();
  const runDir = resolve(flags["runs-dir"]!, thread);
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
  const say = (s: string) => !flags.quiet && process.stdout.write(`${process.stdout.isTTY ? "\r\x1b[K" : ""}${s}\n`);

  const sims: SimProcess[] = [];
  const started = Date.now();
  let state: CurriculumStateType | undefined;
  let crash: Error | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(
      `\n${sig}: emergency stop — the run ends interrupted after the step in flight (again to quit at once)\n`,
    );
    emergencyStop(`${sig} to the agent`);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const bar = progressBar(budgets.episodes);
  let run: Run<CurriculumSettings> | undefined;
  try {
    // Each instance its own process and layout sequence; all record to the run's episode store.
    for (let i = 0; i < instances; i++) {
      sims.push(
        await startSimProcess(
          "blocks",
          [
            "--seed",
            String(seed * 1000 + i),
            "--start",
            flags.start!,
            "--episodes",
            episodesDir,
            "--instance",
            `i${i}`,
          ],
          undefined,
          { ownProcessGroup: true },
        ),
      );
    }
    const graph = curriculum.compile(persistence.checkpointer, persistence.store);
    // The run's settings, parsed once with the environment's: the graph gets them, and the run, as its context.
    run = openRun<CurriculumSettings>(curriculum.runtime, {
      bridgeUrl: sims[0].url,
      instanceUrls: sims.map((s) => s.url),
      variant: flags.variant,
      backend: flags.model,
      seed,
      noise: Number(flags.noise),
      dataDir: dir,
      maxEpisodes: budgets.episodes,
      maxIterations: budgets.iterations,
      maxWallSeconds: budgets.wallSeconds,
      maxModelCalls: 100_000,
      episodesPerInstance: int("episodes-per-instance", flags["episodes-per-instance"], 1),
      ...(flags["base-skills"] ? { baseSkills: resolve(flags["base-skills"]) } : {}),
      ...(flags["learner-elite"] ? { learnerElite: flags["learner-elite"] } : {}),
      ...(flags["learner-step"] ? { learnerStep: flags["learner-step"] } : {}),
    });
    const mc = run.modelConfig;
    say(
      `robograph curriculum: ${mc.backend === "symbolic" ? "symbolic reasoner (offline)" : `openai-compatible models at ${mc.baseURL ?? "api.openai.com"}`}; ${instances} instance(s); thread ${thread}`,
    );
    say(`blocks simulators: ${sims.map((s) => s.url).join(", ")}; episodes in ${episodesDir}`);
    const config = { configurable: { thread_id: thread }, context: run.context, durability: "sync" as const };
    let input: unknown = { goal: "master the blocks in the basket" };
    if (flags.resume) {
      const snap = await graph.getState(config);
      state = snap.values as CurriculumStateType;
      // An interrupted run ended its node early: that node runs again; otherwise the graph continues where it stopped.
      const before = snap.parentConfig ? await graph.getState(snap.parentConfig) : undefined;
      input = state.status === "interrupted" && before?.next[0] ? new Command({ goto: before.next[0] }) : null;
      say(`resuming thread ${thread} at cycle ${state.counters.cycles}, ${state.counters.episodes} episodes`);
    }
    const events = join(runDir, "events.jsonl");
    await follow<CurriculumStateType>(
      graph,
      input,
      config,
      {
        state: (x) => (state = x),
        update: (node, update, before) => {
          const nodeUpdate = update as Partial<CurriculumStateType>;
          appendFileSync(
            events,
            `${JSON.stringify({ t: Date.now() - started, node, update: node === "rollout" ? { episodes: nodeUpdate.episodes } : nodeUpdate })}\n`,
          );
          // What one node did, in a line (printed above the bar on a terminal, as its own line when piped).
          const line = describeCurriculum(node, nodeUpdate, before).text;
          if (line) say(`  ${node.padEnd(9)} ${line}`);
        },
        stepped: () => {
          if (!state || flags.quiet) return;
          const learning = Object.values(state.targets).filter((t) => !t.converged && t.returns.length).length;
          bar(
            state.counters.episodes,
            `cycle ${state.counters.cycles} · iteration ${state.counters.iterations} · library ${state.library.length} · learning ${learning} · ${Math.round((Date.now() - started) / 1000)} s`,
          );
        },
      },
      state,
    );
  } catch (err) {
    crash = err as Error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (state && !flags.quiet) bar(state.counters.episodes, "done", true);
    let status = state?.status ?? "failed";
    let reason = state?.statusReason ?? "";
    if (crash || status === "running") {
      const stop = stopReason();
      status = stop || crash?.name === "ModelUnavailableError" ? "interrupted" : "failed";
      reason = stop
        ? `emergency stop (${stop}); ${resumeHint(thread)}`
        : crash
          ? `error: ${crash.message}`
          : "the run stopped before its end";
    }
    try {
      if (state) {
        state = { ...state, status, statusReason: reason } as CurriculumStateType;
        const usage = totalUsage(state.usage);
        const settings = run?.settings;
        const facts = {
          thread,
          model: run?.modelConfig.backend ?? flags.model ?? "symbolic",
          instances,
          seed,
          start: flags.start!,
          noise: Number(flags.noise),
          wallSeconds: (Date.now() - started) / 1000,
          budgets,
          ...(settings ? { learner: { elite: settings.learnerElite, step: settings.learnerStep } } : {}),
          modelCalls: usage.calls,
        };
        let stages: Awaited<ReturnType<typeof sameImageStages>> | undefined;
        try {
          // eslint-disable-next-line no-unsafe-finally -- caught by the try around it, never leaves the finally
          if (!run) throw new Error("the run never opened");
          stages = await sameImageStages(state, run);
        } catch (err) {
          process.stderr.write(`the same-image table (Table 2) could not be made: ${(err as Error).message}\n`);
        }
        await writeCurriculumRecord(
          runDir,
          state,
          facts,
          (run ?? openRun(curriculum.runtime, { dataDir: dir })).artifacts,
          stages,
        );
        const learned = state.library.filter((l) => l.source === "learned").map((l) => l.caption);
        process.stdout.write(
          `\n${status}: ${reason}\n` +
            `cycles ${state.counters.cycles}, episodes ${state.counters.episodes}, learner iterations ${state.counters.iterations}, model calls ${usage.calls}, wall ${Math.round(facts.wallSeconds)} s\n` +
            `library: ${state.library.length} skills; learned by this run: ${learned.join(", ") || "none"}\n` +
            `run record: ${runDir}/report.md\n`,
        );
      }
    } finally {
      // The simulators run in their own process groups: they are stopped whatever the record or the sessions did.
      await run?.close().catch(() => {});
      await persistence.close().catch(() => {});
      for (const s of sims) await s.stop();
    }
  }
  if (crash) throw crash;
  return state?.status === "interrupted" ? 3 : state && state.library.some((l) => l.source === "learned") ? 0 : 2;
}
