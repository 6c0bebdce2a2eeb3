/**
 * Skill learning for the blocks world (agent side): relabelling gives every skill's return for every segment of a
 * recorded episode; a learner iteration moves a skill's Gaussian towards what scored well and leaves a skill without
 * signal alone; and a real learning run — two simulator processes over the bridge, a fixed seed — raises lift red's
 * evaluation return above that of its initial parameters.
 */
import { describe, expect, it } from "vitest";
import { blockInstances } from "../helpers/blocks";
import { PARAM_DIM, PARAM_NAMES, clampParams } from "../../robots/msgs/blocks";
import { SKILL_IDS } from "../../robots/manifests/blocks/skills";
import { type Episode } from "../../robots/msgs/runSkills";
import { InvalidPlanError, fetchEpisodes, runSkills } from "../../models/learning/client";
import { evaluateSkill, explorePlan } from "../../models/learning/evaluation";
import { learnerIteration } from "../../models/learning/learner";
import { loadBaseSkills, priorPolicy, samplePolicy } from "../../models/learning/policy";
import { Rng } from "../../robots/random";
import { relabel, segmentReturns } from "../../models/learning/relabel";
import { trainSkills } from "../../models/learning/train";

const paramsOf = (o: Record<string, number>) => clampParams(PARAM_NAMES.map((n) => o[n] ?? 0));
const col = (k: string) => SKILL_IDS.indexOf(k);
const CARRY = PARAM_NAMES.indexOf("carry_z");

/** A hand-built episode of one segment per params vector, in which skill `lift_red` scores `score(params)` at every step. */
function syntheticEpisode(id: string, segments: number[][], score: (p: number[]) => number): Episode {
  const steps = 4;
  const rewards: number[][] = [new Array(SKILL_IDS.length).fill(0)];
  const plan = segments.map((params, i) => {
    for (let t = 0; t < steps; t++) {
      const row = new Array(SKILL_IDS.length).fill(0);
      row[col("lift_red")] = score(params);
      rewards.push(row);
    }
    return { skill: "open_gripper", params, seconds: 0.2, start: i * steps, end: (i + 1) * steps };
  });
  return {
    id,
    instance: "hand",
    seed: 0,
    purpose: "explore",
    tick: 0.05,
    created: "",
    state_fields: [],
    action_fields: [],
    skills: SKILL_IDS,
    plan,
    states: rewards.map(() => []),
    actions: rewards.slice(1).map(() => []),
    rewards,
    plan_success: false,
  };
}

describe("relabelling and the learner on hand-built episodes", () => {
  it("a segment's returns are the mean of every skill's recorded rewards over its steps; segments starting already done are left out", () => {
    const ep = syntheticEpisode("e1", [paramsOf({ carry_z: 0.1 }), paramsOf({ carry_z: 0.2 })], (p) => p[CARRY]);
    const segs = segmentReturns(ep);
    expect(segs).toHaveLength(2);
    expect(Object.keys(segs[0].returns)).toEqual([...SKILL_IDS]);
    expect(segs[0].returns.lift_red).toBeCloseTo(0.1);
    expect(segs[1].returns.lift_red).toBeCloseTo(0.2);
    expect(segs[1].returns.open_gripper).toBe(0);
    // Make the second segment start with lift red already done: it no longer teaches lift red.
    ep.rewards[4][col("lift_red")] = 0.9;
    expect(relabel([ep], "lift_red").map((s) => s.segment)).toEqual([0]);
    expect(relabel([ep], "open_gripper")).toHaveLength(2);
  });

  it("one iteration moves the mean towards the parameters that scored well, narrows the spread, and leaves a skill without signal alone", () => {
    const rng = new Rng(3);
    const prior = priorPolicy("lift_red");
    const segments = Array.from({ length: 60 }, () => samplePolicy(prior, rng));
    // Reward peaks at carry_z = 0.22, near the top of its range; the prior's mean is 0.14.
    const episodes = segments.map((segment, i) =>
      syntheticEpisode(`e2-${i}`, [segment], (p) => Math.max(0, 1 - Math.abs(p[CARRY] - 0.22) / 0.2)),
    );
    const { policies, stats } = learnerIteration({}, episodes, ["lift_red", "stack_red_on_green"]);
    expect(stats.lift_red.updated).toBe(true);
    expect(stats.lift_red.samples).toBe(60);
    expect(policies.lift_red.mean[CARRY]).toBeGreaterThan(prior.mean[CARRY] + 0.03);
    expect(policies.lift_red.std[CARRY]).toBeLessThan(prior.std[CARRY]);
    expect(policies.lift_red.mean).toHaveLength(PARAM_DIM);
    expect(stats.stack_red_on_green.updated).toBe(false);
    expect(policies.stack_red_on_green.mean).toEqual(priorPolicy("stack_red_on_green").mean);
  });
});

describe("skill learning over the bridge (two simulator processes)", () => {
  const instances = blockInstances("l", [0, 1]);

  it("a recorded episode relabelled gives its returns for every skill, matching the robot's own segment report", async () => {
    const lift = paramsOf({ src_red: 1, dst_none: 1, close: 1, idle_opening: 1, carry_z: 0.15, speed: 0.4 });
    const result = await runSkills(instances.clients[0], {
      steps: [
        { skill: "reach_blue", params: paramsOf({ src_blue: 1, close: 0, speed: 0.3 }), seconds: 1.5 },
        { skill: "lift_red", params: lift, seconds: 3 },
      ],
      seed: 7,
    });
    const [ep] = await fetchEpisodes(instances.clients[0], { ids: [result.episode_id!] });
    const segs = segmentReturns(ep);
    expect(segs.map((s) => s.skill)).toEqual(["reach_blue", "lift_red"]);
    expect(segs[1].returns.lift_red).toBeCloseTo(result.segments[1].mean, 6);
    expect(segs[0].returns.reach_blue).toBeCloseTo(result.segments[0].mean, 6);
    for (const s of segs) expect(Object.keys(s.returns)).toHaveLength(SKILL_IDS.length);
    // The lift segment is also a sample for grasping: the gripper closed on red during it.
    expect(segs[1].returns.grasp_anything).toBeGreaterThan(0.3);
    expect(relabel([ep], "grasp_anything").find((x) => x.segment === 1)?.ranFor).toBe("lift_red");
  }, 30_000);

  it("a bad plan is refused before it is sent, naming the field", async () => {
    await expect(
      runSkills(instances.clients[0], {
        steps: [{ skill: "lift_red", params: new Array(PARAM_DIM).fill(0), seconds: 1 }],
      }),
    ).rejects.toThrow(InvalidPlanError);
    await expect(
      runSkills(instances.clients[0], {
        steps: [{ skill: "lift_red", params: new Array(PARAM_DIM).fill(0), seconds: 1 }],
      }),
    ).rejects.toThrow(/steps\.0\.params\.13: carry_z must be in/);
    await expect(
      runSkills(instances.clients[0], { steps: [{ skill: "lift_red", params: paramsOf({}), seconds: 99 }] }),
    ).rejects.toThrow(/steps\.0\.seconds/);
  });

  it("on a fixed seed, a few learner iterations raise lift red's evaluation return above its initial parameters'", async () => {
    const rng = new Rng(11);
    const initial = await evaluateSkill(instances.clients, priorPolicy("lift_red"));
    const { library, data } = await trainSkills(
      instances.clients,
      { policies: {}, curves: {} },
      { skills: ["lift_red"], iterations: 3, episodesPerPlan: 8, rng },
    );
    const curve = library.curves.lift_red;
    expect(curve[0]).toBeCloseTo(initial.score, 6);
    expect(data).toHaveLength(24);
    expect(curve).toHaveLength(4);
    expect(curve[3]).toBeGreaterThan(initial.score + 0.3);
    const final = await evaluateSkill(instances.clients, library.policies.lift_red);
    expect(final.successRate).toBeGreaterThanOrEqual(0.75);
  }, 90_000);

  it("explorePlan fans a plan out over both instances; the base-skill library loads and its skills run", async () => {
    const base = loadBaseSkills();
    expect(Object.keys(base.policies).sort()).toEqual([
      "close_gripper",
      "grasp_anything",
      "open_gripper",
      "reach_blue",
      "reach_green",
      "reach_red",
    ]);
    const { results, episodes } = await explorePlan(instances.clients, ["reach_red", "close_gripper"], base.policies, {
      episodes: 4,
      rng: new Rng(5),
    });
    expect(new Set(episodes.map((e) => e.instance))).toEqual(new Set(["l0", "l1"]));
    expect(results.every((r) => r.segments.length === 2)).toBe(true);
    const reach = await evaluateSkill(instances.clients, base.policies.reach_red);
    expect(reach.score).toBeGreaterThan(0.6);
  }, 60_000);
});
