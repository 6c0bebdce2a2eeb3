/**
 * Keys a manifest file has that its schema does not know — a misspelling (`timeoutSecs`) that zod would drop without a
 * word, leaving the default in its place. Read against the file's JSON Schema (robots/manifests/jsonSchema.ts), whose
 * objects refuse keys they do not list; an argument field is zod's to check (it refuses keywords it does not know).
 */
type JsonSchema = Record<string, unknown>;

export interface UnknownKey {
  path: (string | number)[];
  message: string;
}

/** Edits between two words (insert, delete, substitute), for "did you mean". */
function distance(written: string, known: string): number {
  const row = Array.from({ length: known.length + 1 }, (_, j) => j);
  for (let i = 1; i <= written.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= known.length; j++) {
      const above = row[j];
      row[j] = Math.min(
        row[j] + 1,
        row[j - 1] + 1,
        diagonal + (written[i - 1].toLowerCase() === known[j - 1].toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return row[known.length];
}

/** The known key a misspelled one most likely meant, if one is near enough. */
function nearest(key: string, known: string[]): string | undefined {
  const ranked = known.map((k) => ({ k, d: distance(key, k) })).sort((x, y) => x.d - y.d);
  return ranked[0] && ranked[0].d <= Math.max(1, Math.floor(key.length / 4)) ? ranked[0].k : undefined;
}

export function unknownKeys(raw: unknown, schema: JsonSchema, path: (string | number)[] = []): UnknownKey[] {
  if ("$ref" in schema) return [];
  if (Array.isArray(raw)) {
    const items = schema.items as JsonSchema | undefined;
    return items ? raw.flatMap((item, i) => unknownKeys(item, items, [...path, i])) : [];
  }
  if (!raw || typeof raw !== "object") return [];
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const others = schema.additionalProperties;
  const found: UnknownKey[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const known = properties?.[key];
    if (known) found.push(...unknownKeys(value, known, [...path, key]));
    else if (others && typeof others === "object")
      found.push(...unknownKeys(value, others as JsonSchema, [...path, key]));
    else if (others === false) {
      const meant = nearest(key, Object.keys(properties ?? {}));
      found.push({
        path,
        message: `unknown key ${JSON.stringify(key)}${meant ? ` (did you mean ${JSON.stringify(meant)}?)` : ` (known: ${Object.keys(properties ?? {}).join(", ")})`}`,
      });
    }
  }
  return found;
}
