/** The SQLite store (memory/store.ts): what it keeps, and a batch that holds while another connection writes. */
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../memory/store";
import { scratchDir } from "../helpers/episode";

describe("SQLite store", () => {
  it("puts, gets, searches, lists namespaces, deletes, and keeps it all across reopening", async () => {
    const file = join(scratchDir(), "memory.sqlite");
    const store = new SqliteStore(file);
    await store.put(["lessons", "kitchen", "found_at"], "apple", { place: "drawer_top" });
    await store.put(["lessons", "kitchen", "found_at"], "milk", { place: "refrigerator" });
    await store.put(["lessons", "tabletop", "found_at"], "cube", { place: "crate" });
    await store.put(["lessons", "kitchen", "found_at"], "apple", { place: "oven" });
    expect((await store.get(["lessons", "kitchen", "found_at"], "apple"))?.value).toEqual({ place: "oven" });
    expect((await store.search(["lessons", "kitchen"])).map((i) => i.key).sort()).toEqual(["apple", "milk"]);
    expect((await store.search(["lessons"], { filter: { place: "crate" } })).map((i) => i.key)).toEqual(["cube"]);
    expect(await store.search(["lessons"], { limit: 1 })).toHaveLength(1);
    expect(await store.listNamespaces({ prefix: ["lessons"], maxDepth: 2 })).toEqual([
      ["lessons", "kitchen"],
      ["lessons", "tabletop"],
    ]);
    await store.delete(["lessons", "kitchen", "found_at"], "milk");
    store.close();
    const again = new SqliteStore(file);
    expect((await again.search(["lessons", "kitchen"])).map((i) => i.key)).toEqual(["apple"]);
    again.close();
  });

  // Two runs on one data directory share its memory file. LangGraph hands the store a step's reads and writes as one
  // batch; one that read before the other run's commit and wrote after it failed with "database is locked" at once.
  it("keeps a batch that reads then writes while another connection commits", async () => {
    const file = join(scratchDir(), "memory.sqlite");
    const store = new SqliteStore(file);
    // The other run: a connection on its own thread, committing as fast as it can until told to stop.
    const other = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const db = new (require("better-sqlite3"))(workerData.file);
       const put = db.prepare("INSERT OR REPLACE INTO store_items VALUES ('other', ?, '{}', 0, 0)");
       let stop = false, commits = 0;
       parentPort.on("message", () => { stop = true; });
       parentPort.postMessage("started");
       const loop = () => {
         for (let i = 0; i < 50 && !stop; i++) put.run(String(commits++ % 100));
         if (stop) { db.close(); parentPort.postMessage(commits); } else setImmediate(loop);
       };
       loop();`,
      { eval: true, workerData: { file } },
    );
    // Its commit count once stopped; a worker that failed (no such table, say) fails the test instead of hanging it.
    const done = new Promise<number>((resolve, reject) => {
      other.on("message", (m) => typeof m === "number" && resolve(m));
      other.once("error", reject);
    });
    await Promise.race([new Promise((resolve) => other.once("message", resolve)), done]);
    let failure: unknown;
    try {
      for (let i = 0; i < 2000; i++)
        await store.batch([
          { namespacePrefix: ["lessons"], limit: 10, offset: 0 },
          { namespace: ["lessons"], key: `k${i % 10}`, value: { i } },
        ]);
    } catch (err) {
      failure = err;
    }
    other.postMessage("stop");
    const commits = await done;
    await other.terminate();
    expect(failure).toBeUndefined();
    expect(commits).toBeGreaterThan(0);
    expect((await store.get(["lessons"], "k9"))?.value).toEqual({ i: 1999 });
    store.close();
  });
});
