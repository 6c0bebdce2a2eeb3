/**
 * The precompiled build of RoboGraph's programs (robots/programs.ts) behaves as the sources do under tsx: the same
 * output, files found beside each source, a program's "am I the main module" check holding, a simulator that serves.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRECOMPILED, precompile, programArgs } from "../../robots/programs";
import { startSimProcess } from "../../robots/sim/process";
import { BridgeClient } from "../../robots/bridge/client";
import { ROOT } from "../helpers/processes";

const suiteBuild = process.env[PRECOMPILED];
let build: Awaited<ReturnType<typeof precompile>>;
beforeAll(async () => {
  delete process.env[PRECOMPILED];
  build = await precompile();
});
afterAll(() => {
  build?.remove();
  if (suiteBuild) process.env[PRECOMPILED] = suiteBuild;
});

/** Runs `script args` from the build (`built`) or from its source under tsx, with no build named to its children. */
function run(script: string, args: string[], built: boolean): { status: number | null; out: string } {
  const argv = built ? programArgs(script, args) : ["--import", "tsx", `${ROOT}/${script}`, ...args];
  const child = spawnSync(process.execPath, argv, {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, [PRECOMPILED]: built ? build.dir : "" },
  });
  return { status: child.status, out: `${child.stdout}${child.stderr}` };
}

describe("the precompiled build of RoboGraph's programs", () => {
  it("is made into node_modules/.cache, named to children, and removed", () => {
    expect(build.dir.startsWith(`${ROOT}/node_modules/.cache/`)).toBe(true);
    expect(process.env[PRECOMPILED]).toBe(build.dir);
    expect(programArgs("cli/robograph.ts", ["run"])).toEqual([`${build.dir}/cli/robograph.js`, "run"]);
    // A script the build does not hold runs from its source.
    expect(programArgs("evals/bench/soak.ts")).toEqual(["--import", "tsx", `${ROOT}/evals/bench/soak.ts`]);
  });

  it("says what its sources say, finding the files beside them (reproduce's figures, the critic's benchmark help)", () => {
    for (const [script, args] of [
      ["cli/robograph.ts", ["reproduce", "--list", "--only", "critic,kitchen"]],
      ["cli/robograph.ts", ["run", "--help"]],
      ["evals/datasets/behaviorCriticBenchmark.ts", ["--help"]],
    ] as const) {
      const built = run(script, [...args], true);
      const source = run(script, [...args], false);
      expect(built.status, built.out).toBe(0);
      expect(built.out.length).toBeGreaterThan(100);
      expect(built.out).toBe(source.out);
    }
  });

  it("serves a simulator a client can talk to", async () => {
    const sim = await startSimProcess("kitchen");
    try {
      expect(sim.child.spawnargs[1]).toBe(`${build.dir}/robots/sim/main.js`);
      const client = await BridgeClient.connect(sim.url);
      try {
        const { topics } = await client.callService<{ topics: string[] }>("/rosapi/topics");
        expect(topics.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    } finally {
      await sim.stop();
    }
  });

  it("removes a build left behind by a process that is gone, and keeps a live one's", async () => {
    const gone = spawnSync("true").pid;
    const stale = join(ROOT, "node_modules", ".cache", "robograph", `precompiled-${gone}-1`);
    mkdirSync(stale, { recursive: true });
    const named = process.env[PRECOMPILED];
    delete process.env[PRECOMPILED];
    const another = await precompile();
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(build.dir)).toBe(true);
    } finally {
      another.remove();
      process.env[PRECOMPILED] = named;
    }
  });

  it("runs a program from its source when the named build does not hold it", () => {
    const saved = process.env[PRECOMPILED];
    process.env[PRECOMPILED] = `${ROOT}/node_modules/.cache/robograph/none`;
    try {
      expect(programArgs("robots/sim/main.ts")).toEqual(["--import", "tsx", `${ROOT}/robots/sim/main.ts`]);
    } finally {
      process.env[PRECOMPILED] = saved;
    }
  });
});
