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
import { scoreClaims } from "../../evals/behaviorCritic";
import { causeFits, familiesNamed, FAMILIES } from "../../evals/behaviourWords";
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
  it("reads a claim's own words: the family it names, and whether its cause fits", () => {
    expect(
      familiesNamed(claim("the apple is let go high above the plate and falls 9 cm", "the hand let go too high")),
    ).toContain("dropped");
    expect(
      familiesNamed(claim("the apple is shaken up and down after it is lifted", "moves it does not need")),
    ).toContain("shake");
    expect(familiesNamed(claim("it is set down halfway and picked up again", "a needless extra grasp"))).toContain(
      "regrasp",
    );
    // A name alone is read too.
    expect(familiesNamed(claim("see frames 3–5", "too fast", "rushed"))).toContain("fast_carry");
    expect(familiesNamed(claim("the robot did its job", "nothing"))).toEqual([]);
    expect(causeFits(claim("", "the hand moved too fast"), "fast_carry")).toBe(true);
    expect(causeFits(claim("", "the grip was too strong"), "fast_carry")).toBe(false);
  });

  it("scores claims against what the author did: recall per family, precise when the cause fits, the rest errors", () => {
    const truth = ["high_release", "crawl"];
    const drop = claim("the apple falls 9 cm after it is let go", "the hand let go too high");
    const wrong = claim("the apple falls 9 cm after it is let go", "the grip was too strong");
    const ghost = claim("the bottle is knocked over", "the path went through something");
    const lost = claim("the light flickers", "unknown");
    expect(scoreClaims([drop, wrong, ghost, lost], truth)).toEqual({
      found: [true, false],
      recalled: 1,
      precise: 1,
      wrongCause: 1,
      hallucinated: 2,
      unmatched: ["the light flickers"],
    });
    // On a positive (nothing done wrong) every claim is an error.
    expect(scoreClaims([drop], [])).toMatchObject({ recalled: 0, precise: 0, hallucinated: 1 });
  });

  it("the matcher knows every family the benchmarks can give, and is frozen: its hash is the one docs/behavior-critic.md records", () => {
    for (const f of [...HAND_MADE_BEHAVIOURS, ...EDIT_NAMES]) expect(FAMILIES[f], f).toBeDefined();
    const hash = createHash("sha256")
      .update(readFileSync(join(ROOT, "evals/behaviourWords.ts")))
      .digest("hex");
    expect(readFileSync(join(ROOT, "docs/behavior-critic.md"), "utf8")).toContain(hash);
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
