/**
 * Experiments as jobs on a real Postgres (pg-boss): an enqueuer and two real worker processes, each starting its own
 * simulators; one worker SIGKILLed mid-episode, its episode taken over after its lease and resumed on the simulator it
 * left behind, re-attaching to the goal in flight. Every episode is reported once, and equal, episode by episode, to
 * a local run of the same slice. A job that fails three times is reported failed with its error; an experiment cannot
 * be queued twice. CI installs Postgres and sets ROBOGRAPH_REQUIRE_POSTGRES, so there this suite cannot skip.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { postgresBin, startPostgres, type Postgres } from "../helpers/postgres";
import { ROOT } from "../helpers/processes";
import { killWhenStarted } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { runExperiment, type ExperimentOptions } from "../../evals/runner";
import { buildReport, tables, withoutTiming, type Report } from "../../evals/experimentReport";
import { scoreEpisodes } from "../../evals/langsmith";
import { loadDataset } from "../../evals/datasets";
import { BridgeClient } from "../../robots/bridge/client";
import { PostgresBlobStore } from "../../memory/blobs";
import type { EpisodeResult } from "../../evals/metrics";
import { programArgs } from "../../robots/programs";

const available = !!postgresBin();
if (!available && process.env.ROBOGRAPH_REQUIRE_POSTGRES)
  throw new Error("ROBOGRAPH_REQUIRE_POSTGRES is set but Postgres is not installed (apt-get install postgresql)");

interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** A robograph command as its own process (node runs it itself, so a SIGKILL reaches the command). */
function robograph(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, programArgs("cli/robograph.ts", args), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out, exited };
}

// The quickest slice that makes the point: kitchen episodes of a few seconds, two examples × two seeds.
const SLICE = ["--dataset", "kitchen", "--variants", "full", "--seeds", "2", "--limit", "2", "--max-wall", "20"];
const sliceOptions = (root: string): ExperimentOptions => ({
  name: "local",
  dataset: "kitchen",
  variants: ["full"],
  seeds: 2,
  noise: 0,
  concurrency: 1,
  limit: 2,
  root,
  maxSteps: 40,
  maxWallSeconds: 20,
});
/** What must be equal between a queued episode and a local one. */
const outcome = (result: EpisodeResult) => ({
  id: result.id,
  status: result.status,
  success: result.success,
  steps: result.steps,
  modelCalls: result.modelCalls,
  score: result.score,
  goal: result.goal,
  exampleHash: result.exampleHash,
});

describe.skipIf(!available)("experiments as jobs on Postgres (npm run eval -- --queue, npm run worker)", () => {
  let db: Postgres;
  let env: NodeJS.ProcessEnv;
  const procs: Proc[] = [];
  const start = (args: string[]) => {
    const proc = robograph(args, env);
    procs.push(proc);
    return proc;
  };
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    db = await startPostgres();
    env = { ...process.env, ROBOGRAPH_DATABASE_URL: db.url };
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    // Simulators the workers started (their own process groups) that a killed worker left behind.
    const sims = db
      ? await query<{ sim_pid: number | null }>("SELECT sim_pid FROM robograph.episodes").catch(() => [])
      : [];
    for (const { sim_pid } of sims) {
      try {
        if (sim_pid) process.kill(sim_pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    await db?.stop();
  });

  it("refuses --queue without a database, and the same experiment queued twice or under other settings", async () => {
    const root = scratchDir();
    const { ROBOGRAPH_DATABASE_URL: _, ...noDb } = env;
    const without = robograph(["eval", ...SLICE, "--name", "twice", "--root", root, "--queue"], noDb);
    expect((await without.exited).code).toBe(1);
    expect(without.out()).toMatch(/--queue needs ROBOGRAPH_DATABASE_URL/);

    const first = start(["eval", ...SLICE, "--name", "twice", "--root", root, "--queue", "--detach"]);
    expect((await first.exited).code, first.out()).toBe(0);
    expect(first.out()).toMatch(/4 episodes queued on robograph-episodes-kitchen/);
    const again = start(["eval", ...SLICE, "--name", "twice", "--root", root, "--queue", "--detach"]);
    expect((await again.exited).code).toBe(1);
    expect(again.out()).toMatch(
      /experiment twice is already queued \(0 of 4 episodes finished\): follow it with npm run eval -- --report twice --wait, or give this run another --name/,
    );
    const other = start(["eval", ...SLICE, "--noise", "0.3", "--name", "twice", "--root", root, "--queue", "--detach"]);
    expect((await other.exited).code).toBe(1);
    expect(other.out()).toMatch(
      /experiment twice is already queued with noise 0 \(now 0\.3\): its episodes and these would mix in one report/,
    );
    const fewer = start([
      "eval",
      ...SLICE.map((a) => (a === "2" ? "1" : a)),
      "--name",
      "twice",
      "--root",
      root,
      "--queue",
      "--detach",
    ]);
    expect((await fewer.exited).code).toBe(1);
    expect(fewer.out()).toMatch(/already queued with other episodes/);
    // Refusals queue nothing: still the first four jobs, and no lease shorter than an episode's budget.
    expect(await query("SELECT id FROM robograph.episodes WHERE experiment = 'twice'")).toHaveLength(4);
    const short = start([
      "eval",
      ...SLICE,
      "--name",
      "short-lease",
      "--root",
      root,
      "--queue",
      "--detach",
      "--lease",
      "10",
    ]);
    expect((await short.exited).code).toBe(1);
    expect(short.out()).toMatch(/the lease \(10 s\) must be longer than an episode's wall budget \(--max-wall 20 s\)/);
    // Not for workers: this experiment's jobs are dropped so the next test's workers do not take them.
    await query("DELETE FROM pgboss.job WHERE data->>'experiment' = 'twice'");
    await query("DELETE FROM robograph.experiments WHERE name = 'twice'");
  });

  it("two workers and an enqueuer, one worker SIGKILLed mid-episode: every episode reported once, equal to a local run", async () => {
    const local = await runExperiment(sliceOptions(scratchDir()));
    expect(local).toHaveLength(4);

    const root = scratchDir();
    const enqueuer = start(["eval", ...SLICE, "--name", "queued", "--root", root, "--queue", "--lease", "25"]);
    const workers = [0, 1].map(() =>
      start(["worker", "--concurrency", "1", "--poll", "0.5", "--work-dir", scratchDir()]),
    );

    // The first episode to have a simulator: its worker is killed once the robot has started the episode's second skill.
    let victim: { id: string; thread: string; worker: string; sim_url: string } | undefined;
    for (let i = 0; i < 600 && !victim; i++) {
      [victim] = await query<{ id: string; thread: string; worker: string; sim_url: string }>(
        "SELECT id, thread, worker, sim_url FROM robograph.episodes WHERE experiment = 'queued' AND state = 'running' AND sim_url IS NOT NULL LIMIT 1",
      ).catch(() => []); // the enqueuer creates the tables
      if (!victim) await new Promise((r) => setTimeout(r, 50));
    }
    expect(victim, enqueuer.out()).toBeDefined();
    const pid = Number(victim!.worker.split(":").pop());
    const killed = workers.find((w) => w.child.pid === pid)!;
    const survivor = workers.find((w) => w !== killed)!;
    expect(killed).toBeDefined();
    const watcher = await BridgeClient.connect(victim!.sim_url);
    await new Promise<void>((resolve) =>
      killWhenStarted(watcher, `${victim!.thread}/2/`, () => (killed.child.kill("SIGKILL"), resolve())),
    );
    await watcher.close();
    expect((await killed.exited).signal).toBe("SIGKILL");

    // The enqueuer waits for all of them (the killed one after its lease) and writes the report.
    const done = await enqueuer.exited;
    expect(done.code, enqueuer.out()).toBe(0);
    expect(enqueuer.out()).toMatch(/done 4, running 0, failed 0, left 0 of 4/);
    expect(survivor.out()).toMatch(
      new RegExp(
        `${victim!.id}: attempt 2, resuming thread ${victim!.thread.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} on ws://`,
      ),
    );

    // Each episode recorded once; the killed one took two attempts and was resumed, not started over.
    const rows = await query<{ id: string; state: string; attempts: number; resumed: number; result: EpisodeResult }>(
      "SELECT id, state, attempts, resumed, result FROM robograph.episodes WHERE experiment = 'queued' ORDER BY seq",
    );
    expect(rows.map((r) => r.state)).toEqual(["done", "done", "done", "done"]);
    expect(rows.find((r) => r.id === victim!.id)).toMatchObject({ attempts: 2, resumed: 1 });
    expect(rows.filter((r) => r.id !== victim!.id).every((r) => r.attempts === 1 && r.resumed === 0)).toBe(true);
    const jobs = await query<{ state: string }>(
      "SELECT state FROM pgboss.job WHERE data->>'experiment' = 'queued' UNION ALL SELECT state FROM pgboss.archive WHERE data->>'experiment' = 'queued'",
    );
    expect(jobs.map((j) => j.state)).toEqual(["completed", "completed", "completed", "completed"]);

    // Episode by episode, the local run's outcome; and the same report tables.
    expect(rows.map((r) => outcome(r.result))).toEqual(local.map(outcome));
    const report = JSON.parse(readFileSync(join(root, "queued", "report.json"), "utf8")) as Report;
    const scores = await scoreEpisodes("queued", "kitchen", loadDataset("kitchen"), local);
    const localReport = buildReport(
      {
        name: "queued",
        dataset: "kitchen",
        noise: 0,
        seeds: 2,
        settings: report.settings,
        variants: ["full"],
        durationSeconds: 1,
      },
      local.map((r) => ({ ...r, scores: scores.get(r.id)! })),
    );
    expect(JSON.stringify(withoutTiming(report), null, 1)).toBe(JSON.stringify(withoutTiming(localReport), null, 1));
    expect(tables(report, { timing: false })).toBe(tables(localReport, { timing: false }));

    // The robot started every goal of the resumed episode once: the one in flight at the kill was re-attached to.
    const blobs = await PostgresBlobStore.open(db.url);
    try {
      const files = await blobs.listFiles("experiments/queued");
      const events = JSON.parse(
        (await blobs.get(files.get(`episodes/${victim!.id}/robot-events.json`)!)).toString(),
      ) as { kind: string; goalId?: string }[];
      const started = events.filter((e) => e.kind === "skill_started").map((e) => e.goalId);
      expect(started.length).toBe(rows.find((r) => r.id === victim!.id)!.result.steps);
      expect(new Set(started).size).toBe(started.length);
      // Its record holds every step, the ones before the kill included, and the frames it names are in the database.
      const record = (await blobs.get(files.get(`episodes/${victim!.id}/events.jsonl`)!)).toString();
      const actions = record
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((l) => l.node === "executor" && l.update.history?.[0]?.kind === "action");
      expect(actions).toHaveLength(rows.find((r) => r.id === victim!.id)!.result.steps);
      const frames = [...new Set(record.match(/sha256:[0-9a-f]{64}\.png/g) ?? [])];
      expect(frames.length).toBeGreaterThan(0);
      for (const f of frames) expect(await blobs.has(f), f).toBe(true);
      expect([...files.keys()]).toEqual(expect.arrayContaining(["report.json", "report.md", "report.html"]));
    } finally {
      await blobs.close();
    }

    // The viewer, from the database alone (a folder of its own, none of the workers'): the experiment, an episode, a frame.
    const view = start(["view", "--queued", "queued", "--port", "0", "--runs-dir", scratchDir()]);
    for (let i = 0; i < 400 && !/http:\/\/\S+/.test(view.out()); i++) await new Promise((r) => setTimeout(r, 50));
    const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(view.out())![1];
    try {
      const page = (await (await fetch(`${base}/api/experiment/experiments/queued`)).json()) as {
        report: Report | null;
        episodes: { id: string; recorded: boolean }[];
      };
      expect(page.report?.name).toBe("queued");
      expect(page.episodes.map((e) => e.id)).toEqual(local.map((r) => r.id).sort());
      expect(page.episodes.every((e) => e.recorded)).toBe(true);
      const run = await (await fetch(`${base}/api/run/experiments/queued/episodes/${victim!.id}`)).text();
      const src = /"src":"(\/artifact\/[^"]+\.png)"/.exec(run)![1];
      const frame = await fetch(`${base}${src}`);
      expect(frame.status).toBe(200);
      expect(frame.headers.get("content-type")).toBe("image/png");
    } finally {
      view.child.kill("SIGINT");
      await view.exited;
    }

    // SIGTERM: the idle survivor stops cleanly.
    survivor.child.kill("SIGTERM");
    expect((await survivor.exited).code, survivor.out()).toBe(0);
    expect(survivor.out()).toMatch(/worker stopped after \d+ job\(s\)/);
  }, 300_000);

  it("reports a job that failed three times as failed, with its error, and does not retry it again", async () => {
    // Only this test's worker takes jobs (an earlier test that failed half-way may have left one running).
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    const root = scratchDir();
    // A well-formed dataset row naming a scene the tabletop simulator does not have: every attempt's simulator refuses it.
    const row = JSON.parse(readFileSync(join(ROOT, "evals", "datasets", "tabletop.jsonl"), "utf8").split("\n")[0]);
    row.inputs.scenario = "no_such_scene";
    const file = join(root, "broken.jsonl");
    writeFileSync(file, `${JSON.stringify(row)}\n`);
    const enqueue = start([
      "eval",
      "--dataset",
      file,
      "--variants",
      "full",
      "--seeds",
      "1",
      "--max-wall",
      "20",
      "--name",
      "broken",
      "--root",
      root,
      "--queue",
    ]);
    const worker = start(["worker", "--datasets", "broken", "--poll", "0.5", "--work-dir", scratchDir()]);
    const done = await enqueue.exited;
    expect(done.code, enqueue.out()).toBe(0);
    expect(enqueue.out()).toMatch(/done 0, running 0, failed 1, left 0 of 1/);
    expect(enqueue.out()).toMatch(
      /failed: full__\S+__s0: failed after 3 attempt\(s\): simulator exited with 1: serve-sim: unknown tabletop scenario no_such_scene/,
    );
    const [episodeRow] = await query<{ state: string; attempts: number; error: string }>(
      "SELECT state, attempts, error FROM robograph.episodes WHERE experiment = 'broken'",
    );
    expect(episodeRow).toMatchObject({ state: "failed", attempts: 3 });
    // The row is written before the worker logs it.
    for (let i = 0; i < 100 && !/attempt 3 failed/.test(worker.out()); i++)
      await new Promise((res) => setTimeout(res, 50));
    expect(worker.out().match(/attempt \d failed/g)).toHaveLength(3);
    expect(worker.out()).toMatch(/attempt 3 failed \(no attempts left\)/);
    // Its report counts it as a failed trial, as a local run counts a crashed episode.
    const report = JSON.parse(readFileSync(join(root, "broken", "report.json"), "utf8")) as Report;
    expect(report.table.full.all).toMatchObject({ trials: 1, successes: 0 });
    worker.child.kill("SIGINT");
    expect((await worker.exited).code, worker.out()).toBe(0);
  }, 180_000);
});
