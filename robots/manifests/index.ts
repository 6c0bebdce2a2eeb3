/** The manifests shipped with the project, validated when loaded. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RobotManifest } from "./schema";

const here = dirname(fileURLToPath(import.meta.url));

/** Reads and validates a manifest file; the error names the file and every field that is wrong. */
export function loadManifest(path: string): RobotManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read robot manifest ${path}: ${(err as Error).message}`);
  }
  const p = RobotManifest.safeParse(raw);
  if (!p.success) throw new Error(`robot manifest ${path} is invalid: ${p.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return p.data;
}

export function bundledManifests(world: string): RobotManifest[] {
  if (world === "kitchen") return ["mobile", "arm"].map((r) => loadManifest(join(here, "kitchen", `${r}.json`)));
  if (world === "tabletop") return [loadManifest(join(here, "tabletop", "palm.json"))];
  if (world === "course") return [loadManifest(join(here, "course", "dog.json"))];
  if (world === "workbench") return [loadManifest(join(here, "workbench", "palm.json"))];
  if (world === "blocks") return [loadManifest(join(here, "blocks", "arm.json"))];
  throw new Error(`no bundled manifests for world ${world}`);
}

export * from "./schema";
