/**
 * Datasets: JSONL in LangSmith's example shape ({ inputs, outputs, metadata }), validated row by row with zod;
 * a bad row is reported with its line number.
 */
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { KitchenScenario } from "../../robots/sim/kitchen/scenario";
import { LiteralText } from "../../robots/manifests/schema";

const here = dirname(fileURLToPath(import.meta.url));

export const KitchenExample = z.object({
  inputs: z.object({
    world: z.literal("kitchen"),
    task: z.string().min(1),
    /** The instruction given to the agent. */
    goal: z.string().min(1),
    /** The simulator's scenario: layout, hidden places, perturbations. */
    scenario: KitchenScenario,
  }),
  outputs: z.object({
    /** Goal literals checked on the simulator's true state. */
    goal: z.array(LiteralText).min(1),
  }),
  metadata: z.object({
    family: z.enum(["search", "manipulation", "integration"]),
    task: z.string(),
    condition: z.string(),
    condition_description: z.string().optional(),
  }),
});
export type KitchenExample = z.infer<typeof KitchenExample>;

/** RePLan's tabletop tasks: a scene by name, the paper's instruction, and the goal the simulator checks. */
export const TabletopExample = z.object({
  inputs: z.object({
    world: z.literal("tabletop"),
    task: z.string().min(1),
    goal: z.string().min(1),
    /** The simulator's scene (see `npm run sim -- tabletop --help`): a hand-made one, or generated_<seed>. */
    scenario: z.string().regex(/^[a-z_]+(?:_\d+)?$/),
  }),
  outputs: z.object({ goal: z.array(LiteralText).min(1) }),
  metadata: z.object({
    /** `replan` for RePLan's own tasks; a generated scene's goal kind (place_inside, find, open, …). */
    family: z.string().min(1),
    task: z.string(),
    /** The task's number in RePLan's Table 1 (8: the sensor task of its appendix); none for a generated scene. */
    paper_task: z.number().int().min(1).max(8).optional(),
    condition: z.string(),
    condition_description: z.string().optional(),
  }),
});
export type TabletopExample = z.infer<typeof TabletopExample>;

/** VLM-PC's task on every course: reach the red chew toy; the simulator checks the body reached it within 100 s. */
export { COURSE_GOAL } from "../../robots/sim/course/scenarios";

/** VLM-PC's obstacle courses (the paper's five real settings and its simulated dead end with stairs). */
export const CourseExample = z.object({
  inputs: z.object({
    world: z.literal("course"),
    task: z.string().min(1),
    goal: z.string().min(1),
    /** The course (see `npm run sim -- course --help`). */
    scenario: z.string().regex(/^[a-z0-9_]+$/),
  }),
  outputs: z.object({
    /** The body reaches the toy within this many seconds of skill time. */
    within_seconds: z.number().positive(),
  }),
  metadata: z.object({
    family: z.literal("vlmpc"),
    task: z.string(),
    /** Which of the paper's tables reports it: I (real settings) or II (the simulated dead end with stairs); generated courses have their own. */
    paper_table: z.enum(["I", "II", "generated"]),
    condition: z.string(),
    condition_description: z.string().optional(),
  }),
});
export type CourseExample = z.infer<typeof CourseExample>;

export const Example = z.union([KitchenExample, TabletopExample, CourseExample]);
export type Example = z.infer<typeof Example>;

/** Where generated worlds' solver verdicts and labelled examples are kept (made on demand, not committed). */
export const GENERATED_CACHE = join(here, "..", "..", "runs", "cache");

/** The labelled example frames of a course, for VLM-PC+IC (kept where the method looks for them). */
export { courseExamplesPath } from "../../graphs/vlmpc/examples";

/**
 * VLM-PC + IC's labelled examples are taken on the course at a seed of their own, 1000 or above, where no trial is
 * scored: experiments run seeds from 0, and refuse one whose seeds reach an example's.
 */
export const EXAMPLE_SEEDS_FROM = 1000;

export interface DatasetRow {
  /** `<task>__<condition>`: stable across runs, used for resuming and for report links. */
  id: string;
  line: number;
  example: Example;
}


export function datasetPath(nameOrPath: string): string {
  if (nameOrPath.endsWith(".jsonl")) return nameOrPath;
  const file = join(here, `${nameOrPath}.jsonl`);
  if (!existsSync(file)) throw new Error(`no dataset ${nameOrPath} (looked for ${file})`);
  return file;
}

export function loadDataset(nameOrPath: string): DatasetRow[] {
  const path = datasetPath(nameOrPath);
  const rows: DatasetRow[] = [];
  const errors: string[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (err) {
        errors.push(`line ${i + 1}: not JSON (${(err as Error).message})`);
        return;
      }
      const world = (raw as { inputs?: { world?: unknown } })?.inputs?.world;
      const parsed = (world === "tabletop" ? TabletopExample : world === "course" ? CourseExample : KitchenExample).safeParse(raw);
      if (!parsed.success) {
        errors.push(`line ${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`);
        return;
      }
      rows.push({ id: `${parsed.data.metadata.task}__${parsed.data.metadata.condition}`, line: i + 1, example: parsed.data });
    });
  if (errors.length) throw new Error(`dataset ${path} has ${errors.length} bad row(s):\n${errors.join("\n")}`);
  const dup = rows.find((r, i) => rows.findIndex((x) => x.id === r.id) !== i);
  if (dup) throw new Error(`dataset ${path}: example id ${dup.id} appears twice (line ${dup.line})`);
  return rows;
}
