/**
 * The firewall on the tabletop: a lock is hidden state. A cabinet locked by a lever, and the same scene with the lever
 * locking nothing (`lever` / `lever_decoy`), give the agent the same inputs — world description, manifests, skill
 * results, detections, frames — until something it can observe differs: the door does not open. So do a cabinet
 * locked by a weight plate and its twin with a decoy plate (`sensor` / `sensor_decoy`). Each pair is driven by the
 * same scripted skill calls (test/helpers/twins.ts), never by the agent.
 *
 * Generated scenes are held to the same rule without processes: a mechanism is listed the same way whether it locks a
 * door or is a decoy, and nothing a scene's description says depends on its locks.
 */
import { describe, expect, it } from "vitest";
import { describeDifference, runTwins, type TwinStep } from "../helpers/twins";
import { openDoor, place, pullLever, type MotionInput } from "../../robots/sim/tabletop/motions";
import { buildScene } from "../../robots/sim/tabletop/scenes";
import { describeScene, listScenes, sceneOf } from "../../robots/sim/tabletop/scenario";
import { generateTabletop } from "../../robots/sim/tabletop/generate";

const ARGS = ["--speed", "max", "--seed", "0"];
const motion = (input: MotionInput): TwinStep => ({
  robot: "palm",
  skill: "execute_motion",
  args: input as unknown as Record<string, unknown>,
});
const twins = (sceneA: string, sceneB: string, steps: TwinStep[]) =>
  runTwins({
    world: "tabletop",
    args: ARGS,
    twins: [
      ["--scenario", sceneA],
      ["--scenario", sceneB],
    ],
    steps,
  });

const PULL = motion(pullLever("lever_handle", "lever"));
const OPEN_CABINET = motion(openDoor("cabinet_handle", "cabinet_door"));
const KEY_ON_PLATE = motion(place("red_cube", "weight_sensor"));
const OPEN_STONE = motion(openDoor("stone_cabinet_handle", "stone_cabinet_door"));

type Result = { ok: boolean; message: string };
const resultOf = (t: Awaited<ReturnType<typeof twins>>["a"], step: number) => t.steps[step].result as Result;

describe("a lever that locks the cabinet and one that locks nothing (lever / lever_decoy)", () => {
  it("working the lever first: identical throughout, the door opening in both", async () => {
    const outcome = await twins("lever", "lever_decoy", [PULL, OPEN_CABINET]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBeNull();
    expect(resultOf(outcome.a, 2).ok).toBe(true);
    // The lever and its handle are listed, the same way, in both.
    const world = outcome.a.steps[0].manifest!.world as { joints: { name: string; description: string }[] };
    expect(world.joints.map((j) => j.name)).toEqual(["cabinet_door", "lever"]);
  }, 120_000);

  it("opening first: identical connection, then the door opens in the decoy twin only — the first observable difference", async () => {
    const outcome = await twins("lever", "lever_decoy", [OPEN_CABINET]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(1);
    expect([resultOf(outcome.a, 1).ok, resultOf(outcome.b, 1).ok]).toEqual([false, true]);
  }, 120_000);
});

describe("a weight plate that locks the cabinet and one that locks nothing (sensor / sensor_decoy)", () => {
  it("the key on the plate first: identical throughout, the door opening in both", async () => {
    const outcome = await twins("sensor", "sensor_decoy", [KEY_ON_PLATE, OPEN_STONE]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBeNull();
    expect(resultOf(outcome.a, 2).ok).toBe(true);
  }, 120_000);

  it("opening first: identical connection, then the door opens in the decoy twin only", async () => {
    const outcome = await twins("sensor", "sensor_decoy", [OPEN_STONE]);
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(1);
    expect([resultOf(outcome.a, 1).ok, resultOf(outcome.b, 1).ok]).toEqual([false, true]);
  }, 120_000);
});

describe("descriptions never depend on locks", () => {
  it("no hand-made scene's description speaks of a lock, a block or a bar across anything", () => {
    for (const name of listScenes()) {
      const text = JSON.stringify(describeScene(sceneOf(name))).toLowerCase();
      expect(text, name).not.toMatch(/\block|unlock|latch|blocked|barred|decoy/);
    }
  });

  it("each hand-made twin is its scene but for the lock", () => {
    for (const [locked, decoy] of [
      ["lever", "lever_decoy"],
      ["sensor", "sensor_decoy"],
    ] as const) {
      const lockedScene = buildScene(locked),
        decoyScene = buildScene(decoy);
      expect(lockedScene.locks.length).toBe(1);
      expect(decoyScene.locks).toEqual([]);
      expect({ ...decoyScene, name: locked, locks: lockedScene.locks }).toEqual(lockedScene);
    }
  });

  it("generated scenes: a lever or a plate is listed the same way whether it locks a door or not, and no text speaks of a lock", () => {
    const scenes = Array.from({ length: 300 }, (_, i) => generateTabletop(i));
    const listing = (generated: (typeof scenes)[number]) => {
      const described = describeScene(generated.spec);
      const lever = described.joints?.find((j) => j.name === "lever");
      return {
        lever: lever
          ? { ...lever, description: lever.description.replace(/the [a-z ]+ cabinet/, "the CABINET") }
          : undefined,
        plate: described.places.find((p) => p.name === "weight_sensor"),
        names: Object.fromEntries(Object.entries(described.names ?? {}).filter(([n]) => /lever|weight_sensor/.test(n))),
      };
    };
    const by = (obstacle: string, decoy: string) => ({
      locking: scenes.filter((g) => g.obstacles.includes(obstacle as never)),
      decoys: scenes.filter((g) => g.decoys.includes(decoy as never)),
    });
    for (const [obstacle, decoy, part] of [
      ["lever lock", "lever", "lever"],
      ["weight-sensor lock", "weight plate", "plate"],
    ] as const) {
      const { locking, decoys } = by(obstacle, decoy);
      // Both kinds are common: a listed mechanism locks a door about as often as not.
      expect(locking.length, obstacle).toBeGreaterThan(20);
      expect(decoys.length, decoy).toBeGreaterThan(20);
      const share = locking.length / (locking.length + decoys.length);
      expect(share, `${obstacle}: share of listed ${decoy}s that lock`).toBeGreaterThan(0.3);
      expect(share).toBeLessThan(0.7);
      const seen = new Set([...locking, ...decoys].map((g) => JSON.stringify(listing(g)[part])));
      expect([...seen], `${decoy}: one listing for locks and decoys alike`).toHaveLength(1);
    }
    for (const g of scenes) {
      const described = describeScene(g.spec);
      // Nothing it says reads the locks: the scene without them is described byte for byte the same.
      expect(JSON.stringify(describeScene({ ...g.spec, locks: [] } as never))).toBe(JSON.stringify(described));
      const text = JSON.stringify(described).toLowerCase();
      expect(text, g.summary).not.toMatch(/\block|unlock|latch|blocked|barred|decoy/);
    }
  });
});
