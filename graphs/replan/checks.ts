/**
 * RePLan's checks on what a plan says, used by its verifier node with any model and by the offline reasoner: the names
 * a motion may use in a scene, which of them a sentence mentions, and why a step's sentence cannot be carried out.
 */
import type { WorldDescription } from "../../robots/manifests/schema";
import type { DetectionsMessage, PlacedDetection } from "../../robots/msgs/detections";

/** What the scene's detector reported, as the prompt carries it (the reasoner reads no scores). */
export interface SceneDetections {
  detections: Omit<PlacedDetection, "score">[];
  places: DetectionsMessage["places"];
}

/**
 * How a failed procedure is remembered when the perceiver's looks at the failure saw no cause
 * (graphs/replan/nodes/consolidate.ts writes it): the planner reads it as "looked, and nothing stood in the way".
 * Without a perceiver nothing is looked at, and a failure is remembered without it.
 */
export const NO_CAUSE_SEEN = "no cause was seen";

/** Every name a motion may use: objects, handles, joints, targets and the palm. */
export function vocabulary(world: WorldDescription): string[] {
  return [
    ...new Set([
      "palm",
      ...world.labels,
      ...(world.joints ?? []).flatMap((j) => [j.name, j.handle]),
      ...(world.targets ?? []).map((t) => t.name),
    ]),
  ];
}

const words = (text: string) => [...text.toLowerCase().matchAll(/[a-z][a-z0-9_]*/g)].map((m) => m[0]);
/** Names of the vocabulary a sentence mentions, in order of appearance. */
export function mentioned(text: string, names: string[]): string[] {
  return [...new Set(words(text).filter((w) => names.includes(w)))];
}

/**
 * Why a step's sentence cannot be carried out as written: it stops before its object or target ("place the crate on
 * the "), leaves the object out ("move the  to the table"), or names nothing in the scene at all.
 */
export function missingArgument(action: string, names: string[]): string | undefined {
  const text = action.trim().toLowerCase();
  if (!text) return "the step is empty";
  if (
    /\b(?:the|a|an|on|onto|in|into|inside|to|from|of|with|at|near|under|over|by|for|away)$/.test(
      text.replace(/[.!?]+$/, ""),
    )
  )
    return `"${action.trim()}" is missing its object or target`;
  if (/\b(?:the|a|an)\s+(?:on|onto|in|into|inside|to|from|of|with|at|near|under|over|by|for|away)\b/.test(text))
    return `"${action.trim()}" is missing its object`;
  if (!mentioned(text, names).length) return `"${action.trim()}" names nothing in this scene`;
  return undefined;
}
