/**
 * What a user of a hosted VLM pays per skill: each method's task run through the `openai` backend against a local
 * OpenAI-compatible server that answers as the symbolic reasoner would, after a fixed delay (a hosted model's round
 * trip), and counts what it is sent. Per executed skill: wall seconds, model calls, critical-path model calls
 * (sequential round trips: requests whose intervals overlap count once), input and output tokens counted with a real
 * tokenizer (o200k), images sent, and the share of each request's opening tokens identical to the previous request of
 * the same role (what a provider's prompt cache can reuse). Counts are deterministic; wall time is the machine's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { messageText, tokens } from "../../models/tokens";
import { SymbolicChatModel } from "../../models/symbolic";
import { ROLES } from "../../models/roles";
import { startSimProcess } from "../../robots/sim/process";
import { world } from "../../robots/sim/worlds";
import { runMethodEpisode } from "../episode";
import { allReasoners, method, METHODS, type BenchScene, type MethodId as Mode } from "../../graphs";
import { startFakeOpenAI, type ChatRequest, type FakeOpenAI } from "./openaiServer";
import { skillTimes, type SkillTime } from "../../nodes/executor";
import type { PipelineCounts } from "../../nodes/speculation";
import type { Figure } from "./agent";
import { GENERATED_KINDS, generatedSet } from "../datasets/generated";
import { GENERATED_CACHE } from "../datasets";

/** One request as the provider reads it: tool definitions, then each message's role, text and image places. */
export function promptText(req: ChatRequest): { text: string; images: number } {
  let images = 0;
  const parts: string[] = [];
  if (req.tools?.length) parts.push(JSON.stringify(req.tools));
  if (req.response_format) parts.push(JSON.stringify(req.response_format));
  for (const m of req.messages) {
    parts.push(messageText(m.role, m.content));
    if (typeof m.content !== "string")
      images += ((m.content as { type: string }[]) ?? []).filter((p) => p.type === "image_url").length;
  }
  return { text: parts.join("\n"), images };
}

/** The user text carrying the context block (what the reasoner reads). */
const contextText = (req: ChatRequest) =>
  req.messages
    .filter((m) => m.role === "user")
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : (message.content as { type: string; text?: string }[])
            .filter((p) => p.type === "text")
            .map((p) => p.text ?? ""),
    )
    .join("\n");

export interface ModelCall {
  role: string;
  start: number;
  end: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  /** Opening tokens identical to the previous request of the same role. */
  reusedPrefix: number;
  /** Asked on a prediction (it carries the predicted entry or the critic's note saying so): prepared work. */
  onPrediction: boolean;
}

/** A stand-in for a hosted VLM: the symbolic reasoner behind HTTP, answering after `delayMs`. */
export async function startReasonerEndpoint(
  delayMs: number,
  seed = 0,
): Promise<{ fake: FakeOpenAI; calls: ModelCall[]; reset(): void }> {
  const reasoner = new SymbolicChatModel(allReasoners(), seed);
  const calls: ModelCall[] = [];
  const lastByRole = new Map<string, number[]>();
  const fake = await startFakeOpenAI(async (req) => {
    const start = performance.now();
    const { text, images } = promptText(req);
    const toks = tokens(text);
    const before = lastByRole.get(req.model) ?? [];
    let k = 0;
    while (k < toks.length && k < before.length && toks[k] === before[k]) k++;
    lastByRole.set(req.model, toks);
    const answer = (await reasoner._generate([new HumanMessage(contextText(req))])).generations[0].text;
    const out = tokens(answer).length;
    const call: ModelCall = {
      role: req.model,
      start,
      end: 0,
      inputTokens: toks.length,
      outputTokens: out,
      images,
      reusedPrefix: k,
      onPrediction: JSON.stringify(req.messages).includes('\\"predicted\\"'),
    };
    calls.push(call);
    await new Promise((r) => setTimeout(r, Math.max(0, delayMs - (performance.now() - start))));
    call.end = performance.now();
    const usage = { prompt_tokens: toks.length, completion_tokens: out };
    return req.tools?.length ? { arguments: answer, usage } : { content: answer, usage };
  });
  return {
    fake,
    calls,
    reset() {
      calls.length = 0;
      lastByRole.clear();
    },
  };
}

/** Sequential round trips: requests in flight together count once. */
export function criticalPath(calls: Pick<ModelCall, "start" | "end">[]): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let rounds = 0;
  let until = -Infinity;
  for (const c of sorted) {
    if (c.start >= until) rounds++;
    until = Math.max(until, c.end);
  }
  return rounds;
}

type Span = { start: number; end: number };

/** The parts of each call made while no skill ran (the robot waited on them); slivers under `minMs` are scheduling noise. */
export function idleParts(calls: Span[], busy: Span[], minMs = 10): Span[] {
  const sorted = [...busy].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const c of calls) {
    let from = c.start;
    for (const b of sorted) {
      if (b.end <= from || b.start >= c.end) continue;
      if (b.start > from) out.push({ start: from, end: b.start });
      from = Math.max(from, b.end);
    }
    if (from < c.end) out.push({ start: from, end: c.end });
  }
  return out.filter((p) => p.end - p.start >= minMs);
}

/** Milliseconds of `window` no span of `busy` covers. */
export function uncovered(window: Span, busy: Span[]): number {
  let idle = 0;
  let at = window.start;
  for (const b of [...busy].sort((a, b) => a.start - b.start)) {
    if (b.start > at) idle += Math.min(b.start, window.end) - at;
    at = Math.max(at, b.end);
    if (at >= window.end) break;
  }
  return idle + Math.max(0, window.end - at);
}

export interface LatencyRun {
  label: string;
  pipelined: boolean;
  skills: number;
  success: boolean;
  status: string;
  wallSeconds: number;
  calls: ModelCall[];
  /** When the robot was busy (each skill goal, sent to result). */
  busy: SkillTime[];
  /** When the episode ran (performance.now()). */
  window: Span;
  pipeline?: PipelineCounts;
  /** The run's node updates, in order. */
  trace: { node: string; update: Record<string, unknown> }[];
}

/**
 * The task of each method the benchmark runs, as its descriptor declares it (graphs/method.ts `benchScenes`), in the
 * order METHODS lists them, with its scenario's instruction as the goal.
 */
export const LATENCY_TASKS: (BenchScene & { mode: Mode; goal: string })[] = METHODS.flatMap((descriptor) =>
  (descriptor.benchScenes ?? []).map((scene) => ({
    ...scene,
    mode: descriptor.id,
    goal: world(descriptor.world).scenario(scene.scenario).instruction,
  })),
);

/**
 * Runs one task through the openai backend against the endpoint, the robot moving in real time (`--speed 1`: what it
 * does while the model thinks is the point); the environment is restored afterwards.
 */
export async function latencyEpisode(
  endpoint: Awaited<ReturnType<typeof startReasonerEndpoint>>,
  task: (typeof LATENCY_TASKS)[number],
  variant = "full",
  pipeline = false,
  speed = "1",
): Promise<LatencyRun> {
  const saved = { ...process.env };
  Object.assign(process.env, {
    OPENAI_API_KEY: "sk-local",
    OPENAI_BASE_URL: endpoint.fake.baseURL,
    ROBOGRAPH_MODEL_RETRIES: "0",
    ROBOGRAPH_MODEL_TIMEOUT_MS: "60000",
    ...Object.fromEntries(ROLES.map((r) => [`ROBOGRAPH_MODEL_${r.toUpperCase()}`, r])),
  });
  let sim: Awaited<ReturnType<typeof startSimProcess>> | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "robograph-latency-"));
  const busy: SkillTime[] = [];
  const onSkill = (m: unknown) => busy.push(m as SkillTime);
  try {
    // A loaded machine can take long to start a simulator; the figures are counted after it is up.
    sim = await startSimProcess(method(task.mode).world, ["--scenario", task.scenario, "--speed", speed], 120_000);
    endpoint.reset();
    skillTimes.subscribe(onSkill);
    const start = performance.now();
    const run = await runMethodEpisode({
      mode: task.mode,
      url: sim.url,
      goal: task.goal,
      thread: `latency-${basename(task.scenario, ".json")}-${variant}${pipeline ? "-pipelined" : ""}`,
      dataDir,
      variant,
      backend: "openai",
      ...(pipeline ? { settings: { pipeline } } : {}),
    });
    const skills = (run.state.counters as unknown as Record<string, number>)[task.skillsCounter];
    const counts = (run.state as { pipeline?: PipelineCounts }).pipeline;
    return {
      label: task.label,
      pipelined: pipeline,
      skills,
      success: run.truth.success,
      status: run.state.status,
      wallSeconds: run.wallSeconds,
      calls: [...endpoint.calls],
      busy,
      window: { start, end: performance.now() },
      trace: run.trace as LatencyRun["trace"],
      ...(pipeline && counts ? { pipeline: counts } : {}),
    };
  } finally {
    skillTimes.unsubscribe(onSkill);
    await sim?.stop();
    process.env = saved;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The per-skill figures of one run; `targets`: CLEA's default task's call and token targets; `idleTarget`: the idle
 * round trips a pipelined run is held to.
 */
export function latencyFigures(run: LatencyRun, targets: boolean, idleTarget?: number): Figure[] {
  const skillCount = Math.max(1, run.skills);
  const sum = (f: (c: ModelCall) => number) => run.calls.reduce((s, c) => s + f(c), 0);
  const path = criticalPath(run.calls) / skillCount;
  const parts = idleParts(run.calls, run.busy);
  const idle = criticalPath(parts) / skillCount;
  // Between the first skill's start and the last one's end: the robot waiting for its next skill. Before it (the first
  // look, plan and critique) and after (the final check) no skill runs that anything could be prepared beside.
  const between = idleBetweenSkills(run);
  const idleSeconds = uncovered(run.window, run.busy) / 1000 / skillCount;
  const input = sum((c) => c.inputTokens) / skillCount;
  const reuse =
    sum((c) => c.reusedPrefix) /
    Math.max(
      1,
      sum((c) => c.inputTokens),
    );
  const prefix = `latency ${run.label}${run.pipelined ? " (pipelined)" : ""}`;
  const withTargets = run.pipelined ? undefined : targets;
  const sp = run.pipeline;
  return [
    {
      name: `${prefix}: skills executed (${run.status}${run.success ? ", goal holds" : ", goal NOT held"})`,
      value: run.skills,
      unit: "skills",
    },
    { name: `${prefix}: wall per skill`, value: run.wallSeconds / skillCount, unit: "s" },
    {
      name: `${prefix}: robot idle seconds per skill (waiting on models, and this machine)`,
      value: idleSeconds,
      unit: "s",
    },
    { name: `${prefix}: model calls per skill`, value: run.calls.length / skillCount, unit: "calls" },
    {
      name: `${prefix}: critical-path model calls per skill`,
      value: path,
      unit: "calls",
      ...(withTargets ? { target: "<= 2.5", ok: path <= 2.5 } : {}),
    },
    { name: `${prefix}: model round trips per skill while the robot is idle (whole run)`, value: idle, unit: "calls" },
    {
      name: `${prefix}: model round trips per skill while the robot waits between skills`,
      value: between,
      unit: "calls",
      ...(run.pipelined && idleTarget !== undefined
        ? { target: `<= ${idleTarget.toFixed(1)}`, ok: between <= idleTarget }
        : {}),
    },
    ...(sp
      ? [
          { name: `${prefix}: prepared actions sent at once`, value: sp.used, unit: "actions" },
          {
            name: `${prefix}: speculations revoked (the check after the skill: CLEA the look, RePLan the controller report)`,
            value: sp.revoked,
            unit: "skills",
          },
          { name: `${prefix}: speculations unused (nothing prepared to send)`, value: sp.unused, unit: "skills" },
          {
            name: `${prefix}: outcomes prepared beyond the first (branches), and confirmed by the look`,
            value: sp.alternatives ?? 0,
            unit: `(${sp.alternativesUsed ?? 0} used)`,
          },
          {
            name: `${prefix}: tokens wasted on revoked work and dropped branches per skill`,
            value: (sp.wastedInputTokens + sp.wastedOutputTokens) / skillCount,
            unit: "tokens",
          },
          {
            name: `${prefix}: tokens wasted on revoked work and dropped branches, share of the run's tokens`,
            value: 100 * discardedShare(run),
            unit: "%",
            ...(idleTarget !== undefined ? { target: "<= 20 %", ok: discardedShare(run) <= 0.2 } : {}),
          },
        ]
      : []),
    {
      name: `${prefix}: input tokens per skill (o200k)`,
      value: input,
      unit: "tokens",
      ...(withTargets ? { target: "<= 3000", ok: input <= 3000 } : {}),
    },
    {
      name: `${prefix}: input tokens per skill outside the role's previous prefix`,
      value: (sum((c) => c.inputTokens) - sum((c) => c.reusedPrefix)) / skillCount,
      unit: "tokens",
    },
    {
      name: `${prefix}: output tokens per skill (o200k)`,
      value: sum((c) => c.outputTokens) / skillCount,
      unit: "tokens",
    },
    { name: `${prefix}: images sent per skill`, value: sum((c) => c.images) / skillCount, unit: "images" },
    { name: `${prefix}: prompt prefix shared with the role's previous call`, value: 100 * reuse, unit: "%" },
  ];
}

/** Tokens spent on work the look or the report dropped (revoked speculations, branches not confirmed), over the run's. */
export function discardedShare(run: Pick<LatencyRun, "calls" | "pipeline">): number {
  const all = run.calls.reduce((s, c) => s + c.inputTokens + c.outputTokens, 0);
  const sp = run.pipeline;
  return sp && all > 0 ? (sp.wastedInputTokens + sp.wastedOutputTokens) / all : 0;
}

/** Round trips per skill the robot waited through between its first skill's start and its last one's end. */
export function idleBetweenSkills(run: Pick<LatencyRun, "calls" | "busy" | "skills">): number {
  if (!run.busy.length) return 0;
  const parts = idleParts(run.calls, run.busy);
  const first = Math.min(...run.busy.map((b) => b.start));
  const lastEnd = Math.max(...run.busy.map((b) => b.end));
  return criticalPath(parts.filter((p) => p.start >= first && p.end <= lastEnd)) / Math.max(1, run.skills);
}

/**
 * The generated worlds a bench scene's speculation is also measured on (its `generatedDataset`): the first `count`
 * doable ones of the tuning range its method's figures declare — never the scored range — each written to `dir` as a
 * scenario file.
 */
export async function tuningWorldTasks(
  scene: (typeof LATENCY_TASKS)[number],
  count: number,
  dir: string,
): Promise<(typeof LATENCY_TASKS)[number][]> {
  const kind = GENERATED_KINDS.find((k) => k.dataset === scene.generatedDataset);
  if (!kind) throw new Error(`${scene.label}: no generated dataset ${scene.generatedDataset}`);
  const range = method(scene.mode)
    .figures?.flatMap((f) => f.tuning ?? [])
    .find((r) => r.dataset === kind.dataset);
  if (!range) throw new Error(`${scene.label}: its method's figures declare no tuning range of ${kind.dataset}`);
  const set = await generatedSet(kind, count, range.from, {
    cacheDir: join(GENERATED_CACHE, kind.dataset, "verdicts"),
  });
  if (set.scored) throw new Error("the speculation row must run tuning worlds, not scored ones");
  return set.rows.map((row) => {
    const scenario = (row.inputs as { scenario: unknown }).scenario as { name: string };
    const file = join(dir, `${scenario.name}.json`);
    writeFileSync(file, JSON.stringify(scenario));
    return {
      ...scene,
      label: `${method(scene.mode).title} ${scenario.name}`,
      scenario: file,
      goal: (row.inputs as { goal: string }).goal,
      targets: false,
      generatedDataset: undefined,
    };
  });
}

/**
 * A bench scene pipelined over generated tuning worlds: the mean of each one's round trips per skill between skills,
 * the share of tokens dropped work took, and how many were done (the simulator's check).
 */
export async function tuningWorldFigures(
  endpoint: Awaited<ReturnType<typeof startReasonerEndpoint>>,
  scene: (typeof LATENCY_TASKS)[number],
  count: number,
  log: (line: string) => void = console.log,
): Promise<Figure[]> {
  const target = scene.pipelinedTarget ?? 1.0;
  const dir = mkdtempSync(join(tmpdir(), "robograph-worlds-"));
  try {
    const tasks = await tuningWorldTasks(scene, count, dir);
    const idle: number[] = [];
    let wasted = 0;
    let tokens = 0;
    let done = 0;
    for (const task of tasks) {
      const run = await latencyEpisode(endpoint, task, "full", true);
      const between = idleBetweenSkills(run);
      // A kitchen done in one skill (or none) has no wait between skills to measure.
      if (run.skills >= 2) idle.push(between);
      wasted += (run.pipeline?.wastedInputTokens ?? 0) + (run.pipeline?.wastedOutputTokens ?? 0);
      tokens += run.calls.reduce((s, c) => s + c.inputTokens + c.outputTokens, 0);
      if (run.success) done++;
      log(
        `${task.label} (pipelined): ${run.skills} skills, ${run.status}${run.success ? "" : ", goal NOT held"}, ${between.toFixed(2)} round trips per skill between skills, ${run.pipeline?.used ?? 0} sent at once, ${run.pipeline?.revoked ?? 0} revoked, ${run.pipeline?.alternativesUsed ?? 0} of ${run.pipeline?.alternatives ?? 0} branches confirmed`,
      );
    }
    const mean = idle.reduce((a, b) => a + b, 0) / Math.max(1, idle.length);
    const share = tokens > 0 ? wasted / tokens : 0;
    const prefix = `latency ${method(scene.mode).title}, ${tasks.length} generated tuning worlds of ${scene.generatedDataset} (pipelined)`;
    return [
      {
        name: `${prefix}: model round trips per skill while the robot waits between skills, mean over the ${idle.length} with two skills or more`,
        value: mean,
        unit: "calls",
        target: `<= ${target.toFixed(1)}`,
        ok: mean <= target,
      },
      {
        name: `${prefix}: tokens wasted on revoked work and dropped branches, share of the runs' tokens`,
        value: 100 * share,
        unit: "%",
        target: "<= 20 %",
        ok: share <= 0.2,
      },
      { name: `${prefix}: done (the simulator's check)`, value: done, unit: `of ${tasks.length}` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Per role: calls and input tokens per skill (where the tokens go). */
export function roleBreakdown(run: LatencyRun): string[] {
  const skillCount = Math.max(1, run.skills);
  const roles = [...new Set(run.calls.map((c) => c.role))];
  return roles.map((role) => {
    const cs = run.calls.filter((c) => c.role === role);
    const input = cs.reduce((s, c) => s + c.inputTokens, 0);
    const reused = cs.reduce((s, c) => s + c.reusedPrefix, 0);
    return `  ${role.padEnd(11)} ${String(cs.length).padStart(3)} calls  ${(cs.length / skillCount).toFixed(2)}/skill  ${(input / skillCount).toFixed(0).padStart(6)} input tokens/skill  ${Math.round(input / cs.length)} per call  prefix reuse ${((100 * reused) / Math.max(1, input)).toFixed(0)}%`;
  });
}

/** `kitchens`: how many generated tuning worlds a scene with a generated dataset is averaged over, pipelined (0: none). */
export async function latencyBenchmarks(
  delayMs = 300,
  log: (line: string) => void = console.log,
  kitchens = 20,
): Promise<Figure[]> {
  const endpoint = await startReasonerEndpoint(delayMs);
  const figures: Figure[] = [];
  try {
    for (const task of LATENCY_TASKS) {
      for (const pipeline of task.pipelinedTarget === undefined ? [false] : [false, true]) {
        const run = await latencyEpisode(endpoint, task, "full", pipeline);
        log(
          `${task.label}${pipeline ? " (pipelined)" : ""} through the openai backend, ${delayMs} ms per model answer, the robot in real time: ${run.calls.length} calls, ${run.skills} skills, ${run.wallSeconds.toFixed(1)} s`,
        );
        for (const line of roleBreakdown(run)) log(line);
        figures.push(...latencyFigures(run, task.targets, task.pipelinedTarget));
      }
    }
    if (kitchens > 0)
      for (const scene of LATENCY_TASKS.filter((t) => t.generatedDataset))
        figures.push(...(await tuningWorldFigures(endpoint, scene, kitchens, log)));
  } finally {
    await endpoint.fake.close();
  }
  return figures;
}
