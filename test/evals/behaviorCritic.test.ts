/**
 * The behaviour-critic benchmark's scoring: truth is what the author did (a behaviour or edit family), a claim is read
 * from its own words by a frozen matcher, and the critic is kept apart from everything that makes or labels its data —
 * no import of the generator, the monitor or the evals, no enum in its answer.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { criticReport, matcherHash, scoreClaims } from "../../evals/behaviorCritic";
import { causeFits, familiesNamed, FAMILIES, type CaseThings } from "../../evals/behaviourWords";
import { caseThings } from "../../evals/criticTruth";
import { KEY_FRAME_THRESHOLDS } from "../../graphs/behaviorCritic/evidence";
import { TRACK_THRESHOLDS } from "../../graphs/behaviorCritic/nodes/ground";
import { BehaviourCritique, Preference } from "../../graphs/behaviorCritic/schemas";
import { LIMITS } from "../../robots/sim/workbench/monitor";
import { EDIT_NAMES, HELD_BACK, NEW_EDIT_FAMILIES } from "../../robots/sim/workbench/edits";
import { HAND_MADE_BEHAVIOURS } from "../../robots/sim/workbench/behaviours";
import { ROOT } from "../helpers/processes";

const claim = (what: string, cause: string, kind?: string) => ({
  what,
  object: "apple",
  cause,
  ...(kind ? { kind } : {}),
});

describe("critic scoring", () => {
  const applePlate = caseThings("apple_plate");

  it("reads a claim's own words: the family it names, and whether its cause fits", () => {
    expect(
      familiesNamed(
        claim("the apple is let go high above the plate and falls 9 cm", "the hand let go too high"),
        applePlate,
      ),
    ).toContain("dropped");
    expect(
      familiesNamed(claim("the apple is shaken up and down after it is lifted", "moves it does not need"), applePlate),
    ).toContain("shake");
    expect(
      familiesNamed(claim("the apple is set down halfway and picked up again", "a needless extra grasp"), applePlate),
    ).toContain("regrasp");
    // A name alone is not read: the kind names nothing, and neither do words that say no thing.
    expect(familiesNamed(claim("see frames 3–5", "too fast", "rushed"), applePlate)).toEqual([]);
    expect(
      familiesNamed(claim("it is set down halfway and picked up again", "a needless extra grasp"), applePlate),
    ).toEqual([]);
    expect(familiesNamed(claim("the robot did its job", "nothing"))).toEqual([]);
    expect(causeFits(claim("", "the hand moved too fast"), "fast_carry")).toBe(true);
    expect(causeFits(claim("", "the grip was too strong"), "fast_carry")).toBe(false);
  });

  it("scores claims against what the author did: recall per family, precise when the cause fits, the rest errors", () => {
    const truth = ["high_release", "crawl"];
    const drop = claim("the apple falls 9 cm after it is let go", "the hand let go too high");
    const wrong = claim("the apple falls 9 cm after it is let go", "the grip was too strong");
    const ghost = claim("the vase is knocked over", "the path went through something");
    const lost = claim("the light flickers", "unknown");
    expect(scoreClaims([drop, wrong, ghost, lost], truth, applePlate)).toEqual({
      found: [true, false],
      recalled: 1,
      precise: 1,
      wrongCause: 1,
      hallucinated: 2,
      unmatched: ["the light flickers"],
    });
    // On a positive (nothing done wrong) every claim is an error.
    expect(scoreClaims([drop], [], applePlate)).toMatchObject({ recalled: 0, precise: 0, hallucinated: 1 });
    // Without the case's names a claim that names its thing only by name places nothing.
    expect(scoreClaims([drop], truth)).toMatchObject({ recalled: 0, hallucinated: 1 });
  });

  /**
   * For every family, a claim worded as a person would: the thing that family acts on (by the case's names or by its
   * class: the hand, the held object, a neighbour…) and the quantity it changes.
   */
  const WORDED: Record<string, { scene: string; what: string }> = {
    knocked_over: { scene: "lemon_bowl", what: "the bottle was knocked over and lies on its side" },
    pushed: { scene: "apple_plate", what: "the cube was shoved 6 cm out of its place" },
    dragged: { scene: "apple_plate", what: "the apple is dragged along the table instead of being lifted" },
    dropped: { scene: "apple_plate", what: "the apple is dropped from a height onto the plate" },
    spilled: { scene: "cup_tray", what: "beads spill out of the cup onto the table" },
    squeezed: { scene: "bread_tray", what: "the bread is squashed flat by the grip" },
    passed_over: { scene: "cup_tray", what: "the cup is carried straight over the laptop" },
    left_open: { scene: "apple_drawer", what: "the drawer is left open at the end" },
    struck_table: { scene: "apple_plate", what: "the fingers hit the table on the way down" },
    fast_carry: { scene: "apple_plate", what: "the held object is carried across far too fast" },
    detour: { scene: "apple_plate", what: "the hand takes a long detour with the apple" },
    back_and_forth: { scene: "apple_plate", what: "the apple is moved back and forth on the way" },
    pause: { scene: "apple_plate", what: "the arm pauses for three seconds mid-carry" },
    hard_grip: { scene: "bread_tray", what: "the gripper holds the bread far too tight and crushes it" },
    low_approach: { scene: "apple_plate", what: "the hand approaches the apple too low" },
    high_release: { scene: "apple_plate", what: "the apple is released too high and falls 9 cm onto the plate" },
    sweep: { scene: "apple_plate", what: "the hand sweeps through the lemon after letting go" },
    low_carry: { scene: "lemon_bowl", what: "the lemon is carried too low past the bottle" },
    over_the_top: { scene: "cup_tray", what: "the held cup passes right over the laptop" },
    leave_open: { scene: "apple_drawer", what: "the drawer is not closed at the end" },
    crawl: { scene: "apple_plate", what: "the apple is carried very slowly: the carry takes far too long" },
    regrasp: { scene: "apple_plate", what: "the hand lets go of the apple on the way and grasps it a second time" },
    shake: { scene: "apple_plate", what: "the hand jiggles the apple after lifting it" },
    slam_down: { scene: "apple_plate", what: "the apple is slammed down onto the plate" },
    far_approach: { scene: "apple_plate", what: "the hand reaches the apple from behind, from its far side" },
    overshoot: { scene: "apple_plate", what: "the apple is carried 10 cm beyond the plate, then brought back" },
    shove_support: { scene: "apple_plate", what: "the plate is pushed across the table with the apple on it" },
    knock_neighbour: { scene: "apple_plate", what: "the vase is knocked aside on the way to the apple" },
  };

  it("every family is named by some claim that names its thing and its quantity", () => {
    expect(Object.keys(WORDED).sort()).toEqual(Object.keys(FAMILIES).sort());
    for (const [family, { scene, what }] of Object.entries(WORDED))
      expect(familiesNamed(claim(what, ""), caseThings(scene)), `${family}: ${what}`).toContain(family);
  });

  it("a kind alone, a catch-all word alone, a quantity without its thing or a thing without its quantity names nothing", () => {
    const things: CaseThings[] = [
      {},
      ...["apple_plate", "lemon_bowl", "bread_tray", "cup_tray", "apple_drawer"].map(caseThings),
    ];
    const nothing = (what: string, kind?: string) => {
      for (const t of things)
        expect(familiesNamed(claim(what, "needless", kind), t), `${kind ?? ""}: ${what}`).toEqual([]);
    };
    // The kind is never read: every family's name, and the critic's own names, as a kind with words that say nothing.
    for (const kind of [
      ...Object.keys(FAMILIES),
      "rushed",
      "detoured",
      "dithered",
      "idled",
      "overshot",
      "set_down_fast",
      "reached_behind",
    ])
      nothing("see frames 3–5", kind);
    // Words that name no thing and no quantity on their own.
    for (const word of [
      "twice",
      "through the",
      "comes back",
      "beyond",
      "past the",
      "too far",
      "quick",
      "clip",
      "contents",
      "again",
      "up and down",
      "over the",
      "crash",
      "impact",
      "around 3.0 s",
    ])
      nothing(word);
    // The quantity without the thing it is said of.
    for (const what of [
      "it is set down halfway and picked up again",
      "it falls 9 cm after it is let go",
      "carried far too fast, then slowly",
      "it was shoved 5 cm across the table",
      "it goes past and comes back",
      "moved back and forth, then stops for 3 s",
      "it ends tipped over, left open",
    ])
      nothing(what);
    // The thing without a quantity.
    for (const what of [
      "the hand moves the apple onto the plate",
      "the gripper lifts the lemon and sets it in the bowl",
      "the cup, the laptop, the tray and the beads",
      "the drawer and the apple",
      "the bread is picked up",
    ])
      nothing(what);
  });

  it("the matcher knows every family the benchmarks can give, and is frozen: its hash is the one docs/behavior-critic.md records", () => {
    for (const f of [...HAND_MADE_BEHAVIOURS, ...EDIT_NAMES]) expect(FAMILIES[f], f).toBeDefined();
    const hash = createHash("sha256")
      .update(readFileSync(join(ROOT, "evals/behaviourWords.ts")))
      .digest("hex");
    expect(readFileSync(join(ROOT, "docs/behavior-critic.md"), "utf8")).toContain(hash);
    // The report names the matcher that scored it: the hash a run records, the same as the file's.
    expect(matcherHash()).toBe(hash);
    const meta = { dir: ".", cases: 0, behaviours: [], seeds: 1, noise: 0, durationSeconds: 0 };
    const empty = { critiques: [], preferences: [], detector: { truth: 0, found: 0, claimed: 0, correct: 0 } };
    expect(criticReport({ meta: { ...meta, matcher: hash }, ...empty })).toContain(`sha256 ${hash}`);
    expect(criticReport({ meta, ...empty })).toContain("did not record the matcher's hash");
  });

  it("holds back three of the six new edit families, fixed by its seed", () => {
    expect(NEW_EDIT_FAMILIES).toHaveLength(6);
    expect(HELD_BACK).toHaveLength(3);
    for (const f of HELD_BACK) expect(NEW_EDIT_FAMILIES as readonly string[]).toContain(f);
    expect(readFileSync(join(ROOT, "docs/behavior-critic.md"), "utf8")).toContain(`held back: ${HELD_BACK.join(", ")}`);
  });

  it("the critic's answer enumerates nothing: no behaviour or cause is a closed list", () => {
    const enums = (schema: z.ZodType) => JSON.stringify(z.toJSONSchema(schema)).match(/"enum"/g)?.length ?? 0;
    expect(enums(BehaviourCritique)).toBe(0);
    // The preference's verdict (first, second, equal) is its only closed choice.
    expect(enums(Preference)).toBe(1);
  });

  it("the critic shares no code with the generator, the monitor or the evals: nothing it imports, however deep, reaches them", () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const src = readFileSync(file, "utf8");
      for (const m of src.matchAll(
        /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
      )) {
        const spec = m[1] ?? m[2];
        const base = resolve(dirname(file), spec);
        const target = [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && p.endsWith(".ts"));
        if (target) visit(target);
      }
    };
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
      );
    for (const f of files(join(ROOT, "graphs/behaviorCritic"))) visit(f);
    const reached = [...seen].map((f) => relative(ROOT, f));
    expect(reached.length).toBeGreaterThan(10);
    expect(reached.filter((f) => /^(robots\/sim|evals)\//.test(f))).toEqual([]);
    // Nothing of the agent's side names the simulator's code at all — but a method's figures (graphs/<id>/figures.ts),
    // whose published prose says which generator made a figure's worlds: no node reads them.
    for (const f of [
      ...files(join(ROOT, "models")),
      ...files(join(ROOT, "nodes")),
      ...files(join(ROOT, "runtime")),
      ...files(join(ROOT, "graphs")).filter((file) => !file.endsWith("/figures.ts")),
    ])
      expect(readFileSync(f, "utf8"), f).not.toMatch(/robots\/sim\//);
    // The same quantities, chosen apart: how far a shove, how high a drop, how fast a rush.
    expect(KEY_FRAME_THRESHOLDS.shove).not.toBe(LIMITS.pushed);
    expect(KEY_FRAME_THRESHOLDS.dropHeight).not.toBe(LIMITS.dropHeight);
    for (const th of [KEY_FRAME_THRESHOLDS, TRACK_THRESHOLDS]) expect(th.rushSpeed).not.toBe(LIMITS.rushedSpeed);
  });
});
