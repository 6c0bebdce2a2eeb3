/**
 * What the curriculum counts as a success of its plan: the paper's rule on the robot's report — unless the episode
 * started with the task already done (a start with one block on another), which says nothing of the plan. And the
 * episodes a run holds are its own: two campaigns in one process (an MCP or LangGraph server) number theirs alike.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARAM_NAMES, clampParams } from "../../../robots/msgs/blocks";
import { RunSkillsGoal } from "../../../robots/msgs/runSkills";
import { BlocksWorld } from "../../../robots/sim/blocks";
import { episodesOf, keepEpisodes, summarise } from "../../../graphs/curriculum/nodes/episodes";
import { relabel } from "../../../models/learning/relabel";
import type { Run } from "../../../runtime/run";

const paramsOf = (o: Record<string, number>) => clampParams(PARAM_NAMES.map((n) => o[n] ?? 0));
/** A hand that only hovers over red: it moves no block. */
const hover = paramsOf({ src_red: 1, close: 0, idle_opening: 1, reach_dz: 0.15, speed: 0.3 });

describe("a task done at the episode's start is no success", () => {
  let world: BlocksWorld;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "curriculum-episodes-"));
    world = await BlocksWorld.create({ seed: 0, start: "stacked", episodesDir: dir, instance: "t" });
  });
  afterAll(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a plan whose last skill's reward is met from the start: success by the paper's rule, not counted for the task", async () => {
    // A stacked layout with red resting on green.
    let seed = 0;
    for (; seed < 200; seed++) {
      await world.reset({ seed });
      if (world.locate("red_block").place === "green_block") break;
    }
    expect(world.locate("red_block")).toEqual({ relation: "on", place: "green_block" });
    const result = await world.runPlan(
      RunSkillsGoal.parse({ seed, steps: [{ skill: "stack_red_on_green", params: hover, seconds: 1 }], record: true }),
    );
    expect(result.plan_success).toBe(true);
    const ep = world.store.get(result.episode_id!);
    const at = { instance: 0, cycle: 1, purpose: "plan" as const, plan: ["stack red on green"], k: 0 };
    expect(summarise(result, ep, at).success).toBe(true);
    const counted = summarise(result, ep, { ...at, taskSkill: "stack_red_on_green" });
    expect(counted.success).toBe(false);
    expect(counted.doneAtStart).toBe(true);
    // A task the start did not show done is counted as before.
    const other = summarise(result, ep, { ...at, taskSkill: "stack_green_on_red" });
    expect(other.doneAtStart).toBeUndefined();
    expect(other.success).toBe(true);
  });
});

describe("two campaigns in one process", () => {
  const dirs: string[] = [];
  const worlds: BlocksWorld[] = [];
  afterAll(async () => {
    for (const w of worlds.splice(0)) await w.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("each run learns from its own episodes, though both stores name their first one alike", async () => {
    // Two campaigns' first instances: each its own episode store, both instance i0, different layouts.
    const recorded = [];
    for (const seed of [0, 1]) {
      const dir = mkdtempSync(join(tmpdir(), "curriculum-campaign-"));
      dirs.push(dir);
      const world = await BlocksWorld.create({ seed, episodesDir: dir, instance: "i0" });
      worlds.push(world);
      const result = await world.runPlan(
        RunSkillsGoal.parse({ seed, steps: [{ skill: "reach_red", params: hover, seconds: 1 }], record: true }),
      );
      recorded.push(world.store.get(result.episode_id!));
    }
    const [first, second] = recorded;
    expect(first.id).toBe(second.id);
    expect(first.states).not.toEqual(second.states);
    const [runA, runB] = [{}, {}] as Run[];
    keepEpisodes(runA, [first]);
    keepEpisodes(runB, [second]);
    const summary = { id: first.id, instance: 0 } as Parameters<typeof episodesOf>[1][number];
    // Each run holds its own (no robot is asked: the clients are none).
    expect(await episodesOf(runA, [summary], [])).toEqual([first]);
    expect(await episodesOf(runB, [summary], [])).toEqual([second]);
    // The learner's relabelling, with one cache across both, gives each episode its own returns.
    const cache = new WeakMap();
    const alone = relabel([second], "reach_red");
    relabel([first], "reach_red", cache);
    expect(relabel([second], "reach_red", cache)).toEqual(alone);
    expect(alone).not.toEqual(relabel([first], "reach_red"));
  });
});
