/**
 * Scores episodes through LangSmith's `evaluate` with our evaluators. Without LANGSMITH_API_KEY it runs locally
 * (`uploadRuns: false`); with one, it also creates or updates the dataset and records an experiment per variant.
 */
import { createHash } from "node:crypto";
import { evaluate } from "langsmith/evaluation";
import { Client } from "langsmith";
import type { Example } from "langsmith/schemas";
import type { DatasetRow } from "./datasets";
import { EVALUATORS, type EpisodeResult } from "./metrics";

const uuid = (text: string) => {
  const digest = createHash("sha256").update(text).digest("hex");
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-a${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
};

export function langsmithEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env.LANGSMITH_API_KEY;
}

/** Creates the dataset in LangSmith if needed and adds the examples it lacks (by our stable example id). */
async function syncDataset(client: Client, name: string, rows: DatasetRow[]): Promise<string> {
  const existing = (await client.hasDataset({ datasetName: name }))
    ? await client.readDataset({ datasetName: name })
    : await client.createDataset(name, { description: "RoboGraph kitchen tasks (CLEA design)" });
  const have = new Set<string>();
  for await (const ex of client.listExamples({ datasetId: existing.id })) have.add(String(ex.metadata?.example_id));
  const missing = rows.filter((r) => !have.has(r.id));
  if (missing.length) {
    await client.createExamples({
      datasetId: existing.id,
      inputs: missing.map((r) => r.example.inputs),
      outputs: missing.map((r) => r.example.outputs),
      metadata: missing.map((r) => ({ ...r.example.metadata, example_id: r.id })),
    });
  }
  return existing.id;
}

/** Evaluator scores per episode id, computed by LangSmith's evaluate over the stored episode outputs. */
export async function scoreEpisodes(
  name: string,
  datasetName: string,
  rows: DatasetRow[],
  results: EpisodeResult[],
  concurrency = 4,
): Promise<Map<string, Record<string, number>>> {
  const upload = langsmithEnabled();
  const client = upload ? new Client() : undefined;
  const datasetId = client ? await syncDataset(client, datasetName, rows) : uuid(datasetName);
  const byId = new Map(results.map((r) => [r.id, r]));
  const scores = new Map<string, Record<string, number>>();
  const evaluators = Object.values(EVALUATORS).map(
    (e) => (args: { outputs?: Record<string, unknown> }) => e({ outputs: args.outputs as Partial<EpisodeResult> }),
  );
  const variants = [...new Set(results.map((r) => r.variant))];
  // LangSmith's local runner warns about untraced runs when tracing is off; that is expected here.
  const warn = console.warn;
  console.warn = (...a: unknown[]) => (String(a[0]).includes("currentRunTree") ? undefined : warn(...a));
  try {
    for (const variant of variants) {
      const data: Example[] = results
        .filter((r) => r.variant === variant)
        .map((result) => {
          const row = rows.find((x) => x.id === result.example)!;
          return {
            id: uuid(result.id),
            created_at: new Date(0).toISOString(),
            dataset_id: datasetId,
            inputs: {
              episode: result.id,
              task: row.example.inputs.task,
              goal: row.example.inputs.goal,
              seed: result.seed,
            },
            outputs: row.example.outputs,
            metadata: { ...row.example.metadata, example_id: row.id },
            runs: [],
          } as unknown as Example;
        });
      const out = await evaluate(
        async (inputs: Record<string, unknown>) => ({ ...byId.get(String(inputs.episode))! }),
        {
          data,
          evaluators,
          uploadRuns: upload,
          client,
          experimentPrefix: `${name}-${variant}`,
          maxConcurrency: concurrency,
          metadata: { variant },
        },
      );
      for (const row of out.results) {
        const id = String(row.example.inputs.episode);
        scores.set(id, Object.fromEntries(row.evaluationResults.results.map((e) => [e.key, Number(e.score)])));
      }
    }
  } finally {
    console.warn = warn;
  }
  return scores;
}
