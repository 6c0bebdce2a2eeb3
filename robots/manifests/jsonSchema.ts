/**
 * The JSON Schema of a manifest file (robots/manifests/manifest.schema.json), generated from the zod schema's input
 * side — what a person may write, defaults left out — as draft-07, which editors (VS Code's `json.schemas`, a file's
 * own `"$schema"`) validate and complete with. Refinements that JSON Schema cannot say (a literal's syntax, a goal
 * template's placeholders) stay zod's: the file is checked in full when it is loaded. `npm run manifest:schema` writes
 * it; a test holds the committed file equal to this. Run as a script: `tsx robots/manifests/jsonSchema.ts [--write]`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { FieldSchema, FieldShape } from "./arguments";
import { ManifestFile } from "./schema";

export const MANIFEST_JSON_SCHEMA = join(dirname(fileURLToPath(import.meta.url)), "manifest.schema.json");

/** The definition an argument field refers to (it nests: an object's properties and an array's items are fields). */
const FIELD_DEFINITION = "ArgumentField";
const OPTIONS = { io: "input", target: "draft-7" } as const;

type JsonSchema = Record<string, unknown>;

/** A copy in which every `$ref` passes through `retarget` (a schema generated alone refers to itself as `#`). */
function retargeted(node: unknown, retarget: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => retargeted(item, retarget));
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" ? retarget(value) : retargeted(value, retarget),
    ]),
  );
}

/**
 * A copy in which every object with listed properties and nothing said of others refuses others: zod's input side
 * leaves them open (it strips unknown keys), so a misspelled key (`timeoutSecs`) would pass an editor unnoticed. The
 * argument field's definition is made apart (FieldShape) and says for itself what it takes.
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== "object") return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closed(value)])) as JsonSchema;
  if (copy.type === "object" && copy.properties && !("additionalProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

/** The manifest file's JSON Schema, as an object. */
export function manifestJsonSchema(): JsonSchema {
  // An argument field is kept as written (zod checks it with FieldShape in a refinement), so on its own it would be
  // `{}`: described here by FieldShape, once, as a definition every field refers to.
  const field = z.toJSONSchema(FieldShape, OPTIONS) as JsonSchema;
  const { $schema: _draft, definitions: fieldDefinitions, ...fieldSchema } = field;
  if (fieldDefinitions) throw new Error("an argument field's schema has definitions of its own: merge them");
  const file = z.toJSONSchema(ManifestFile, {
    ...OPTIONS,
    override: (ctx) => {
      if ((ctx.zodSchema as unknown) !== FieldSchema) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
      ctx.jsonSchema.$ref = `#/definitions/${FIELD_DEFINITION}`;
    },
  }) as JsonSchema;
  const { $schema: draft, definitions, ...body } = file;
  return {
    $schema: draft,
    title: "RoboGraph manifest file",
    description:
      "A robot's manifests and its world ({ robots, world }), as `robograph connect` drafts them and a person completes them; `robograph connect --check FILE URL` holds it to the robot.",
    ...(closed(body) as JsonSchema),
    definitions: {
      ...(definitions as JsonSchema | undefined),
      [FIELD_DEFINITION]: retargeted(fieldSchema, (ref) => (ref === "#" ? `#/definitions/${FIELD_DEFINITION}` : ref)),
    },
  };
}

/** The file's text as committed: the schema, two-space indented, with a final newline. */
export const manifestJsonSchemaText = () => `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = manifestJsonSchemaText();
  if (process.argv.includes("--write")) {
    writeFileSync(MANIFEST_JSON_SCHEMA, text);
    process.stdout.write(`wrote ${MANIFEST_JSON_SCHEMA}\n`);
  } else {
    let committed = "";
    try {
      committed = readFileSync(MANIFEST_JSON_SCHEMA, "utf8");
    } catch {
      // not written yet: stale
    }
    const stale = committed !== text;
    process.stdout.write(
      stale ? `stale: ${MANIFEST_JSON_SCHEMA} (npm run manifest:schema)\n` : `${MANIFEST_JSON_SCHEMA} is up to date\n`,
    );
    process.exitCode = stale ? 1 : 0;
  }
}
