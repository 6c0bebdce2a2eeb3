/** Whether a look agrees with the belief a skill was predicted to leave (graphs/clea/prediction.ts). */
import { describe, expect, it } from "vitest";
import { disagreements, predictedEntry } from "../../../graphs/clea/prediction";
import type { Belief, HistoryEntry, Observation } from "../../../graphs/clea/schemas";

const labels = ["bottle_of_tea", "milk", "apple"];
const predicted: Belief = {
  objects: [
    { name: "bottle_of_tea", place: "mobile", source: "action" },
    { name: "apple", place: "table", source: "seen" },
  ],
  containers: [{ name: "refrigerator", state: "open" }],
  holding: [
    { robot: "mobile", object: "bottle_of_tea" },
    { robot: "arm", object: null },
  ],
  robotsAt: [{ robot: "mobile", at: "in_front_of_refrigerator" }],
  explored: ["table"],
  seen: ["bottle_of_tea", "apple"],
  progress: "",
};
let id = 10;
const look = (partial: Partial<Observation>): Extract<HistoryEntry, { kind: "observation" }> & { id: number } => ({
  id: id++,
  step: 3,
  kind: "observation",
  robot: partial.robot ?? "arm",
  observation: {
    robot: partial.robot ?? "arm",
    objects: [],
    containers: [],
    visiblePlaces: [],
    summary: "",
    ...partial,
  },
});

describe("a look against the predicted belief", () => {
  it("agrees when every thing and door it shows is as predicted (a hand is not judged by a camera not showing it)", () => {
    const entry = look({
      objects: [{ name: "apple", relation: "on", place: "table" }],
      containers: [{ name: "refrigerator", state: "open" }],
      visiblePlaces: ["table"],
    });
    expect(disagreements(predicted, [entry], labels)).toEqual([]);
  });
  it("disagrees when a door is in another state than predicted (pushed shut)", () => {
    const entry = look({ containers: [{ name: "refrigerator", state: "closed" }] });
    expect(disagreements(predicted, [entry], labels)).toEqual(["the refrigerator is closed, not open as predicted"]);
  });
  it("disagrees when a thing predicted in the hand is seen elsewhere (a grasp that closed on nothing)", () => {
    const entry = look({
      objects: [{ name: "bottle_of_tea", relation: "in", place: "refrigerator" }],
      visiblePlaces: ["refrigerator"],
    });
    expect(disagreements(predicted, [entry], labels).join("; ")).toMatch(
      /the bottle_of_tea is at refrigerator, not mobile as predicted/,
    );
  });
  it("disagrees when a place in view lacks what the prediction puts there, or shows what it did not hold", () => {
    expect(disagreements(predicted, [look({ visiblePlaces: ["table"] })], labels)).toEqual([
      "the apple is not in the table, where predicted",
    ]);
    const news = look({
      objects: [
        { name: "apple", relation: "on", place: "table" },
        { name: "milk", relation: "on", place: "table" },
      ],
      visiblePlaces: ["table"],
    });
    expect(disagreements(predicted, [news], labels)).toEqual([
      "the milk is seen at table, which the prediction did not hold",
    ]);
  });
  it("writes the predicted result as an entry the summarizer can tell from a result", () => {
    const entry = predictedEntry(
      7,
      2,
      { robot: "mobile", skill: "pick_from", args: { object: "milk", place: "refrigerator" } },
      true,
    );
    expect(entry).toMatchObject({ id: 7, kind: "action", ok: true, predicted: true, unsensed: true });
  });
});
