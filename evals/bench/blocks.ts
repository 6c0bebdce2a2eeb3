/**
 * Game On's blocks world and its learner: environment steps per second of one instance in process and of N simulator
 * processes at once over the bridge (how embodiment scales on this machine's cores), the learner's iteration time, and
 * (`--blocks-learn`) how many episodes it takes to learn lift red and then stack red on green from the base skills.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BridgeClient } from "../../robots/bridge/client";
import { CONTROL_TICK, PARAM_NAMES, clampParams } from "../../robots/msgs/blocks";
import { RunSkillsGoal, type Episode } from "../../robots/msgs/runSkills";
import { SKILL_IDS } from "../../robots/manifests/blocks/skills";
import { BlocksWorld } from "../../robots/sim/blocks";
import { startSimProcess } from "../../robots/sim/process";
import { evaluateSkill, explorePlan } from "../../models/learning/evaluation";
import { learnerIteration } from "../../models/learning/learner";
import { loadBaseSkills, priorPolicy } from "../../models/learning/policy";
import { Rng } from "../../robots/random";
import type { SegmentReturns } from "../../models/learning/relabel";
import type { Figure } from "./agent";

const LIFT_VALUES: Record<string, number> = {
  src_red: 1,
  dst_none: 1,
  close: 1,
  idle_opening: 1,
  carry_z: 0.15,
  speed: 0.4,
};
const LIFT_RED = clampParams(PARAM_NAMES.map((n) => LIFT_VALUES[n] ?? 0));

async function inProcess(episodes: number): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-blocks-"));
  const world = await BlocksWorld.create({ seed: 0, episodesDir: dir });
  try {
    const startedAt = performance.now();
    for (let i = 0; i < episodes; i++)
      await world.runPlan(
        RunSkillsGoal.parse({ steps: [{ skill: "lift_red", params: LIFT_RED, seconds: 4 }], record: false }),
      );
    const wall = (performance.now() - startedAt) / 1000;
    const steps = world.stats.steps;
    return [
      {
        name: "blocks: control steps/s, one instance in process",
        value: steps / wall,
        unit: "steps/s",
        target: ">= 200",
        ok: steps / wall >= 200,
      },
      {
        name: "blocks: simulated seconds per wall second (in process)",
        value: (steps * CONTROL_TICK) / wall,
        unit: "x",
      },
    ];
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Aggregate control steps/s with `processCount` processes each running `episodes` plans back to back over the bridge. */
async function processes(processCount: number, episodes: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "bench-blocks-"));
  const sims = await Promise.all(
    Array.from({ length: processCount }, (_, i) =>
      startSimProcess("blocks", ["--seed", String(i * 100), "--episodes", dir, "--instance", `b${i}`]),
    ),
  );
  try {
    const clients = await Promise.all(sims.map((s) => BridgeClient.connect(s.url)));
    const goal = { steps: [{ skill: "lift_red", params: LIFT_RED, seconds: 4 }], record: true };
    await Promise.all(
      clients.map((c) => c.sendGoal("/arm/run_skills", "robograph_msgs/action/RunSkills", goal).result),
    ); // warm-up
    const startedAt = performance.now();
    let steps = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < episodes; i++)
          steps += (
            (await client.sendGoal("/arm/run_skills", "robograph_msgs/action/RunSkills", goal).result).values as {
              steps: number;
            }
          ).steps;
      }),
    );
    const rate = steps / ((performance.now() - startedAt) / 1000);
    await Promise.all(clients.map((c) => c.close()));
    return rate;
  } finally {
    await Promise.all(sims.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Learner iteration time over every skill of the catalogue on `count` recorded episodes of mixed plans. */
async function learner(count: number): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-blocks-"));
  const sim = await startSimProcess("blocks", ["--episodes", dir]);
  try {
    const client = await BridgeClient.connect(sim.url);
    const rng = new Rng(1);
    const policies = Object.fromEntries(SKILL_IDS.map((k) => [k, priorPolicy(k)]));
    const episodes: Episode[] = [];
    while (episodes.length < count)
      episodes.push(
        ...(
          await explorePlan([client], ["reach_red", "close_gripper", "lift_red"], policies, {
            episodes: Math.min(20, count - episodes.length),
            rng,
            seconds: 2,
          })
        ).episodes,
      );
    await client.close();
    const cache = new WeakMap<Episode, SegmentReturns[]>();
    let startedAt = performance.now();
    learnerIteration(policies, episodes, SKILL_IDS, { cache });
    const cold = performance.now() - startedAt;
    startedAt = performance.now();
    learnerIteration(policies, episodes, SKILL_IDS, { cache });
    const warm = performance.now() - startedAt;
    return [
      {
        name: `blocks learner iteration, 36 skills, ${count} episodes (first, relabelling)`,
        value: cold,
        unit: "ms",
        target: "<= 2000 ms",
        ok: cold <= 2000,
      },
      { name: `blocks learner iteration, 36 skills, ${count} episodes (relabels cached)`, value: warm, unit: "ms" },
    ];
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Learnability from the base skills: lift red, then stack red on green (explored as a lift followed by the stack, and
 * alone), 16 episodes a round over two instances, until the evaluation's final reward exceeds 0.95 on 3 of 4 layouts.
 */
export async function learnability(log: (s: string) => void = () => {}): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-blocks-"));
  const sims = await Promise.all(
    [0, 1].map((i) => startSimProcess("blocks", ["--seed", String(i), "--episodes", dir, "--instance", `l${i}`])),
  );
  const figures: Figure[] = [];
  try {
    const clients = await Promise.all(sims.map((s) => BridgeClient.connect(s.url)));
    const lib = loadBaseSkills();
    const policies = { ...lib.policies };
    const data: Episode[] = [];
    const cache = new WeakMap<Episode, SegmentReturns[]>();
    const rng = new Rng(2);
    for (const [skill, plans] of [
      ["lift_red", [["reach_red", "lift_red"], ["lift_red"]]],
      ["stack_red_on_green", [["lift_red", "stack_red_on_green"], ["stack_red_on_green"]]],
    ] as const) {
      const t0 = performance.now();
      let episodes = 0,
        rounds = 0,
        ok = false;
      while (!ok && rounds < 12) {
        rounds++;
        for (const plan of plans) {
          const got = await explorePlan(clients, plan, policies, { episodes: 8, rng });
          data.push(...got.episodes);
          episodes += got.episodes.length;
        }
        Object.assign(policies, learnerIteration(policies, data, [skill], { cache }).policies);
        const ev = await evaluateSkill(clients, policies[skill]);
        log(`${skill} round ${rounds}: score ${ev.score.toFixed(2)}, success ${ev.successRate}`);
        ok = ev.successRate >= 0.75;
      }
      const seconds = (performance.now() - t0) / 1000;
      figures.push({
        name: `blocks: episodes to learn ${skill} (eval success >= 3/4)`,
        value: ok ? episodes : NaN,
        unit: "episodes",
        target: "<= 192",
        ok: ok && episodes <= 192,
      });
      figures.push({ name: `blocks: wall time to learn ${skill} (2 instances)`, value: seconds, unit: "s" });
    }
    await Promise.all(clients.map((c) => c.close()));
    return figures;
  } finally {
    await Promise.all(sims.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function blocksBenchmarks(quick = false, learn = false): Promise<Figure[]> {
  const figures = await inProcess(quick ? 5 : 20);
  const episodes = quick ? 4 : 12;
  const one = await processes(1, episodes);
  figures.push({ name: "blocks: control steps/s, 1 process over the bridge", value: one, unit: "steps/s" });
  for (const n of [2, 4]) {
    const rate = await processes(n, episodes);
    figures.push({ name: `blocks: control steps/s, ${n} processes at once (aggregate)`, value: rate, unit: "steps/s" });
    figures.push({
      name: `blocks: scaling ${n} processes / 1`,
      value: rate / one,
      unit: "x",
      ...(n === 2 ? { target: ">= 1.3x on 2 cores", ok: rate / one >= 1.3 } : {}),
    });
  }
  figures.push(...(await learner(quick ? 40 : 200)));
  if (learn) figures.push(...(await learnability((s) => console.log(`  ${s}`))));
  return figures;
}
