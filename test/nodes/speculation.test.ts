/**
 * Speculation's bookkeeping: counts, wasted tokens, the trace check that no skill went out on overtaken work, the
 * setting; and CLEA's branches — which outcomes of a look are prepared for (bounded), and which one a look confirms
 * (never one it contradicts).
 */
import { describe, expect, it } from "vitest";
import {
  DISCARD_SHARE,
  NO_PIPELINE,
  mayPrepareAlternatives,
  revocations,
  sentAgainstTheLook,
  sentAgainstTheReport,
  tally,
  type SpeculatingNodes,
} from "../../nodes/speculation";
import {
  AS_PROMISED,
  MAX_BRANCHES,
  confirmBranch,
  likelyOutcomes,
  placesBroughtIntoView,
  soughtThings,
  type Branch,
} from "../../graphs/clea/prediction";
import { emptyBelief } from "../../graphs/clea/belief";
import type { Belief, HistoryEntry, Observation, SkillCall } from "../../graphs/clea/schemas";
import { robots, world } from "../helpers/kitchenWorld";
import { ClosedLoopConfiguration } from "../../graphs/clea/configuration";
import { ReplanConfiguration } from "../../graphs/replan/configuration";

// The nodes each method declares in its descriptor (graphs/clea/index.ts, graphs/replan/index.ts `speculation`).
const CLEA: SpeculatingNodes = {
  clearing: ["critic", "planner", "verifier"],
  prepared: "prediction_check",
  looks: "perceiver",
};
const REPLAN: SpeculatingNodes = { clearing: ["low_level_planner", "reward_verifier"], prepared: "prediction_check" };

const usage = { critic: { calls: 2, inputTokens: 100, outputTokens: 10, images: 1 } };

describe("speculation's counts", () => {
  it("counts what a revoked speculation spent as wasted, and nothing of a used one", () => {
    const used = tally(NO_PIPELINE, "used", true, usage);
    expect(used).toMatchObject({ prepared: 1, used: 1, revoked: 0, wastedCalls: 0, wastedInputTokens: 0 });
    const revoked = tally(used, "revoked", true, usage);
    expect(revoked).toMatchObject({
      prepared: 2,
      used: 1,
      revoked: 1,
      wastedCalls: 2,
      wastedInputTokens: 100,
      wastedOutputTokens: 10,
    });
    expect(tally(revoked, "unused", false, usage)).toMatchObject({ prepared: 2, unused: 1, wastedCalls: 2 });
  });
});

describe("skills sent against what was seen or reported before them, measured on the trace", () => {
  const look = (
    objects: { name: string; relation: string; place: string }[],
    visiblePlaces: string[],
    containers: { name: string; state: string }[] = [],
  ) => ({ node: "perceiver", update: { observations: { arm: { objects, visiblePlaces, containers } } } });
  const send = (skill: string, args: Record<string, string>) => ({
    node: "dispatch",
    update: { pendingGoal: { goalId: "g", call: { robot: "arm", skill, args } } },
  });
  const cleared = (node: string) => ({ node, update: { critique: { verdict: "ok" } } });
  it("counts a pick from a place the look showed without the thing, or a thing the look showed elsewhere; on prepared work apart", () => {
    const trace = [
      look([{ name: "apple", relation: "on", place: "table" }], ["table", "sink"]),
      cleared("critic"),
      send("pick_from", { object: "apple", place: "table" }),
      cleared("prediction_check"),
      send("pick_from", { object: "apple", place: "sink" }),
      look([], ["table"]),
      cleared("critic"),
      send("pick_from", { object: "apple", place: "table" }),
    ];
    expect(sentAgainstTheLook(trace, CLEA)).toEqual({
      all: 2,
      prepared: 1,
      examples: [
        "arm.pick_from(apple, sink): the apple was seen on the table",
        "arm.pick_from(apple, table): the table was seen without the apple",
      ],
    });
  });
  it("counts a door opened that the look showed open, and nothing where the look is silent", () => {
    expect(
      sentAgainstTheLook(
        [look([], [], [{ name: "oven", state: "open" }]), cleared("critic"), send("open", { target: "oven" })],
        CLEA,
      ).all,
    ).toBe(1);
    expect(
      sentAgainstTheLook(
        [
          look([], [], [{ name: "oven", state: "closed" }]),
          cleared("critic"),
          send("open", { target: "oven" }),
          send("pick_from", { object: "apple", place: "oven" }),
        ],
        CLEA,
      ).all,
    ).toBe(0);
  });
  it("RePLan: counts a prepared motion sent after the controller reported a failed motion, not one the ordinary path cleared", () => {
    const motion = (ok: boolean) => ({ node: "executor", update: { log: [{ kind: "motion", ok }] } });
    const go = { node: "dispatch", update: { pendingGoal: { goalId: "g" } } };
    expect(
      sentAgainstTheReport([motion(true), { node: "prediction_check", update: { motion: { step: "x" } } }, go], REPLAN),
    ).toBe(0);
    expect(
      sentAgainstTheReport(
        [motion(false), { node: "low_level_planner", update: { motion: { step: "y" } } }, go],
        REPLAN,
      ),
    ).toBe(0);
    expect(
      sentAgainstTheReport(
        [motion(false), { node: "prediction_check", update: { motion: { step: "x" } } }, go],
        REPLAN,
      ),
    ).toBe(1);
  });
  it("names why prepared work was revoked, by kind", () => {
    const revoked = (why: string) => ({
      node: "prediction_check",
      update: { speculation: { outcome: "revoked", why } },
    });
    expect(
      revocations(
        [
          revoked("the motion did not succeed: stuck"),
          revoked("the tea is at sink, not refrigerator as predicted; the oven is open, not closed as predicted"),
          revoked("the plan is not at the step the work was prepared for"),
        ],
        REPLAN,
      ),
    ).toEqual({
      "the controller reported the skill or motion failed": 1,
      "the look: a thing, door or hand in another state than predicted": 1,
      "the plan moved off the step the work was prepared for": 1,
    });
  });
});

describe("the pipeline setting", () => {
  it("is off by default and reads a form's or a command line's words", () => {
    for (const schema of [ClosedLoopConfiguration, ReplanConfiguration]) {
      expect(schema.parse({}).pipeline).toBe(false);
      expect(schema.parse({ pipeline: "false" }).pipeline).toBe(false);
      expect(schema.parse({ pipeline: "true" }).pipeline).toBe(true);
      expect(schema.parse({ pipeline: true }).pipeline).toBe(true);
      expect(() => schema.parse({ pipeline: "sometimes" })).toThrow();
    }
  });
});

describe("CLEA's branches: the outcomes of a look prepared for", () => {
  const TEA = "Find the bottle_of_tea and throw it into the trash_can.";
  const open: SkillCall = { robot: "mobile", skill: "open", args: { target: "refrigerator" } };
  const start = (): Belief => emptyBelief(["mobile", "arm"], world);

  it("prepares for the sought thing in the place a skill brings into view, beside the manifest's promise", () => {
    expect(soughtThings(TEA, start(), world)).toEqual(["bottle_of_tea"]);
    const outcomes = likelyOutcomes(open, TEA, start(), robots, world);
    expect(outcomes.map((o) => o.assumes)).toEqual([AS_PROMISED.assumes, "the bottle_of_tea in the refrigerator"]);
    expect(outcomes[1].look[0]).toMatchObject({
      robot: "mobile",
      objects: [{ name: "bottle_of_tea", relation: "in", place: "refrigerator" }],
      containers: [{ name: "refrigerator", state: "open" }],
      visiblePlaces: ["refrigerator"],
    });
  });

  it("prepares no alternative where the look decides nothing: a thing already placed, a place already seen into, a grasp", () => {
    const placed = { ...start(), objects: [{ name: "bottle_of_tea", place: "oven", source: "seen" as const }] };
    expect(likelyOutcomes(open, TEA, placed, robots, world)).toEqual([AS_PROMISED]);
    const explored = { ...start(), explored: ["refrigerator"] };
    expect(likelyOutcomes(open, TEA, explored, robots, world)).toEqual([AS_PROMISED]);
    const pick: SkillCall = { robot: "mobile", skill: "pick_from", args: { object: "milk", place: "table" } };
    expect(likelyOutcomes(pick, TEA, start(), robots, world)).toEqual([AS_PROMISED]);
  });

  it("a navigation point brings into view the places it serves that stand open, never a shut door's inside", () => {
    const goTo = (point: string): SkillCall => ({ robot: "mobile", skill: "go_to", args: { navigation_point: point } });
    expect(placesBroughtIntoView(goTo("in_front_of_table"), start(), robots, world)).toEqual(["table"]);
    expect(placesBroughtIntoView(goTo("in_front_of_refrigerator"), start(), robots, world)).toEqual([]);
    const opened = start();
    opened.containers.find((c) => c.name === "refrigerator")!.state = "open";
    expect(placesBroughtIntoView(goTo("in_front_of_refrigerator"), opened, robots, world)).toEqual(["refrigerator"]);
  });

  it("a door of unknown state brought into view: shut (as a plan assumes), open with nothing sought, open with it", () => {
    const goTo: SkillCall = { robot: "mobile", skill: "go_to", args: { navigation_point: "in_front_of_oven" } };
    const outcomes = likelyOutcomes(goTo, TEA, start(), robots, world);
    expect(outcomes.map((o) => o.assumes)).toEqual([
      "as its manifest says, the oven shut",
      "the oven open, nothing sought inside",
      "the bottle_of_tea in the oven",
    ]);
    expect(outcomes[0].look[0].containers).toEqual([{ name: "oven", state: "closed" }]);
    expect(outcomes[1].look[0]).toMatchObject({
      containers: [{ name: "oven", state: "open" }],
      visiblePlaces: ["oven"],
    });
    // Under the token bound the door is still predicted shut: the first outcome never guesses more than a plan does.
    expect(likelyOutcomes(goTo, TEA, start(), robots, world, false).map((o) => o.assumes)).toEqual([
      "as its manifest says, the oven shut",
    ]);
  });

  it("is bounded: at most MAX_BRANCHES outcomes however many things are sought, one when the token bound says so", () => {
    const many = "Put the apple, the milk, the orange and the bottle_of_tea into the sink.";
    const goTo: SkillCall = { robot: "mobile", skill: "go_to", args: { navigation_point: "in_front_of_table" } };
    expect(soughtThings(many, start(), world).length).toBeGreaterThan(MAX_BRANCHES);
    expect(likelyOutcomes(goTo, many, start(), robots, world)).toHaveLength(MAX_BRANCHES);
    expect(likelyOutcomes(goTo, many, start(), robots, world, false)).toEqual([AS_PROMISED]);
  });

  it("prepares alternatives only while what they added to the waste stays within its share of the run's tokens", () => {
    const spent = { critic: { calls: 10, inputTokens: 9000, outputTokens: 1000, images: 0 } };
    const extra = (tokens: number) => ({ ...NO_PIPELINE, alternativesWasted: tokens });
    expect(mayPrepareAlternatives(spent, extra(DISCARD_SHARE * 10000))).toBe(true);
    expect(mayPrepareAlternatives(spent, extra(DISCARD_SHARE * 10000 + 1))).toBe(false);
    // A single prediction's revoked work is what speculating costs anyway: it does not stop the alternatives that
    // would have saved it.
    expect(mayPrepareAlternatives(spent, { ...NO_PIPELINE, wastedInputTokens: 5000 })).toBe(true);
  });

  it("counts what the dropped branches spent as wasted, and nothing of the confirmed one", () => {
    const branchUsage = { planner: { calls: 1, inputTokens: 300, outputTokens: 30, images: 0 } };
    const all = { planner: { calls: 2, inputTokens: 700, outputTokens: 70, images: 0 } };
    const other = { planner: { calls: 1, inputTokens: 400, outputTokens: 40, images: 0 } };
    // The alternative confirmed: the first prediction dropped, which is what one prediction alone would have lost.
    const used = tally(NO_PIPELINE, "used", true, all, [branchUsage], {
      alternatives: 1,
      alternativeUsed: true,
      unconfirmed: [],
    });
    expect(used).toMatchObject({
      used: 1,
      alternatives: 1,
      alternativesUsed: 1,
      alternativesWasted: 0,
      wastedCalls: 1,
      wastedInputTokens: 300,
    });
    // The first confirmed: the alternative dropped is all the alternatives added.
    expect(
      tally(NO_PIPELINE, "used", true, all, [other], { alternatives: 1, alternativeUsed: false, unconfirmed: [other] }),
    ).toMatchObject({ wastedInputTokens: 400, alternativesWasted: 440 });
    const revoked = tally(NO_PIPELINE, "revoked", true, all, [], {
      alternatives: 1,
      alternativeUsed: false,
      unconfirmed: [other],
    });
    expect(revoked).toMatchObject({
      revoked: 1,
      alternativesUsed: 0,
      alternativesWasted: 440,
      wastedCalls: 2,
      wastedInputTokens: 700,
    });
  });

  describe("which branch the look confirms", () => {
    // The two branches beside opening the refrigerator in the tea search, as the summarizer and planner would leave them.
    const afterOpen = (): Belief => {
      const belief = start();
      belief.containers.find((c) => c.name === "refrigerator")!.state = "open";
      belief.robotsAt.find((r) => r.robot === "mobile")!.at = "in_front_of_refrigerator";
      return belief;
    };
    const notThere: Branch = {
      ...AS_PROMISED,
      belief: afterOpen(),
      judged: null,
      plan: null,
      cursor: 0,
      action: { robot: "mobile", skill: "go_to", args: { navigation_point: "in_front_of_oven" } },
      critique: { verdict: "ok", feedback: "" },
      usage: {},
    };
    const foundBelief = afterOpen();
    foundBelief.objects.push({ name: "bottle_of_tea", place: "refrigerator", source: "seen" });
    foundBelief.explored.push("refrigerator");
    const found: Branch = {
      ...notThere,
      assumes: "the bottle_of_tea in the refrigerator",
      belief: foundBelief,
      action: { robot: "mobile", skill: "pick_from", args: { object: "bottle_of_tea", place: "refrigerator" } },
    };
    const look = (objects: Observation["objects"]): Extract<HistoryEntry, { kind: "observation" }>[] => [
      {
        step: 2,
        kind: "observation",
        robot: "mobile",
        observation: {
          robot: "mobile",
          objects,
          containers: [{ name: "refrigerator", state: "open" }],
          visiblePlaces: ["refrigerator"],
          summary: "",
        },
      },
    ];
    const ctx = { goal: TEA, robots, world };
    const ready = (b: Branch) => b.critique?.verdict === "ok";
    const tea = { name: "bottle_of_tea", relation: "in" as const, place: "refrigerator" };
    const milk = { name: "milk", relation: "in" as const, place: "refrigerator" };

    it("the tea seen (with milk no branch held): the found branch, never the search that goes on", () => {
      const { chosen, against } = confirmBranch([notThere, found], look([tea, milk]), ctx, ready);
      expect(chosen).toBe(1);
      expect(against[0]).toEqual(["the bottle_of_tea is seen at refrigerator, which the prediction did not hold"]);
    });
    it("the refrigerator seen without the tea: the search goes on, never the pick", () => {
      const { chosen, against } = confirmBranch([notThere, found], look([milk]), ctx, ready);
      expect(chosen).toBe(0);
      expect(against[1]).toContain("the bottle_of_tea is not in the refrigerator, where predicted");
    });
    it("the tea seen elsewhere than any branch had it: none", () => {
      const elsewhere = { name: "bottle_of_tea", relation: "on" as const, place: "table" };
      const wider = look([elsewhere]);
      wider[0].observation.visiblePlaces.push("table");
      expect(confirmBranch([notThere, found], wider, ctx, ready).chosen).toBe(-1);
    });
    it("a failed skill confirms no branch", () => {
      expect(
        confirmBranch([notThere, found], look([tea]), { ...ctx, failed: "the skill did not succeed" }, ready).chosen,
      ).toBe(-1);
    });
    it("a new thing where the prepared action puts something bears on it where that place may be full", () => {
      const release: Branch = {
        ...notThere,
        action: { robot: "mobile", skill: "release_to", args: { object: "milk", place: "refrigerator" } },
      };
      const apple = look([{ name: "apple", relation: "in", place: "refrigerator" }]);
      // Capacity common knowledge and room left: the apple does not bear on putting the milk in.
      const roomy = { ...world, places: world.places.map((p) => ({ ...p, capacity: 5 })) };
      expect(confirmBranch([release], apple, { ...ctx, world: roomy }, ready).chosen).toBe(0);
      const tight = { ...world, places: world.places.map((p) => ({ ...p, capacity: 1 })) };
      expect(confirmBranch([release], apple, { ...ctx, world: tight }, ready).chosen).toBe(-1);
      // Capacity not known: it may be full.
      const unknown = { ...world, places: world.places.map(({ capacity: _c, ...p }) => p) };
      expect(confirmBranch([release], apple, { ...ctx, world: unknown }, ready).chosen).toBe(-1);
      expect(
        confirmBranch([notThere], look([{ name: "apple", relation: "in", place: "refrigerator" }]), ctx, ready).chosen,
      ).toBe(0);
    });
  });
});
