/**
 * The firewall on the workbench (the behaviour critics' palm): hidden-state twins, driven by the same scripted
 * programs and resets (test/helpers/twins.ts), give the agent identical inputs — the manifest and world description,
 * the camera's frames (decoded) and detections, each program's feedback and result, and the recorded rollout the critic
 * reads from /palm/last_rollout (key frames, the 10 Hz detection track, the controller's narration) — until something
 * the robot can sense differs. Then they differ, at that step and not before.
 *
 * A process serves a scene by name and seed only, so each twin is the named scene served in this process on a loopback
 * port, with its hidden difference set on the world after it is built (and again after every reset, which rebuilds
 * it). The pairs:
 * - the apple's grip limit (30 N, or more than the grip used): only the event monitor knows it — a 40 N grasp is
 *   "squeezed" in one and not the other, and that must reach neither the frames nor the result nor the rollout;
 * - the cube's friction (as authored, or far grippier): identical while nothing touches the cube, different once the
 *   palm sweeps through it and it slides or does not;
 * - the lemon hidden behind the vase, 7.5 cm or 11 cm behind it: identical while the camera cannot see it — a program
 *   that names it goes nowhere in both — until the palm knocks the vase aside and the lemon shows.
 * The detector's noise is on, so a draw that a hidden thing shifted would show. A control pair whose difference is
 * in view from the start shows the comparison can tell at all.
 */
import { describe, expect, it } from "vitest";
import { describeDifference, runTwins, type TwinsOutcome, type TwinStep } from "../helpers/twins";
import type { PrimitiveProgramInput } from "../../robots/msgs/primitives";
import { LAST_ROLLOUT_SERVICE, RESET_SERVICE, type Rollout } from "../../robots/msgs/rollout";
import { serveWorkbench, type WorkbenchWorld } from "../../robots/sim/workbench";
import { pickAndPlace, program, sweepThrough } from "../../robots/sim/workbench/behaviours";
import { CAMERA } from "../../robots/sim/workbench/perception";
import { buildWorkbenchScene } from "../../robots/sim/workbench/scenes";

const SCENE = "apple_plate";
const SEED = 0;
/** Misses and mislabels on: the detector draws for each thing in view, in every frame and every track sample. */
const NOISE = { missRate: 0.1, mislabelRate: 0.05 };
/** The scene both twins start from, as a person scripting the palm reads it (the programs name its things). */
const scene = buildWorkbenchScene(SCENE, SEED);

const run = (programInput: PrimitiveProgramInput): TwinStep => ({
  robot: "palm",
  skill: "run_primitives",
  args: programInput as Record<string, unknown>,
});
const reset: TwinStep = { service: RESET_SERVICE, args: {} };
/** The careful program: the apple onto the plate, gripped with `force` newtons. */
const appleToPlate = (force?: number) => run(program(pickAndPlace(scene, { force })));

/** The twin's hidden difference, set on a freshly built (or reset) world. */
type Hidden = (w: WorkbenchWorld) => void;

/** Serves the scene in this process for each twin, with its hidden difference re-applied after every reset. */
async function twins(
  hidden: [Hidden | null, Hidden | null],
  steps: TwinStep[],
): Promise<TwinsOutcome & { worlds: WorkbenchWorld[] }> {
  const worlds: WorkbenchWorld[] = [];
  const outcome = await runTwins({
    world: "workbench",
    twins: [[], []],
    steps,
    services: [{ name: LAST_ROLLOUT_SERVICE }],
    start: async (_own, i) => {
      const served = await serveWorkbench({ scenario: SCENE, seed: SEED, noise: NOISE, speed: Infinity, port: 0 });
      const world = served.world;
      worlds[i] = world;
      const set = hidden[i];
      if (set) {
        set(world);
        const rebuild = world.reset.bind(world);
        world.reset = (args) => {
          const out = rebuild(args);
          set(world);
          return out;
        };
      }
      return { url: served.server.url, stop: () => served.close() };
    },
  });
  return { ...outcome, worlds };
}

const bodyOf = (w: WorkbenchWorld, name: string) => w.stage.bodyId(name);
const geomsOf = (w: WorkbenchWorld, name: string) => w.stage.bodyGeoms.get(bodyOf(w, name)) ?? [];
/** Pixels of `name` in the camera's full view right now (the truth, for the test's own checks). */
function pixelsOf(world: WorkbenchWorld, name: string): number {
  const gs = new Set(geomsOf(world, name));
  return world.renderFrame().geom.reduce((n, g) => n + (gs.has(g) ? 1 : 0), 0);
}

/** A thing's grip limit: what the event monitor compares a grasp's force with. */
const gripLimit =
  (name: string, newtons: number): Hidden =>
  (world) => {
    world.stage.props[world.stage.thingIndex(name)!].maxGrip = newtons;
  };
/** A thing's sliding friction (MuJoCo takes the larger of two touching geoms': raising it is what shows). */
const friction =
  (name: string, mu: number): Hidden =>
  (world) => {
    const frictions = world.stage.model.geom_friction as Float64Array;
    for (const g of geomsOf(world, name)) frictions[3 * g] = mu;
  };
/** Moves a loose thing `behind` metres straight behind another, as seen from the camera (it rests on the table as before). */
const hiddenBehind =
  (thing: string, occluder: string, behind: number): Hidden =>
  (world) => {
    const stage = world.stage;
    const qpos = stage.data.qpos as Float64Array;
    const adr = (name: string) =>
      (stage.model.jnt_qposadr as Int32Array)[
        stage.mj.mj_name2id(stage.model, stage.mj.mjtObj.mjOBJ_JOINT.value, name)
      ];
    const occluderAdr = adr(occluder),
      thingAdr = adr(thing);
    const dx = qpos[occluderAdr] - CAMERA.eye[0],
      dy = qpos[occluderAdr + 1] - CAMERA.eye[1],
      distance = Math.hypot(dx, dy);
    qpos[thingAdr] = qpos[occluderAdr] + (behind * dx) / distance;
    qpos[thingAdr + 1] = qpos[occluderAdr + 1] + (behind * dy) / distance;
    stage.mj.mj_forward(stage.model, stage.data);
    if (pixelsOf(world, thing) > 0)
      throw new Error(`the ${thing} ${behind} m behind the ${occluder} is in view: not a hidden twin`);
  };

type Result = { ok: boolean; message: string; values: { success: boolean } };
const result = (t: TwinsOutcome["a"], step: number) => t.steps[step].result as Result;
const rollout = (t: TwinsOutcome["a"], step: number) => t.steps[step].services![LAST_ROLLOUT_SERVICE] as Rollout;
const pixels = (t: TwinsOutcome["a"], step: number) => t.steps[step].views.palm.image?.pixels;

describe("workbench twins: identical to the agent until the palm can sense the difference", () => {
  it("the apple's grip limit, known only to the event monitor: identical throughout, though only one logs a squeeze", async () => {
    const steps = [appleToPlate(40), reset, appleToPlate(40)];
    const outcome = await twins([gripLimit("apple", 30), gripLimit("apple", 200)], steps);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBeNull();
    for (const i of [1, 3]) {
      expect(result(outcome.a, i).ok, result(outcome.a, i).message).toBe(true);
      expect(rollout(outcome.a, i).frames.length).toBeGreaterThan(0);
    }
    // The hidden difference is real: the monitor of one logged the squeeze (since the reset), the other's did not.
    const squeezed = (world: WorkbenchWorld) =>
      world.events
        .since()
        .filter((e) => e.kind === "squeezed")
        .map((e) => e.object);
    expect(squeezed(outcome.worlds[0])).toEqual(["apple"]);
    expect(squeezed(outcome.worlds[1])).toEqual([]);
  });

  it("the cube's friction: identical while nothing touches the cube, different once the palm sweeps through it", async () => {
    const steps = [appleToPlate(), run(program(sweepThrough(scene, "cube", 1, 0.3)))];
    const outcome = await twins([null, friction("cube", 2.5)], steps);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(2);
    expect(result(outcome.a, 2).ok && result(outcome.b, 2).ok).toBe(true);
    // The cube went its own way in each: the camera shows it, after the sweep and in the recorded rollout.
    expect(pixels(outcome.b, 2)).not.toBe(pixels(outcome.a, 2));
    expect(rollout(outcome.b, 2).track).not.toEqual(rollout(outcome.a, 2).track);
  });

  it("the lemon hidden behind the vase, nearer or further: a program naming it goes nowhere in both, until the vase is knocked aside", async () => {
    const steps = [
      appleToPlate(),
      // The lemon has not been in view since the scene was set: the palm has nowhere to take it, in either twin.
      run(
        program([
          { op: "move_to", target: "lemon", offset: [0, 0, 0.15] },
          { op: "move_to", target: "home" },
        ]),
      ),
      run(program([{ op: "grasp", object: "lemon", force: 5, width: 0.05 }])),
      // The palm sweeps through the vase, which tips over or aside: the lemon shows, where each twin has it.
      run(program(sweepThrough(scene, "vase", 1, 0.3))),
    ];
    const outcome = await twins([hiddenBehind("lemon", "vase", 0.075), hiddenBehind("lemon", "vase", 0.11)], steps);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(4);
    expect(result(outcome.a, 2).ok).toBe(false);
    expect(result(outcome.a, 3).ok).toBe(false);
    expect(pixels(outcome.b, 4)).not.toBe(pixels(outcome.a, 4));
  });

  it("control: a difference in view from the start differs at once (the comparison can tell)", async () => {
    // The cube 5 cm to the side: where the camera sees it from the first frame.
    const shift: Hidden = (world) => {
      const stage = world.stage;
      const qpos = stage.data.qpos as Float64Array;
      qpos[
        (stage.model.jnt_qposadr as Int32Array)[
          stage.mj.mj_name2id(stage.model, stage.mj.mjtObj.mjOBJ_JOINT.value, "cube")
        ]
      ] += 0.05;
      stage.mj.mj_forward(stage.model, stage.data);
    };
    const outcome = await twins([null, shift], [appleToPlate()]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(0);
    expect(pixels(outcome.b, 0)).not.toBe(pixels(outcome.a, 0));
  });
});
