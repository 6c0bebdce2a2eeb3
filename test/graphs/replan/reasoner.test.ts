/** The symbolic reasoner's hierarchical (RePLan) roles, on hand-written prompts' contexts: no simulator involved. */
import { describe, expect, it } from "vitest";
import type { WorldDescription } from "../../../robots/manifests/schema";
import { NO_NOISE, noiseLevel } from "../../../models/symbolic/noise";
import * as h from "../../../graphs/replan/reasoner";
import { MotionProgram } from "../../../robots/msgs/motion";

const draw = (xs: number[]) => {
  let i = 0;
  return { next: () => xs[i++ % xs.length] };
};
const never = draw([0.99]);

const cabinet: WorldDescription = {
  name: "tabletop",
  places: [
    { name: "wooden_cabinet", kind: "container", openable: true, capacity: 4 },
    { name: "floor", kind: "surface", openable: false, capacity: 20 },
  ],
  navigationPoints: [],
  labels: ["wooden_cabinet", "left_door_handle", "right_door_handle", "yellow_cube", "red_bar"],
  joints: [
    {
      name: "left_door",
      object: "wooden_cabinet",
      handle: "left_door_handle",
      description: "left door of the wooden cabinet",
    },
    {
      name: "right_door",
      object: "wooden_cabinet",
      handle: "right_door_handle",
      description: "right door of the wooden cabinet",
    },
  ],
  targets: [{ name: "target_position", place: "wooden_cabinet" }],
};
const box = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });
const on = (place: string) => ({ relation: "on" as const, place });
const barred: h.SceneDetections = {
  detections: [
    { label: "wooden_cabinet", box: box(100, 60, 120, 120), location: on("floor"), color: "brown" },
    { label: "left_door_handle", box: box(150, 110, 8, 20), location: on("floor") },
    { label: "right_door_handle", box: box(162, 110, 8, 20), location: on("floor") },
    { label: "red_bar", box: box(130, 115, 60, 8), location: on("floor"), color: "red" },
    { label: "yellow_cube", box: box(230, 170, 14, 14), location: on("floor"), color: "yellow" },
  ],
  places: [{ name: "wooden_cabinet", state: "closed", pixels: 9000, insidePixels: 0 }],
};
const GOAL = "move the yellow_cube to target_position inside the wooden_cabinet";
const ctx = (over: Partial<h.HighLevelContext> = {}): h.HighLevelContext => ({
  goal: GOAL,
  world: cabinet,
  scene: [],
  facts: [],
  reasons: [],
  failedAttempts: [],
  replansSoFar: 0,
  proceduresSoFar: 0,
  ...over,
});

describe("RePLan symbolic planner", () => {
  it("plans to open a closed cabinet before moving the cube in, and plans around a diagnosed bar", () => {
    const first = h.highLevelPlan(ctx({ facts: ["the wooden_cabinet is closed"] }), NO_NOISE, never);
    expect(first.steps).toEqual([
      { kind: "motion", action: "open the wooden_cabinet" },
      { kind: "motion", action: "move the yellow_cube to the target_position" },
    ]);
    const open = h.highLevelPlan(ctx({ facts: ["the wooden_cabinet is open"] }), NO_NOISE, never);
    expect(open.steps.map((s) => s.action)).toEqual(["move the yellow_cube to the target_position"]);
    const replan = h.highLevelPlan(
      ctx({
        facts: ["the wooden_cabinet is closed"],
        reasons: [{ step: "open the wooden_cabinet", reason: "the red_bar is blocking the wooden_cabinet" }],
      }),
      NO_NOISE,
      never,
    );
    expect(replan.steps.map((s) => s.action)).toEqual([
      "move the red_bar away from the wooden_cabinet",
      "open the wooden_cabinet",
      "move the yellow_cube to the target_position",
    ]);
  });

  it("writes valid reward programs from the declared joints and handles", () => {
    const open = h.motionDraft({ step: "open the wooden_cabinet", world: cabinet, facts: [] }, NO_NOISE, never);
    const terms = open.terms.map((t) => t.term);
    expect(terms).toMatchObject([
      { kind: "minimize_l2_distance", a: "palm", b: "left_door_handle", primary: false },
      { kind: "set_joint_fraction", joint: "left_door", fraction: 1, primary: true },
    ]);
    expect(MotionProgram.safeParse({ terms, duration: open.duration }).success).toBe(true);
    const away = h
      .motionDraft(
        { step: "move the red_bar away from the wooden_cabinet", world: cabinet, facts: [] },
        NO_NOISE,
        never,
      )
      .terms.map((t) => t.term);
    expect(away[1]).toMatchObject({ kind: "maximize_l2_distance", a: "red_bar", b: "left_door_handle", primary: true });
  });

  it("the verifier drops a term that fights the motion and picks the primary", () => {
    // wrongArgument noise adds a term pushing the palm away from what it must grasp, and the wrong primary.
    const noisy = h.motionDraft(
      { step: "open the wooden_cabinet", world: cabinet, facts: [] },
      { ...NO_NOISE, wrongArgument: 1, skipStep: 1 },
      draw([0]),
    );
    expect(noisy.terms).toHaveLength(3);
    expect(noisy.terms[0].term.primary).toBe(true);
    const check = h.checkTerms({ step: "open the wooden_cabinet", draft: noisy, world: cabinet });
    expect(check.keep.map((k) => k.index)).toEqual([0, 1]);
    expect(check.primary).toBe(1);
  });

  it("diagnoses the bar over the handles, and a misnamed diagnosis is remapped by the verifier", () => {
    const diagnosis = h.diagnose(
      { action: "open the wooden_cabinet", world: cabinet, detections: barred, phrasing: "q1" },
      NO_NOISE,
      never,
    );
    expect(diagnosis.explanation).toBe("The red_bar is blocking the wooden_cabinet.");
    const misnamed = h.diagnose(
      { action: "open the wooden_cabinet", world: cabinet, detections: barred, phrasing: "q1" },
      { ...NO_NOISE, misname: 1 },
      draw([0.99, 0.99, 0]),
    );
    expect(misnamed.explanation).toBe("The bar_red is blocking the wooden_cabinet.");
    expect(h.checkNames({ sentence: misnamed.explanation, world: cabinet })).toEqual({
      wrongNames: true,
      rewritten: "The red_bar is blocking the wooden_cabinet.",
    });
    const reasons = h.consolidate({
      explanations: [
        diagnosis.explanation,
        diagnosis.explanation,
        "Nothing in the scene seems to prevent it.",
        misnamed.explanation,
      ],
    });
    expect(reasons.reasons[0]).toBe("the red_bar is blocking the wooden_cabinet");
  });

  it("with nothing in the way, a lever beside a locked cabinet is named; a majority of 'nothing' gives no reason", () => {
    const world: WorldDescription = {
      name: "tabletop",
      places: [{ name: "cabinet", kind: "container", openable: true, capacity: 2 }],
      navigationPoints: [],
      labels: ["cabinet", "cabinet_handle", "lever", "lever_handle", "blue_cube"],
      joints: [
        { name: "cabinet_door", object: "cabinet", handle: "cabinet_handle", description: "door of the cabinet" },
        { name: "lever", object: "lever", handle: "lever_handle", description: "a lever beside the cabinet" },
      ],
    };
    const dets: h.SceneDetections = {
      detections: [
        { label: "cabinet", box: box(100, 60, 100, 100), location: on("floor") },
        { label: "cabinet_handle", box: box(180, 100, 6, 16), location: on("floor") },
        { label: "lever", box: box(215, 90, 10, 40), location: on("floor") },
        { label: "lever_handle", box: box(214, 86, 12, 8), location: on("floor") },
      ],
      places: [{ name: "cabinet", state: "closed", pixels: 8000, insidePixels: 0 }],
    };
    const diagnosis = h.diagnose(
      { action: "open the cabinet", world, detections: dets, phrasing: "q" },
      NO_NOISE,
      never,
    );
    expect(diagnosis.explanation).toMatch(/the cabinet is locked; the lever beside it/);
    const consolidated = h.consolidate({ explanations: [diagnosis.explanation, diagnosis.explanation] });
    const plan = h.highLevelPlan(
      {
        ...ctx(),
        goal: "find the blue_cube",
        world,
        facts: ["the cabinet is closed"],
        reasons: [{ step: "open the cabinet", reason: consolidated.reasons[0] }],
      },
      NO_NOISE,
      never,
    );
    expect(plan.steps.map((s) => s.action)).toEqual([
      "pull the lever",
      "open the cabinet",
      "look inside the cabinet for the blue_cube",
    ]);
    expect(
      h.consolidate({
        explanations: [
          diagnosis.explanation,
          "Nothing in the scene seems to prevent it.",
          "Nothing in the scene seems to prevent it.",
        ],
      }).reasons,
    ).toEqual([]);
  });

  it("a vision step asks, answers from detections and records facts; the colour task resolves the cube", () => {
    const world: WorldDescription = {
      name: "tabletop",
      places: [{ name: "crate", kind: "surface", openable: false, capacity: 1 }],
      navigationPoints: [],
      labels: ["crate", "red_cube", "yellow_cube"],
    };
    const goal = "place the cube with the same color as the crate on the crate";
    const plan = h.highLevelPlan({ ...ctx(), goal, world }, NO_NOISE, never);
    expect(plan.steps[0]).toEqual({ kind: "vision", action: "check the colour of the crate" });
    const asked = h.visionQuestions({ step: plan.steps[0].action, facts: [] });
    expect(asked.questions).toEqual(["What colour is the crate?"]);
    const dets: h.SceneDetections = {
      detections: [{ label: "crate", box: box(0, 0, 10, 10), location: on("floor"), color: "red" }],
      places: [],
    };
    const answered = h.answer({ question: asked.questions[0], world, detections: dets }, NO_NOISE, never);
    const check = h.stepCheck({ step: plan.steps[0].action, answers: [answered] });
    expect(check).toEqual({ done: true, remaining: null, facts: ["the crate is red"] });
    // The cubes' colours come from the scan (their own pixels), not from their names.
    const scanned = h.scan(
      {
        world,
        detections: {
          detections: [
            ...dets.detections,
            { label: "red_cube", box: box(20, 0, 5, 5), location: on("floor"), color: "red" },
            { label: "yellow_cube", box: box(30, 0, 5, 5), location: on("floor"), color: "yellow" },
          ],
          places: [],
        },
      },
      NO_NOISE,
      never,
    );
    expect(scanned.facts).toEqual(["the red_cube is red", "the yellow_cube is yellow"]);
    const motion = h.motionDraft(
      { step: plan.steps[1].action, world, facts: [...scanned.facts, ...check.facts] },
      NO_NOISE,
      never,
    );
    expect(motion.terms.map((t) => t.term)).toMatchObject([
      { a: "palm", b: "red_cube" },
      { a: "red_cube", b: "crate", primary: true },
    ]);
    // The verifier checks terms against the motion plan's lines, which name the cube the step only describes.
    expect(h.checkTerms({ step: plan.steps[1].action, draft: motion, world })).toEqual({
      keep: [
        { index: 0, line: 0 },
        { index: 1, line: 1 },
      ],
      primary: 1,
    });
    expect(
      h.taskDone({
        goal,
        world,
        scene: ["red_cube", "crate"],
        facts: ["the crate is red", "the red_cube is red", "the red_cube is on the crate"],
        looked: true,
        motionsOk: true,
      }).achieved,
    ).toBe(true);
    expect(
      h.taskDone({ goal, world, scene: [], facts: ["the crate is red"], looked: true, motionsOk: true }).achieved,
    ).toBe(false);
  });

  it("keys no rule on a scene's names: a renamed weight sensor and key, a lock with no key named, cubes known by colour", () => {
    // RePLan's sensor task with every name changed: the plate is pad_1, the cube thing_2, the cabinet stone_box.
    const world: WorldDescription = {
      name: "tabletop",
      places: [
        { name: "stone_box", kind: "container", openable: true, capacity: 2 },
        { name: "pad_1", kind: "surface", openable: false, capacity: 1 },
      ],
      navigationPoints: [],
      labels: ["thing_2", "blue_cube", "stone_box", "pad_1", "stone_box_handle"],
      joints: [
        {
          name: "stone_box_door",
          object: "stone_box",
          handle: "stone_box_handle",
          description: "door of the stone box",
        },
      ],
    };
    const dets: h.SceneDetections = {
      detections: [
        { label: "stone_box", box: box(100, 60, 100, 100), location: on("floor"), color: "grey" },
        { label: "stone_box_handle", box: box(180, 100, 6, 16), location: on("floor") },
        { label: "pad_1", box: box(215, 150, 30, 6), location: on("floor"), color: "grey" },
        { label: "thing_2", box: box(60, 150, 12, 12), location: on("floor"), color: "red" },
      ],
      places: [{ name: "stone_box", state: "closed", pixels: 8000, insidePixels: 0 }],
    };
    const diagnosis = h.diagnose(
      { action: "open the stone_box", world, detections: dets, phrasing: "q" },
      NO_NOISE,
      never,
    );
    expect(diagnosis.explanation).toMatch(/the stone_box is locked; the pad_1 beside it may unlock it/);
    const reasons = [
      {
        step: "open the stone_box",
        reason: h.consolidate({ explanations: [diagnosis.explanation, diagnosis.explanation] }).reasons[0],
      },
    ];
    const hinted = "open the stone_box. The pad_1 lock can be unlocked by putting the thing_2 on it.";
    expect(h.readTabletopGoal(hinted, world).goal).toEqual({
      kind: "open",
      place: "stone_box",
      key: "thing_2",
      keyPlace: "pad_1",
    });
    expect(
      h.highLevelPlan({ ...ctx(), goal: hinted, world, reasons }, NO_NOISE, never).steps.map((s) => s.action),
    ).toEqual(["place the thing_2 on the pad_1", "open the stone_box"]);
    // After a failed procedure the instruction's own hint is followed.
    const failed = [
      {
        thought: "",
        steps: [{ kind: "motion" as const, action: "open the stone_box" }],
        failedStep: "open the stone_box",
        reason: "",
      },
    ];
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: hinted, world, failedAttempts: failed }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["place the thing_2 on the pad_1", "open the stone_box"]);
    // No key named: nothing is guessed (not the first thing called a cube); the plain way is all there is to try.
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "open the stone_box", world, reasons }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["open the stone_box"]);
    // The colour task with cubes that are not called by their colours.
    const crateWorld: WorldDescription = {
      name: "tabletop",
      places: [{ name: "bin_7", kind: "surface", openable: false, capacity: 1 }],
      navigationPoints: [],
      labels: ["bin_7", "thing_a", "thing_b"],
    };
    const seen = h.scan(
      {
        world: crateWorld,
        detections: {
          detections: [
            { label: "thing_a", box: box(0, 0, 5, 5), location: on("floor"), color: "yellow" },
            { label: "thing_b", box: box(9, 0, 5, 5), location: on("floor"), color: "green" },
          ],
          places: [],
        },
      },
      NO_NOISE,
      never,
    );
    const step = "place the cube with the same colour as the bin_7 on the bin_7";
    const draft = h.motionDraft(
      { step, world: crateWorld, facts: [...seen.facts, "the bin_7 is green"] },
      NO_NOISE,
      never,
    );
    expect(draft.terms.map((t) => t.term)).toMatchObject([
      { a: "palm", b: "thing_b" },
      { a: "thing_b", b: "bin_7", primary: true },
    ]);
  });

  it("is deterministic: noise comes only from the draws it is given", () => {
    const first = h.highLevelPlan(
      ctx({ facts: ["the wooden_cabinet is closed"] }),
      noiseLevel(0.5),
      draw([0.1, 0.2, 0.3]),
    );
    const second = h.highLevelPlan(
      ctx({ facts: ["the wooden_cabinet is closed"] }),
      noiseLevel(0.5),
      draw([0.1, 0.2, 0.3]),
    );
    expect(first).toEqual(second);
  });
});

describe("RePLan symbolic planner on what generated scenes showed (tuning set, issue 51)", () => {
  const world: WorldDescription = {
    name: "tabletop",
    places: [
      { name: "box_a", kind: "container", openable: true, capacity: 2 },
      { name: "floor", kind: "surface", openable: false, capacity: 20 },
    ],
    navigationPoints: [],
    labels: ["box_a", "box_a_handle", "green_cube", "lever", "lever_handle"],
    joints: [
      { name: "box_a_door", object: "box_a", handle: "box_a_handle", description: "door of box a" },
      { name: "lever", object: "lever", handle: "lever_handle", description: "a lever" },
    ],
  };

  it("a direct look that does not find a thing outweighs a scan that listed it: the search goes on, the task is not done", () => {
    const check = h.stepCheck({
      step: "check that the green_cube is in view",
      answers: [{ question: "Is the green_cube in view?", answer: "No, the green_cube is not in view." }],
    });
    expect(check.facts).toEqual(["the green_cube is not in view"]);
    const planContext = { goal: "find the green_cube", world, scene: ["green_cube", "box_a"], facts: check.facts };
    expect(h.taskDone({ ...planContext, looked: true, motionsOk: true }).achieved).toBe(false);
    expect(h.highLevelPlan({ ...ctx(), ...planContext }, NO_NOISE, never).steps.map((s) => s.action)).toEqual([
      "open the box_a",
      "look inside the box_a for the green_cube",
    ]);
    // Found inside later: done, whatever the earlier look said.
    expect(
      h.taskDone({
        ...planContext,
        facts: [...check.facts, "the green_cube is inside the box_a"],
        looked: true,
        motionsOk: true,
      }).achieved,
    ).toBe(true);
  });

  it("a thing inside a container is its contents, not something in the way of its door", () => {
    const dets: h.SceneDetections = {
      detections: [
        { label: "box_a", box: box(100, 60, 100, 100), location: on("floor") },
        { label: "box_a_handle", box: box(180, 100, 6, 16), location: on("floor") },
        { label: "green_cube", box: box(120, 120, 14, 14), location: { relation: "in", place: "box_a" } },
      ],
      places: [{ name: "box_a", state: "closed", pixels: 8000, insidePixels: 40 }],
    };
    expect(
      h.diagnose(
        {
          action: "open the box_a",
          world: { ...world, joints: world.joints!.slice(0, 1) },
          detections: dets,
          phrasing: "q",
        },
        NO_NOISE,
        never,
      ).explanation,
    ).not.toMatch(/green_cube/);
  });

  it("a thing set down beside a door covers its box but is not in its way; in front of it, it is", () => {
    const scene = (bar: { x: number; y: number; w: number; h: number }): h.SceneDetections => ({
      detections: [
        { label: "box_a", box: box(100, 60, 100, 100), location: on("floor") },
        { label: "box_a_handle", box: box(110, 100, 6, 16), location: on("floor") },
        { label: "red_bar", box: bar, location: on("floor") },
      ],
      places: [{ name: "box_a", state: "closed", pixels: 8000, insidePixels: 0 }],
    });
    const barredWorld = { ...world, labels: [...world.labels, "red_bar"], joints: world.joints!.slice(0, 1) };
    expect(
      h.diagnose(
        { action: "open the box_a", world: barredWorld, detections: scene(box(170, 100, 60, 50)), phrasing: "q" },
        NO_NOISE,
        never,
      ).explanation,
    ).not.toMatch(/red_bar/);
    expect(
      h.diagnose(
        { action: "open the box_a", world: barredWorld, detections: scene(box(140, 120, 60, 50)), phrasing: "q" },
        NO_NOISE,
        never,
      ).explanation,
    ).toBe("The red_bar is blocking the box_a.");
  });

  it("after a door would not open with nothing seen in the way, the next procedure works the mechanism beside it first, once", () => {
    const failed = [
      {
        thought: "",
        steps: [{ kind: "motion" as const, action: "open the box_a" }],
        failedStep: "open the box_a",
        reason: "the robot could not open the box_a (primary term not met) and no cause was seen",
      },
    ];
    const next = h.highLevelPlan({ ...ctx(), goal: "open the box_a", world, failedAttempts: failed }, NO_NOISE, never);
    expect(next.steps.map((s) => s.action)).toEqual(["pull the lever", "open the box_a"]);
    // Worked already in a failed procedure: not again.
    const twice = [...failed, { ...failed[0], steps: next.steps }];
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "open the box_a", world, failedAttempts: twice }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["open the box_a"]);
    // A first procedure tries the plain way.
    expect(
      h.highLevelPlan({ ...ctx(), goal: "open the box_a", world }, NO_NOISE, never).steps.map((s) => s.action),
    ).toEqual(["open the box_a"]);
    // A lock the perceiver named but the plan could not work (a plate with no key named) counts as seen too.
    const plate = [
      {
        ...failed[0],
        reason:
          'the robot could not open the box_a (primary term not met) and planning around "the box_a is locked; the weight_sensor beside it may unlock it" did not help',
      },
    ];
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "open the box_a", world, failedAttempts: plate }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["pull the lever", "open the box_a"]);
  });

  it("a listed lever and a failed opening are no evidence of a lock: without a look at the failure (no perceiver), or with a bar seen, no lever is pulled", () => {
    // The no-perceiver ablation remembers a failure with the controller's report alone: a bar, a kettle and a lock
    // all fail an opening the same way, and levers stand beside doors they do not lock.
    const blind = [
      {
        thought: "",
        steps: [{ kind: "motion" as const, action: "open the box_a" }],
        failedStep: "open the box_a",
        reason:
          "the robot could not open the box_a (primary term set_joint_fraction(box_a_door, 1) not met: residual 1.00 > 0.10 after 5.0 s)",
      },
    ];
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "open the box_a", world, failedAttempts: blind }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["open the box_a"]);
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "find the green_cube", world, failedAttempts: blind }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["open the box_a", "look inside the box_a for the green_cube"]);
    const barred = [
      {
        ...blind[0],
        reason: `${blind[0].reason} and planning around "the red_bar is blocking the box_a" did not help`,
      },
    ];
    expect(
      h
        .highLevelPlan({ ...ctx(), goal: "open the box_a", world, failedAttempts: barred }, NO_NOISE, never)
        .steps.map((s) => s.action),
    ).toEqual(["open the box_a"]);
  });
});
