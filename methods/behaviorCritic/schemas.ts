/**
 * What the behaviour critic, its grounding refinement, the preference judge and the policy writer answer. Claims name
 * an undesirable behaviour (robots/msgs/rollout.ts), the thing that suffered it, and the cause: the grounding module
 * checks the first two against what happened; metrics also check the cause.
 */
import { z } from "zod";
import { CAUSES, CAUSE_KINDS, UNDESIRABLE_KINDS, type Cause } from "../../robots/msgs/rollout";
import { PrimitiveProgram } from "../../robots/msgs/primitives";

/** Why an undesirable event happened, in terms of what the robot did (the messages' vocabulary, shared with the world). */
export { CAUSES, CAUSE_KINDS, type Cause };

export const ClaimedEvent = z.object({
  kind: z.enum(UNDESIRABLE_KINDS).describe("which undesirable behaviour"),
  object: z.string().min(1).describe("the scene name of the thing it happened to (or the door/drawer left open, or `table`)"),
  t: z.number().min(0).optional().describe("seconds into the video where it happens, roughly"),
  cause: z.enum(CAUSE_KINDS).describe("what the robot did that caused it"),
  explanation: z.string().describe("one sentence on what is seen and why it is undesirable"),
});
export type ClaimedEvent = z.infer<typeof ClaimedEvent>;

export const BehaviourCritique = z.object({
  undesirable: z.boolean().describe("true when anything undesirable happened, even though the task may have been done"),
  events: z.array(ClaimedEvent).max(12).describe("each undesirable event seen, once (empty when none)"),
  summary: z.string().describe("a short overall verdict"),
});
export type BehaviourCritique = z.infer<typeof BehaviourCritique>;

export const Preference = z.object({
  better: z.enum(["first", "second", "equal"]).describe("which video shows the better behaviour; equal when neither is worse"),
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
}

/** What the writer's prompt carries: the task, the scene's named things with where the camera sees them, the last try. */
export interface WriterContext {
  instruction: string;
  scene: {
    /** Things and points the program may name, with where they are seen ([x, y, z] and z range), when in view. */
    things: { name: string; at?: [number, number, number]; z?: [number, number]; extent?: [number, number, number, number] }[];
    joints: { name: string; handle: string; object: string }[];
  };
  previous?: { program: PrimitiveProgram; critique: ClaimedEvent[] };
}
