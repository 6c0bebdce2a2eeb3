/**
 * A local server that speaks the part of LangSmith's REST API the `langsmith` SDK (0.12) calls for datasets, examples,
 * experiments (sessions), runs (multipart and batch ingest) and feedback — written from the requests in
 * node_modules/langsmith/lib/client.mjs — and keeps what it is sent, so tests can drive the real SDK with
 * LANGSMITH_ENDPOINT pointed here and read back what a LangSmith deployment would have received. A test harness only.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StoredDataset {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  modified_at: string;
  extra: Record<string, unknown>;
}

export interface StoredExample {
  id: string;
  dataset_id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
  modified_at: string;
}

export interface StoredSession {
  id: string;
  name: string;
  description: string | null;
  reference_dataset_id: string | null;
  extra: Record<string, unknown>;
  start_time: string;
  end_time: string | null;
  tenant_id: string;
}

/** A run as the server holds it: its create and every update merged, with the project it was sent to. */
export interface StoredRun extends Record<string, unknown> {
  id: string;
  name: string;
  run_type: string;
  session_id: string;
  trace_id: string;
  dotted_order: string;
  parent_run_id?: string | null;
  reference_example_id?: string | null;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  extra?: { metadata?: Record<string, unknown> } & Record<string, unknown>;
  tags?: string[];
  end_time?: string | number | null;
  error?: string | null;
}

export interface StoredFeedback extends Record<string, unknown> {
  id: string;
  run_id: string | null;
  key: string;
  score?: number | boolean | null;
  session_id?: string | null;
}

export interface LocalLangSmith {
  /** What LANGSMITH_ENDPOINT is set to. */
  url: string;
  datasets: StoredDataset[];
  examples: StoredExample[];
  sessions: StoredSession[];
  runs: Map<string, StoredRun>;
  feedback: StoredFeedback[];
  /** Every request as `METHOD /path` (query string dropped), in order. */
  requests: string[];
  /** Requests the server has no route for (a test asserts there are none: the SDK called something unknown). */
  unknown: string[];
  /** The runs of a project (by name), oldest first. */
  runsOf(project: string): StoredRun[];
  close(): Promise<void>;
}

const TENANT = "00000000-0000-4000-8000-000000000001";
const now = () => new Date().toISOString();

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A multipart body's parts by name, read with the platform's own parser (what the SDK sends is standard form data). */
async function parts(req: IncomingMessage, raw: Buffer): Promise<Map<string, string>> {
  const form = await new Response(raw, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  const out = new Map<string, string>();
  for (const [name, value] of form.entries()) out.set(name, typeof value === "string" ? value : await value.text());
  return out;
}

export async function startLocalLangSmith(): Promise<LocalLangSmith> {
  const datasets: StoredDataset[] = [];
  const examples: StoredExample[] = [];
  const sessions: StoredSession[] = [];
  const runs = new Map<string, StoredRun>();
  const feedback: StoredFeedback[] = [];
  const requests: string[] = [];
  const unknown: string[] = [];

  const session = (name: string, fields: Partial<StoredSession> = {}): StoredSession => {
    let found = sessions.find((s) => s.name === name);
    if (!found) {
      found = {
        id: randomUUID(),
        name,
        description: null,
        reference_dataset_id: null,
        extra: {},
        start_time: now(),
        end_time: null,
        tenant_id: TENANT,
        ...fields,
      };
      sessions.push(found);
    }
    return found;
  };

  /** A run create or update, merged into what is held (LangSmith's ingest: a patch may come before its post). */
  const ingest = (payload: Record<string, unknown>) => {
    const id = String(payload.id);
    const held = runs.get(id) ?? ({ id } as StoredRun);
    const merged = { ...held, ...Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined)) };
    const projectName = (payload.session_name as string | undefined) ?? undefined;
    if (payload.session_id) merged.session_id = String(payload.session_id);
    else if (projectName) merged.session_id = session(projectName).id;
    else if (!merged.session_id) merged.session_id = session("default").id;
    runs.set(id, merged as StoredRun);
  };

  const addFeedback = (payload: Record<string, unknown>) => {
    feedback.push({
      ...payload,
      id: String(payload.id ?? randomUUID()),
      run_id: (payload.run_id as string | null) ?? null,
      key: String(payload.key),
    });
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: Error) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: err.message }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "");
    const method = req.method ?? "GET";
    requests.push(`${method} ${path}`);
    const raw = await body(req);
    const json = () => (raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {});
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(data));
    };
    const query = url.searchParams;
    const page = <T>(items: T[]) => {
      const offset = Number(query.get("offset") ?? 0);
      const limit = Number(query.get("limit") ?? 100);
      return items.slice(offset, offset + limit);
    };
    let match: RegExpMatchArray | null;

    if (method === "GET" && path === "/info")
      return send(200, {
        version: "0.12.0",
        instance_flags: { dataset_examples_multipart_enabled: true },
        batch_ingest_config: { use_multipart_endpoint: true, size_limit: 100, size_limit_bytes: 20_971_520 },
      });

    // Datasets
    if (method === "POST" && path === "/datasets") {
      const sent = json();
      if (datasets.some((d) => d.name === sent.name))
        return send(409, { detail: `Dataset ${sent.name} already exists` });
      const dataset: StoredDataset = {
        id: randomUUID(),
        name: String(sent.name),
        description: (sent.description as string | undefined) ?? null,
        created_at: now(),
        modified_at: now(),
        extra: (sent.extra as Record<string, unknown>) ?? {},
      };
      datasets.push(dataset);
      return send(200, dataset);
    }
    if (method === "GET" && path === "/datasets") {
      const name = query.get("name");
      return send(200, page(datasets.filter((d) => !name || d.name === name)));
    }
    if (method === "GET" && (match = path.match(/^\/datasets\/([^/]+)$/))) {
      const found = datasets.find((d) => d.id === match![1]);
      return found ? send(200, found) : send(404, { detail: "Dataset not found" });
    }

    // A dataset version's tag (langsmith/vitest tags the version its experiment ran on).
    if (method === "PUT" && (match = path.match(/^\/datasets\/([^/]+)\/tags$/))) {
      const dataset = datasets.find((d) => d.id === match![1]);
      if (!dataset) return send(404, { detail: "Dataset not found" });
      const sent = json() as { as_of?: string; tag?: string };
      dataset.extra = { ...dataset.extra, tags: { ...(dataset.extra.tags as object), [String(sent.tag)]: sent.as_of } };
      return send(200, { tag: sent.tag, as_of: sent.as_of });
    }

    // Examples: the SDK uploads them as multipart parts `<id>`, `<id>.inputs`, `<id>.outputs`.
    if (method === "POST" && (match = path.match(/^\/(?:v1\/)?platform\/datasets\/([^/]+)\/examples$/))) {
      const dataset = datasets.find((d) => d.id === match![1]);
      if (!dataset) return send(404, { detail: "Dataset not found" });
      const form = await parts(req, raw);
      const ids = [...form.keys()].filter((k) => !k.includes("."));
      const created: string[] = [];
      for (const id of ids) {
        const head = JSON.parse(form.get(id)!) as { metadata?: Record<string, unknown>; created_at?: string };
        if (examples.some((e) => e.id === id)) return send(409, { detail: `Example ${id} already exists` });
        const at = now();
        examples.push({
          id,
          dataset_id: dataset.id,
          inputs: JSON.parse(form.get(`${id}.inputs`) ?? "{}"),
          outputs: form.has(`${id}.outputs`) ? JSON.parse(form.get(`${id}.outputs`)!) : null,
          metadata: head.metadata ?? null,
          created_at: head.created_at ?? at,
          modified_at: at,
        });
        created.push(id);
      }
      dataset.modified_at = now();
      return send(200, { example_ids: created, count: created.length });
    }
    // Edited examples: the same parts, by the id of an example the dataset holds; what is sent replaces what was held.
    if (method === "PATCH" && (match = path.match(/^\/(?:v1\/)?platform\/datasets\/([^/]+)\/examples$/))) {
      const dataset = datasets.find((d) => d.id === match![1]);
      if (!dataset) return send(404, { detail: "Dataset not found" });
      const form = await parts(req, raw);
      const ids = [...form.keys()].filter((k) => !k.includes("."));
      for (const id of ids) {
        const held = examples.find((e) => e.id === id && e.dataset_id === dataset.id);
        if (!held) return send(404, { detail: `Example ${id} not found in dataset ${dataset.id}` });
        const head = JSON.parse(form.get(id)!) as { metadata?: Record<string, unknown> };
        if (head.metadata) held.metadata = head.metadata;
        if (form.has(`${id}.inputs`)) held.inputs = JSON.parse(form.get(`${id}.inputs`)!);
        if (form.has(`${id}.outputs`)) held.outputs = JSON.parse(form.get(`${id}.outputs`)!);
        held.modified_at = now();
      }
      dataset.modified_at = now();
      return send(200, { example_ids: ids, count: ids.length });
    }
    if (method === "GET" && path === "/examples") {
      const dataset = query.get("dataset");
      const only = query.getAll("id");
      return send(
        200,
        page(examples.filter((e) => (!dataset || e.dataset_id === dataset) && (!only.length || only.includes(e.id)))),
      );
    }
    if (method === "GET" && (match = path.match(/^\/examples\/([^/]+)$/))) {
      const found = examples.find((e) => e.id === match![1]);
      return found ? send(200, found) : send(404, { detail: "Example not found" });
    }

    // Experiments and tracing projects are sessions.
    if (method === "POST" && path === "/sessions") {
      const sent = json();
      const existing = sessions.find((s) => s.name === sent.name);
      if (existing && query.get("upsert") !== "true")
        return send(409, { detail: `Session ${sent.name} already exists` });
      const created =
        existing ??
        session(String(sent.name), {
          description: (sent.description as string | null) ?? null,
          reference_dataset_id: (sent.reference_dataset_id as string | null) ?? null,
          extra: (sent.extra as Record<string, unknown>) ?? {},
        });
      return send(200, created);
    }
    if (method === "GET" && path === "/sessions") {
      const name = query.get("name");
      const dataset = query.get("reference_dataset");
      return send(
        200,
        page(sessions.filter((s) => (!name || s.name === name) && (!dataset || s.reference_dataset_id === dataset))),
      );
    }
    if ((match = path.match(/^\/sessions\/([^/]+)$/))) {
      const found = sessions.find((s) => s.id === match![1]);
      if (!found) return send(404, { detail: "Session not found" });
      if (method === "GET") return send(200, found);
      if (method === "PATCH") {
        const sent = json();
        if (sent.extra) found.extra = { ...found.extra, ...(sent.extra as Record<string, unknown>) };
        if (sent.end_time) found.end_time = String(sent.end_time);
        if (sent.description) found.description = String(sent.description);
        return send(200, found);
      }
    }

    // Runs: multipart ingest (`post.<id>`, `post.<id>.inputs`, …, `patch.<id>…`, `feedback.<id>`), batch, single.
    if (method === "POST" && path === "/runs/multipart") {
      const form = await parts(req, raw);
      const heads = [...form.keys()].filter((k) => /^(post|patch|feedback)\.[^.]+$/.test(k));
      for (const head of heads) {
        const [kind] = head.split(".");
        const payload = JSON.parse(form.get(head)!) as Record<string, unknown>;
        if (kind === "feedback") {
          addFeedback(payload);
          continue;
        }
        for (const field of ["inputs", "outputs", "events", "extra", "error", "serialized"])
          if (form.has(`${head}.${field}`)) payload[field] = JSON.parse(form.get(`${head}.${field}`)!);
        ingest(payload);
      }
      return send(202, {});
    }
    if (method === "POST" && path === "/runs/batch") {
      const sent = json() as { post?: Record<string, unknown>[]; patch?: Record<string, unknown>[] };
      for (const run of [...(sent.post ?? []), ...(sent.patch ?? [])]) ingest(run);
      return send(202, {});
    }
    if (method === "POST" && path === "/runs") {
      ingest(json());
      return send(202, {});
    }
    if (method === "PATCH" && (match = path.match(/^\/runs\/([^/]+)$/))) {
      ingest({ ...json(), id: match[1] });
      return send(202, {});
    }
    if (method === "POST" && path === "/runs/query") {
      const sent = json() as {
        session?: string[] | null;
        is_root?: boolean;
        reference_example?: string[];
        trace?: string;
      };
      const found = [...runs.values()].filter(
        (run) =>
          (!sent.session || sent.session.includes(run.session_id)) &&
          (sent.is_root === undefined || sent.is_root === !run.parent_run_id) &&
          (!sent.trace || run.trace_id === sent.trace) &&
          (!sent.reference_example?.length || sent.reference_example.includes(String(run.reference_example_id))),
      );
      return send(200, { runs: found, cursors: { next: null } });
    }
    if (method === "GET" && (match = path.match(/^\/runs\/([^/]+)$/))) {
      const found = runs.get(match[1]);
      return found ? send(200, found) : send(404, { detail: "Run not found" });
    }

    // Feedback
    if (method === "POST" && path === "/feedback") {
      addFeedback(json());
      return send(200, feedback.at(-1));
    }
    if (method === "GET" && path === "/feedback") {
      const ids = query.getAll("run");
      return send(200, page(feedback.filter((f) => !ids.length || ids.includes(String(f.run_id)))));
    }

    unknown.push(`${method} ${path}`);
    return send(404, { detail: `the local LangSmith has no route for ${method} ${path}` });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    datasets,
    examples,
    sessions,
    runs,
    feedback,
    requests,
    unknown,
    runsOf(project) {
      const id = sessions.find((s) => s.name === project)?.id;
      return [...runs.values()].filter((r) => r.session_id === id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
