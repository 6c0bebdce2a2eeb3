/**
 * The firewall in the kitchen: hidden-state twins (test/helpers/twins.ts) — two kitchen simulators that differ only in
 * what no camera shows — driven with the same skill calls give the agent byte-identical inputs (world description,
 * manifests, skill results and feedback, detections, camera pixels) until something observable differs.
 */
import { describe, expect, it } from "vitest";
import { describeDifference, runTwins, scenarioTwins, type TwinStep } from "../helpers/twins";

/** Two kitchen scenario files, alike but for `placements`. */
function scenarios(
  name: string,
  placementsA: Record<string, string>,
  placementsB: Record<string, string>,
  extra: Record<string, unknown> = {},
): [string[], string[]] {
  const base = {
    family: "manipulation",
    instruction: "Put the bottle_of_tea in the sink.",
    goal: ["in(bottle_of_tea, sink)"],
    mobileAt: "in_front_of_sink",
    ...extra,
  };
  return scenarioTwins(
    name,
    { ...base, name: `${name}_a`, placements: placementsA },
    { ...base, name: `${name}_b`, placements: placementsB },
  );
}

const pick = (object: string, place: string): TwinStep => ({
  robot: "arm",
  skill: "pick_from",
  args: { object, place },
});
const results = (t: { steps: { result?: unknown }[] }) => t.steps.map((s) => s.result);

// The trash can's far corner (its third spot, behind two other things) is out of every camera's view, and so is the
// bottle of tea in the arm's hand, seen from the overhead camera straight above it. The mobile robot stands at the
// sink, looking away.
const OTHERS = { milk: "trash_can", cup: "trash_can" };

describe("kitchen twins: a grasp on a hidden thing and a grasp on nothing", () => {
  it("without grasp sensing, picking the tea that is there and picking it again reads the same as closing on nothing", async () => {
    const outcome = await runTwins({
      world: "kitchen",
      args: ["--speed", "max", "--grasp-sensing", "off"],
      twins: scenarios("tea_hidden", { ...OTHERS, bottle_of_tea: "trash_can" }, { ...OTHERS }),
      steps: [
        pick("bottle_of_tea", "trash_can"),
        pick("bottle_of_tea", "trash_can"),
        { robot: "arm", skill: "release_to", args: { object: "bottle_of_tea", place: "trash_can" } },
      ],
    });
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBeNull();
    expect(outcome.a.steps).toHaveLength(4);
    // Both picks succeed in both twins, and say what the robot did with its hand, not what is in it.
    for (const s of outcome.a.steps.slice(1, 3))
      expect(s.result).toMatchObject({
        ok: true,
        message: expect.stringMatching(
          /^arm closed its hand at the trash_can; without grasp sensing it cannot tell whether anything is in it$/,
        ),
      });
    expect(JSON.stringify(results(outcome.a))).not.toMatch(/holds|holding/);
    expect(outcome.a.steps[0].manifest!.world).toEqual(outcome.b.steps[0].manifest!.world);
  });

  it("without grasp sensing, the apple seen in the hand is the first difference: the skill results stay the same", async () => {
    // The apple is wider than the arm's fingers: the overhead camera sees it held. What differs is in the frame; the
    // robot's answers do not.
    const outcome = await runTwins({
      world: "kitchen",
      args: ["--speed", "max", "--grasp-sensing", "off"],
      twins: scenarios("apple_hidden", { ...OTHERS, apple: "trash_can" }, { ...OTHERS }),
      steps: [pick("apple", "trash_can"), pick("apple", "trash_can")],
    });
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(1);
    expect(outcome.difference!.path).toMatch(/^views\.arm\./);
    expect(results(outcome.a)).toEqual(results(outcome.b));
    expect(outcome.a.steps[0].manifest!.world).toEqual(outcome.b.steps[0].manifest!.world);
  });
});

describe("kitchen twins: a thing in a closed container", () => {
  it("is the same as no thing there until the container is opened with the thing in view", async () => {
    const outcome = await runTwins({
      world: "kitchen",
      args: ["--speed", "max"],
      twins: scenarios(
        "bread_in_drawer",
        { apple: "table", bread: "drawer_top" },
        { apple: "table" },
        { mobileAt: "in_front_of_table" },
      ),
      steps: [
        pick("bread", "drawer_top"),
        { robot: "mobile", skill: "go_to", args: { navigation_point: "in_front_of_refrigerator" } },
        { robot: "arm", skill: "close", args: { target: "drawer_top" } },
        { robot: "arm", skill: "open", args: { target: "drawer_top" } },
        pick("bread", "drawer_top"),
      ],
    });
    // Step 4 opens the drawer: from then on the overhead camera shows the bread in one twin only.
    expect(outcome.firstDifference, describeDifference(outcome.difference)).toBe(4);
    expect(outcome.difference!.path).toMatch(/^views\.arm\./);
    expect(outcome.a.steps[4].result).toEqual(outcome.b.steps[4].result);
    expect(outcome.a.steps[1].result).toMatchObject({
      ok: false,
      error: "cannot pick from the drawer_top: it is closed",
    });
    expect(outcome.a.steps[3].result).toMatchObject({ ok: false, error: "the drawer_top is already closed" });
    expect(outcome.a.steps[0].manifest!.world).toEqual(outcome.b.steps[0].manifest!.world);
    expect(outcome.a.steps[0].manifest!.robots).toEqual(outcome.b.steps[0].manifest!.robots);
  });
});
