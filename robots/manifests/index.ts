/** The manifests shipped with the project, validated when loaded. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { describeIssues } from "./issues";
import { ManifestFile, RobotManifest } from "./schema";
import { manifestJsonSchema } from "./jsonSchema";
import { unknownKeys } from "./unknownKeys";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Reads a JSON file and validates it; the error names the file (as `what`) and every field that is wrong, a robot and
 * a skill by name (`robot "arm", skill "set_gripper": …`).
 */
function readValidated<T>(
  path: string,
  schema: z.ZodType<T>,
  what: string,
  jsonSchema: () => Record<string, unknown>,
): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = schema.safeParse(raw);
  // A key the schema does not know would be dropped without a word, its default taking its place: refused with the rest.
  const issues = [
    ...(parsed.success ? [] : parsed.error.issues),
    ...unknownKeys(raw, jsonSchema()).map((u) => ({ ...u, code: "custom" as const, input: undefined })),
  ];
  if (!parsed.success || issues.length)
    throw new Error(`${what} ${path} is invalid: ${describeIssues(raw, issues)}`, { cause: parsed.error });
  return parsed.data;
}

/** Reads and validates one robot's manifest file. */
export const loadManifest = (path: string): RobotManifest =>
  readValidated(path, RobotManifest, "robot manifest", robotJsonSchema);

/** Reads and validates a file of a robot's manifests and world ({ robots, world }, as `robograph connect` drafts). */
export const loadManifestFile = (path: string): ManifestFile =>
  readValidated(path, ManifestFile, "manifest file", manifestJsonSchema);

/** One robot's part of the file's schema. */
const robotJsonSchema = () =>
  (manifestJsonSchema().properties as Record<string, Record<string, unknown>>).robots.items as Record<string, unknown>;

export function bundledManifests(world: string): RobotManifest[] {
  if (world === "kitchen") return ["mobile", "arm"].map((r) => loadManifest(join(here, "kitchen", `${r}.json`)));
  if (world === "tabletop") return [loadManifest(join(here, "tabletop", "palm.json"))];
  if (world === "course") return [loadManifest(join(here, "course", "dog.json"))];
  if (world === "workbench") return [loadManifest(join(here, "workbench", "palm.json"))];
  if (world === "blocks") return [loadManifest(join(here, "blocks", "arm.json"))];
  throw new Error(`no bundled manifests for world ${world}`);
}

export * from "./schema";
