/**
 * What the behaviour critic, its grounding refinement, the preference judge and the policy writer answer. A claim says
 * in the critic's own words what it saw, what it happened to and what the robot did to cause it; it may add a short
 * name for the behaviour from a list it is shown or one of its own. Nothing here is a closed list: a critic can report
 * behaviour nobody wrote a name for, and scoring reads its words (evals/behaviourWords.ts).
 */
import { z } from "zod";
import { PrimitiveProgram } from "../../robots/msgs/primitives";

export const ClaimedEvent = z.object({
  what: z
    .string()
    .min(1)
    .describe("what you saw happen and why a careful person would object to it, in your own words"),
  object: z
    .string()
    .min(1)
    .describe(
      "the scene name of the thing it happened to (or the door/drawer left open, `table`, or `palm` for the hand itself)",
    ),
  cause: z.string().min(1).describe("what the robot did that caused it, in your own words"),
  kind: z
    .string()
    .min(1)
    .optional()
    .describe("a short snake_case name for the behaviour: one from the list you were given, or a new one"),
  t: z.number().min(0).optional().describe("seconds into the video where it happens, roughly"),
  frames: z
    .array(z.number().int().min(0))
    .max(30)
    .optional()
    .describe("the key frames that show it (0-based, in the order given)"),
});
export type ClaimedEvent = z.infer<typeof ClaimedEvent>;

/** A claim in a few words, for summaries: its name if it gave one, else the start of what it saw; and what suffered it. */
export function claimLabel(claim: { kind?: string; what?: string; object: string }): string {
  const said = claim.kind
    ? claim.kind.replace(/_/g, " ")
    : (claim.what ?? "").length > 60
      ? `${claim.what!.slice(0, 57)}…`
      : (claim.what ?? "");
  return `${said} (${claim.object})`;
}

export const BehaviourCritique = z.object({
  undesirable: z.boolean().describe("true when anything undesirable happened, even though the task may have been done"),
  events: z.array(ClaimedEvent).max(12).describe("each undesirable event seen, once (empty when none)"),
  summary: z.string().describe("a short overall verdict"),
});
export type BehaviourCritique = z.infer<typeof BehaviourCritique>;

export const Preference = z.object({
  better: z
    .enum(["first", "second", "equal"])
    .describe("which video shows the better behaviour; equal when neither is worse"),
  firstEvents: z.array(ClaimedEvent).max(12).describe("undesirable events in the first video"),
  secondEvents: z.array(ClaimedEvent).max(12).describe("undesirable events in the second video"),
  justification: z.string(),
});
export type Preference = z.infer<typeof Preference>;

export const WrittenProgram = z.object({
  reasoning: z.string().describe("what the program does, and what it changes after the critique (if any)"),
  program: PrimitiveProgram,
});
export type WrittenProgram = z.infer<typeof WrittenProgram>;

/** One detection as the critic's prompt carries it: compact, metres and pixels rounded. */
export interface SeenThing {
  label: string;
  /** [x, y, z] of its pixels' median, metres, world frame (x right, y away from the camera, z up). */
  at: [number, number, number];
  /** Lowest and highest z of its pixels. */
  z: [number, number];
  /** Its pixels' extent in x and y: [xmin, xmax, ymin, ymax]. */
  extent: [number, number, number, number];
  box: [number, number, number, number];
  held: boolean;
  where: string;
}

/** One key frame as the critic's prompt carries it beside the image. */
export interface SeenFrame {
  t: number;
  things: SeenThing[];
  /** Doors and drawers in view and whether each is open. */
  open: string[];
}

/** The critic's prompt contract: the instruction and, per key frame (in order, one image each), what was detected. */
export interface RolloutContext {
  instruction: string;
  frames: SeenFrame[];
}

/** Grounding feedback: which claimed events a perception check did not find. */
export interface GroundingFeedback {
  source: "events" | "detector";
  notFound: { kind: string; object: string }[];
  /** Claims the check could not look for: named by no behaviour it knows (kept as they are). */
  unchecked?: { what: string; object: string }[];
}

/** What the writer's prompt carries: the task, the scene's named things with where the camera sees them, the last try. */
export interface WriterContext {
  instruction: string;
  scene: {
    /** Things and points the program may name, with where they are seen ([x, y, z] and z range), when in view. */
    things: {
      name: string;
      at?: [number, number, number];
      z?: [number, number];
      extent?: [number, number, number, number];
    }[];
    joints: { name: string; handle: string; object: string }[];
  };
  previous?: { program: PrimitiveProgram; critique: ClaimedEvent[] };
}
