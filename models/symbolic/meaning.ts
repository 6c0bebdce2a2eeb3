/**
 * What a request asks, as the symbolic reasoner's seeded faults are keyed on it: the role, the seed and the context's
 * content — which objects, places, robots, skills, detections, history and numbers — never how the prompt words or
 * lays it out. So a prompt can be reworded, its descriptions rewritten, its keys reordered or its empty fields left
 * out without redrawing any episode's faults (and so without moving any table).
 */
import { createHash } from "node:crypto";

/**
 * Fields that word a request for a reader rather than say what it asks: descriptions of skills, arguments, robots and
 * joints; the wordings of names (display names and aliases, in the world's names and beside each detection's label); a question's phrasing; worked examples shown with the
 * prompt; an observation's prose summary of the detections listed beside it; a plot's axis labels.
 */
const WORDING = new Set([
  "description",
  "names",
  "display",
  "aliases",
  "phrasing",
  "exemplars",
  "summary",
  "xLabel",
  "yLabel",
]);

const empty = (value: unknown) =>
  value === null ||
  value === undefined ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** The context with its wording left out: keys sorted, empty fields dropped, text in one case and spacing. */
export function meaningOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(meaningOf);
  if (value && typeof value === "object") {
    const kept: [string, unknown][] = [];
    for (const key of Object.keys(value).sort()) {
      if (WORDING.has(key)) continue;
      const reduced = meaningOf((value as Record<string, unknown>)[key]);
      if (!empty(reduced)) kept.push([key, reduced]);
    }
    return Object.fromEntries(kept);
  }
  if (typeof value === "string") return value.trim().replace(/\s+/g, " ").toLowerCase();
  return value;
}

/** The key of a request's seeded draws: the seed, the role (the context's task) and what it asks. */
export function faultKey(seed: number, ctx: { task: string }): string {
  return `${seed}|${ctx.task}|${meaningHash(ctx)}`;
}

/** A value's meaning as a short hash: what a view, a detection or a context holds, its wording aside. */
export function meaningHash(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(meaningOf(value)) ?? "")
    .digest("hex");
}

/**
 * The key of the draws a reasoner makes after reading these fields of its context (models/symbolic/index.ts): the
 * fields it has not read are left out, so a field it never reads never moves a draw. With every field read it is
 * `faultKey` of the whole context.
 */
export function readKey(
  seed: number,
  ctx: { task: string } & Record<string, unknown>,
  read: ReadonlySet<string>,
): string {
  const picked = Object.fromEntries(
    Object.keys(ctx)
      .filter((k) => k === "task" || read.has(k))
      .map((k) => [k, ctx[k]]),
  );
  return faultKey(seed, picked as { task: string });
}
