/**
 * Runs that cannot succeed end early and say why: a search that has looked everywhere (twice) since the object was
 * last seen ends `failed` naming the places, in the closed loop and in RePLan's mode; an object seen and then moved
 * is searched for afresh; in RePLan's mode the same motion failing for the same reason a third time ends the run with
 * that reason (the closed loop's own rule, a look after the second and no third try: test/graphs/clea/loops.int.test.ts).
 * Graphs in this process, simulators as their own processes; "models" that misbehave answer over HTTP through the
 * real @langchain/openai client.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../runtime/run";
import { runMethodEpisode } from "../../evals/episode";
import { exhaustedSearch, lookablePlaces, noteLook, searchedObjects, type SearchLedger } from "../../nodes/search";
import { countFailure } from "../../nodes/repeats";
import { startSim, type SimProcess } from "../helpers/processes";
import { contextOf, reasonerAnswer as reason, localModelEndpoint } from "../helpers/openaiServer";
import { executed, scratchDir } from "../helpers/episode";
import { bundledManifests } from "../../robots/manifests";
import { SharedSims } from "../helpers/sharedSims";

const sims: SimProcess[] = [];
// RePLan's tests share one tabletop process, reset to each one's scene (as the experiment runner does between episodes).
const tabletops = new SharedSims();
const savedEnv = { ...process.env };
afterEach(async () => {
  process.env = { ...savedEnv };
  await closePooledSessions();
  await Promise.all(sims.splice(0).map((s) => s.stop()));
  tabletops.release();
});
afterAll(() => tabletops.stop());

function scenarioFile(spec: object): string {
  const file = join(scratchDir(), `${(spec as { name: string }).name}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}
async function kitchen(scenario: string) {
  const started = await startSim(["--scenario", scenario, "--speed", "max"]);
  sims.push(started);
  return started;
}

const endpoint = localModelEndpoint();
const useFake = () => endpoint.use();

describe("the search ledger", () => {
  const world = {
    name: "k",
    places: ["table", "refrigerator", "trash_can", "sink"].map((name) => ({
      name,
      kind: name === "refrigerator" ? ("container" as const) : ("surface" as const),
      openable: name === "refrigerator",
    })),
    navigationPoints: [],
    labels: ["bottle_of_tea", "apple"],
  };

  it("rules a place out after two looks since the object was last seen; a sighting anywhere starts the search over", () => {
    const objects = ["bottle_of_tea"];
    const lookable = ["table", "refrigerator"];
    let ledger: SearchLedger = {};
    ledger = noteLook(ledger, objects, { lookedInto: ["table", "refrigerator"], seen: ["apple"] });
    expect(exhaustedSearch(ledger, objects, lookable)).toBeUndefined();
    ledger = noteLook(ledger, objects, { lookedInto: ["table", "refrigerator"], seen: [] });
    expect(exhaustedSearch(ledger, objects, lookable)).toEqual({ object: "bottle_of_tea", places: lookable });
    // Seen (under a perceiver's other wording), then not: the places count from zero again.
    ledger = noteLook(ledger, objects, { lookedInto: ["table"], seen: ["tea_bottle"] });
    expect(ledger.bottle_of_tea).toEqual({});
    ledger = noteLook(noteLook(ledger, objects, { lookedInto: ["table", "refrigerator"], seen: [] }), objects, {
      lookedInto: ["table"],
      seen: [],
    });
    expect(exhaustedSearch(ledger, objects, lookable)).toBeUndefined();
    // Believed somewhere (told, or put there): not being searched for.
    ledger = noteLook(ledger, objects, { lookedInto: ["refrigerator"], seen: [] });
    expect(exhaustedSearch(ledger, objects, lookable, () => true)).toBeUndefined();
  });

  it("counts as lookable what a robot can open or stand in front of, and what a camera has shown the inside of", () => {
    const robots = bundledManifests("kitchen");
    const kitchenWorld = {
      ...world,
      places: [...world.places, { name: "drawer_top", kind: "container" as const, openable: true }],
    };
    // trash_can: the arm reaches it, but no camera has shown its inside.
    expect(lookablePlaces(robots, kitchenWorld).sort()).toEqual(["drawer_top", "refrigerator", "sink", "table"]);
    expect(lookablePlaces(robots, kitchenWorld, ["trash_can"]).sort()).toEqual([
      "drawer_top",
      "refrigerator",
      "sink",
      "table",
      "trash_can",
    ]);
    expect(
      searchedObjects("Find the bottle of tea and the apple in the refrigerator.", {
        ...world,
        labels: [...world.labels, "refrigerator"],
      }),
    ).toEqual(["bottle_of_tea", "apple"]);
  });

  it("ends on the third identical failure, not on different ones", () => {
    let failures = countFailure({}, "arm/pick_from", "there is no apple on the table");
    failures = countFailure(failures.repeats, "arm/pick_from", "the arm is holding the bread");
    failures = countFailure(failures.repeats, "arm/pick_from", "there is no apple on the table");
    expect(failures.end).toBeUndefined();
    failures = countFailure(failures.repeats, "arm/pick_from", "there is no apple on the table");
    expect(failures.end).toEqual({
      status: "failed",
      statusReason: "arm/pick_from failed 3 times for the same reason: there is no apple on the table",
    });
  });
});

describe("a search that covered every place ends the closed loop", () => {
  it("asked for an object that is in no place, ends failed naming the places instead of searching until the budget", async () => {
    const file = scenarioFile({
      name: "tea_nowhere",
      family: "integration",
      instruction: "Find the bottle_of_tea and throw it into the trash_can.",
      placements: {
        milk: "refrigerator",
        apple: "table",
        bread: "drawer_top",
        green_medication: "drawer_middle",
        sponge: "sink",
      },
      goal: ["in(bottle_of_tea, trash_can)"],
    });
    const simulator = await kitchen(file);
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: "Find the bottle_of_tea and throw it into the trash_can.",
      thread: "nowhere",
      dataDir: scratchDir(),
    });
    expect(episode.state.status).toBe("failed");
    expect(episode.state.statusReason).toBe(
      "no bottle_of_tea in any of: table, refrigerator, oven, sink, drawer_top, drawer_middle (each looked into twice since it was last seen anywhere, and it was not seen)",
    );
    // Before: 40 skills and 278 model calls, to the action budget. Now one round of looks and a second one.
    expect(episode.state.counters.steps).toBeLessThan(15);
    expect(Object.values(episode.state.usage).reduce((n, u) => n + u.calls, 0)).toBeLessThan(100);
    expect(episode.truth.success).toBe(false);
  });

  it("searches afresh for an object it saw and that was then moved, and finds it", async () => {
    // The tea is on the table when the run starts; as the mobile robot drives there, it is moved into the refrigerator.
    const file = scenarioFile({
      name: "tea_seen_then_moved",
      family: "manipulation",
      instruction: "Put the bottle_of_tea into the sink.",
      placements: { bottle_of_tea: "table", milk: "refrigerator", apple: "table", bread: "drawer_top" },
      mobileAt: "in_front_of_sink",
      perturbations: [{ afterSkill: 1, move: { object: "bottle_of_tea", to: "refrigerator" } }],
      goal: ["in(bottle_of_tea, sink)"],
    });
    const simulator = await kitchen(file);
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: "Put the bottle_of_tea into the sink.",
      thread: "seen-moved",
      dataDir: scratchDir(),
    });
    expect(episode.state.status).toBe("succeeded");
    expect(episode.truth.success).toBe(true);
    expect(executed(episode).map((x) => x.call)).toContain("mobile.pick_from(bottle_of_tea, refrigerator)");
  });
});

describe("a search that covered every place ends RePLan's mode", () => {
  it("a perceiver that never sees the apple: ends failed once both containers were looked into twice", async () => {
    useFake();
    // A perception model blind to one thing: the apple is taken out of every detection it is shown.
    endpoint.fake.respond = async (req) => {
      const ctx = contextOf(req) as Record<string, unknown> & {
        task: string;
        detections?: { detections: { label: string }[] };
      };
      if (ctx.detections)
        ctx.detections = {
          ...ctx.detections,
          detections: ctx.detections.detections.filter((d) => d.label !== "green_apple"),
        };
      return { arguments: await reason(ctx) };
    };
    const sim = await tabletops.take("tabletop", "kitchen", ["--speed", "max"]);
    const episode = await runMethodEpisode({
      mode: "replan",
      url: sim.url,
      goal: "find the green_apple",
      thread: "replan-blind",
      dataDir: scratchDir(),
      backend: "openai",
    });
    expect(episode.state.status).toBe("failed");
    expect(episode.state.statusReason).toMatch(
      /^no green_apple in any of: cabinet, microwave, floor \(each looked into twice since it was last seen anywhere/,
    );
    // Before: the procedure budget ended it (gave_up) after looking into the same cabinet again and again.
    expect(episode.state.counters.procedures).toBeLessThanOrEqual(3);
  }, 120_000);
});

describe("the same failure three times ends the run", () => {
  it("RePLan without a perceiver: the same motion failing the same way a third time ends it", async () => {
    // The bar across the handles: nothing the planner can read from the world's joints gets it out of the way unseen.
    const sim = await tabletops.take("tabletop", "cabinet_barred", ["--speed", "max"]);
    const episode = await runMethodEpisode({
      mode: "replan",
      url: sim.url,
      goal: "move the yellow_cube to target_position inside the wooden_cabinet",
      thread: "barred-blind",
      dataDir: scratchDir(),
      variant: "no-perceiver",
    });
    expect(episode.state.status).toBe("failed");
    expect(episode.state.statusReason).toMatch(
      /^the motion for "open the wooden_cabinet" failed 3 times for the same reason: primary term set_joint_fraction\("left_door", 1\) not met/,
    );
    expect(episode.state.counters.motions).toBe(3);
  }, 120_000);
});
