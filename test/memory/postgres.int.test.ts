/**
 * Postgres for many workers: two agent processes on two threads write checkpoints and memory into one real Postgres
 * at once; one is SIGKILLed mid-skill and resumed from Postgres. Every checkpoint and memory entry is there after.
 * CI installs Debian's postgresql (.ci/run) and sets ROBOGRAPH_REQUIRE_POSTGRES, so there this test cannot skip.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startSim, type SimProcess } from "../helpers/processes";
import { agent } from "../helpers/agent";
import { postgresBin, startPostgres, type Postgres } from "../helpers/postgres";
import { scratchDir } from "../helpers/episode";
import { openPersistence } from "../../memory/checkpointer";

const available = !!postgresBin();
if (!available && process.env.ROBOGRAPH_REQUIRE_POSTGRES)
  throw new Error("ROBOGRAPH_REQUIRE_POSTGRES is set but Postgres is not installed (apt-get install postgresql)");

describe.skipIf(!available)("Postgres checkpoints and store (ROBOGRAPH_DATABASE_URL)", () => {
  let db: Postgres;
  const sims: SimProcess[] = [];
  beforeAll(async () => {
    db = await startPostgres();
  });
  afterAll(async () => {
    for (const s of sims) await s.stop();
    await db?.stop();
  });

  it("refuses a database URL that is not postgres://, and names a database it cannot reach", async () => {
    await expect(
      openPersistence(scratchDir(), { env: { ROBOGRAPH_DATABASE_URL: "mysql://x@127.0.0.1/db" } }),
    ).rejects.toThrow(/must be a postgres:\/\/ URL/);
    await expect(
      openPersistence(scratchDir(), {
        env: { ROBOGRAPH_DATABASE_URL: "postgres://robograph:secret@127.0.0.1:1/none" },
      }),
    ).rejects.toThrow(/cannot use the database at postgres:\/\/robograph:\*\*\*@127\.0\.0\.1:1/);
  });

  it("two agents on two threads share it at once; one is killed mid-skill and resumes from it", async () => {
    const env = { ...process.env, ROBOGRAPH_DATABASE_URL: db.url };
    const [simA, simB] = await Promise.all(
      [0, 1].map(() => startSim(["--scenario", "integration_tea_to_trash", "--speed", "3"])),
    );
    sims.push(simA, simB);
    const data = scratchDir();
    const args = (sim: SimProcess, thread: string) => [
      "--bridge-url",
      sim.url,
      "--thread",
      thread,
      "--data-dir",
      data,
      "--runs-dir",
      join(data, "runs"),
    ];
    let armed = false;
    const [killed, other] = await Promise.all([
      agent(
        args(simA, "pg-a"),
        (line, kill) => {
          if (armed || !/dispatch\s+goal pg-a\/2\//.test(line)) return;
          armed = true;
          // The goal id is checkpointed when this line prints; shortly after, the skill is running on the robot.
          setTimeout(kill, 300);
        },
        env,
      ),
      agent(args(simB, "pg-b"), undefined, env),
    ]);
    expect(killed.signal, killed.out).toBe("SIGKILL");
    expect(other.out).toMatch(/SUCCESS/);
    const resumed = await agent([...args(simA, "pg-a"), "--resume"], undefined, env);
    expect(resumed.out, resumed.out).toMatch(/re-attaching to goal pg-a\/\d+\//);
    expect(resumed.out).toMatch(/SUCCESS/);

    // Nothing was written to SQLite; everything is in Postgres.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const counts = await client.query<{ thread_id: string; n: string }>(
        "SELECT thread_id, count(*) AS n FROM checkpoints GROUP BY thread_id ORDER BY thread_id",
      );
      expect(counts.rows.map((r) => r.thread_id)).toEqual(["pg-a", "pg-b"]);
      for (const r of counts.rows) expect(Number(r.n)).toBeGreaterThan(20);
      // Each thread's last checkpoint is the finished run.
      const persistence = await openPersistence(data, { env: { ROBOGRAPH_DATABASE_URL: db.url } });
      for (const thread of ["pg-a", "pg-b"]) {
        const tuple = await persistence.checkpointer.getTuple({
          configurable: { thread_id: thread, checkpoint_ns: "" },
        });
        expect((tuple?.checkpoint.channel_values as { status?: string }).status, thread).toBe("succeeded");
      }
      // Memory across episodes: where things were found, written by both threads.
      const found = await persistence.store!.search(["lessons"], { limit: 100 });
      await persistence.close();
      const threads = new Set(found.map((i) => (i.value as { thread?: string }).thread));
      expect(found.length).toBeGreaterThan(0);
      expect([...threads].every((t) => t === "pg-a" || t === "pg-b")).toBe(true);
    } finally {
      await client.end();
    }
  });
});
