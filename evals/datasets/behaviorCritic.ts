/**
 * The behaviour-critic benchmark as a dataset (made by `npm run make:critic-benchmark`): cases.jsonl in LangSmith's
 * example shape, one rollout file per video and one event log per rollout (ground truth for scoring and perfect
 * grounding). Everything is validated with zod when loaded; a bad line or file is reported by name.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { CAUSE_KINDS, UNDESIRABLE_KINDS, type Rollout } from "../../robots/msgs/rollout";
import type { SimEvent } from "../../robots/sim/events";

const Kind = z.enum(UNDESIRABLE_KINDS as [string, ...string[]]);
const Id = z.string().regex(/^[a-z0-9_-]+$/, "a rollout id (letters, digits, _ and -)");

export const CriticCase = z.object({
  inputs: z.object({
    instruction: z.string().min(1),
    /** The workbench scene (see `npm run sim -- workbench --help`). */
    scene: z.string().min(1),
    /** Rollout ids: one good video and two that show the case's behaviour. */
    positive: Id,
    negatives: z.tuple([Id, Id]),
  }),
  outputs: z.object({
    /** The case's behaviour family: the hand-made negative's behaviour, or the generated case's first edit. */
    behaviour: z.string().min(1),
    /** What the author did to the negatives (the truth scored): the behaviour, or every edit family of the case. */
    truth: z.array(z.string().min(1)).min(1).describe("made before issue 49 a case had none: make the benchmark again"),
    /** What the world's event monitor logged in both negatives: for reading, never scored. */
    events: z.array(z.object({ kind: Kind, object: z.string(), detail: z.string(), cause: z.enum([...CAUSE_KINDS, "unknown"]), t: z.number() })),
    /** What the first negative did, step by step (its robot's narration). */
    narration: z.array(z.string()).min(1),
  }),
  metadata: z.object({
    case: z.string().min(1),
    behaviour: z.string().min(1),
    scene: z.string(),
    seed: z.number().int(),
    version: z.string(),
    /** Generated cases: the program edits (robots/sim/workbench/edits.ts) of their negatives, and each one's jitter. */
    edits: z.array(z.string()).optional(),
    jitter: z.array(z.number()).optional(),
    /** Generated cases: what each edited rollout changed, measured against its careful twin on the same layout. */
    changes: z.tuple([z.array(z.string()), z.array(z.string())]).optional(),
    /**
     * The careful program's rollout on the first negative's very layout (the generated set's positive; a run of its own
     * for a hand-made case): what refinement is measured against. Absent where the twin missed the goal.
     */
    twin: Id.optional(),
    /** Per negative, how far each loose support or thing ended from where it lay (m), from the simulator: for reading. */
    displaced: z.tuple([z.record(z.string(), z.number()), z.record(z.string(), z.number())]).optional(),
  }),
});
export type CriticCase = z.infer<typeof CriticCase>;

const Box = z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() });
const Detections = z.object({
  header: z.object({ stamp: z.object({ sec: z.number(), nanosec: z.number() }), frame_id: z.string() }),
  robot: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  detections: z.array(
    z.object({
      label: z.string(),
      score: z.number(),
      box: Box,
      location: z.object({ relation: z.enum(["in", "on", "held_by"]), place: z.string() }),
      color: z.string().optional(),
      position: z.tuple([z.number(), z.number(), z.number()]),
      zRange: z.tuple([z.number(), z.number()]),
      xRange: z.tuple([z.number(), z.number()]),
      yRange: z.tuple([z.number(), z.number()]),
    }),
  ),
  places: z.array(z.object({ name: z.string(), state: z.enum(["open", "closed"]), pixels: z.number(), insidePixels: z.number() })),
});

/** robots/msgs/rollout.ts's Rollout, as zod (what a rollout file must hold). */
export const RolloutFile = z.object({
  id: Id,
  instruction: z.string(),
  scene: z.string(),
  seed: z.number(),
  program: z.unknown(),
  frames: z.array(z.object({ t: z.number(), image: z.string().min(1), detections: Detections })).max(30),
  track: z.array(z.object({ t: z.number(), detections: Detections })),
  narration: z.array(z.object({ index: z.number().int(), from: z.number(), to: z.number(), text: z.string(), ok: z.boolean() })),
  startTime: z.number(),
  duration: z.number(),
  completed: z.boolean(),
}) satisfies z.ZodType<Rollout>;

const EventFile = z.array(z.object({ t: z.number(), step: z.number(), kind: z.string(), object: z.string().optional(), detail: z.string().optional() }).passthrough());

export interface CriticBenchmark {
  dir: string;
  cases: CriticCase[];
  /** Every rollout of every case, by id (key frame `image`s are paths relative to `rollouts/`). */
  rollouts: Map<string, Rollout>;
  rolloutPath(id: string): string;
  eventsPath(id: string): string;
  /** A key frame's PNG on disk. */
  framePath(id: string, frame: number): string;
  /** The rollout's event log (the simulator's ground truth). */
  events(id: string): SimEvent[];
}

/** Reads and validates a generated benchmark; throws naming the line or file and the field that is wrong. */
export function loadCriticBenchmark(dir: string): CriticBenchmark {
  const root = resolve(dir);
  const casesFile = join(root, "cases.jsonl");
  if (!existsSync(casesFile)) throw new Error(`no critic benchmark at ${root} (cases.jsonl missing): run npm run make:critic-benchmark -- --out ${dir}`);
  const explain = (e: z.ZodError) => e.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  const cases = readFileSync(casesFile, "utf8")
    .split("\n")
    .map((line, i) => ({ line, n: i + 1 }))
    .filter((x) => x.line.trim())
    .map(({ line, n: lineNumber }) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new Error(`${casesFile}:${lineNumber}: not JSON: ${(err as Error).message}`, { cause: err });
      }
      const parsed = CriticCase.safeParse(raw);
      if (!parsed.success) throw new Error(`${casesFile}:${lineNumber}: ${explain(parsed.error)}`);
      return parsed.data;
    });
  const rolloutPath = (id: string) => join(root, "rollouts", `${id}.json`);
  const eventsPath = (id: string) => join(root, "events", `${id}.json`);
  const read = <T>(path: string, schema: z.ZodType<T>): T => {
    if (!existsSync(path)) throw new Error(`${path} is missing`);
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (!parsed.success) throw new Error(`${path}: ${explain(parsed.error)}`);
    return parsed.data;
  };
  const rollouts = new Map<string, Rollout>();
  for (const c of cases) {
    for (const id of [c.inputs.positive, ...c.inputs.negatives, ...(c.metadata.twin ? [c.metadata.twin] : [])]) {
      if (rollouts.has(id)) continue;
      const rollout = read(rolloutPath(id), RolloutFile);
      if (rollout.id !== id) throw new Error(`${rolloutPath(id)}: holds rollout ${rollout.id}, not ${id}`);
      for (const f of rollout.frames) if (!existsSync(join(root, "rollouts", f.image))) throw new Error(`${rolloutPath(id)}: key frame ${f.image} is missing`);
      if (!existsSync(eventsPath(id))) throw new Error(`${eventsPath(id)} is missing`);
      rollouts.set(id, rollout);
    }
  }
  return {
    dir: root,
    cases,
    rollouts,
    rolloutPath,
    eventsPath,
    framePath: (id, frame) => join(root, "rollouts", rollouts.get(id)!.frames[frame].image),
    events: (id) => read(eventsPath(id), EventFile) as SimEvent[],
  };
}
