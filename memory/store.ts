/**
 * A LangGraph store on SQLite, for memory kept across episodes (lessons, such as where things were found). LangGraph JS
 * ships only an in-memory store; this one keeps the same interface in a file beside the checkpoints.
 * Search filters on exact top-level values; there is no semantic index, so `query` is matched as plain text.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph";

const SEP = "\u001f";

interface Row {
  namespace: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
}

export class SqliteStore extends BaseStore {
  private db: Database.Database;

  constructor(file: string) {
    super();
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.exec(`CREATE TABLE IF NOT EXISTS store_items (
      namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (namespace, key))`);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const run = this.db.transaction(() => operations.map((op) => this.one(op)));
    // LangGraph batches a step's reads and writes into one call. A batch that writes takes the write lock first: a
    // deferred transaction that reads, then writes after another process (a second run on this data directory)
    // committed, fails at once with SQLITE_BUSY_SNAPSHOT, without waiting out the busy timeout.
    const writes = operations.some((op) => "value" in op);
    return (writes ? run.immediate() : run()) as OperationResults<Op>;
  }

  private one(op: Operation): unknown {
    if ("namespacePrefix" in op) return this.doSearch(op as SearchOperation);
    if ("value" in op) return this.doPut(op as PutOperation);
    if ("key" in op) return this.doGet(op as GetOperation);
    return this.doNamespaces(op as ListNamespacesOperation);
  }

  private item(row: Row): Item {
    return {
      namespace: row.namespace.split(SEP),
      key: row.key,
      value: JSON.parse(row.value),
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  private doGet(op: GetOperation): Item | null {
    const row = this.db
      .prepare("SELECT * FROM store_items WHERE namespace = ? AND key = ?")
      .get(op.namespace.join(SEP), op.key) as Row | undefined;
    return row ? this.item(row) : null;
  }

  private doPut(op: PutOperation): void {
    const ns = op.namespace.join(SEP);
    if (op.value === null) {
      this.db.prepare("DELETE FROM store_items WHERE namespace = ? AND key = ?").run(ns, op.key);
      return;
    }
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO store_items (namespace, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(ns, op.key, JSON.stringify(op.value), now, now);
  }

  private doSearch(op: SearchOperation): Item[] {
    const prefix = op.namespacePrefix.join(SEP);
    const rows = (
      prefix
        ? this.db
            .prepare(
              "SELECT * FROM store_items WHERE namespace = ? OR substr(namespace, 1, ?) = ? ORDER BY updated_at DESC",
            )
            .all(prefix, prefix.length + 1, prefix + SEP)
        : this.db.prepare("SELECT * FROM store_items ORDER BY updated_at DESC").all()
    ) as Row[];
    const items = rows
      .map((r) => this.item(r))
      .filter((it) => {
        if (
          op.filter &&
          !Object.entries(op.filter).every(([k, v]) => JSON.stringify(it.value[k]) === JSON.stringify(v))
        )
          return false;
        return !op.query || JSON.stringify(it.value).toLowerCase().includes(op.query.toLowerCase());
      });
    const offset = op.offset ?? 0;
    return items.slice(offset, offset + (op.limit ?? 10));
  }

  private doNamespaces(op: ListNamespacesOperation): string[][] {
    const all = (this.db.prepare("SELECT DISTINCT namespace FROM store_items").all() as { namespace: string }[]).map(
      (r) => r.namespace.split(SEP),
    );
    const matches = (ns: string[], path: string[], suffix: boolean) => {
      if (path.length > ns.length) return false;
      const part = suffix ? ns.slice(ns.length - path.length) : ns.slice(0, path.length);
      return path.every((p, i) => p === "*" || p === part[i]);
    };
    const kept = all
      .filter((ns) => (op.matchConditions ?? []).every((c) => matches(ns, c.path, c.matchType === "suffix")))
      .map((ns) => (op.maxDepth ? ns.slice(0, op.maxDepth) : ns));
    const unique = [...new Map(kept.map((ns) => [ns.join(SEP), ns])).values()].sort((left, right) =>
      left.join(SEP).localeCompare(right.join(SEP)),
    );
    return unique.slice(op.offset, op.offset + op.limit);
  }

  close(): void {
    this.db.close();
  }
}
