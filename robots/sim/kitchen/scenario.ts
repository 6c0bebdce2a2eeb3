/** Kitchen scenarios: where things start (some hidden), what changes mid-episode, and what counts as done. */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { LiteralText } from "../../manifests/schema";
import { NAVIGATION_POINTS, OBJECTS, PLACES } from "./layout";

const ObjectName = z.enum(OBJECTS.map((o) => o.name) as [string, ...string[]]);
const PlaceName = z.enum(PLACES.map((p) => p.name) as [string, ...string[]]);
const OpenableName = z.enum(PLACES.filter((p) => p.openable).map((p) => p.name) as [string, ...string[]]);

export const Perturbation = z
  .object({
    /** Applied right after this many skill goals have ended (whatever their outcome). */
    afterSkill: z.number().int().positive(),
    move: z.object({ object: ObjectName, to: PlaceName }).optional(),
    close: OpenableName.optional(),
    open: OpenableName.optional(),
  })
  .refine(
    (p) => [p.move, p.close, p.open].filter(Boolean).length === 1,
    "a perturbation does exactly one of move, close, open",
  );

export const KitchenScenario = z.object({
  name: z.string().regex(/^[a-z0-9_]+$/),
  family: z.enum(["search", "manipulation", "integration"]),
  instruction: z.string().min(1),
  /** Where each object starts; objects not listed are not in the kitchen. */
  placements: z.partialRecord(ObjectName, PlaceName),
  /** Containers that start open (the rest start closed). */
  open: z.array(OpenableName).default([]),
  mobileAt: z.enum(NAVIGATION_POINTS.map((n) => n.name) as [string, ...string[]]).default("in_front_of_table"),
  perturbations: z.array(Perturbation).default([]),
  /** Goal literals over the true state: in(o, p), holding(r, o), closed(p), not closed(p), found(o), at(mobile, n). */
  goal: z.array(LiteralText).min(1),
});
export type KitchenScenario = z.infer<typeof KitchenScenario>;

const here = dirname(fileURLToPath(import.meta.url));
export const SCENARIO_DIR = join(here, "scenarios");

export function listScenarios(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

export function loadScenario(nameOrPath: string): KitchenScenario {
  const path = nameOrPath.endsWith(".json") ? nameOrPath : join(SCENARIO_DIR, `${nameOrPath}.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(
      `cannot read scenario ${nameOrPath}: ${(err as Error).message}; known: ${listScenarios().join(", ")}`,
      { cause: err },
    );
  }
  return parseScenario(raw, path);
}

/** A scenario given as data (a dataset row's, sent with a reset), checked as a scenario file is. */
export function parseScenario(raw: unknown, path = "(given)"): KitchenScenario {
  const parsed = KitchenScenario.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `scenario ${path} is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const counts = new Map<string, number>();
  for (const place of Object.values(parsed.data.placements) as string[])
    counts.set(place, (counts.get(place) ?? 0) + 1);
  for (const [place, n] of counts) {
    const cap = PLACES.find((q) => q.name === place)!.slots.length;
    if (n > cap) throw new Error(`scenario ${path}: ${n} objects placed in ${place}, which holds ${cap}`);
  }
  return parsed.data;
}
