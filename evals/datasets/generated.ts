/**
 * Datasets of generated worlds: `count` procedurally generated courses, kitchens or tabletop scenes from seed `from`
 * on, each kept only when a solver that knows the true state finds it can be done (a course within the trial's 100 s:
 * a search over the dog's own skills, robots/sim/course/solve.ts; a kitchen: a plan from the true state run on the
 * world, robots/sim/kitchen/solve.ts; a tabletop scene: the generator's own solution run through the world's MPC,
 * robots/sim/tabletop/solve.ts) — a world nobody could do says nothing about a method. Written as JSONL rows like the
 * hand-made datasets', so an experiment over them resumes, reports and uploads to LangSmith as any other.
 *
 * Seeds below FIRST_SCORED_SEED are the tuning range; scored figures come from FIRST_SCORED_SEED on
 * (robots/sim/generated.ts). The solvers' verdicts are cached by the world's content (a changed generator misses).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCourse } from "../../robots/sim/course/generate";
import { solveCourse } from "../../robots/sim/course/solve";
import { FIRST_SCORED_SEED } from "../../robots/sim/generated";
import { generateKitchen } from "../../robots/sim/kitchen/generate";
import { solveKitchen } from "../../robots/sim/kitchen/solve";
import { generateTabletop } from "../../robots/sim/tabletop/generate";
import { solveTabletop } from "../../robots/sim/tabletop/solve";
import { COURSE_GOAL, type CourseExample, type KitchenExample, type TabletopExample } from "./index";

export interface Verdict {
  seed: number;
  hash: string;
  solvable: boolean;
  /** The solver's way (course: skill steps; kitchen: robot skills), when solvable. */
  steps?: unknown[];
  /** Course: the solver's skill seconds (nominal motions). */
  seconds?: number;
  why?: string;
}

/** One kind of generated world: how a seed becomes a world, is judged doable, and becomes a dataset row. */
export interface GeneratedKind<Row> {
  dataset: string;
  /** The `npm run eval` option that gives the first seed. */
  seedFlag: "course-seed" | "kitchen-seed" | "scene-seed";
  /** What the verdict cache keys on: the world itself. */
  world(seed: number): unknown;
  solve(seed: number): Promise<Omit<Verdict, "seed" | "hash">>;
  row(seed: number): Row;
  /** A verdict in a line of progress. */
  describe(v: Verdict): string;
}

const condition = (seed: number) => (seed >= FIRST_SCORED_SEED ? "scored" : "tuning");

/** The trial's budget, and what the course solver must do a course within. */
const COURSE_BUDGET = 100;

export const GENERATED_COURSES: GeneratedKind<CourseExample> = {
  dataset: "course-generated",
  seedFlag: "course-seed",
  world: generateCourse,
  async solve(seed) {
    const solution = await solveCourse(generateCourse(seed), { budget: COURSE_BUDGET });
    return solution ? { solvable: true, seconds: solution.seconds, steps: solution.steps } : { solvable: false, why: `no way found within ${COURSE_BUDGET} s` };
  },
  row(seed) {
    const course = generateCourse(seed);
    return {
      inputs: { world: "course", task: course.name, goal: COURSE_GOAL, scenario: course.name },
      outputs: { within_seconds: COURSE_BUDGET },
      metadata: { family: "vlmpc", task: course.name, paper_table: "generated", condition: condition(seed), condition_description: course.summary },
    };
  },
  describe: (v) => (v.solvable ? `solvable (${v.seconds} s, ${v.steps!.length} skills)` : `skipped: ${v.why}`),
};

export const GENERATED_KITCHENS: GeneratedKind<KitchenExample> = {
  dataset: "kitchen-generated",
  seedFlag: "kitchen-seed",
  world: generateKitchen,
  async solve(seed) {
    const solved = await solveKitchen(generateKitchen(seed));
    return solved.solvable ? { solvable: true, steps: solved.steps } : { solvable: false, why: solved.why };
  },
  row(seed) {
    const kitchen = generateKitchen(seed);
    const where = Object.entries(kitchen.placements).map(([o, p]) => `${o} in ${p}`).join(", ");
    return {
      inputs: { world: "kitchen", task: kitchen.name, goal: kitchen.instruction, scenario: kitchen },
      outputs: { goal: kitchen.goal },
      metadata: { family: kitchen.family, task: kitchen.name, condition: condition(seed), condition_description: `${where}; open: ${kitchen.open.join(", ") || "nothing"}; mobile at ${kitchen.mobileAt}` },
    };
  },
  describe: (v) => (v.solvable ? `solvable (${v.steps!.length} skills)` : `skipped: ${v.why}`),
};

export const GENERATED_TABLETOPS: GeneratedKind<TabletopExample> = {
  dataset: "tabletop-generated",
  seedFlag: "scene-seed",
  world: (seed) => generateTabletop(seed).spec,
  async solve(seed) {
    const tabletop = generateTabletop(seed);
    const solved = await solveTabletop(tabletop);
    return solved.solvable ? { solvable: true, steps: tabletop.solution } : { solvable: false, why: solved.why };
  },
  row(seed) {
    const tabletop = generateTabletop(seed);
    return {
      inputs: { world: "tabletop", task: tabletop.spec.name, goal: tabletop.spec.instruction, scenario: tabletop.spec.name },
      outputs: { goal: tabletop.spec.goal },
      metadata: { family: tabletop.kind, task: tabletop.spec.name, condition: condition(seed), condition_description: tabletop.summary },
    };
  },
  describe: (v) => (v.solvable ? `solvable (${v.steps!.length} motions)` : `skipped: ${v.why}`),
};

export const GENERATED_KINDS: GeneratedKind<CourseExample | KitchenExample | TabletopExample>[] = [GENERATED_COURSES, GENERATED_KITCHENS, GENERATED_TABLETOPS];

const hashOf = (world: unknown) => createHash("sha256").update(JSON.stringify(world)).digest("hex").slice(0, 16);

/** The solver's verdict on one generated world, from the cache when the world is unchanged. */
export async function verdictFor<Row>(kind: GeneratedKind<Row>, seed: number, cacheDir?: string): Promise<Verdict> {
  const hash = hashOf(kind.world(seed));
  const file = cacheDir && join(cacheDir, `${seed}.json`);
  if (file && existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as Verdict;
    if (cached.hash === hash) return cached;
  }
  const verdict: Verdict = { seed, hash, ...(await kind.solve(seed)) };
  if (cacheDir && file) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(file, JSON.stringify(verdict) + "\n");
  }
  return verdict;
}

export interface GeneratedSet<Row> {
  rows: Row[];
  verdicts: Verdict[];
  /** Whether every world is from the scored range. */
  scored: boolean;
}

/** The first `count` solvable generated worlds from seed `from` on (looking at no more than 4× as many). */
export async function generatedSet<Row>(kind: GeneratedKind<Row>, count: number, from: number, opts: { cacheDir?: string; onProgress?: (v: Verdict, kept: number) => void } = {}): Promise<GeneratedSet<Row>> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`--count must be a whole number >= 1, got ${count}`);
  if (!Number.isInteger(from) || from < 0) throw new Error(`the first seed must be a whole number >= 0, got ${from}`);
  const rows: Row[] = [];
  const verdicts: Verdict[] = [];
  for (let seed = from; rows.length < count; seed++) {
    if (seed >= from + 4 * count + 10) throw new Error(`only ${rows.length} of ${seed - from} generated worlds (${kind.dataset}) from seed ${from} could be done; the generator needs a look`);
    const verdict = await verdictFor(kind, seed, opts.cacheDir);
    verdicts.push(verdict);
    if (verdict.solvable) rows.push(kind.row(seed));
    opts.onProgress?.(verdict, rows.length);
  }
  return { rows, verdicts, scored: from >= FIRST_SCORED_SEED };
}

export const toJsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
