/**
 * Artifacts and run records where every machine can reach them. Frames, plots and records are content-addressed blobs
 * (`sha256:<hex>.<ext>`, the ArtifactStore's references); a record (an episode's events.jsonl, result.json, a report)
 * is a path in a scope (`experiments/<name>`) naming a blob. They are rows in the Postgres of ROBOGRAPH_DATABASE_URL,
 * so a report or the viewer works from any machine with the URL. Without a database, runs keep them on disk: the
 * ArtifactStore (memory/artifacts.ts) and the run's own folder, which is the layout `downloadScope` recreates.
 */
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import pg from "pg";
import { ArtifactStore } from "./artifacts";

export interface BlobStore {
  /** Stores bytes once per content; returns their reference. */
  put(bytes: Buffer, ext?: string): Promise<string>;
  get(ref: string): Promise<Buffer>;
  has(ref: string): Promise<boolean>;
  /** Records `bytes` under `path` in `scope` (replacing what was there) and returns the blob's reference. */
  putFile(scope: string, path: string, bytes: Buffer): Promise<string>;
  /** The records of a scope, path → reference. */
  listFiles(scope: string): Promise<Map<string, string>>;
  close(): Promise<void>;
}

export const refOf = (bytes: Buffer, ext: string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}.${ext}`;
const extOf = (path: string) => /\.(\w+)$/.exec(path)?.[1] ?? "bin";
/** Every artifact reference a record's text mentions (frames in events.jsonl, rollouts, policies). */
export const refsIn = (text: string) => [...new Set(text.match(/sha256:[0-9a-f]{64}\.\w+/g) ?? [])];

const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS robograph;
CREATE TABLE IF NOT EXISTS robograph.artifacts (ref text PRIMARY KEY, bytes bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS robograph.files (scope text NOT NULL, path text NOT NULL, ref text NOT NULL REFERENCES robograph.artifacts(ref),
  updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (scope, path));
`;

/** Blobs and records as rows of one Postgres database (schema `robograph`). */
export class PostgresBlobStore implements BlobStore {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string): Promise<PostgresBlobStore> {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const connection = await pool.connect();
    try {
      // Under a lock: CREATE ... IF NOT EXISTS still races when two workers start together.
      await connection.query("SELECT pg_advisory_lock(727275)");
      await connection.query(SCHEMA);
    } finally {
      await connection.query("SELECT pg_advisory_unlock(727275)").catch(() => {});
      connection.release();
    }
    return new PostgresBlobStore(pool);
  }

  async put(bytes: Buffer, ext = "png") {
    const ref = refOf(bytes, ext);
    await this.pool.query("INSERT INTO robograph.artifacts (ref, bytes) VALUES ($1, $2) ON CONFLICT (ref) DO NOTHING", [
      ref,
      bytes,
    ]);
    return ref;
  }
  async get(ref: string) {
    const { rows } = await this.pool.query<{ bytes: Buffer }>("SELECT bytes FROM robograph.artifacts WHERE ref = $1", [
      ref,
    ]);
    if (!rows.length) throw new Error(`no artifact ${ref} in the database`);
    return rows[0].bytes;
  }
  async has(ref: string) {
    return (await this.pool.query("SELECT 1 FROM robograph.artifacts WHERE ref = $1", [ref])).rowCount! > 0;
  }
  /** Which of `refs` the database lacks (one round trip, so an episode's frames are checked at once). */
  async missing(refs: string[]): Promise<string[]> {
    if (!refs.length) return [];
    const { rows } = await this.pool.query<{ ref: string }>("SELECT ref FROM robograph.artifacts WHERE ref = ANY($1)", [
      refs,
    ]);
    const have = new Set(rows.map((r) => r.ref));
    return refs.filter((r) => !have.has(r));
  }
  async putFile(scope: string, path: string, bytes: Buffer) {
    const ref = await this.put(bytes, extOf(path));
    await this.pool.query(
      "INSERT INTO robograph.files (scope, path, ref) VALUES ($1, $2, $3) ON CONFLICT (scope, path) DO UPDATE SET ref = excluded.ref, updated_at = now()",
      [scope, path, ref],
    );
    return ref;
  }
  async listFiles(scope: string) {
    const { rows } = await this.pool.query<{ path: string; ref: string }>(
      "SELECT path, ref FROM robograph.files WHERE scope = $1 ORDER BY path",
      [scope],
    );
    return new Map(rows.map((r) => [r.path, r.ref]));
  }
  async close() {
    await this.pool.end();
  }
}

/**
 * Uploads a record and every artifact it mentions that `local` holds and the store lacks. Returns the artifacts sent.
 */
export async function uploadRecord(
  store: BlobStore,
  scope: string,
  path: string,
  bytes: Buffer,
  local: ArtifactStore,
): Promise<number> {
  const refs = refsIn(bytes.toString("utf8")).filter((r) => existsSync(local.path(r)));
  const todo = store instanceof PostgresBlobStore ? await store.missing(refs) : refs;
  for (const r of todo) await store.put(local.get(r), r.split(".").pop());
  await store.putFile(scope, path, bytes);
  return todo.length;
}

/**
 * Writes a scope's records under `dir` and the artifacts they mention under `artifactsDir`, as a run left them on the
 * machine it ran on (the viewer and reports read that layout). Returns how many records were written.
 */
export async function downloadScope(
  store: BlobStore,
  scope: string,
  dir: string,
  artifactsDir: string,
): Promise<number> {
  const files = await store.listFiles(scope);
  const local = new ArtifactStore(artifactsDir);
  for (const [path, ref] of files) {
    const bytes = await store.get(ref);
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    if (/\.(jsonl?|md|html)$/.test(path))
      for (const r of refsIn(bytes.toString("utf8")))
        if (!existsSync(local.path(r)) && (await store.has(r))) local.put(await store.get(r), r.split(".").pop());
  }
  return files.size;
}
