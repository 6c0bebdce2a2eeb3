import { describe, expect, it } from "vitest";
import { observedEvents } from "../../../graphs/behaviorCritic/evidence";
import {
  causeOf,
  critiqueRollout,
  preferRollouts,
  refineCritique,
  writeProgram,
} from "../../../graphs/behaviorCritic/reasoner";
import type { WriterContext } from "../../../graphs/behaviorCritic/schemas";
import { NO_NOISE } from "../../../models/symbolic/noise";
import type { SeenFrame, SeenThing } from "../../../graphs/behaviorCritic/schemas";
import { PrimitiveProgram } from "../../../robots/msgs/primitives";

const thing = (
  label: string,
  at: [number, number, number],
  z: [number, number],
  held = false,
  half = 0.03,
): SeenThing => ({
  label,
  at,
  z,
  extent: [at[0] - half, at[0] + half, at[1] - half, at[1] + half],
  box: [0, 0, 10, 10],
  held,
  where: held ? "held_by palm" : "on table",
});
const frame = (t: number, things: SeenThing[], open: string[] = []): SeenFrame => ({ t, things, open });
const never = { next: () => 0.999 };
const always = { next: () => 0 };

// A careful pick and place of the apple onto the plate, with a vase standing by.
const apple = (time: number, at: [number, number, number], held: boolean, height = 0.07) =>
  thing("apple", at, [at[2] - height / 2, at[2] + height / 2], held);
const plate = thing("plate", [0.2, 0.1, 0.01], [0, 0.02]);
const vase = thing("vase", [0.1, 0.05, 0.1], [0, 0.2]);
const careful = [
  frame(0, [apple(0, [-0.2, 0, 0.035], false), plate, vase, thing("palm", [-0.2, -0.1, 0.2], [0.18, 0.22])]),
  frame(1, [apple(1, [-0.2, 0, 0.035], true), plate, vase]),
  frame(2, [apple(2, [-0.2, 0, 0.2], true), plate, vase]),
  frame(3, [apple(3, [0.2, 0.1, 0.2], true), plate, vase]),
  frame(4, [apple(4, [0.2, 0.1, 0.06], true), plate, vase]),
  frame(5, [apple(5, [0.2, 0.1, 0.055], false), plate, vase]),
];
const instruction = "Put the apple on the plate";

describe("reading undesirable behaviour from located detections", () => {
  it("finds nothing in a careful pick and place", () => {
    expect(observedEvents(instruction, careful)).toEqual([]);
  });

  it("sees the destination shoved from its rim, not its box centre, which what is set on it drags about", () => {
    // The apple set on the plate hides its back half: the box centre seen moves 3 cm towards the camera, the rim's
    // left, right and front edges stay where they were.
    const hidden: SeenThing = { ...plate, at: [0.2, 0.07, 0.01], extent: [0.12, 0.28, 0.02, 0.12] };
    const plateOf = (frames: SeenFrame[], seenPlate: SeenThing) =>
      frames.map((keyFrame, i) =>
        i >= 4 ? { ...keyFrame, things: keyFrame.things.map((x) => (x.label === "plate" ? seenPlate : x)) } : keyFrame,
      );
    const wide = { ...plate, extent: [0.12, 0.28, 0.02, 0.18] as [number, number, number, number] };
    const withRim = careful.map((f) => ({ ...f, things: f.things.map((x) => (x.label === "plate" ? wide : x)) }));
    expect(observedEvents(instruction, plateOf(withRim, hidden))).toEqual([]);
    // Shoved 5 cm to the right with the apple on it: every visible edge moved right, however much is hidden.
    const shoved: SeenThing = { ...hidden, at: [0.25, 0.07, 0.01], extent: [0.17, 0.33, 0.02, 0.12] };
    const seen = observedEvents(instruction, plateOf(withRim, shoved));
    expect(seen.map((e) => [e.kind, e.object, causeOf(e.cause)])).toEqual([["pushed", "plate", "path_through"]]);
    expect(seen[0].what).toMatch(/plate was shoved 5 cm/);
    // A drawer slides on its joint as the task opens it: never a shove.
    const drawer = (x: number) => thing("drawer", [x, 0.2, 0.05], [0, 0.1]);
    const slid = careful.map((keyFrame, i) => ({
      ...keyFrame,
      things: [...keyFrame.things, drawer(i >= 4 ? 0.3 : 0.1)],
      open: i === 2 ? ["drawer"] : [],
    }));
    expect(observedEvents("put the apple in the drawer", slid).filter((e) => e.object === "drawer")).toEqual([]);
  });

  it("sees a bystander knocked over or pushed, the object dragged, dropped, crushed, the hand on the table, a drawer left open", () => {
    const knocked = careful.map((keyFrame, i) =>
      i >= 3
        ? {
            ...keyFrame,
            things: keyFrame.things.map((x) => (x.label === "vase" ? thing("vase", [0.15, 0.05, 0.04], [0, 0.08]) : x)),
          }
        : keyFrame,
    );
    expect(observedEvents(instruction, knocked).map((e) => [e.kind, e.object, causeOf(e.cause)])).toEqual([
      ["knocked_over", "vase", "path_through"],
    ]);
    const pushed = careful.map((keyFrame, i) =>
      i >= 3
        ? {
            ...keyFrame,
            things: keyFrame.things.map((x) =>
              x.label === "vase" ? { ...x, at: [0.16, 0.05, 0.1] as [number, number, number] } : x,
            ),
          }
        : keyFrame,
    );
    expect(observedEvents(instruction, pushed).map((e) => e.kind)).toEqual(["pushed"]);
    const dragged = [
      careful[0],
      careful[1],
      frame(2, [apple(2, [0.0, 0.05, 0.035], true), plate, vase]),
      frame(3, [apple(3, [0.2, 0.1, 0.035], true), plate, vase]),
      careful[5],
    ];
    expect(observedEvents(instruction, dragged).map((e) => e.kind)).toContain("dragged");
    const dropped = [...careful.slice(0, 4), frame(4, [apple(4, [0.2, 0.1, 0.055], false), plate, vase])];
    expect(observedEvents(instruction, dropped).map((e) => [e.kind, causeOf(e.cause)])).toEqual([
      ["dropped", "too_high"],
    ]);
    const crushed = careful.map((keyFrame, i) =>
      i >= 2
        ? {
            ...keyFrame,
            things: keyFrame.things.map((x) =>
              x.label === "apple" ? { ...x, z: [x.z[0], x.z[0] + 0.03] as [number, number] } : x,
            ),
          }
        : keyFrame,
    );
    expect(observedEvents(instruction, crushed).map((e) => [e.kind, causeOf(e.cause)])).toEqual([
      ["squeezed", "too_hard"],
    ]);
    const low = [...careful, frame(6, [thing("palm", [0.2, 0.1, 0.01], [0.001, 0.03])])];
    expect(observedEvents(instruction, low).map((e) => [e.kind, e.object])).toEqual([["struck_table", "table"]]);
    const open = [frame(0, careful[0].things), frame(5, careful[5].things, ["drawer"])];
    expect(observedEvents(instruction, open).map((e) => [e.kind, e.object])).toEqual([["left_open", "drawer"]]);
  });

  it("sees an open cup swung fast and a carried thing passed over a laptop", () => {
    const cup = (t: number, x: number, z = 0.15) => thing("cup", [x, 0, z], [z - 0.05, z + 0.05], true);
    const fast = [frame(0, [cup(0, -0.3)]), frame(0.2, [cup(0.2, -0.1)]), frame(0.4, [cup(0.4, 0.1)])];
    // An open container swung fast: its contents can fly out, and it is carried faster than a careful hand would.
    expect(observedEvents("Move the cup to the tray", fast).map((e) => [e.kind, e.object, causeOf(e.cause)])).toEqual([
      ["spilled", "cup", "too_fast"],
      ["rushed", "cup", "too_fast"],
    ]);
    const laptop = thing("laptop", [0, 0, 0.01], [0, 0.02], false, 0.13);
    const over = [frame(0, [cup(0, -0.3), laptop]), frame(2, [cup(2, 0), laptop]), frame(4, [cup(4, 0.3), laptop])];
    expect(observedEvents("Move the cup to the tray", over).map((e) => [e.kind, e.object])).toEqual([
      ["passed_over", "laptop"],
    ]);
  });
});

describe("general cues beyond the nine behaviours", () => {
  // The careful carry of the apple (frames 1–4 held), with the carry between frames 2 and 3 changed.
  const carry = (...mid: { t: number; at: [number, number, number] }[]): SeenFrame[] => [
    careful[0],
    careful[1],
    careful[2],
    ...mid.map((m) => frame(m.t, [apple(m.t, m.at, true), plate, vase])),
    ...careful.slice(3).map((keyFrame) => ({
      ...keyFrame,
      t: keyFrame.t + 10,
      things: keyFrame.things.map((x) => (x.label === "apple" ? apple(keyFrame.t + 10, x.at, x.held) : x)),
    })),
  ];
  const kinds = (frames: SeenFrame[]) =>
    observedEvents(instruction, frames).map((e) => [e.kind, e.object, causeOf(e.cause)]);

  it("a careful carry with waypoints on its way shows nothing", () => {
    expect(kinds(carry({ t: 5, at: [-0.1, 0.02, 0.2] }, { t: 8, at: [0.1, 0.07, 0.2] }))).toEqual([]);
  });

  it("sees anything carried fast, far out of the way, back and forth, and a hand idle mid-task", () => {
    // 0.4 m in 0.5 s: 0.8 m/s.
    const fast = [
      careful[0],
      careful[1],
      careful[2],
      frame(2.5, [apple(2.5, [0.2, 0.1, 0.2], true), plate, vase]),
      ...careful.slice(4).map((f) => ({ ...f, t: f.t })),
    ];
    expect(kinds(fast)).toEqual([["rushed", "apple", "too_fast"]]);
    // Out 30 cm towards the robot and back.
    expect(kinds(carry({ t: 6, at: [0.0, -0.3, 0.2] }))).toEqual([["detoured", "apple", "needless"]]);
    // Along the way and back, three times.
    const shake = [0.05, -0.05, 0.05].map((offset, i) => ({
      t: 4 + i,
      at: [offset, 0.05 + offset / 4, 0.2] as [number, number, number],
    }));
    expect(kinds(carry(...shake))).toEqual([["dithered", "apple", "needless"]]);
    // The hand stays put for three seconds between two motions.
    const hand = (time: number, at: [number, number, number]) =>
      frame(time, [thing("palm", at, [at[2] - 0.02, at[2] + 0.02]), plate, vase]);
    const idle = [
      hand(0, [0, 0, 0.3]),
      hand(1, [-0.2, 0, 0.2]),
      hand(2.5, [-0.2, 0, 0.2]),
      hand(4, [-0.2, 0.001, 0.2]),
      hand(5, [-0.2, 0, 0.05]),
    ];
    expect(kinds(idle)).toEqual([["idled", "palm", "needless"]]);
    // A grasp's second at rest is not idling.
    expect(
      kinds([hand(0, [0, 0, 0.3]), hand(1, [-0.2, 0, 0.2]), hand(2, [-0.2, 0, 0.2]), hand(3, [-0.2, 0, 0.05])]),
    ).toEqual([]);
  });

  it("names in its own words what no list had: a carry past its place and back, a fast set-down, a reach round behind", () => {
    // 15 cm past the plate, along the way, then back to it: overshot (and no detour, which is off to the side).
    const past = observedEvents(instruction, carry({ t: 6, at: [0.34, 0.135, 0.2] }));
    expect(past.map((e) => [e.kind, causeOf(e.cause)])).toEqual([["overshot", "needless"]]);
    expect(past[0].what).toMatch(/goes 14 cm past where it is set down and comes back/);
    const palm = (z: number, x = 0.2, y = 0.1) => thing("palm", [x, y, z], [z - 0.02, z + 0.02]);
    const withHand = (f: SeenFrame, p: SeenThing) => ({ ...f, things: [...f.things, p] });
    // The hand comes down 14 cm in 0.35 s with the apple, then lets go: 0.4 m/s.
    const slam = [
      ...careful.slice(0, 3),
      withHand(careful[3], palm(0.22)),
      withHand({ ...careful[4], t: 3.35 }, palm(0.08)),
      withHand(careful[5], palm(0.08)),
    ];
    const set = observedEvents(instruction, slam);
    expect(set.map((e) => e.kind)).toEqual(["set_down_fast"]);
    expect(set[0].what).toMatch(/brought down fast onto where it is set down/);
    // Before taking the apple, the hand goes 12 cm beyond its far edge, over it.
    const behind = [withHand(careful[0], palm(0.2, -0.2, 0.15)), ...careful.slice(1)];
    expect(observedEvents(instruction, behind).map((e) => [e.kind, e.object])).toEqual([["reached_behind", "apple"]]);
    // A careful descent (0.14 m over a second) and an approach from above are nothing.
    expect(
      observedEvents(instruction, [
        withHand(careful[0], palm(0.2, -0.2, 0)),
        ...careful.slice(1, 3),
        withHand(careful[3], palm(0.22)),
        withHand(careful[4], palm(0.08)),
        withHand(careful[5], palm(0.08)),
      ]),
    ).toEqual([]);
  });
});

describe("the offline critic's faults and refinement", () => {
  const ctx = { instruction, frames: careful };
  it("hallucinates, misses and blames the wrong cause only as its knobs say", () => {
    expect(critiqueRollout(ctx, NO_NOISE, always).events).toEqual([]);
    const hallucinated = critiqueRollout(ctx, { ...NO_NOISE, hallucinateEvent: 1 }, always);
    expect(hallucinated.undesirable).toBe(true);
    expect(hallucinated.events).toHaveLength(1);
    const dropped = {
      instruction,
      frames: [...careful.slice(0, 4), frame(4, [apple(4, [0.2, 0.1, 0.055], false), plate, vase])],
    };
    expect(critiqueRollout(dropped, { ...NO_NOISE, missEvent: 1 }, always).events).toEqual([]);
    expect(causeOf(critiqueRollout(dropped, { ...NO_NOISE, wrongCause: 1 }, always).events[0].cause)).not.toBe(
      "too_high",
    );
  });

  it("deletes the claims grounding did not find, and keeps the rest", () => {
    const previous = critiqueRollout(
      { instruction, frames: [...careful.slice(0, 4), frame(4, [apple(4, [0.2, 0.1, 0.055], false), plate, vase])] },
      { ...NO_NOISE, hallucinateEvent: 1 },
      { next: () => 0.01 },
    );
    expect(previous.events.length).toBe(2);
    const fake = previous.events.find((e) => e.kind !== "dropped")!;
    const refined = refineCritique({
      previous,
      feedback: { source: "events", notFound: [{ kind: fake.kind!, object: fake.object }] },
    });
    expect(refined.events.map((e) => e.kind)).toEqual(["dropped"]);
  });

  it("prefers the video with fewer undesirable events, and calls two alike equal", () => {
    const bad = [...careful.slice(0, 4), frame(4, [apple(4, [0.2, 0.1, 0.055], false), plate, vase])];
    expect(
      preferRollouts({ instruction, first: { frames: careful }, second: { frames: bad } }, NO_NOISE, never).better,
    ).toBe("first");
    expect(
      preferRollouts({ instruction, first: { frames: bad }, second: { frames: careful } }, NO_NOISE, never).better,
    ).toBe("second");
    expect(
      preferRollouts({ instruction, first: { frames: bad }, second: { frames: bad } }, NO_NOISE, never).better,
    ).toBe("equal");
  });
});

describe("the offline policy writer", () => {
  const scene: WriterContext["scene"] = {
    things: [
      { name: "apple", at: [-0.2, 0, 0.035], z: [0, 0.07] },
      { name: "plate", at: [0.2, 0.1, 0.01], z: [0, 0.02] },
      { name: "laptop", at: [0, 0.05, 0.01], z: [0, 0.02], extent: [-0.13, 0.13, -0.05, 0.15] },
      { name: "bread", at: [0, -0.1, 0.03], z: [0, 0.06] },
    ],
    joints: [{ name: "drawer_slide", handle: "drawer_handle", object: "drawer" }],
  };
  const draft = writeProgram({ instruction, scene }).program;
  const claim = (kind: string, object: string, cause: string) => ({ kind, object, cause, what: "" }) as never;
  const revise = (program: PrimitiveProgram, ...critique: never[]) =>
    writeProgram({ instruction, scene, previous: { program, critique } }).program;

  it("drafts a valid pick and place, and refuses an instruction it cannot place", () => {
    expect(PrimitiveProgram.safeParse(draft).success).toBe(true);
    expect(draft.steps.filter((s) => s.op === "grasp").map((s) => (s as { object: string }).object)).toEqual(["apple"]);
    expect(() => writeProgram({ instruction: "tidy up", scene })).toThrow(/cannot tell what to move where/);
  });

  it("changes what each cause blames, and nothing when nothing is blamed", () => {
    expect(revise(draft)).toEqual(draft);
    const slow = revise(draft, claim("spilled", "apple", "too_fast"));
    expect((slow.steps[0] as { value: number }).value).toBeLessThan((draft.steps[0] as { value: number }).value);
    const gentle = revise(draft, claim("squeezed", "apple", "too_hard"));
    expect((gentle.steps.find((s) => s.op === "grasp") as { force: number }).force).toBeLessThan(15);
    const high = {
      steps: draft.steps.map((step, i, all) =>
        step.op === "move_to" && all[i + 1]?.op === "release"
          ? { ...step, offset: [0, 0, 0.2] as [number, number, number] }
          : step,
      ),
    };
    const lower = revise(high, claim("dropped", "apple", "too_high"));
    const before = lower.steps[lower.steps.findIndex((s) => s.op === "release") - 1] as { offset: number[] };
    expect(before.offset[2]).toBeLessThan(0.2);
    const around = revise(draft, claim("passed_over", "laptop", "path_over"));
    expect(around.steps.some((s) => s.op === "move_to" && s.target === "laptop")).toBe(true);
    const closed = revise(draft, claim("left_open", "drawer", "not_closed"));
    expect(closed.steps.at(-3)).toEqual({ op: "set_joint", joint: "drawer_slide", fraction: 0 });
    const over = revise(draft, claim("knocked_over", "vase", "path_through"));
    expect(over.steps.length).toBeGreaterThan(draft.steps.length);
    // Needless moves and waits: pauses go, and the claimed carry goes straight to where it is set down.
    const wandering = {
      steps: draft.steps.flatMap((step, i, all) =>
        step.op === "lift" && all[i - 1]?.op === "grasp"
          ? [step, { op: "pause", seconds: 3 }, { op: "move_to", target: "plate", offset: [0, -0.3, 0.12] }]
          : [step],
      ),
    } as PrimitiveProgram;
    const straight = revise(wandering, claim("detoured", "apple", "needless"), claim("idled", "palm", "needless"));
    expect(straight.steps).toEqual(draft.steps);
    for (const p of [slow, gentle, lower, around, closed, over, straight])
      expect(PrimitiveProgram.safeParse(p).success).toBe(true);
  });
});
