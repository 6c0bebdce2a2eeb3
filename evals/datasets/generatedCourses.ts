/**
 * The generated-course dataset: `count` procedurally generated courses from seed `from` on, each kept only when the
 * solver (robots/sim/course/solve.ts, which knows the true layout) finds a way to the toy within the trial's 100 s —
 * a course nobody could do says nothing about a method. Written as JSONL rows like course.jsonl's, so an experiment
 * over them resumes, reports and uploads to LangSmith as any other.
 *
 * Seeds below FIRST_SCORED_SEED are the tuning range: they may be looked at while improving the reasoners. Scored
 * figures come from FIRST_SCORED_SEED on, whose courses are run and counted, never looked at step by step.
 * The solver's verdicts are cached by the course's content (the generator can change; the cache then misses).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIRST_SCORED_SEED, generateCourse } from "../../robots/sim/course/generate";
import type { Step } from "../../robots/sim/course/scenarios";
import { solveCourse } from "../../robots/sim/course/solve";
import { COURSE_GOAL, type CourseExample } from "./index";

export const GENERATED_DATASET = "course-generated";
/** The trial's budget, and what the solver must do a course within. */
const BUDGET = 100;

export interface Verdict {
  seed: number;
  hash: string;
  solvable: boolean;
  /** The solver's skill seconds and steps (nominal motions), when solvable. */
  seconds?: number;
  steps?: Step[];
}

export interface GeneratedSet {
  rows: CourseExample[];
  verdicts: Verdict[];
  /** Whether every course is from the scored range. */
  scored: boolean;
}

const courseHash = (seed: number) => createHash("sha256").update(JSON.stringify(generateCourse(seed))).digest("hex").slice(0, 16);

/** The solver's verdict on one generated course, from the cache when the course is unchanged. */
export async function verdictFor(seed: number, cacheDir?: string): Promise<Verdict> {
  const hash = courseHash(seed);
  const file = cacheDir && join(cacheDir, `${seed}.json`);
  if (file && existsSync(file)) {
    const v = JSON.parse(readFileSync(file, "utf8")) as Verdict;
    if (v.hash === hash) return v;
  }
  const s = await solveCourse(generateCourse(seed), { budget: BUDGET });
  const v: Verdict = s ? { seed, hash, solvable: true, seconds: s.seconds, steps: s.steps } : { seed, hash, solvable: false };
  if (cacheDir && file) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(file, JSON.stringify(v) + "\n");
  }
  return v;
}

/** The first `count` solvable generated courses from seed `from` on (looking at no more than 4× as many). */
export async function generatedCourses(count: number, from: number, opts: { cacheDir?: string; onProgress?: (v: Verdict, kept: number) => void } = {}): Promise<GeneratedSet> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`--count must be a whole number >= 1, got ${count}`);
  if (!Number.isInteger(from) || from < 0) throw new Error(`--course-seed must be a whole number >= 0, got ${from}`);
  const rows: CourseExample[] = [];
  const verdicts: Verdict[] = [];
  for (let seed = from; rows.length < count; seed++) {
    if (seed >= from + 4 * count + 10) throw new Error(`only ${rows.length} of ${seed - from} generated courses from seed ${from} could be solved within ${BUDGET} s; the generator needs a look`);
    const v = await verdictFor(seed, opts.cacheDir);
    verdicts.push(v);
    if (v.solvable) rows.push(generatedRow(seed));
    opts.onProgress?.(v, rows.length);
  }
  return { rows, verdicts, scored: from >= FIRST_SCORED_SEED };
}

export function generatedRow(seed: number): CourseExample {
  const c = generateCourse(seed);
  return {
    inputs: { world: "course", task: c.name, goal: COURSE_GOAL, scenario: c.name },
    outputs: { within_seconds: BUDGET },
    metadata: {
      family: "vlmpc",
      task: c.name,
      paper_table: "generated",
      condition: seed >= FIRST_SCORED_SEED ? "scored" : "tuning",
      condition_description: c.summary,
    },
  };
}

export const toJsonl = (rows: CourseExample[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
