/**
 * Where checkpoints and the cross-episode store live: SQLite files under the data directory (the embedded default),
 * Postgres when ROBOGRAPH_DATABASE_URL is a postgres:// URL (many workers, or LangGraph server replicas, sharing one
 * database), or memory (tests).
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MemorySaver, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { SqliteStore } from "./store";

/** Where runs keep their data unless told otherwise: ROBOGRAPH_DATA_DIR or ./data. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.ROBOGRAPH_DATA_DIR ?? "data");
}

export function sqliteCheckpointer(file = join(dataDir(), "checkpoints.sqlite")): SqliteSaver {
  mkdirSync(dirname(file), { recursive: true });
  return SqliteSaver.fromConnString(file);
}

export function memoryCheckpointer(): BaseCheckpointSaver {
  return new MemorySaver();
}

export interface Persistence {
  checkpointer: BaseCheckpointSaver;
  /** Memory kept across episodes; undefined when the run forgets. */
  store?: BaseStore;
  /** Where it lives, for messages (a file, or the database URL without its password). */
  where: string;
  close(): Promise<void>;
}

/** The database URL to use, if any; anything but postgres:// is refused rather than silently ignored. */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.ROBOGRAPH_DATABASE_URL?.trim();
  if (!url) return undefined;
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new Error(
      `ROBOGRAPH_DATABASE_URL must be a postgres:// URL (SQLite is the default without it), got ${url.split(":")[0]}:…`,
    );
  return url;
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");

/**
 * Checkpoints and store for a run: Postgres when ROBOGRAPH_DATABASE_URL is set, SQLite files in `dir` otherwise.
 * Postgres tables are created on first use, under an advisory lock so workers starting together do not race.
 */
export async function openPersistence(
  dir: string,
  opts: { forget?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<Persistence> {
  const url = databaseUrl(opts.env);
  if (!url) {
    const store = opts.forget ? undefined : new SqliteStore(join(dir, "memory.sqlite"));
    return {
      checkpointer: sqliteCheckpointer(join(dir, "checkpoints.sqlite")),
      store,
      where: join(dir, "checkpoints.sqlite"),
      close: async () => store?.close(),
    };
  }
  const checkpointer = PostgresSaver.fromConnString(url);
  const store = opts.forget ? undefined : PostgresStore.fromConnString(url);
  const lock = new pg.Client({ connectionString: url });
  try {
    await lock.connect();
    await lock.query("SELECT pg_advisory_lock(727274)");
    await checkpointer.setup();
    await store?.setup();
    await lock.query("SELECT pg_advisory_unlock(727274)");
  } catch (err) {
    await Promise.allSettled([checkpointer.end(), store?.stop()]);
    throw new Error(`cannot use the database at ${redact(url)}: ${(err as Error).message}`, { cause: err });
  } finally {
    await lock.end().catch(() => {});
  }
  return {
    checkpointer,
    store,
    where: redact(url),
    close: async () => {
      await Promise.allSettled([checkpointer.end(), store?.stop()]);
    },
  };
}
