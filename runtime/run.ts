/**
 * A run of a method, as its nodes see it: its settings — parsed once, against the method's own configuration (Studio's
 * form), from what the caller gave and the environment — and what it runs with: the models (the offline reasoner
 * knowing the method's tasks), the artifact store, and the robots' session.
 *
 * Whoever starts a run opens it (`openRun`: the CLI, the experiment runner, the MCP server, a test) and hands
 * `run.context` to the graph as LangGraph's runtime context; the run rides along with the settings, and nodes read it
 * with `runOf(config)`. The opener closes it. A graph invoked without one — the LangGraph server, which passes the
 * request's `configurable` and `context` as JSON — gets a run made from them (`inRun`, which every method wraps its
 * nodes and edges in) at its first node call and kept for the others, its settings parsed against the method's schema
 * and the server's environment (read once, when its first run starts), its robots' session from a pool of
 * connections, one per robot endpoint.
 */
import { join } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { dataDir } from "../memory/checkpointer";
import { ArtifactStore } from "../memory/artifacts";
import { createModels, modelConfig, type ModelConfig, type Reasoner, type RoleModels } from "../models";
import { openSession, type Session } from "./session";
import { runConfiguration, type SharedSettings } from "./settings";

/** What a method gives each run of it: its settings' schema and its part of the offline reasoner. */
export interface MethodRuntime<S extends SharedSettings = SharedSettings> {
  configuration: z.ZodType<S, unknown>;
  reasoner: Reasoner;
}

export interface Run<S extends SharedSettings = SharedSettings> {
  readonly settings: S;
  readonly modelConfig: ModelConfig;
  readonly models: RoleModels;
  readonly artifacts: ArtifactStore;
  /** This run's own emergency stop (MCP's emergency_stop): its nodes end it `interrupted`, as the process's stop does. */
  readonly stop?: AbortSignal;
  /** The settings as the graph's runtime context, with this run behind them. */
  readonly context: S;
  /**
   * The robots behind `bridgeUrl` (default: the run's), opened on first use. The methods plan over the world's places
   * and labels, so a robot that describes no world is refused unless `{ world: false }` (skills and looks alone).
   */
  session(bridgeUrl?: string, need?: { world: boolean }): Promise<Session>;
  close(): Promise<void>;
}

const RUN = Symbol("robograph.run");

/** A run that only drives the robots (MCP's skill tools and looks): the shared settings, no task of any method. */
export const ROBOTS_ONLY: MethodRuntime = {
  configuration: runConfiguration(["full"] as const) as unknown as MethodRuntime["configuration"],
  reasoner: {},
};

/** The environment's word on a run's settings, under what the caller gives. */
function fromEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked = {
    bridgeUrl: env.ROBOGRAPH_BRIDGE_URL,
    bridgeToken: env.ROBOGRAPH_BRIDGE_TOKEN,
    manifest: env.ROBOGRAPH_MANIFEST,
    variant: env.ROBOGRAPH_VARIANT,
    seed: env.ROBOGRAPH_SEED,
    noise: env.ROBOGRAPH_NOISE,
    approve: env.ROBOGRAPH_APPROVE,
    evaluatorKey: env.ROBOGRAPH_EVALUATOR_KEY,
  };
  return defined(picked) as Record<string, string>;
}

const defined = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null && v !== ""));

/**
 * A run's settings: the environment, overlaid by what the caller gives, parsed against the method's schema; an
 * invalid one is refused naming the field.
 */
export function parseSettings<S extends SharedSettings>(
  schema: z.ZodType<S, unknown>,
  given: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): S {
  const parsed = schema.safeParse({ ...fromEnvironment(env), ...defined(given) });
  if (!parsed.success) throw new Error(`invalid run configuration: ${z.prettifyError(parsed.error)}`);
  return { ...parsed.data, dataDir: parsed.data.dataDir ?? dataDir(env) };
}

interface Opening {
  env?: NodeJS.ProcessEnv;
  /** A session the caller makes from the run's models (a node run alone on a recorded context): the run uses it and leaves it open. */
  session?: (models: Pick<Session, "models" | "modelConfig" | "artifacts">) => Session;
  /** The run's own emergency stop (runtime/estop.ts reads it beside the process's). */
  stop?: AbortSignal;
  /** Where the robots' sessions come from (default: opened for this run and closed with it). */
  links?: (bridgeUrl: string, settings: SharedSettings, open: () => Promise<Session>) => Promise<Session>;
}

/** Opens a run of `method` with the settings `given` (over the environment's); close it when the run is over. */
export function openRun<S extends SharedSettings>(
  method: MethodRuntime<S>,
  given: Record<string, unknown>,
  opening: Opening = {},
): Run<S> {
  const env = opening.env ?? process.env;
  const settings = parseSettings(method.configuration, given, env);
  const mc = modelConfig(env, {
    backend: settings.backend,
    model: settings.model,
    roleModels: settings.models,
    seed: settings.seed,
    noise: settings.noise,
    noiseKnobs: settings.noiseKnobs,
  });
  const models = createModels(mc, method.reasoner);
  const artifacts = new ArtifactStore(join(settings.dataDir!, "artifacts"));
  const sessions = new Map<string, Promise<Session>>();
  const owned: Promise<Session>[] = [];
  const run: Run<S> = {
    settings,
    modelConfig: mc,
    models,
    artifacts,
    ...(opening.stop ? { stop: opening.stop } : {}),
    context: settings,
    async session(bridgeUrl = settings.bridgeUrl, need = { world: true }) {
      if (!bridgeUrl)
        throw new Error("no bridge URL: set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL (e.g. ws://127.0.0.1:9090)");
      let opened = sessions.get(bridgeUrl);
      // A session whose client gave up reconnecting is closed for good: the run opens a new one.
      if (opened && (await opened.catch(() => undefined))?.client.closed) {
        sessions.delete(bridgeUrl);
        opened = undefined;
      }
      if (!opened) {
        const open = () =>
          openSession(
            { bridgeUrl, bridgeToken: settings.bridgeToken, manifest: settings.manifest },
            { models, modelConfig: mc, artifacts },
            () => run.session(bridgeUrl, { world: false }),
          );
        if (opening.session && bridgeUrl === settings.bridgeUrl)
          opened = Promise.resolve(opening.session({ models, modelConfig: mc, artifacts }));
        else if (opening.links) opened = opening.links(bridgeUrl, settings, open);
        else owned.push((opened = open()));
        opened.catch(() => sessions.delete(bridgeUrl));
        sessions.set(bridgeUrl, opened);
      }
      const session = await opened;
      if (need.world && !session.described)
        throw new Error(
          `${bridgeUrl} serves no world description; the closed loop needs its places and labels (add "world" to the manifest file)`,
        );
      return session;
    },
    async close() {
      for (const s of owned) await s.then((x) => x.client.close()).catch(() => {});
      owned.length = 0;
      sessions.clear();
    },
  };
  // The run rides with its settings, out of sight of anything that reads them as JSON (Studio, a record).
  Object.defineProperty(run.context, RUN, { value: run, enumerable: false });
  return run;
}

/** The stop of the run a node's config belongs to, if it has one of its own. */
export function runStopOf(config: RunnableConfig | undefined): AbortSignal | undefined {
  return ((config as { context?: Record<symbol, unknown> } | undefined)?.context?.[RUN] as Run | undefined)?.stop;
}

/** The run a node's config belongs to (inside a method's graph, `inRun` sees that there is one). */
export function runOf<S extends SharedSettings = SharedSettings>(config: RunnableConfig | undefined): Run<S> {
  const run = (config as { context?: Record<symbol, unknown> } | undefined)?.context?.[RUN] as Run<S> | undefined;
  if (!run)
    throw new Error("no run in this config: a method's nodes run inside its graph, which opens one (runtime/run.ts)");
  return run;
}

// ---- a graph invoked without a run (the LangGraph server) ----------------------------------------------------------

let serverEnvironment: NodeJS.ProcessEnv | undefined;
/** Pooled robot sessions of runs nobody opened, one per robot endpoint; a session whose client gave up leaves the pool. */
const links = new Map<string, Promise<Session>>();

function pooled(bridgeUrl: string, settings: SharedSettings, open: () => Promise<Session>): Promise<Session> {
  const key = [bridgeUrl, settings.bridgeToken ?? "", settings.manifest ?? ""].join("\n");
  let opened = links.get(key);
  if (!opened) {
    const forget = () => links.get(key) === opened && links.delete(key);
    opened = open().then(
      (x) => (x.client.once("close", forget), x),
      (err) => (forget(), Promise.reject(err)),
    );
    links.set(key, opened);
  }
  return opened;
}

/** Closes the pooled sessions (the end of a process that ran graphs without opening runs: a test, a server). */
export async function closePooledSessions(): Promise<void> {
  const all = [...links.values()];
  links.clear();
  for (const s of all) await s.then((x) => x.client.close()).catch(() => {});
}

/** The config a node of `method` runs with: the caller's, or one with a run made from its configurable and context. */
function withRun<S extends SharedSettings>(
  method: MethodRuntime<S>,
  config: RunnableConfig | undefined,
): RunnableConfig {
  const callerConfig = config as (RunnableConfig & { context?: Record<string | symbol, unknown> }) | undefined;
  if (callerConfig?.context?.[RUN]) return callerConfig;
  serverEnvironment ??= { ...process.env };
  const {
    thread_id: _t,
    checkpoint_id: _c,
    checkpoint_ns: _n,
    ...given
  } = Object.fromEntries(Object.entries(callerConfig?.configurable ?? {}).filter(([k]) => !k.startsWith("__")));
  const settingsGiven = { ...given, ...(callerConfig?.context ?? {}) };
  // Parsed once per run, not per node call: a run's every node and edge gets the same configurable and context (with
  // the server's run id among them), so the run made for the first is the run of all the others.
  const runs = serverRuns.get(method) ?? new Map<string, Run<SharedSettings>>();
  serverRuns.set(method, runs);
  const key = JSON.stringify(settingsGiven);
  let run = runs.get(key);
  if (!run) {
    run = openRun(method, settingsGiven, { env: serverEnvironment, links: pooled }) as Run<SharedSettings>;
    runs.set(key, run);
    // The oldest leave first; their robots' sessions are the pool's, so nothing needs closing.
    if (runs.size > SERVER_RUNS_KEPT) runs.delete(runs.keys().next().value!);
  }
  return { ...callerConfig, context: run.context } as RunnableConfig;
}

/** Runs made for graphs invoked without one (the LangGraph server), per method, by what they were given. */
const serverRuns = new WeakMap<object, Map<string, Run<SharedSettings>>>();
const SERVER_RUNS_KEPT = 64;

/**
 * A node or an edge of `method`'s graph that finds a run in its config however the graph was invoked (one that reads
 * no config is left as it is).
 */
export function inRun<S extends SharedSettings, St, R>(
  method: MethodRuntime<S>,
  step: (state: St, config?: RunnableConfig) => R,
): (state: St, config?: RunnableConfig) => R {
  if (step.length < 2) return step;
  return (state, config) => step(state, withRun(method, config));
}

/** Every node of a table wrapped with `inRun`. */
export function inRunAll<
  S extends SharedSettings,
  T extends Record<string, (state: never, config?: RunnableConfig) => unknown>,
>(method: MethodRuntime<S>, nodes: T): T {
  return Object.fromEntries(
    Object.entries(nodes).map(([k, f]) => [k, inRun(method, f as (s: unknown, c?: RunnableConfig) => unknown)]),
  ) as unknown as T;
}
