/**
 * Experiments in LangSmith. Without LANGSMITH_API_KEY our evaluators score episodes locally through LangSmith's own
 * `evaluate` (`uploadRuns: false`). With a key: the dataset is created once, its missing examples are added and edited
 * ones updated; each variant is one experiment with a fixed name (`<experiment>-<variant>`) whose rows are the
 * episodes, each linked to the dataset example it ran and scored by our evaluators as feedback. Rows are recorded while
 * the episodes run (the runner's `aroundEpisode`), so with LANGSMITH_TRACING=true an episode's graph run is the child of
 * its row; a row is uploaded only once its result is on disk, and never twice (a resumed experiment skips episodes
 * already recorded).
 */
import { Client } from "langsmith";
import { evaluate, type EvaluateOptions } from "langsmith/evaluation";
import { getLangchainCallbacks } from "langsmith/langchain";
import { traceable, withRunTree } from "langsmith/traceable";
import { RunTree } from "langsmith/run_trees";
import type { Dataset, Example, Feedback, TracerSession } from "langsmith/schemas";
import { basename, dirname } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { DatasetRow } from "./datasets";
import { EVALUATORS, type EpisodeResult } from "./metrics";
import type { ExperimentOptions, PlannedEpisode } from "./runner";
import { METHODS, method as methodById, methodOfWorld } from "../graphs";
import { framesTraced, redactFrames, tracingOn, type EpisodeTrace } from "../runtime/tracing";

export function langsmithEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env.LANGSMITH_API_KEY;
}

/**
 * A dataset row in LangSmith's example shape, whatever its kind: an experiment's row (hand-made or generated) or a
 * behaviour-critic case; `id` is ours (kept as metadata.example_id).
 */
export interface LangSmithRow {
  id: string;
  example: { inputs: Record<string, unknown>; outputs?: Record<string, unknown>; metadata?: Record<string, unknown> };
}

/** The worlds a dataset's rows are in (a critic case's is the workbench, where its rollouts were recorded). */
const worldsOf = (rows: LangSmithRow[]) => [
  ...new Set(rows.map((r) => String(r.example.inputs.world ?? ("scene" in r.example.inputs ? "workbench" : "?")))),
];

/** What a dataset holds, said from its rows: its worlds and the methods that run them. */
export function datasetDescription(name: string, rows: LangSmithRow[]): string {
  const worlds = worldsOf(rows);
  const methods = worlds.map((w) => METHODS.find((m) => m.world === w)?.title ?? w);
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.example.inputs)))];
  return `RoboGraph dataset ${name}: ${rows.length} examples in the ${worlds.join(" and ")} world${worlds.length > 1 ? "s" : ""} (${methods.join(", ")}); inputs: ${keys.join(", ")}; metadata.example_id: the row's id`;
}

/**
 * A dataset's name in LangSmith: a bundled one by its name, a generated set (`<experiment>/dataset.jsonl`) by its
 * experiment, another file by its base name.
 */
export function langsmithDatasetName(dataset: string, experiment: string): string {
  if (!dataset.endsWith(".jsonl")) return dataset;
  const file = basename(dataset, ".jsonl");
  return file === "dataset" && basename(dirname(dataset)) === experiment ? `${experiment}-dataset` : file;
}

/** An example as LangSmith holds it, keyed by our row id (its metadata.example_id). */
export type ExampleIds = Map<string, Example>;

/** What LangSmith should hold for a row: its inputs, outputs and metadata, keyed by our row id. */
const heldFor = (row: LangSmithRow) => ({
  inputs: row.example.inputs,
  outputs: row.example.outputs ?? {},
  metadata: { ...row.example.metadata, example_id: row.id },
});

/** Whether the example LangSmith holds says what the row says (metadata: our keys; LangSmith may add its own). */
function holds(example: Example, row: LangSmithRow): boolean {
  const wanted = heldFor(row);
  const metadata = example.metadata ?? {};
  return (
    isDeepStrictEqual(example.inputs, wanted.inputs) &&
    isDeepStrictEqual(example.outputs ?? {}, wanted.outputs) &&
    Object.entries(wanted.metadata).every(([key, value]) => isDeepStrictEqual(metadata[key], value))
  );
}

/**
 * Creates the dataset in LangSmith if it is not there, adds the rows it lacks and updates those edited since (by our
 * row id: the example keeps its id, and LangSmith's dataset versions keep what earlier experiments ran on), returning
 * every row's example as the server holds it — the ids experiment rows must reference.
 */
export async function syncDataset(
  client: Client,
  name: string,
  rows: LangSmithRow[],
): Promise<{ dataset: Dataset; examples: ExampleIds; added: number; updated: number }> {
  const dataset = (await client.hasDataset({ datasetName: name }))
    ? await client.readDataset({ datasetName: name })
    : await client.createDataset(name, {
        description: datasetDescription(name, rows),
        metadata: { robograph: true, worlds: worldsOf(rows) },
      });
  const examples: ExampleIds = new Map();
  for await (const ex of client.listExamples({ datasetId: dataset.id }))
    if (ex.metadata?.example_id) examples.set(String(ex.metadata.example_id), ex);
  const missing = rows.filter((r) => !examples.has(r.id));
  if (missing.length) {
    const made = missing.map(heldFor);
    const created = await client.createExamples({
      datasetId: dataset.id,
      inputs: made.map((x) => x.inputs),
      outputs: made.map((x) => x.outputs),
      metadata: made.map((x) => x.metadata),
    });
    for (const ex of created) examples.set(String(ex.metadata?.example_id), ex);
  }
  const edited = rows.filter((r) => examples.has(r.id) && !missing.includes(r) && !holds(examples.get(r.id)!, r));
  if (edited.length) {
    await client.updateExamples(
      edited.map((r) => ({ id: examples.get(r.id)!.id, dataset_id: dataset.id, ...heldFor(r) })),
    );
    for (const r of edited) examples.set(r.id, { ...examples.get(r.id)!, ...heldFor(r) });
  }
  return { dataset, examples, added: missing.length, updated: edited.length };
}

/** `--upload-dataset NAME`: pushes any dataset's rows (hand-made or generated) as a LangSmith dataset, idempotently. */
export async function uploadDataset(
  name: string,
  rows: LangSmithRow[],
  client: Client = new Client(),
): Promise<{ datasetId: string; added: number; updated: number; total: number }> {
  const { dataset, examples, added, updated } = await syncDataset(client, name, rows);
  await client.awaitPendingTraceBatches();
  return { datasetId: dataset.id, added, updated, total: examples.size };
}

/**
 * A client that holds back what it would upload (runs, feedback) until `commit`, so an episode's row, its trace and
 * its feedback reach LangSmith only once the episode is kept — and frames stay out of what it uploads unless asked.
 */
class HeldClient extends Client {
  private held: (() => Promise<unknown>)[] = [];
  private holding = true;
  constructor() {
    super(
      framesTraced()
        ? {}
        : { hideInputs: (inputs) => redactFrames(inputs), hideOutputs: (outputs) => redactFrames(outputs) },
    );
  }
  override async createRun(...args: Parameters<Client["createRun"]>): Promise<void> {
    if (!this.holding) return super.createRun(...args);
    this.held.push(() => super.createRun(...args));
  }
  override async updateRun(...args: Parameters<Client["updateRun"]>): Promise<void> {
    if (!this.holding) return super.updateRun(...args);
    this.held.push(() => super.updateRun(...args));
  }
  override createFeedback: Client["createFeedback"] = async (...args: unknown[]) => {
    const send = () => (super.createFeedback as (...a: unknown[]) => Promise<Feedback>).apply(this, args);
    if (!this.holding) return send();
    this.held.push(send);
    const [first, key] = args;
    const params = typeof first === "object" && first !== null ? (first as { runId?: string; key: string }) : undefined;
    return { id: "", run_id: params ? params.runId : first, key: params ? params.key : key } as unknown as Feedback;
  };
  /** Uploads what was held, in the order it came, and waits until it is sent. */
  async commit(): Promise<void> {
    this.holding = false;
    for (const send of this.held.splice(0)) await send();
    await this.awaitPendingTraceBatches();
  }
}

const evaluators = Object.values(EVALUATORS).map((evaluator) =>
  Object.defineProperty(
    (args: { outputs?: Record<string, unknown> }) => evaluator({ outputs: args.outputs as Partial<EpisodeResult> }),
    "name",
    { value: evaluator.name },
  ),
);

/** What names an episode in LangSmith: its method, variant, seed and world (tags and metadata alike). */
function episodeFacts(planned: PlannedEpisode, methodId: string | undefined) {
  const world = planned.row.example.inputs.world;
  const method = methodId ?? methodOfWorld(world).id;
  return {
    episode: planned.id,
    example_id: planned.row.id,
    method,
    variant: planned.variant,
    seed: planned.seed,
    world,
  };
}

const episodeTags = (facts: ReturnType<typeof episodeFacts>) => [
  `method:${facts.method}`,
  `variant:${facts.variant}`,
  `seed:${facts.seed}`,
  `world:${facts.world}`,
];

/** The experiment in LangSmith: its dataset, one experiment (session) per variant, and the episodes recorded there. */
export interface LangSmithExperiment {
  datasetId: string;
  experiments: Map<string, TracerSession>;
  /** The runner's hook: records each episode as its experiment's row while it runs. */
  aroundEpisode: NonNullable<ExperimentOptions["aroundEpisode"]>;
  /** Records episodes that ran before (another process, a kill between result and upload) and are not there yet. */
  recordMissing(results: EpisodeResult[]): Promise<number>;
  /** Episode ids recorded in LangSmith, by variant. */
  recorded: Map<string, Set<string>>;
}

/** Opens (creating where needed) the dataset and the variants' experiments of experiment `name` in LangSmith. */
export async function openLangSmithExperiment(options: {
  name: string;
  datasetName: string;
  rows: DatasetRow[];
  variants: string[];
  method?: string;
  settings?: Record<string, unknown>;
  client?: Client;
}): Promise<LangSmithExperiment> {
  const client = options.client ?? new Client();
  const { dataset, examples } = await syncDataset(client, options.datasetName, options.rows);
  const experiments = new Map<string, TracerSession>();
  const recorded = new Map<string, Set<string>>();
  for (const variant of options.variants) {
    const projectName = `${options.name}-${variant}`;
    // A fixed name: the same experiment again is the same LangSmith experiment (the SDK's string option adds a suffix).
    const session = (await client.hasProject({ projectName }))
      ? await client.readProject({ projectName })
      : await client.createProject({
          projectName,
          referenceDatasetId: dataset.id,
          description: `RoboGraph experiment ${options.name}, variant ${variant}${options.method ? ` of ${methodById(options.method).title}` : ""}`,
          metadata: { experiment: options.name, variant, ...(options.settings ?? {}) },
        });
    experiments.set(variant, session);
    const have = new Set<string>();
    for await (const run of client.listRuns({ projectId: session.id, isRoot: true }))
      if (run.extra?.metadata?.episode) have.add(String(run.extra.metadata.episode));
    recorded.set(variant, have);
  }
  const exampleOf = (rowId: string) => {
    const example = examples.get(rowId);
    if (!example) throw new Error(`dataset ${options.datasetName} in LangSmith has no example ${rowId}`);
    return example;
  };

  /** One episode as its experiment's row, scored by our evaluators; what it uploads is held until `commit`. */
  async function record(planned: PlannedEpisode, target: () => Promise<EpisodeResult>) {
    const held = new HeldClient();
    const facts = episodeFacts(planned, options.method);
    let result: EpisodeResult | undefined;
    // The row is named after the episode and says what it is (evaluate keeps a traceable target's own name and tags).
    const row = traceable(
      async () => {
        result = await target();
        return result;
      },
      { name: planned.id, metadata: facts, tags: episodeTags(facts) },
    );
    const out = await evaluate(row, {
      data: [exampleOf(planned.row.id)],
      evaluators,
      client: held,
      // An experiment already made (not a name, to which the SDK appends a new suffix each call): every row joins it.
      experiment: experiments.get(planned.variant)!,
      metadata: { experiment: options.name, variant: planned.variant },
      maxConcurrency: 1,
    } as EvaluateOptions);
    const scores = out.results[0]?.evaluationResults.results ?? [];
    return { result: result!, scores, commit: () => held.commit() };
  }

  const quietly = async <T>(work: () => Promise<T>) => {
    // evaluate announces every call on the console: one line per episode would break the runner's progress bar.
    const log = console.log;
    console.log = (...line: unknown[]) =>
      /^(Starting evaluation of experiment|View results at)/.test(String(line[0])) ? undefined : log(...line);
    try {
      return await work();
    } finally {
      console.log = log;
    }
  };

  return {
    datasetId: dataset.id,
    experiments,
    recorded,
    aroundEpisode: async (planned, run) => {
      const have = recorded.get(planned.variant)!;
      // Recorded already (killed after its upload, before the runner noted it): run it, upload nothing again.
      if (have.has(planned.id)) return { result: await run() };
      const facts = episodeFacts(planned, options.method);
      let ran: EpisodeResult | undefined;
      let recordedRow: Awaited<ReturnType<typeof record>>;
      try {
        recordedRow = await quietly(() =>
          record(planned, async () => {
            // The graph's trace nests under this row (with LANGSMITH_TRACING=true), named after the episode.
            const trace: EpisodeTrace = { runName: planned.id, tags: episodeTags(facts), metadata: facts };
            ran = tracingOn()
              ? await run({ ...trace, callbacks: await getLangchainCallbacks() })
              : // Tracing off: the graph runs outside the row's context, which LangChain would otherwise trace it under.
                await withRunTree(new RunTree({ name: planned.id, tracingEnabled: false }), () => run(trace));
            return ran;
          }),
        );
      } catch (err) {
        // LangSmith failed around the episode: the episode stands (run now if it had not), recorded at the end.
        console.warn(`LangSmith: ${planned.id} not recorded yet (${(err as Error).message}); it is retried at the end`);
        return { result: ran ?? (await run()) };
      }
      return {
        result: recordedRow.result,
        kept: async () => {
          if (have.has(planned.id)) return;
          try {
            await recordedRow.commit();
            have.add(planned.id);
          } catch (err) {
            console.warn(`LangSmith: uploading ${planned.id} failed (${(err as Error).message}); retried at the end`);
          }
        },
      };
    },
    recordMissing: async (results) => {
      let count = 0;
      for (const result of results) {
        const have = recorded.get(result.variant);
        if (!have || have.has(result.id)) continue;
        const planned = {
          id: result.id,
          variant: result.variant,
          seed: result.seed,
          row: options.rows.find((r) => r.id === result.example)!,
        };
        // Run before (no trace to nest): its row holds the stored result.
        const { commit } = await quietly(() => record(planned, async () => result));
        have.add(result.id);
        await commit();
        count++;
      }
      return count;
    },
  };
}

/**
 * Evaluator scores per episode id, computed by LangSmith's evaluate over the stored episode outputs (locally). With
 * LangSmith on, the episodes not yet recorded in their experiments are recorded there too (`experiment`, or one opened
 * here: a queued experiment's report, an experiment run before the key was set).
 */
export async function scoreEpisodes(
  name: string,
  datasetName: string,
  rows: DatasetRow[],
  results: EpisodeResult[],
  concurrency = 4,
  experiment?: LangSmithExperiment,
): Promise<Map<string, Record<string, number>>> {
  if (langsmithEnabled()) {
    const opened =
      experiment ??
      (await openLangSmithExperiment({
        name,
        datasetName: langsmithDatasetName(datasetName, name),
        rows,
        variants: [...new Set(results.map((r) => r.variant))],
      }));
    await opened.recordMissing(results);
  }
  const scores = new Map<string, Record<string, number>>();
  const byId = new Map(results.map((r) => [r.id, r]));
  // Each episode an example of its own (offline: nothing leaves this process); the example ids are local only.
  const data = results.map(
    (result, i) =>
      ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        created_at: new Date(0).toISOString(),
        modified_at: new Date(0).toISOString(),
        dataset_id: "00000000-0000-4000-8000-000000000000",
        inputs: { episode: result.id },
        outputs: rows.find((x) => x.id === result.example)?.example.outputs ?? {},
        metadata: { example_id: result.example },
      }) as unknown as Example,
  );
  if (!data.length) return scores;
  // LangSmith's local runner warns about untraced runs when tracing is off; that is expected here.
  const warn = console.warn;
  console.warn = (...a: unknown[]) => (String(a[0]).includes("currentRunTree") ? undefined : warn(...a));
  try {
    const out = await evaluate(async (inputs: Record<string, unknown>) => ({ ...byId.get(String(inputs.episode))! }), {
      data,
      evaluators,
      uploadRuns: false,
      client: new Client({ apiKey: "local", apiUrl: "http://127.0.0.1:9" }),
      maxConcurrency: concurrency,
    });
    for (const row of out.results) {
      const id = String(row.example.inputs.episode);
      scores.set(id, Object.fromEntries(row.evaluationResults.results.map((e) => [e.key, Number(e.score)])));
    }
  } finally {
    console.warn = warn;
  }
  return scores;
}
