/** Checkpointers: SQLite (the embedded default, one file under the data directory) and in-memory (tests). */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

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
