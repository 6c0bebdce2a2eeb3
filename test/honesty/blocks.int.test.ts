/**
 * The firewall on the blocks world (Game On's arm and basket): hidden-state twins, driven by the same scripted plans
 * (test/helpers/twins.ts), give the agent identical inputs — the manifest and world description, the camera's frames
 * (decoded) and detections, each plan's feedback and result, and the recorded episodes the learner fetches from
 * /arm/episodes — until something the arm senses differs. Game On's learner reads the blocks' state (their centres,
 * the gripper, its grasp) and every skill's reward at every step; that is what the robot senses here, so a block that
 * moves differently is observable the moment it does.
 *
 * A process takes only a seed, so each twin is the world served in this process on a loopback port, its hidden
 * difference set after it is built. The pairs:
 * - the blue block's damping (how fast its own motion dies away: none, as authored, or a felt-like drag) — inert while
 *   it rests: identical while the plans leave it alone, different once the red block is pushed into it;
 * - the evaluator: one twin is scored throughout — a scorer polling /evaluator/check and /evaluator/events on its own
 *   connection while the plans run, as the experiment runner scores an episode — and shares its episode store with
 *   another instance's recorded episodes; the other is never scored and has a store of its own: identical throughout
 *   (what the evaluator is asked and answers, and what else the store holds, change nothing the agent gets).
 * The detector's noise is on, so a draw that something hidden shifted would show. A control pair whose difference is
 * in view from the start shows the comparison can tell at all.
 *
 * Stripped besides what the harness strips: an episode's `created`, the wall-clock time it was written (not the
 * robot's; the episode's own clock is its tick count).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeDifference, runTwins, type TwinsOutcome, type TwinStep } from "../helpers/twins";
import { BridgeClient } from "../../robots/bridge/client";
import { PARAM_NAMES } from "../../robots/msgs/blocks";
import { EPISODES_SERVICE, type Episode, type RunSkillsResult } from "../../robots/msgs/runSkills";
import { serveBlocks, type BlocksWorld } from "../../robots/sim/blocks";

const SEED = 11;
/** Misses and mislabels on: the detector draws for each block in view, every frame. */
const NOISE = { missRate: 0.2, mislabelRate: 0.1 };

/** A parameter vector: the source block, the destination (null: hold it up), and any named parameter overridden. */
function params(src: 0 | 1 | 2, dst: 0 | 1 | 2 | null, set: Record<string, number> = {}): number[] {
  const vector = [-1, -1, -1, -1, -1, -1, -1, 1, 1, 0, 0, 0, 0, 0.15, 0.045, 1, 0.3];
  vector[src] = 1;
  vector[3 + (dst ?? 3)] = 1;
  for (const [name, v] of Object.entries(set)) vector[PARAM_NAMES.indexOf(name as (typeof PARAM_NAMES)[number])] = v;
  return vector;
}
const plan = (skill: string, vector: number[], seconds: number, seed = SEED): TwinStep => ({
  robot: "arm",
  skill: "run_skills",
  args: { seed, steps: [{ skill, params: vector, seconds }] },
});

/** Red lifted, then stacked on green: the blue block is never touched. */
const leaveBlueAlone = [plan("lift_red", params(0, null), 4), plan("stack_red_on_green", params(0, 1), 6)];
/** Red carried at floor height towards blue (no rise before travelling): it ploughs into blue and shoves it. */
const shoveBlue = plan("stack_red_on_blue", params(0, 2, { carry_z: 0.03, place_dz: 0 }), 6);

type Hidden = (w: BlocksWorld) => void;
/** Something a twin has besides its world (a scorer on its own connection), given its bridge and episode store; stopped with it. */
type Companion = (twin: { url: string; dir: string }) => Promise<() => Promise<void>>;

/** Serves the blocks world in this process for each twin (each with its own episode store). */
async function twins(
  setUp: [Hidden | null, Hidden | null],
  steps: TwinStep[],
  companions: [Companion | null, Companion | null] = [null, null],
): Promise<TwinsOutcome> {
  return runTwins({
    world: "blocks",
    twins: [[], []],
    steps,
    services: [{ name: EPISODES_SERVICE, args: {} }],
    ignore: ["created"],
    start: async (_own, i) => {
      const dir = mkdtempSync(join(tmpdir(), "twins-blocks-"));
      const served = await serveBlocks({
        seed: SEED,
        noise: NOISE,
        speed: Infinity,
        port: 0,
        episodesDir: dir,
        instance: "twin",
      });
      setUp[i]?.(served.world);
      const stopCompanion = (await companions[i]?.({ url: served.server.url, dir })) ?? (async () => {});
      return {
        url: served.server.url,
        async stop() {
          await stopCompanion();
          await served.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });
}

/** Damping on each of a block's six degrees of freedom (a force against its own velocity: nothing while it rests). */
const damping =
  (block: string, coefficient: number): Hidden =>
  (world) => {
    const internals = world as unknown as {
      model: { jnt_dofadr: Int32Array; dof_damping: Float64Array };
      mj: { mj_name2id(...a: unknown[]): number; mjtObj: Record<string, { value: number }> };
    };
    const dof =
      internals.model.jnt_dofadr[
        internals.mj.mj_name2id(internals.model, internals.mj.mjtObj.mjOBJ_JOINT.value, block)
      ];
    for (let k = 0; k < 6; k++) internals.model.dof_damping[dof + k] = coefficient;
  };

/**
 * A scorer polling the evaluator services every 20 ms on its own connection, as an experiment's scorer asks them; and
 * the episode store shared with another instance that has recorded already (a curriculum's instances share one).
 */
const scorer: Companion = async ({ url, dir }) => {
  for (let k = 1; k <= 3; k++)
    writeFileSync(
      join(dir, `other-0000${k}.json`),
      JSON.stringify({
        id: `other-0000${k}`,
        instance: "other",
        seed: 100 + k,
        plan: [],
        states: [],
        actions: [],
        rewards: [],
      }),
    );
  const client = await BridgeClient.connect(url);
  let asked = 0;
  const timer = setInterval(() => {
    asked++;
    void client.callService("/evaluator/check").catch(() => {});
    void client.callService("/evaluator/events", { since: 0 }).catch(() => {});
  }, 20);
  return async () => {
    clearInterval(timer);
    await client.close();
    if (asked < 10) throw new Error(`the scorer asked only ${asked} times: it did not score the run`);
  };
};

const result = (transcript: TwinsOutcome["a"], step: number) =>
  (transcript.steps[step].result as { ok: boolean; values: RunSkillsResult }).values;
const episodes = (transcript: TwinsOutcome["a"], step: number) =>
  (transcript.steps[step].services![EPISODES_SERVICE] as { episodes: Episode[] }).episodes;
const blueColumns = (e: Episode) => e.states.map((row) => row.slice(12, 15));

describe("blocks twins: identical to the agent until the arm can sense the difference", () => {
  it("the blue block's damping: identical while the plans leave it alone, different once red is pushed into it", async () => {
    const outcome = await twins([null, damping("blue_block", 2)], [...leaveBlueAlone, shoveBlue]);
    for (const side of [outcome.a, outcome.b])
      for (const i of [1, 2, 3])
        expect((side.steps[i].result as { ok: boolean }).ok, JSON.stringify(side.steps[i].result)).toBe(true);
    expect(result(outcome.a, 2).plan_success).toBe(true);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(3);
    // Sensed: the recorded states of the blue block, which moved when red reached it, and moved otherwise.
    const [ea, eb] = [episodes(outcome.a, 3)[2], episodes(outcome.b, 3)[2]];
    expect(blueColumns(ea)[0]).toEqual(blueColumns(eb)[0]);
    expect(blueColumns(eb)).not.toEqual(blueColumns(ea));
    expect(blueColumns(ea).at(-1)).not.toEqual(blueColumns(ea)[0]);
  });

  it("scored by the evaluator throughout (its store shared with another instance), or never: identical throughout", async () => {
    const outcome = await twins([null, null], [...leaveBlueAlone, shoveBlue], [scorer, null]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBeNull();
    expect(episodes(outcome.a, 3)).toHaveLength(3);
  });

  it("control: a difference in view from the start differs at once (the comparison can tell)", async () => {
    // The blue block 3 cm to the side in the layout the world starts with (the first plan sets a layout of its own).
    const shift: Hidden = (world) => {
      const internals = world as unknown as {
        model: { jnt_qposadr: Int32Array };
        data: { qpos: Float64Array };
        mj: {
          mj_name2id(...a: unknown[]): number;
          mj_forward(...a: unknown[]): void;
          mjtObj: Record<string, { value: number }>;
        };
      };
      internals.data.qpos[
        internals.model.jnt_qposadr[
          internals.mj.mj_name2id(internals.model, internals.mj.mjtObj.mjOBJ_JOINT.value, "blue_block")
        ]
      ] += 0.03;
      internals.mj.mj_forward(internals.model, internals.data);
    };
    const outcome = await twins([null, shift], [leaveBlueAlone[0]]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(0);
    expect(outcome.b.steps[0].views.arm.image?.pixels).not.toBe(outcome.a.steps[0].views.arm.image?.pixels);
  });
});
