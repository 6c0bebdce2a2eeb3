/** The symbolic reasoner's parts: reading instructions, planning over manifests, verifying, noise under a seed. */
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { closestName, readInstruction } from "../../models/reasoning/language";
import { search } from "../../models/symbolic/search";
import { critique, emptyBelief, staticFacts, summarize, verify } from "../../graphs/clea/reasoner";
import { noiseLevel, NO_NOISE } from "../../models/symbolic/noise";
import { SymbolicChatModel } from "../../models/symbolic";
import { contextBlock } from "../../models/context";
import { listScenarios, loadScenario } from "../../robots/sim/kitchen/scenario";
import { labels, places, robots, world } from "../helpers/kitchenWorld";
import { allReasoners } from "../../graphs";

describe("reading instructions", () => {
  it.each(listScenarios())("reads the goal of %s from its instruction alone", (name) => {
    const scenario = loadScenario(name);
    expect(readInstruction(scenario.instruction, labels, places).goals.sort()).toEqual([...scenario.goal].sort());
  });

  it("keeps the locations an instruction states", () => {
    const reading = readInstruction("Put the orange, which is on the table, into the sink.", labels, places);
    expect(reading.told).toEqual([{ object: "orange", place: "table" }]);
  });

  it("matches other wordings of a name, and nothing too far off", () => {
    expect(closestName("tea_bottle", labels)).toBe("bottle_of_tea");
    expect(closestName("Apples", labels)).toBe("apple");
    expect(closestName("anvil", labels)).toBeUndefined();
  });
});

describe("planning over the manifests", () => {
  it("finds the shortest hand-over: the mobile robot fetches, the arm throws away", () => {
    const facts = [
      "in(bottle_of_tea, refrigerator)",
      "closed(refrigerator)",
      "hand_empty(mobile)",
      "hand_empty(arm)",
      "at(mobile, in_front_of_table)",
    ];
    const solution = search(
      {
        robots,
        staticFacts: staticFacts(robots, world),
        capacity: { table: 6, trash_can: 4, refrigerator: 4 },
        objects: ["bottle_of_tea"],
      },
      facts,
      ["in(bottle_of_tea, trash_can)"],
    );
    expect(solution?.plan.map((a) => `${a.robot}.${a.skill}(${Object.values(a.args).join(", ")})`)).toEqual([
      "mobile.go_to(in_front_of_refrigerator)",
      "mobile.open(refrigerator)",
      "mobile.pick_from(bottle_of_tea, refrigerator)",
      "mobile.go_to(in_front_of_table)",
      "mobile.release_to(bottle_of_tea, table)",
      "arm.pick_from(bottle_of_tea, table)",
      "arm.release_to(bottle_of_tea, trash_can)",
    ]);
  });

  it("respects capacity: nothing goes into a full oven", () => {
    const facts = [
      "in(apple, table)",
      "in(bread, oven)",
      "hand_empty(mobile)",
      "hand_empty(arm)",
      "at(mobile, in_front_of_table)",
    ];
    const solution = search(
      { robots, staticFacts: staticFacts(robots, world), capacity: { oven: 1, table: 6 }, objects: ["apple"] },
      facts,
      ["in(apple, oven)"],
      20_000,
    );
    expect(solution).toBeUndefined();
  });
});

describe("summarizer", () => {
  it("keeps what one camera sees although another, looking at the same time, missed it", () => {
    const look = (robot: string, objects: string[], id: number) => ({
      id,
      step: 1,
      kind: "observation" as const,
      robot,
      observation: {
        robot,
        objects: objects.map((name) => ({ name, relation: "on" as const, place: "table" })),
        containers: [],
        visiblePlaces: ["table"],
        summary: "",
      },
    });
    // Either order: the mobile robot sees the orange on the table, the arm's detector misses it.
    for (const entries of [
      [look("mobile", ["orange", "bread"], 1), look("arm", ["bread"], 2)],
      [look("arm", ["bread"], 1), look("mobile", ["orange", "bread"], 2)],
    ]) {
      const summary = summarize({
        goal: "Put the orange into the sink.",
        previousBelief: null,
        entries,
        robots: ["mobile", "arm"],
        world,
      });
      expect(summary.objects.find((o) => o.name === "orange")?.place).toBe("table");
    }
    // A later look that misses it still takes it away (the newest look wins), even under the same step count.
    const action = {
      id: 2,
      step: 1,
      kind: "action" as const,
      call: { robot: "arm", skill: "open", args: { target: "drawer_top" } },
      ok: true,
      message: "",
    };
    const afterAction = summarize({
      goal: "Put the orange into the sink.",
      previousBelief: null,
      entries: [look("mobile", ["orange"], 1), action, look("arm", ["bread"], 3)],
      robots: ["mobile", "arm"],
      world,
    });
    expect(afterAction.objects.find((o) => o.name === "orange")).toBeUndefined();
  });
});

describe("verifier", () => {
  it("remaps misnamed objects and rejects what names nothing", () => {
    const verified = verify({
      robots,
      steps: [
        { robot: "mobile", skill: "pick_from", args: { object: "tea_bottle", place: "refrigerator" } },
        { robot: "arm", skill: "pick_from", args: { object: "anvil", place: "table" } },
        { robot: "arm", skill: "go_to", args: { navigation_point: "in_front_of_sink" } },
      ],
    });
    expect(verified.steps.map((s) => s.status)).toEqual(["remapped", "rejected", "rejected"]);
    expect(verified.steps[0].call.args.object).toBe("bottle_of_tea");
    expect(verified.steps[2].note).toMatch(/arm has no skill go_to/);
  });
});

describe("critic", () => {
  const belief = () => {
    const initial = emptyBelief(["mobile", "arm"], world);
    initial.objects.push({ name: "bottle_of_tea", place: "arm", source: "action" });
    initial.holding = [
      { robot: "mobile", object: null },
      { robot: "arm", object: "bottle_of_tea" },
    ];
    initial.containers = initial.containers.map((c) => ({ ...c, state: c.name === "drawer_top" ? "open" : "closed" }));
    return initial;
  };
  const ask = (args: Record<string, string>) =>
    critique(
      {
        goal: "Find the bottle_of_tea and throw it into the trash_can.",
        action: { robot: "arm", skill: "release_to", args },
        belief: belief(),
        observation: null,
        robots,
        world,
      },
      NO_NOISE,
      { next: () => 0.99 },
    );

  it("lets through an action that brings the goal closer", () => {
    expect(ask({ object: "bottle_of_tea", place: "trash_can" }).verdict).toBe("ok");
  });

  it("rejects an action that would succeed but serves nothing (the wrong place)", () => {
    const critiqued = ask({ object: "bottle_of_tea", place: "drawer_top" });
    expect(critiqued.verdict).toBe("wrong_plan");
    expect(critiqued.feedback).toMatch(/does not bring in\(bottle_of_tea, trash_can\) any closer/);
  });

  it("rejects an action whose precondition the belief contradicts", () => {
    expect(ask({ object: "bottle_of_tea", place: "drawer_middle" })).toMatchObject({
      verdict: "wrong_plan",
      feedback: "the drawer_middle is closed; open it first",
    });
    expect(ask({ object: "bottle_of_tea", place: "sink" })).toMatchObject({ verdict: "invalid" });
  });
});

describe("noise under a seed", () => {
  const ask = async (seed: number) => {
    const model = new SymbolicChatModel(allReasoners(), seed, { ...NO_NOISE, ...noiseLevel(0.5) });
    const detections = {
      detections: labels.slice(0, 6).map((l) => ({ label: l, location: { relation: "on" as const, place: "table" } })),
      places: [{ name: "table", state: "open" as const, pixels: 900, insidePixels: 800 }],
    };
    const reply = await model.invoke([new HumanMessage(contextBlock("perceive", { robot: "arm", detections, world }))]);
    return String(reply.content);
  };
  it("gives the same answer for the same seed and prompt, and other answers for other seeds", async () => {
    const first = await ask(1);
    expect(await ask(1)).toBe(first);
    const others = await Promise.all([2, 3, 4, 5].map(ask));
    expect(others.some((o) => o !== first)).toBe(true);
  });

  it("refuses a prompt with no context block, rather than guessing", async () => {
    await expect(new SymbolicChatModel(allReasoners()).invoke([new HumanMessage("what do you see?")])).rejects.toThrow(
      /no robograph context block/,
    );
  });
});
