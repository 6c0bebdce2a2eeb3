/**
 * Reward-driven motion (RePLan's low level, after Language to Rewards): a motion is a short list of weighted reward
 * terms over named things in the scene, one of them primary, plus a duration. The simulator's model-predictive
 * controller maximizes their weighted sum; the primary term decides success. Terms are data — a model's motion
 * "program" is validated against these schemas and never executed as code.
 */
import { z } from "zod";

const Name = z.string().regex(/^[a-z][a-z0-9_]*$/, "a scene name in snake_case, e.g. yellow_cube");
const common = {
  weight: z.number().min(0).max(10).default(1).describe("relative weight of this term in the controller's objective"),
  primary: z.boolean().default(false).describe("the term whose satisfaction means the motion succeeded (exactly one)"),
};

export const MinimizeDistance = z.strictObject({
  kind: z.literal("minimize_l2_distance"),
  a: Name.describe("thing to bring close; `palm` is the robot's hand"),
  b: Name.describe("thing to bring it close to"),
  ...common,
});
export const MaximizeDistance = z.strictObject({
  kind: z.literal("maximize_l2_distance"),
  a: Name,
  b: Name,
  distance: z.number().min(0.05).max(1.5).default(0.5).describe("metres apart that count as far enough"),
  ...common,
});
export const SetJointFraction = z.strictObject({
  kind: z.literal("set_joint_fraction"),
  joint: Name.describe("a joint from the scene's joint list"),
  fraction: z.number().min(0).max(1).describe("0 closed, 1 fully open"),
  ...common,
});
export const SetObjectHeight = z.strictObject({
  kind: z.literal("set_obj_z_position"),
  obj: Name,
  z: z.number().min(0).max(1.5).describe("target height of the object's centre, metres above the floor"),
  ...common,
});
export const SetObjectOrientation = z.strictObject({
  kind: z.literal("set_obj_orientation"),
  obj: Name,
  axis: z.enum(["x", "y", "z"]),
  radians: z.number().min(-Math.PI).max(Math.PI),
  ...common,
});

export const RewardTerm = z.discriminatedUnion("kind", [
  MinimizeDistance,
  MaximizeDistance,
  SetJointFraction,
  SetObjectHeight,
  SetObjectOrientation,
]);
export type RewardTerm = z.infer<typeof RewardTerm>;
export type RewardTermInput = z.input<typeof RewardTerm>;
export const REWARD_KINDS = RewardTerm.options.map((o) => o.shape.kind.value);

export const MotionProgram = z
  .strictObject({
    terms: z.array(RewardTerm).min(1).max(8),
    duration: z.number().min(0.5).max(20).default(4).describe("seconds the controller may take"),
  })
  .refine((p) => p.terms.filter((t) => t.primary).length === 1, {
    message: "exactly one term must be primary",
    path: ["terms"],
  });
export type MotionProgram = z.infer<typeof MotionProgram>;

/** The names a term refers to (objects, parts, targets or a joint). */
export function termNames(term: RewardTermInput): string[] {
  switch (term.kind) {
    case "minimize_l2_distance":
    case "maximize_l2_distance":
      return [term.a, term.b];
    case "set_joint_fraction":
      return [term.joint];
    case "set_obj_z_position":
    case "set_obj_orientation":
      return [term.obj];
  }
}

/** A term as the call a reward-writing model would write, e.g. `minimize_l2_distance("palm", "kettle")`. */
export function termText(term: RewardTermInput): string {
  const quote = (s: string) => JSON.stringify(s);
  const body =
    term.kind === "minimize_l2_distance"
      ? `${quote(term.a)}, ${quote(term.b)}`
      : term.kind === "maximize_l2_distance"
        ? `${quote(term.a)}, ${quote(term.b)}, ${term.distance ?? 0.5}`
        : term.kind === "set_joint_fraction"
          ? `${quote(term.joint)}, ${term.fraction}`
          : term.kind === "set_obj_z_position"
            ? `${quote(term.obj)}, ${term.z}`
            : `${quote(term.obj)}, ${quote(term.axis)}, ${term.radians}`;
  return `${term.kind}(${body})${term.primary ? "  # primary" : ""}${(term.weight ?? 1) !== 1 ? `  # weight ${term.weight}` : ""}`;
}
