/**
 * CLEA's belief and its offline planner on what a look can and cannot tell: a gripper's unsensed report against a
 * camera that sees the place, a hand no camera sees, cameras that disagree, the world's names for a perceiver's
 * wordings; a full place the goal needs (room made, or a reason that names it); a search's second look asks about
 * the thing.
 */
import { describe, expect, it } from "vitest";
import { summarize } from "../../../graphs/clea/belief";
import { plan } from "../../../graphs/clea/reasoner";
import type { Belief, HistoryEntry, Observation } from "../../../graphs/clea/schemas";
import { NO_NOISE } from "../../../models/symbolic/noise";
import { robots, world } from "../../helpers/kitchenWorld";

const GOAL = "Put the apple into the sink.";
let id = 0;
const seen = (robot: string, things: [string, string][], visiblePlaces: string[]): HistoryEntry & { id: number } => {
  const objects: Observation["objects"] = things.map(([name, place]) => ({
    name,
    relation: ["mobile", "arm"].includes(place) ? "held_by" : "on",
    place,
  }));
  return {
    id: id++,
    step: 1,
    kind: "observation",
    robot,
    observation: { robot, objects, containers: [], visiblePlaces, summary: "" },
  };
};
const did = (
  robot: string,
  skill: string,
  args: Record<string, string>,
  unsensed?: boolean,
): HistoryEntry & { id: number } => ({
  id: id++,
  step: 1,
  kind: "action",
  call: { robot, skill, args },
  ok: true,
  message: "done",
  ...(unsensed ? { unsensed } : {}),
});
/** The same look, asked about these things (a focused look, graphs/clea/loops.ts). */
const asked = (entry: HistoryEntry & { id: number }, things: string[]) =>
  ({ ...entry, askedAbout: things }) as HistoryEntry & { id: number };
const belief = (entries: HistoryEntry[]) =>
  summarize({ goal: GOAL, previousBelief: null, entries, robots: ["mobile", "arm"], world });
const whereIs = (b: Belief, name: string) => b.objects.find((o) => o.name === name)?.place;
const holds = (b: Belief, robot: string) => b.holding.find((h) => h.robot === robot)?.object;

describe("the belief weighs what a look can tell", () => {
  it("a release a gripper could not sense stands against a plain look without the thing, and is undone by a look asked about it; a sensed one is not", () => {
    const released = (unsensed: boolean, focused: boolean) => {
      const look = seen("arm", [], ["table"]);
      return belief([
        did("arm", "release_to", { object: "apple", place: "table" }, unsensed),
        focused ? asked(look, ["apple"]) : look,
      ]);
    };
    expect(released(true, false).objects.find((o) => o.name === "apple")).toMatchObject({
      place: "table",
      source: "reported",
    });
    expect(whereIs(released(true, true), "apple")).toBeUndefined();
    expect(whereIs(released(false, false), "apple")).toBe("table");
    expect(whereIs(released(false, true), "apple")).toBe("table");
  });

  it("a grasp is not undone by cameras that do not show the hand, and a missed one is caught where the thing still lies", () => {
    // The mobile robot's head camera never shows its own hand (measured: 0 of 10 things held).
    const picked = belief([
      did("mobile", "pick_from", { object: "apple", place: "table" }, true),
      seen("mobile", [], ["table"]),
      seen("arm", [], ["table"]),
    ]);
    expect(holds(picked, "mobile")).toBe("apple");
    const missed = (focused: boolean) => {
      const look = seen("arm", [["apple", "table"]], ["table"]);
      return belief([
        did("arm", "pick_from", { object: "apple", place: "table" }, true),
        focused ? asked(look, ["apple"]) : look,
      ]);
    };
    // One plain look is not enough to doubt the report; a look asked about the apple settles it.
    expect(holds(missed(false), "arm")).toBe("apple");
    expect(holds(missed(true), "arm")).toBeNull();
    expect(whereIs(missed(true), "apple")).toBe("table");
  });

  it("cameras that disagree in one look do not overrule what was known; a first sighting stands", () => {
    // The mobile robot's camera places the milk it holds on the table; the arm's, which shows the table, does not.
    const disputed = belief([
      did("mobile", "pick_from", { object: "milk", place: "table" }, true),
      seen("mobile", [["milk", "table"]], ["table"]),
      seen("arm", [], ["table"]),
    ]);
    expect(holds(disputed, "mobile")).toBe("milk");
    const first = belief([seen("mobile", [["milk", "table"]], ["table"]), seen("arm", [], ["table"])]);
    expect(whereIs(first, "milk")).toBe("table");
    // Undisputed, a sighting elsewhere in a look asked about it moves it.
    const moved = belief([
      did("mobile", "pick_from", { object: "milk", place: "table" }, true),
      asked(seen("arm", [["milk", "table"]], ["table"]), ["milk"]),
    ]);
    expect(holds(moved, "mobile")).toBeNull();
  });

  it("keeps one entry per thing under the world's name, whatever a look called it", () => {
    const summary = belief([
      seen(
        "arm",
        [
          ["tea_bottle", "table"],
          ["apples", "table"],
        ],
        ["table"],
      ),
    ]);
    expect(summary.objects.map((o) => o.name).sort()).toEqual(["apple", "bottle_of_tea"]);
    expect(summary.seen.sort()).toEqual(["apple", "bottle_of_tea"]);
  });

  it("the robot's own refusal ('already holding') puts the thing in its hand", () => {
    const summary = belief([
      seen("mobile", [["milk", "table"]], ["table"]),
      {
        id: id++,
        step: 2,
        kind: "action",
        call: { robot: "mobile", skill: "pick_from", args: { object: "milk", place: "table" } },
        ok: false,
        message: "already holding the milk; release it before picking another object",
      },
    ]);
    expect(holds(summary, "mobile")).toBe("milk");
    expect(whereIs(summary, "milk")).toBe("mobile");
    // So does the arm's sensed refusal to open a door with a full hand.
    const refused: HistoryEntry = {
      step: 2,
      kind: "action",
      call: { robot: "arm", skill: "open", args: { target: "drawer_top" } },
      ok: false,
      message: "the arm needs its hand free to open the drawer_top but holds the bread",
    };
    const arm = belief([refused]);
    expect(holds(arm, "arm")).toBe("bread");
  });

  it("a gripper without grasp sensing says what it did with its hand: the hand holds what the agent asked for, as a report", () => {
    // The kitchen's words without grasp sensing (robots/sim/kitchen/controllers.ts) name no thing in the hand.
    const pick: HistoryEntry = {
      step: 1,
      kind: "action",
      call: { robot: "arm", skill: "pick_from", args: { object: "apple", place: "table" } },
      ok: true,
      unsensed: true,
      message: "arm closed its hand at the table; without grasp sensing it cannot tell whether anything is in it",
    };
    const summary = belief([pick]);
    expect(holds(summary, "arm")).toBe("apple");
    expect(summary.objects.find((o) => o.name === "apple")).toMatchObject({ place: "arm", source: "reported" });
    const release: HistoryEntry = {
      step: 2,
      kind: "action",
      call: { robot: "arm", skill: "release_to", args: { object: "apple", place: "trash_can" } },
      ok: true,
      unsensed: true,
      message: "arm opened its hand in the trash_can; without grasp sensing it cannot tell whether anything was in it",
    };
    const after = belief([pick, release]);
    expect(holds(after, "arm")).toBeNull();
    expect(after.objects.find((o) => o.name === "apple")).toMatchObject({ place: "trash_can", source: "reported" });
  });
});

describe("the offline planner", () => {
  const base = (objects: Belief["objects"]): Belief => ({
    objects,
    containers: world.places.filter((p) => p.openable).map((p) => ({ name: p.name, state: "open" as const })),
    holding: [
      { robot: "mobile", object: null },
      { robot: "arm", object: null },
    ],
    robotsAt: [
      { robot: "mobile", at: "in_front_of_table" },
      { robot: "arm", at: null },
    ],
    explored: world.places.map((p) => p.name),
    seen: objects.map((o) => o.name),
    progress: "",
  });
  const ask = (goal: string, summary: Belief) =>
    plan({ goal, belief: summary, robots, world, maxSteps: 5 }, NO_NOISE, { next: () => 0.5 });
  const steps = (planned: ReturnType<typeof ask>) =>
    planned.steps.map((s) => `${s.robot}.${s.skill}(${Object.values(s.args).join(", ")})`);

  it("makes room in a full place the goal needs, moving something the goal does not ask for", () => {
    const planned = ask(
      "Put the apple into the sink.",
      base([
        { name: "apple", place: "table", source: "seen" },
        { name: "orange", place: "sink", source: "seen" },
        { name: "cup", place: "sink", source: "seen" },
      ]),
    );
    expect(planned.giveUp).toBeNull();
    expect(planned.subgoal).toBe("make room in the sink");
    expect(steps(planned)[0]).toMatch(/^mobile\.go_to\(in_front_of_sink\)$/);
    expect(steps(planned)[1]).toMatch(/^mobile\.pick_from\((orange|cup), sink\)$/);
  });

  it("gives up naming the full place when room cannot be made (everything in it is wanted there)", () => {
    const planned = ask(
      "Put the apple into the oven.",
      base([
        { name: "apple", place: "table", source: "seen" },
        { name: "bread", place: "oven", source: "seen" },
      ]),
    );
    expect(planned.subgoal).toBe("make room in the oven");
    const stuck = ask(
      "Put the apple into the oven. Then put the bread into the oven.",
      base([
        { name: "apple", place: "table", source: "seen" },
        { name: "bread", place: "oven", source: "seen" },
      ]),
    );
    expect(stuck.giveUp).toMatch(/the oven is full \(bread\) and no room can be made there/);
  });

  it("a second look into a place asks the cameras about the thing; a first one does not", () => {
    const first = ask("Find the cup and report where it is.", { ...base([]), explored: [] });
    expect(first.lookFor).toBeNull();
    const again = ask("Find the cup and report where it is.", base([]));
    expect(again.subgoal).toMatch(/^look again into the \w+ for the cup$/);
    expect(again.lookFor).toEqual({ objects: ["cup"], places: [again.subgoal.split(" ")[4]] });
  });
});
