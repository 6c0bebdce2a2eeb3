/**
 * The blocks world (Game On): each Appendix-D reward on hand-built states; the catalogue and manifest agree; the world
 * in process (seeded layouts that stand still, the shared controller lifting and stacking under physics, every skill's
 * reward recorded at every step and recomputable from the recorded states); and over the bridge in real processes
 * (several instances at once sharing an episode store, refusals that name the field, reset ending a running plan).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../../robots/bridge/client";
import { GoalStatus } from "../../../robots/bridge/protocol";
import { bundledManifests } from "../../../robots/manifests";
import {
  BLOCK_SIZE,
  PARAM_DIM,
  PARAM_NAMES,
  clampParams,
  stateFromRow,
  type BlockState,
} from "../../../robots/msgs/blocks";
import {
  EPISODES_SERVICE,
  RESET_SERVICE,
  RUN_SKILLS_ACTION,
  RUN_SKILLS_TYPE,
  RunSkillsGoal,
  planSuccess,
  type Episode,
  type RunSkillsResult,
} from "../../../robots/msgs/runSkills";
import {
  SKILLS,
  SKILL_IDS,
  allRewards,
  rewards,
  skillByCaption,
  skillInfo,
  sparse,
} from "../../../robots/manifests/blocks/skills";
import { BlocksWorld, layoutFor } from "../../../robots/sim/blocks";
import { blockInstances } from "../../helpers/blocks";

const at = (x: number, y: number, z: number): [number, number, number] => [x, y, z];
const halfBlock = BLOCK_SIZE / 2;
/** Three blocks apart on the basket floor, the gripper high above, open, holding nothing. */
const apart = (over: Partial<BlockState> = {}): BlockState => ({
  tcp: at(0, 0, 0.25),
  opening: 1,
  grasped: false,
  held: null,
  blocks: { red: at(-0.08, 0, halfBlock), green: at(0, 0.08, halfBlock), blue: at(0.08, 0, halfBlock) },
  ...over,
});
/** A parameter vector from named values (others 0, or their bound when 0 is out of range). */
const paramsOf = (o: Record<string, number>) => clampParams(PARAM_NAMES.map((n) => o[n] ?? 0));
const LIFT_RED = paramsOf({ src_red: 1, dst_none: 1, close: 1, idle_opening: 1, carry_z: 0.15, speed: 0.4 });
const STACK_RED_ON_GREEN = paramsOf({
  src_red: 1,
  dst_green: 1,
  close: 1,
  idle_opening: 1,
  carry_z: 0.12,
  place_dz: 0.04,
  release: 1,
  speed: 0.4,
});

describe("blocks rewards (Appendix D) on hand-built states", () => {
  it("gripper: open is the opening, close its inverse, both in [0, 1]", () => {
    for (const [o, open] of [
      [1, 1],
      [0, 0],
      [0.5, 0.5],
    ]) {
      expect(rewards.open_gripper(apart({ opening: o }))).toBeCloseTo(open);
      expect(rewards.close_gripper(apart({ opening: o }))).toBeCloseTo(1 - open);
    }
  });

  it("grasp anything follows the grasp sensor", () => {
    expect(rewards.grasp_anything(apart())).toBe(0);
    expect(rewards.grasp_anything(apart({ grasped: true, held: "blue" }))).toBe(1);
  });

  it("reach and above decay with the TCP's distance to the block's centre / the point 10 cm over it", () => {
    const state = apart();
    expect(rewards.reach(apart({ tcp: state.blocks.red }), "red")).toBe(1);
    expect(rewards.reach(apart({ tcp: at(-0.08, 0, 0.35) }), "red")).toBeLessThan(0.01);
    const mid = rewards.reach(apart({ tcp: at(-0.08, 0, halfBlock + 0.06) }), "red");
    expect(mid).toBeGreaterThan(0.1);
    expect(mid).toBeLessThan(0.9);
    expect(rewards.reach(apart({ tcp: at(-0.08, 0, halfBlock + 0.03) }), "red")).toBeGreaterThan(mid);
    expect(rewards.above(apart({ tcp: at(-0.08, 0, halfBlock + 0.1) }), "red")).toBe(1);
    expect(rewards.above(apart({ tcp: state.blocks.red }), "red")).toBeLessThan(0.2);
    expect(rewards.above(apart({ tcp: at(-0.08, 0, halfBlock + 0.1) }), "green")).toBeLessThan(0.3);
  });

  it("lift: 0 under 5 cm, 1 over 10 cm, linear between", () => {
    const lifted = (z: number) => rewards.lift(apart({ blocks: { ...apart().blocks, red: at(-0.08, 0, z) } }), "red");
    expect(lifted(halfBlock)).toBe(0);
    expect(lifted(0.049)).toBe(0);
    expect(lifted(0.12)).toBe(1);
    expect(lifted(0.075)).toBeCloseTo(0.5);
    expect(rewards.lift(apart(), "green")).toBe(0);
  });

  it("place X on Y: 1 with X's centre a block above Y's, decaying away; stack also needs the gripper to have let go", () => {
    const on = apart({ blocks: { ...apart().blocks, red: at(0, 0.08, halfBlock + BLOCK_SIZE) } });
    expect(rewards.place(on, "red", "green")).toBe(1);
    expect(rewards.stack(on, "red", "green")).toBe(1);
    expect(rewards.stack({ ...on, grasped: true, held: "red" }, "red", "green")).toBe(0);
    expect(rewards.place({ ...on, grasped: true, held: "red" }, "red", "green")).toBe(1);
    expect(rewards.place(on, "green", "red")).toBeLessThan(0.5);
    const corners = apart({
      blocks: { red: at(-0.14, -0.14, halfBlock), green: at(0.14, 0.14, halfBlock), blue: at(0.14, -0.14, halfBlock) },
    });
    expect(rewards.place(corners, "red", "green")).toBeLessThan(1e-3);
    expect(rewards.stack(corners, "red", "green")).toBeLessThan(1e-3);
    const near = rewards.place(
      apart({ blocks: { ...apart().blocks, red: at(0, 0.08, halfBlock + BLOCK_SIZE + 0.07) } }),
      "red",
      "green",
    );
    expect(near).toBeGreaterThan(0.05);
    expect(near).toBeLessThan(0.95);
  });

  it("unstack X from Y: 0 while X rests on Y or is held, 1 once X is let go a block's width and more away", () => {
    const onGreen = apart({
      blocks: { red: at(0, 0.08, 3 * halfBlock), green: at(0, 0.08, halfBlock), blue: at(0.08, 0, halfBlock) },
    });
    expect(rewards.unstack(onGreen, "red", "green")).toBe(0);
    expect(rewards.unstack(apart(), "red", "green")).toBeGreaterThan(0.999);
    // Set down beside green, touching it: off it.
    expect(
      rewards.unstack(
        apart({
          blocks: { red: at(0.045, 0.08, halfBlock), green: at(0, 0.08, halfBlock), blue: at(0.08, -0.05, halfBlock) },
        }),
        "red",
        "green",
      ),
    ).toBeGreaterThan(0.95);
    // Lifted straight up off it but still held: not done.
    expect(
      rewards.unstack(
        apart({
          grasped: true,
          held: "red",
          blocks: { red: at(0, 0.08, 0.2), green: at(0, 0.08, halfBlock), blue: at(0.08, 0, halfBlock) },
        }),
        "red",
        "green",
      ),
    ).toBe(0);
  });

  it("tower, pyramid and inverted pyramid are products of two stacks", () => {
    const tower = apart({
      blocks: {
        blue: at(0, 0, halfBlock),
        green: at(0, 0, halfBlock + BLOCK_SIZE),
        red: at(0, 0, halfBlock + 2 * BLOCK_SIZE),
      },
    });
    expect(rewards.triple_stack(tower, "red", "green", "blue")).toBe(1);
    expect(rewards.triple_stack(tower, "blue", "green", "red")).toBeLessThan(0.2);
    const half = apart({ blocks: { ...apart().blocks, red: at(0, 0.08, halfBlock + BLOCK_SIZE) } });
    expect(rewards.triple_stack(half, "red", "green", "blue")).toBeLessThan(0.2);
    // A pyramid: green and blue side by side, red across them, half a block off each.
    const pyramid = apart({
      blocks: {
        green: at(-halfBlock, 0, halfBlock),
        blue: at(halfBlock, 0, halfBlock),
        red: at(0, 0, halfBlock + BLOCK_SIZE),
      },
    });
    expect(rewards.pyramid(pyramid, "red", "green", "blue")).toBeGreaterThan(0.95);
    const corners = apart({
      blocks: { red: at(-0.14, -0.14, halfBlock), green: at(0.14, 0.14, halfBlock), blue: at(0.14, -0.14, halfBlock) },
    });
    expect(rewards.pyramid(corners, "red", "green", "blue")).toBeLessThan(1e-3);
    expect(rewards.triple_stack(corners, "red", "green", "blue")).toBeLessThan(1e-3);
    const inverted = apart({
      blocks: {
        green: at(0, 0, halfBlock),
        red: at(-halfBlock, 0, halfBlock + BLOCK_SIZE),
        blue: at(halfBlock, 0, halfBlock + BLOCK_SIZE),
      },
    });
    expect(rewards.inverse_pyramid(inverted, "red", "green", "blue")).toBeGreaterThan(0.95);
    expect(rewards.inverse_pyramid(tower, "red", "green", "blue")).toBeLessThan(0.5);
    expect(rewards.inverse_pyramid({ ...inverted, grasped: true, held: "blue" }, "red", "green", "blue")).toBe(0);
    expect(sparse(0.96)).toBe(1);
    expect(sparse(0.9)).toBe(0);
  });

  it("every catalogue skill's reward is in [0, 1] on every hand-built state", () => {
    for (const s of [
      apart(),
      apart({ opening: 0, grasped: true, held: "red" }),
      apart({ tcp: at(0.08, 0, halfBlock) }),
    ]) {
      for (const r of allRewards(s)) {
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe("blocks catalogue and manifest", () => {
  it("42 skills with unique ids and captions, found by exact caption", () => {
    expect(SKILLS.length).toBe(42);
    expect(new Set(SKILL_IDS).size).toBe(42);
    expect(new Set(SKILLS.map((s) => s.caption)).size).toBe(42);
    expect(skillByCaption("stack red on green")?.id).toBe("stack_red_on_green");
    expect(skillByCaption("Lift Red")?.id).toBe("lift_red");
    expect(skillByCaption("stack the red one on green")).toBeUndefined();
    expect(SKILLS.filter((s) => s.base).map((s) => s.id)).toEqual([
      "open_gripper",
      "close_gripper",
      "grasp_anything",
      "reach_red",
      "reach_green",
      "reach_blue",
    ]);
    expect(() => skillInfo("fly_red")).toThrow(/unknown skill "fly_red"; known: open_gripper/);
  });

  it("the manifest's run_skills schema lists exactly the catalogue and the parameter count", () => {
    const [arm] = bundledManifests("blocks");
    const spec = arm.skills.find((s) => s.name === "run_skills")!;
    expect(spec.action).toBe(RUN_SKILLS_ACTION);
    const items = spec.parameters.properties.steps.items as {
      properties: { skill: { enum: string[] }; params: { minItems: number } };
    };
    expect(items.properties.skill.enum).toEqual([...SKILL_IDS]);
    expect(items.properties.params.minItems).toBe(PARAM_DIM);
  });

  it("plan success is the paper's: each skill above 0.5 in its segment, the last above 0.95", () => {
    expect(planSuccess([{ max: 0.6 }, { max: 0.96 }])).toBe(true);
    expect(planSuccess([{ max: 0.4 }, { max: 0.99 }])).toBe(false);
    expect(planSuccess([{ max: 0.9 }, { max: 0.9 }])).toBe(false);
  });
});

describe("blocks world in process", () => {
  let world: BlocksWorld;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "blocks-test-"));
    world = await BlocksWorld.create({ seed: 3, episodesDir: dir, instance: "t" });
  });
  afterAll(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("seeded layouts: the same seed gives the same blocks, others differ, and blocks left alone stay put", async () => {
    expect(layoutFor(5)).toEqual(layoutFor(5));
    expect(layoutFor(5).blocks.red).not.toEqual(layoutFor(6).blocks.red);
    await world.reset({ seed: 5 });
    const before = world.blockPositions();
    // A gripper that only hovers, fingers half open, for 2 s.
    await world.runPlan(
      RunSkillsGoal.parse({
        steps: [
          {
            skill: "open_gripper",
            params: paramsOf({ close: 0, idle_opening: 0.5, reach_dz: 0.15, speed: 0.3 }),
            seconds: 2,
          },
        ],
        from_current: true,
        record: false,
      }),
    );
    const after = world.blockPositions();
    for (const c of ["red", "green", "blue"])
      expect(Math.hypot(...before[c].map((v, i) => v - after[c][i]))).toBeLessThan(0.002);
    await world.reset({ seed: 5 });
    expect(world.blockPositions()).toEqual(before);
    expect(world.hasNaN()).toBe(false);
  });

  it("starts other than the floor: a block on another (or a tower), leaning against another, or in the gripper — and the detector reports the support it sees", async () => {
    // The floor's layouts are what they were before other starts existed.
    expect(layoutFor(9, "floor")).toEqual(layoutFor(9));
    const kinds = { stacked: 0, tower: 0, leaning: 0, held: 0 };
    for (const start of ["stacked", "leaning", "held"] as const) {
      const started = await BlocksWorld.create({ seed: 40, start, episodesDir: dir, instance: `s-${start}` });
      try {
        for (let seed = 40; seed < 52; seed++) {
          await started.reset({ seed });
          expect(started.hasNaN()).toBe(false);
          const seen = (await started.renderCamera()).detections.detections;
          const pos = started.blockPositions();
          for (const c of ["red", "green", "blue"]) {
            const truth = started.locate(`${c}_block`);
            const detection = seen.find((x) => x.label === `${c}_block`)!;
            // Support as the detector works it out from pixels, agreeing with the world's own account.
            expect(detection.location, `${start} ${seed} ${c}`).toEqual(truth);
            // Inside the basket, above its floor.
            expect(Math.max(Math.abs(pos[c][0]), Math.abs(pos[c][1]))).toBeLessThan(0.16);
          }
          const on = ["red", "green", "blue"].filter((c) => started.locate(`${c}_block`).relation === "on").length;
          if (start === "stacked") {
            expect(on).toBeGreaterThanOrEqual(1);
            kinds.stacked++;
            if (on === 2) kinds.tower++;
          }
          if (start === "held") {
            expect(seen.filter((d) => d.location.relation === "held_by")).toHaveLength(1);
            kinds.held++;
          }
          // Leaning: tilted, its centre above half a block, resting against another (which did not move).
          if (start === "leaning" && ["red", "green", "blue"].some((c) => pos[c][2] > halfBlock + 0.003))
            kinds.leaning++;
        }
      } finally {
        await started.close();
      }
    }
    expect(kinds.stacked).toBe(12);
    expect(kinds.tower).toBeGreaterThan(0);
    expect(kinds.held).toBe(12);
    // Leaning layouts come to rest leaning (one in forty or so slides down flat).
    expect(kinds.leaning).toBeGreaterThanOrEqual(11);
  });

  it("the controller grasps and lifts red under physics; stacking red on green leaves it resting there, seen by the camera", async () => {
    const lift = await world.runPlan(
      RunSkillsGoal.parse({ steps: [{ skill: "lift_red", params: LIFT_RED, seconds: 4 }], seed: 11 }),
    );
    expect(lift.segments[0].final).toBe(1);
    expect(lift.final_rewards.grasp_anything).toBe(1);
    expect(world.events.since().some((e) => e.kind === "picked" && e.object === "red_block")).toBe(true);
    const stack = await world.runPlan(
      RunSkillsGoal.parse({
        steps: [
          { skill: "stack_red_on_green", params: STACK_RED_ON_GREEN, seconds: 4 },
          {
            skill: "open_gripper",
            params: paramsOf({ close: 0, idle_opening: 1, src_green: 1, reach_dz: 0.16, speed: 0.3 }),
            seconds: 1,
          },
        ],
        seed: 12,
      }),
    );
    expect(stack.segments[0].final).toBeGreaterThan(0.95);
    expect(stack.final_rewards.stack_red_on_green).toBeGreaterThan(0.95);
    expect(stack.plan_success).toBe(true);
    const seen = await world.renderCamera("arm");
    const red = seen.detections.detections.find((d) => d.label === "red_block");
    expect(red?.location).toEqual({ relation: "on", place: "green_block" });
    expect(seen.detections.detections.find((d) => d.label === "green_block")?.color).toBe("green");
  });

  it("where a block is comes from its depth pixels and the gripper's own grasp, not from the world's record", async () => {
    await world.reset({ seed: 3 });
    const internals = world as unknown as {
      st: { held: number };
      mech: { things: unknown[] };
      blocks: unknown[];
      data: { qpos: Float64Array };
      model: { jnt_qposadr: Int32Array };
      mj: {
        mj_name2id(m: unknown, t: number, n: string): number;
        mj_forward(m: unknown, d: unknown): void;
        mjtObj: { mjOBJ_JOINT: { value: number } };
      };
    };
    const seen = async () =>
      Object.fromEntries((await world.renderCamera("arm")).detections.detections.map((d) => [d.label, d.location]));
    expect(Object.values(await seen())).toEqual([
      { relation: "in", place: "basket" },
      { relation: "in", place: "basket" },
      { relation: "in", place: "basket" },
    ]);
    // The world's grasp latched on red while red lies on the basket floor, far from the fingers: not held, to the camera.
    internals.st.held = internals.mech.things.indexOf(internals.blocks[0]);
    expect(world.locate("red_block")).toEqual({ relation: "held_by", place: "gripper" });
    expect((await seen()).red_block).toEqual({ relation: "in", place: "basket" });
    internals.st.held = -1;
    // Red set on blue by hand: seen on blue.
    const addr = (jointName: string) =>
      internals.model.jnt_qposadr[
        internals.mj.mj_name2id(internals.model, internals.mj.mjtObj.mjOBJ_JOINT.value, jointName)
      ];
    const blue = world.blockPositions().blue;
    internals.data.qpos.set([blue[0], blue[1], blue[2] + BLOCK_SIZE], addr("red_block"));
    internals.mj.mj_forward(internals.model, internals.data);
    expect((await seen()).red_block).toEqual({ relation: "on", place: "blue_block" });
  });

  it("an episode records every skill's reward at every state, and they follow from the recorded states", async () => {
    const result = await world.runPlan(
      RunSkillsGoal.parse({
        steps: [
          {
            skill: "reach_blue",
            params: paramsOf({ src_blue: 1, close: 0, idle_opening: 0.2, speed: 0.3 }),
            seconds: 1.5,
          },
          { skill: "lift_red", params: LIFT_RED, seconds: 2 },
        ],
        seed: 13,
      }),
    );
    const ep = world.store.get(result.episode_id!) as Episode;
    expect(existsSync(join(dir, `${ep.id}.json`))).toBe(true);
    expect(ep.states.length).toBe(ep.actions.length + 1);
    expect(ep.rewards.length).toBe(ep.states.length);
    expect(ep.plan.map((p) => [p.skill, p.start, p.end])).toEqual([
      ["reach_blue", 0, 30],
      ["lift_red", 30, 70],
    ]);
    for (const row of ep.rewards) expect(row.length).toBe(SKILL_IDS.length);
    ep.states.forEach((row, step) => {
      const again = allRewards(stateFromRow(row));
      again.forEach((v, k) => expect(Math.abs(v - ep.rewards[step][k])).toBeLessThan(0.01));
    });
    expect(Math.max(...ep.rewards.slice(1, 31).map((row) => row[SKILL_IDS.indexOf("reach_blue")]))).toBeGreaterThan(
      0.9,
    );
  });
});

describe("blocks world over the bridge (real processes)", () => {
  const instances = blockInstances("b", [0, 100]);

  const send = (client: BridgeClient, goal: unknown) =>
    client.sendGoal(RUN_SKILLS_ACTION, RUN_SKILLS_TYPE, goal, { timeoutMs: 60_000 });

  it("two instances run plans at once, each episode stored under its own id in the shared store and fetched by id", async () => {
    const goal = { steps: [{ skill: "lift_red", params: LIFT_RED, seconds: 3 }] };
    const results = await Promise.all(instances.clients.map((c) => send(c, goal).result));
    const values = results.map((r) => r.values as RunSkillsResult);
    expect(results.map((r) => r.status)).toEqual([GoalStatus.SUCCEEDED, GoalStatus.SUCCEEDED]);
    expect(values[0].episode_id).toMatch(/^b0-/);
    expect(values[1].episode_id).toMatch(/^b1-/);
    expect(values[0].seed).not.toBe(values[1].seed);
    for (const v of values) expect(existsSync(join(instances.dir, `${v.episode_id}.json`))).toBe(true);
    // Either instance serves any episode of the shared store.
    const got = await instances.clients[0].callService<{ episodes: Episode[] }>(EPISODES_SERVICE, {
      ids: values.map((v) => v.episode_id),
    });
    expect(got.episodes.map((e) => e.id)).toEqual(values.map((v) => v.episode_id));
    expect(got.episodes[1].rewards[0].length).toBe(SKILL_IDS.length);
  }, 60_000);

  it("bad goals are refused with the field named", async () => {
    const bad = async (goal: unknown) => {
      const result = await send(instances.clients[0], goal).result;
      expect(result.status).toBe(GoalStatus.ABORTED);
      return String((result.values as { error: string }).error);
    };
    expect(
      await bad({ steps: [{ skill: "lift_red", params: LIFT_RED.map((v, i) => (i === 13 ? 2 : v)), seconds: 2 }] }),
    ).toMatch(/steps\.0\.params\.13: carry_z must be in \[0\.03, 0\.25\], got 2/);
    expect(await bad({ steps: [{ skill: "lift_purple", params: LIFT_RED, seconds: 2 }] })).toMatch(
      /steps\.0\.skill: not a skill of the catalogue/,
    );
    expect(await bad({ steps: [{ skill: "lift_red", params: LIFT_RED.slice(0, 5), seconds: 2 }] })).toMatch(
      /steps\.0\.params: a parameter vector has 17 numbers/,
    );
    expect(await bad({ steps: [] })).toMatch(/steps:/);
    await expect(instances.clients[0].callService(EPISODES_SERVICE, { ids: ["nope-1"] })).rejects.toThrow(
      /no episode nope-1/,
    );
  }, 30_000);

  it("reset ends a running plan, loads the requested layout and clears the episode history", async () => {
    // A minute of simulated time: at full speed on a quiet machine a 20 s plan could end before the reset arrives.
    const step = { skill: "lift_red", params: LIFT_RED, seconds: 20 };
    const long = send(instances.clients[1], { steps: [step, step, step] });
    await new Promise((r) => setTimeout(r, 300));
    const reset = await instances.clients[1].callService<{ seed: number; success: boolean }>(RESET_SERVICE, {
      seed: 42,
    });
    expect(reset).toMatchObject({ seed: 42, success: true });
    const result = await long.result;
    expect(result.status).toBe(GoalStatus.CANCELED);
    const since = await instances.clients[1].callService<{ episodes: Episode[]; total: number }>(EPISODES_SERVICE, {
      since: 0,
    });
    expect(since.total).toBe(0);
    await expect(instances.clients[1].callService(RESET_SERVICE, { seed: -1 })).rejects.toThrow(/seed/);
  }, 60_000);
});
