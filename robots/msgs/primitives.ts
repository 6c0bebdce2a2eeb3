/**
 * Primitive programs (the behaviour critics' policy writer, after code-as-policies): a short typed list of palm
 * primitives — move, grasp with a force and an opening, release, lift, pause, set a speed, work a joint. A writer's
 * program is validated against these schemas and interpreted step by step by the world; it is never code to run.
 */
import { z } from "zod";

const Name = z.string().regex(/^[a-z][a-z0-9_]*$/, "a scene name in snake_case, e.g. red_apple");
const Metres = (max: number) => z.number().min(-max).max(max);

export const MoveTo = z.strictObject({
  op: z.literal("move_to"),
  target: Name.describe("a thing or a named point of the scene"),
  offset: z
    .tuple([Metres(0.5), Metres(0.5), Metres(0.5)])
    .default([0, 0, 0])
    .describe("metres added to the target's position (x right, y away from the camera, z up)"),
  speed: z
    .number()
    .min(0.01)
    .max(1.5)
    .optional()
    .describe("palm speed in m/s for this move; default: the last `speed` step, else 0.2"),
});
export const Grasp = z.strictObject({
  op: z.literal("grasp"),
  object: Name.describe("the thing to close the hand on; the palm must be within 4 cm of its grasp point"),
  force: z.number().min(1).max(60).describe("grip force in newtons"),
  width: z.number().min(0).max(0.15).describe("opening the fingers close to, in metres (0: fully shut)"),
});
export const Release = z.strictObject({ op: z.literal("release") });
export const Lift = z.strictObject({
  op: z.literal("lift"),
  height: z.number().min(-0.4).max(0.4).describe("metres to move the palm straight up (negative: down)"),
  speed: z.number().min(0.01).max(1.5).optional(),
});
export const Pause = z.strictObject({ op: z.literal("pause"), seconds: z.number().min(0).max(5) });
export const Speed = z.strictObject({
  op: z.literal("speed"),
  value: z.number().min(0.01).max(1.5).describe("default palm speed in m/s from here on"),
});
export const SetJoint = z.strictObject({
  op: z.literal("set_joint"),
  joint: Name.describe("a door or drawer joint of the scene; the palm must hold its handle"),
  fraction: z.number().min(0).max(1).describe("0 closed, 1 fully open"),
});

export const Primitive = z.discriminatedUnion("op", [MoveTo, Grasp, Release, Lift, Pause, Speed, SetJoint]);
export type Primitive = z.infer<typeof Primitive>;
export const PRIMITIVE_OPS = Primitive.options.map((o) => o.shape.op.value);

export const PrimitiveProgram = z.strictObject({
  steps: z
    .array(Primitive)
    .min(1)
    .max(40)
    .describe("primitives run in order; the program stops at the first that fails"),
});
export type PrimitiveProgram = z.infer<typeof PrimitiveProgram>;
export type PrimitiveProgramInput = z.input<typeof PrimitiveProgram>;

/** A refusal that names every bad field, e.g. `steps.2.force: Too big: expected number to be <=60`. */
export function explainProgramError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(program)"}: ${i.message}`).join("; ");
}
