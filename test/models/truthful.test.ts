/**
 * The symbolic reasoner never claims what did not happen: a detector label outside the world's vocabulary is kept as
 * an unknown thing (no crash, never an argument), a part of an instruction it cannot read stops the task as not
 * understood (naming the words), a search that must look again gives every place its turn, RePLan's verifier
 * refuses a step with no object or target, and a budget's words agree with its count.
 */
import { describe, expect, it } from "vitest";
import { readInstruction } from "../../models/reasoning/language";
import { beliefFacts, checkGoal, critique, emptyBelief, perceive, plan, summarize } from "../../graphs/clea/reasoner";
import { NO_NOISE } from "../../models/symbolic/noise";
import { verifyPlan as replanVerify } from "../../graphs/replan/reasoner";
import { overBudget } from "../../nodes/budget";
import { parseSettings } from "../../runtime/run";
import { ReplanConfiguration } from "../../graphs/replan/configuration";
import type { Belief } from "../../graphs/clea/schemas";
import { labels, places, robots, world } from "../helpers/kitchenWorld";

const never = { next: () => 0.99 };
const GOAL = "Find the bottle_of_tea and throw it into the trash_can.";

describe("labels outside the vocabulary", () => {
  // What a real detector says: words with spaces, things the kitchen's vocabulary does not have.
  const detections = {
    detections: [
      {
        label: "cell phone",
        score: 0.9,
        box: { x: 0, y: 0, w: 9, h: 9 },
        location: { relation: "on" as const, place: "table" },
      },
      {
        label: "apple",
        score: 0.9,
        box: { x: 9, y: 9, w: 9, h: 9 },
        location: { relation: "on" as const, place: "dining table" },
      },
      {
        label: "bottle_of_tea",
        score: 0.9,
        box: { x: 20, y: 0, w: 9, h: 9 },
        location: { relation: "on" as const, place: "table" },
      },
    ],
    places: [{ name: "table", state: "open" as const, pixels: 900, insidePixels: 800 }],
  };

  it("keeps them as unknown things: seen, never in a fact, never planned with, and nothing crashes", () => {
    const observation = perceive({ robot: "arm", detections, world }, NO_NOISE, never);
    expect(observation.objects.map((o) => o.name)).toContain("cell phone");
    const belief = summarize({
      goal: GOAL,
      previousBelief: null,
      entries: [{ step: 0, kind: "observation", robot: "arm", observation }],
      robots: ["mobile", "arm"],
      world,
    });
    expect(belief.seen).toContain("cell phone");
    expect(belief.objects.map((o) => o.name)).not.toContain("cell phone");
    const facts = beliefFacts(belief, world);
    expect(facts.join(" ")).not.toMatch(/cell phone|dining table/);
    const planned = plan({ goal: GOAL, belief, robots, world, maxSteps: 5 }, NO_NOISE, never);
    expect(planned.giveUp).toBeNull();
    expect(planned.steps.length).toBeGreaterThan(0);
    expect(JSON.stringify(planned.steps)).not.toMatch(/cell phone|dining table/);
    expect(checkGoal({ goal: GOAL, belief, world }).achieved).toBe(false);
    const critiqued = critique(
      { goal: GOAL, action: planned.steps[0], belief, observation, robots, world },
      NO_NOISE,
      never,
    );
    expect(critiqued.verdict).toBe("ok");
  });

  it("plans from a model-written belief that holds such labels without turning them into literals", () => {
    const belief: Belief = {
      ...emptyBelief(["mobile", "arm"], world),
      objects: [
        { name: "cell phone", place: "table", source: "seen" },
        { name: "bottle_of_tea", place: "table", source: "seen" },
      ],
    };
    belief.holding = [
      { robot: "mobile", object: "dining table" },
      { robot: "arm", object: null },
    ];
    expect(beliefFacts(belief, world)).toContain("holding(mobile, unknown_thing)");
    const planned = plan({ goal: GOAL, belief, robots, world, maxSteps: 5 }, NO_NOISE, never);
    expect(JSON.stringify(planned)).not.toMatch(/cell phone|dining table/);
  });
});

describe("instructions only partly understood", () => {
  it("names the part it does not understand instead of dropping it", () => {
    // "dispose of it" and "throw it away" are read (issue 15); a verb it has no reading for is not.
    const reading = readInstruction("Find the bottle_of_tea and recycle it in the trash_can.", labels, places);
    expect(reading.goals).toEqual(["found(bottle_of_tea)"]);
    expect(reading.notUnderstood).toEqual(["recycle it in the trash_can"]);
    expect(reading.unplaced).toEqual([{ words: "recycle", closest: [], why: "no action I can read" }]);
    expect(readInstruction("Put the orange into the sink and wash the apple.", labels, places).notUnderstood).toEqual([
      "wash the apple",
    ]);
    expect(readInstruction("Find the bottle_of_tea and freeze it.", labels, places).notUnderstood).toEqual([
      "freeze it",
    ]);
  });

  it("understands the dataset's phrasings whole: lists of things, reports, constraints", () => {
    for (const text of [
      "Find the vitamin_pills and the apple and report where each one is. Do not move anything.",
      "Put the orange, which is on the table, into the sink, and throw the vitamin_pills, which are in drawer_middle, into the trash_can.",
      "Find the apple and put it in the oven.",
      "Find the apple, the orange and the hamburger.",
    ])
      expect(readInstruction(text, labels, places).notUnderstood).toEqual([]);
  });

  it("stops the task as not understood, and never judges the understood part alone as the task done", () => {
    const goal = "Find the bottle_of_tea and recycle it in the trash_can.";
    const belief = emptyBelief(["mobile", "arm"], world);
    belief.objects.push({ name: "bottle_of_tea", place: "table", source: "seen" });
    belief.seen.push("bottle_of_tea");
    const planned = plan({ goal, belief, robots, world, maxSteps: 5 }, NO_NOISE, never);
    expect(planned.steps).toEqual([]);
    expect(planned.done).toBe(false);
    expect(planned.giveUp).toMatch(
      /^the instruction is not understood: "recycle it in the trash_can"; "recycle": no action I can read; I know objects: bottle_of_tea, /,
    );
    const check = checkGoal({ goal, belief, world });
    expect(check.achieved).toBe(false);
    expect(check.remaining).toEqual(['not understood: "recycle it in the trash_can"']);
  });
});

describe("looking again", () => {
  it("gives every searched place its turn before any gets a second look", () => {
    // Every place looked into, the tea seen nowhere: the mobile robot walks the places it can look into.
    let belief = emptyBelief(["mobile", "arm"], world);
    belief.explored = ["sink", "table", "refrigerator", "oven", "drawer_top", "drawer_middle"];
    belief.containers = belief.containers.map((c) => ({ ...c, state: "open" as const }));
    belief.robotsAt = [
      { robot: "mobile", at: "in_front_of_oven" },
      { robot: "arm", at: null },
    ];
    const looked: string[] = [];
    for (let i = 0; i < 6; i++) {
      const planned = plan({ goal: GOAL, belief, robots, world, maxSteps: 5 }, NO_NOISE, never);
      const match = /^look again into the (\w+)/.exec(planned.subgoal);
      expect(match, planned.subgoal).not.toBeNull();
      looked.push(match![1]);
      const go = planned.steps.find((s) => s.skill === "go_to");
      belief = {
        ...belief,
        robotsAt: [
          { robot: "mobile", at: go!.args.navigation_point },
          { robot: "arm", at: null },
        ],
      };
    }
    // The open drawers are in the arm's view already; the mobile robot's places come round in turn.
    expect(looked).toEqual(["sink", "table", "refrigerator", "oven", "sink", "table"]);
  });
});

describe("RePLan's plan verifier", () => {
  const tabletop = {
    name: "tabletop",
    places: [{ name: "crate", kind: "surface" as const, openable: false, capacity: 1 }],
    navigationPoints: [],
    labels: ["crate", "red_cube", "yellow_cube"],
  };

  it("refuses a step that stops before its object or target, or names nothing in the scene", () => {
    const check = replanVerify({
      world: tabletop,
      steps: [
        { kind: "motion", action: "place the red_cube on the " },
        { kind: "vision", action: "place the crate on the" },
        { kind: "motion", action: "move the  to the crate" },
        { kind: "motion", action: "tidy up" },
        { kind: "motion", action: "place the red_cube on the crate" },
      ],
    });
    expect(check.steps.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected", "rejected", "ok"]);
    expect(check.steps[0].note).toBe('"place the red_cube on the" is missing its object or target');
    expect(check.steps[2].note).toBe('"move the  to the crate" is missing its object');
    expect(check.steps[3].note).toBe('"tidy up" names nothing in this scene');
  });
});

describe("budget words", () => {
  const opts = parseSettings(ReplanConfiguration, { bridgeUrl: "ws://127.0.0.1:1" }, {});
  it("counts the procedures and replans made, which is the budget, not the one refused", () => {
    expect(overBudget(opts, { actions: 2, replans: 0, procedures: 4, modelCalls: 9, startedAt: Date.now() })).toBe(
      "3 new procedures (budget 3; another was needed)",
    );
    expect(overBudget(opts, { actions: 2, replans: 16, modelCalls: 9, startedAt: Date.now() })).toBe(
      "15 replans (budget 15; another was needed)",
    );
    expect(
      overBudget(opts, { actions: 2, replans: 15, procedures: 3, modelCalls: 9, startedAt: Date.now() }),
    ).toBeUndefined();
  });
});
