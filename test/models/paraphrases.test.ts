/**
 * Instructions in plain words (issue 15), read offline: the paraphrase dataset's instructions reach the canonical goal
 * of their task through the worlds' display names and aliases, word overlap and verb synonyms; instructions naming
 * things no world has end with a message that names the words, the closest names and what the reader knows. Only what
 * an agent is given is read: the instruction and the world description and manifests a simulator publishes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadDataset, datasetPath } from "../../evals/datasets";
import { lexicon, notUnderstoodMessage, readInstruction } from "../../models/reasoning/language";
import { goalLiterals, highLevelPlan, readTabletopGoal } from "../../graphs/replan/reasoner";
import { emptyBelief, plan, perceive } from "../../graphs/clea/reasoner";
import { NO_NOISE } from "../../models/symbolic/noise";
import { RobotManifest, WorldDescription } from "../../robots/manifests/schema";
import { bundledManifests } from "../../robots/manifests";
import { NAMES } from "../../robots/sim/kitchen/layout";
import { describeScene } from "../../robots/sim/tabletop/scenario";
import { buildScene, type SceneName } from "../../robots/sim/tabletop/scenes";
import { robots, world as bareKitchen } from "../helpers/kitchenWorld";

const never = { next: () => 0.99 };
/** The kitchen as its simulator describes it (robots/sim/kitchen/world.ts): the vocabulary with its wordings. */
const kitchen: WorldDescription = WorldDescription.parse({ ...bareKitchen, names: NAMES });
const kitchenLex = lexicon(kitchen, robots);
const sceneWorld = (scene: string) => WorldDescription.parse(describeScene(buildScene(scene as SceneName)));

const rows = loadDataset("paraphrases");
/** The canonical instruction each paraphrase restates (kept in the row's metadata, which the loader does not keep). */
const canonical = new Map(
  readFileSync(datasetPath("paraphrases"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const parsed = JSON.parse(line) as { metadata: { task: string; condition: string; canonical: string } };
      return [`${parsed.metadata.task}__${parsed.metadata.condition}`, parsed.metadata.canonical];
    }),
);

/** Is a row's instruction read as its task's canonical goal? Returns the reading for the report. */
function understood(row: (typeof rows)[number]): { ok: boolean; reading: string } {
  const ex = row.example;
  if (ex.inputs.world === "course" || !("goal" in ex.outputs))
    throw new Error(`${row.id}: the paraphrase dataset holds kitchen and tabletop rows only`);
  const outputs = ex.outputs;
  if (ex.inputs.world === "kitchen") {
    const reading = readInstruction(
      ex.inputs.goal,
      kitchen.labels,
      kitchen.places.map((p) => p.name),
      kitchenLex,
    );
    const ok =
      reading.notUnderstood.length === 0 &&
      JSON.stringify([...reading.goals].sort()) === JSON.stringify([...outputs.goal].sort());
    return {
      ok,
      reading: reading.notUnderstood.length ? notUnderstoodMessage(reading, kitchenLex) : reading.goals.join(", "),
    };
  }
  const world = sceneWorld(ex.inputs.scenario as string);
  const mine = readTabletopGoal(ex.inputs.goal, world);
  const theirs = readTabletopGoal(canonical.get(row.id)!, world);
  // Read as the canonical instruction is read, and (where a reading fixes it) as the scene's checked goal.
  const literals = mine.goal ? goalLiterals(mine.goal, world) : [];
  const ok =
    !!mine.goal &&
    JSON.stringify(mine.goal) === JSON.stringify(theirs.goal) &&
    (!literals.length || JSON.stringify(literals) === JSON.stringify(outputs.goal));
  return { ok, reading: mine.goal ? JSON.stringify(mine.goal) : mine.message! };
}

describe("the paraphrase dataset", () => {
  it("holds at least 40 instructions over every kitchen and tabletop task, none a canonical instruction", () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const kitchenTasks = new Set(loadDataset("kitchen").map((r) => r.example.metadata.task));
    const tabletopTasks = new Set(loadDataset("tabletop").map((r) => r.example.metadata.task));
    const covered = new Set(rows.map((r) => r.example.metadata.task));
    for (const t of [...kitchenTasks, ...tabletopTasks]) expect(covered, t).toContain(t);
    for (const r of rows) expect(r.example.inputs.goal).not.toBe(canonical.get(r.id));
  });

  it("is understood: at least 90% read as their task's canonical goal", () => {
    const results = rows.map((r) => ({ id: r.id, text: r.example.inputs.goal, ...understood(r) }));
    const share = results.filter((r) => r.ok).length / results.length;
    console.log(
      `paraphrases understood: ${results.filter((r) => r.ok).length}/${results.length} (${Math.round(share * 100)}%)`,
    );
    for (const r of results.filter((x) => !x.ok)) console.log(`  not as canonical: ${r.id} "${r.text}" → ${r.reading}`);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });

  it("reads the issue's two examples as the tea-to-trash task", () => {
    for (const text of ["Locate the tea bottle and dispose of it in the garbage", "Throw away the bottle of tea"]) {
      const reading = readInstruction(
        text,
        kitchen.labels,
        kitchen.places.map((p) => p.name),
        kitchenLex,
      );
      expect(reading.goals, text).toEqual(["in(bottle_of_tea, trash_can)"]);
      expect(reading.notUnderstood).toEqual([]);
    }
  });

  it("pairs each thing with its own place, and takes 'from'/'out of' as where a thing is", () => {
    const reading = readInstruction(
      "Take the milk out of the fridge and put it on the table, and the burger in the oven.",
      kitchen.labels,
      kitchen.places.map((p) => p.name),
      kitchenLex,
    );
    expect(reading.goals.sort()).toEqual(["in(hamburger, oven)", "in(milk, table)"]);
    expect(reading.told).toContainEqual({ object: "milk", place: "refrigerator" });
  });

  it("reads 'put away' as storing and 'throw out' as the trash, and asks for a place when none is named", () => {
    const read = (text: string) =>
      readInstruction(
        text,
        kitchen.labels,
        kitchen.places.map((p) => p.name),
        kitchenLex,
      );
    expect(read("Could you put away the bread in the upper drawer?").goals).toEqual(["in(bread, drawer_top)"]);
    expect(read("Throw out the milk.").goals).toEqual(["in(milk, trash_can)"]);
    expect(read("Put the bread away.").unplaced[0].why).toBe("it names no place I know to put the bread in");
  });
});

describe("instructions it cannot map", () => {
  const read = (text: string) =>
    readInstruction(
      text,
      kitchen.labels,
      kitchen.places.map((p) => p.name),
      kitchenLex,
    );

  it("names the words it could not place, lists what it knows, and suggests nothing for nonsense", () => {
    const reading = read("Throw the flux capacitor into the sink.");
    expect(reading.goals).toEqual([]);
    expect(reading.unplaced).toEqual([{ words: "flux capacitor", closest: [] }]);
    const message = notUnderstoodMessage(reading, kitchenLex);
    expect(message).toContain('could not place "flux capacitor" (nothing close)');
    expect(message).toContain(
      "objects: bottle_of_tea, hamburger, apple, orange, vitamin_pills, green_medication, milk, bread, cup, sponge",
    );
    expect(message).toContain("places: table, refrigerator, oven, sink, drawer_top, drawer_middle, trash_can");
    expect(message).toContain("skills: go_to, open, close, pick_from, release_to");
  });

  it("suggests the closest names for a near miss or an ambiguous word", () => {
    expect(read("Put the milk in the freezer.").unplaced).toEqual([{ words: "freezer", closest: ["refrigerator"] }]);
    // Two drawers: which one is not guessed.
    expect(read("Put the tea in the drawer.").unplaced).toEqual([
      { words: "drawer", closest: ["drawer_top", "drawer_middle"] },
    ]);
    expect(notUnderstoodMessage(read("Find the unicorn and the hamburger."), kitchenLex)).toMatch(
      /could not place "unicorn"/,
    );
  });

  it("still refuses, naming the words, when what is left after statements, reasons and describing words names nothing it knows", () => {
    // Read: a describing word before a known thing, a measure of it, a statement beside the order, a reason after it.
    expect(read("Toss the old sponge in the garbage, it's falling apart.").goals).toEqual(["in(sponge, trash_can)"]);
    expect(read("Put a slice of bread in the oven.").goals).toEqual(["in(bread, oven)"]);
    expect(read("Let's get the burger into the oven.").goals).toEqual(["in(hamburger, oven)"]);
    // Refused: an unknown action, an unknown thing (described or not), an unknown place, or a statement alone.
    expect(read("Wash the apple.").unplaced[0]).toMatchObject({ words: "Wash", why: "no action I can read" });
    expect(read("Put the rotten banana in the fridge, it smells.").unplaced.map((u) => u.words)).toContain(
      "rotten banana",
    );
    expect(read("Put the apple in the dishwasher because it's dirty.").unplaced.map((u) => u.words)).toContain(
      "dishwasher",
    );
    for (const text of ["The apple is dirty.", "The fridge is full, so", "I think the milk is in the fridge."]) {
      const reading = read(text);
      expect(reading.goals, text).toEqual([]);
      expect(reading.notUnderstood.length, text).toBeGreaterThan(0);
    }
  });

  it("says what is missing when every word has its place", () => {
    const reading = read("Bring me the milk.");
    expect(reading.unplaced[0].why).toBe("it names no place I know to put the milk in");
  });

  it("never guesses a misspelling of a short word, but reads a slip in a long one", () => {
    expect(read("Put the milk in the refridgerator.").goals).toEqual(["in(milk, refrigerator)"]);
    expect(read("Find the aple.").notUnderstood).toEqual(["Find the aple"]);
  });

  it("ends the CLEA planner's task with that message", () => {
    const planned = plan(
      {
        goal: "Find the flux capacitor and put it in the oven.",
        belief: emptyBelief(["mobile", "arm"], kitchen),
        robots,
        world: kitchen,
        maxSteps: 5,
      },
      NO_NOISE,
      never,
    );
    expect(planned.steps).toEqual([]);
    expect(planned.giveUp).toMatch(
      /^the instruction is not understood: "Find the flux capacitor", "put it in the oven"; could not place "flux capacitor" \(nothing close\); "put it in the oven": it names no thing I know to put somewhere; I know objects: /,
    );
  });

  it("ends RePLan's planner with that message, in the scene's own vocabulary", () => {
    const world = sceneWorld("block");
    expect(readTabletopGoal("Put the purple pyramid on the crate.", world).goal).toBeUndefined();
    const hl = highLevelPlan(
      {
        goal: "Put the purple pyramid on the crate.",
        world: world,
        scene: [],
        facts: [],
        reasons: [],
        failedAttempts: [],
        replansSoFar: 0,
        proceduresSoFar: 0,
      },
      NO_NOISE,
      never,
    );
    expect(hl.steps).toEqual([]);
    expect(hl.thought).toMatch(/could not place "purple pyramid"/);
    expect(hl.thought).toContain("objects: yellow_cube, red_cube");
    expect(hl.thought).toContain("places: crate, floor");
  });
});

describe("names in manifests, world descriptions and detections", () => {
  it("every kitchen and tabletop name has a display name; the bundled manifests give every skill one", () => {
    for (const n of [...kitchen.labels, ...kitchen.places.map((p) => p.name), ...kitchen.navigationPoints])
      expect(kitchen.names?.[n]?.display, n).toBeTruthy();
    for (const scene of ["cabinet_barred", "kitchen", "lever", "color", "sensor"]) {
      const world = sceneWorld(scene);
      for (const n of [
        ...world.labels,
        ...world.places.map((p) => p.name),
        ...(world.joints ?? []).map((j) => j.name),
        ...(world.targets ?? []).map((t) => t.name),
      ])
        expect(world.names?.[n]?.display, `${scene}: ${n}`).toBeTruthy();
    }
    for (const world of ["kitchen", "tabletop", "course", "workbench"])
      for (const r of bundledManifests(world))
        for (const s of r.skills) expect(s.display, `${r.id}.${s.name}`).toBeTruthy();
  });

  it("refuses names for things the world or the manifest does not have", () => {
    const bad = WorldDescription.safeParse({ ...kitchen, names: { ...kitchen.names, teapot: { display: "teapot" } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe("teapot names nothing in world kitchen");
    const arm = bundledManifests("kitchen")[1];
    const badArm = RobotManifest.safeParse({ ...arm, names: { in_front_of_oven: { display: "by the oven" } } });
    expect(badArm.success).toBe(false);
    expect(badArm.error?.issues[0].message).toBe("in_front_of_oven is no argument value of any skill of arm");
  });

  it("reads a detector that reports plain words through the world's wordings", () => {
    const detections = {
      detections: [
        {
          label: "tea bottle",
          display: "tea bottle",
          score: 0.9,
          box: { x: 0, y: 0, w: 9, h: 9 },
          location: { relation: "on" as const, place: "table" },
        },
      ],
      places: [{ name: "table", state: "open" as const, pixels: 900, insidePixels: 800 }],
    };
    expect(perceive({ robot: "arm", detections, world: kitchen }, NO_NOISE, never).objects[0].name).toBe(
      "bottle_of_tea",
    );
  });
});
