/**
 * Robot manifests: what a robot is, what its cameras publish and what skills it offers, in a form both a model
 * (descriptions, JSON schemas) and the symbolic planner (preconditions and effects) can read.
 *
 * Preconditions and effects are literals in a small STRIPS-like language:
 *   `pred(arg, …)` or `not pred(arg, …)`, where an argument is
 *     - a skill parameter name (`object`, `place`),
 *     - `self` (this robot's id),
 *     - `?x` a variable that must be bound by some known fact (existential, preconditions only),
 *     - `_` anything (in a negative effect: delete every matching fact),
 *     - or a constant (a name in the world).
 * Effects apply deletions first, then additions (STRIPS order).
 */
import { z } from "zod";

const LITERAL = /^(not\s+)?([a-z_][a-z0-9_]*)\(\s*([^()]*?)\s*\)$/;

export interface Literal {
  negated: boolean;
  pred: string;
  args: string[];
}

export function parseLiteral(text: string): Literal {
  const m = LITERAL.exec(text.trim());
  if (!m) throw new Error(`not a literal: ${JSON.stringify(text)} (expected pred(a, b) or not pred(a, b))`);
  const args = m[3] === "" ? [] : m[3].split(",").map((a) => a.trim());
  if (args.some((a) => !/^(\?[a-z_][a-z0-9_]*|_|[A-Za-z_][A-Za-z0-9_]*)$/.test(a))) {
    throw new Error(`bad argument in literal ${JSON.stringify(text)}`);
  }
  return { negated: !!m[1], pred: m[2], args };
}

export const LiteralText = z.string().superRefine((s, ctx) => {
  try {
    parseLiteral(s);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

/**
 * The JSON-schema subset skill arguments are written in: an object of string/number/integer/boolean/enum fields, and
 * arrays whose items are any JSON schema (reward terms of a motion are such an array).
 */
export const ArgumentSchema = z.object({
  type: z.literal("object"),
  properties: z.record(
    z.string(),
    z.object({
      type: z.enum(["string", "number", "integer", "boolean", "array"]),
      description: z.string().optional(),
      enum: z.array(z.union([z.string(), z.number()])).optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      items: z.record(z.string(), z.unknown()).optional(),
      minItems: z.number().int().nonnegative().optional(),
      maxItems: z.number().int().positive().optional(),
    }),
  ),
  required: z.array(z.string()).default([]),
  additionalProperties: z.literal(false).default(false),
});
export type ArgumentSchema = z.infer<typeof ArgumentSchema>;

/**
 * The words people use for a name in the world's vocabulary: how to show it ("bottle of tea" for `bottle_of_tea`) and
 * other wordings of it ("tea bottle"; "garbage", "bin" for `trash_can`). A model reads them in its prompt; the offline
 * reasoner maps an instruction's phrases to names through them.
 */
export const Naming = z.object({
  display: z.string().min(1).optional(),
  aliases: z.array(z.string().min(1)).optional(),
});
export type Naming = z.infer<typeof Naming>;

export const SkillSpec = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  /** The skill in plain words ("pick up"), and other verbs for it. */
  display: z.string().min(1).optional(),
  aliases: z.array(z.string().min(1)).optional(),
  /** The action (or service) that runs it: `/<robot>/<skill>`. */
  action: z.string().regex(/^\/[A-Za-z0-9_/]+$/),
  actionType: z.string().min(1),
  /**
   * How a goal reaches the robot: a rosbridge action op (ours, ROS 2), a ROS 1 actionlib action over its five topics,
   * or a service call (the arguments are the request; a response with `success: false` is a failure). Absent: action.
   */
  transport: z.enum(["action", "actionlib", "service"]).optional(),
  description: z.string().min(1),
  parameters: ArgumentSchema,
  preconditions: z.array(LiteralText).default([]),
  effects: z.array(LiteralText).default([]),
  timeoutSec: z.number().positive().default(60),
  requiresApproval: z.boolean().default(false),
});
export type SkillSpec = z.infer<typeof SkillSpec>;

export const CameraSpec = z.object({
  name: z.string(),
  image: z.string().describe("sensor_msgs/msg/CompressedImage topic (PNG)"),
  depth: z.string().optional().describe("sensor_msgs/msg/CompressedImage topic (16-bit PNG, millimetres)"),
  detections: z.string().optional().describe("robograph_msgs/msg/Detections topic"),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

export const RobotManifest = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  kind: z.string().min(1),
  description: z.string().min(1),
  cameras: z.array(CameraSpec).default([]),
  /** Static facts about this robot (what it reaches, which navigation point serves which place), in literal form. */
  facts: z.array(LiteralText).default([]),
  skills: z.array(SkillSpec).min(1),
  /** Words for the names its skills' arguments take (an object, a place, a navigation point): only names it uses. */
  names: z.record(z.string(), Naming).optional(),
}).superRefine((m, ctx) => {
  const used = new Set(m.skills.flatMap((s) => Object.values(s.parameters.properties).flatMap((p) => (p.enum ?? []).map(String))));
  for (const key of Object.keys(m.names ?? {})) {
    if (!used.has(key)) ctx.addIssue({ code: "custom", path: ["names", key], message: `${key} is no argument value of any skill of ${m.id}` });
  }
});
export type RobotManifest = z.infer<typeof RobotManifest>;

/** What a world tells any client about itself: the vocabulary a detector and a planner share. Never hidden state. */
export const WorldDescription = z.object({
  name: z.string(),
  places: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(["container", "surface"]),
      openable: z.boolean(),
      /** How many things it holds, when that is common knowledge (a kitchen shelf); left out when it is to be seen. */
      capacity: z.number().int().positive().optional(),
    }),
  ),
  navigationPoints: z.array(z.string()).default([]),
  /** Object classes the detector can name. */
  labels: z.array(z.string()),
  /**
   * Joints a motion may set (RePLan's joint list): which thing each one moves, the part to grasp to move it, and
   * what it does in plain words. Declared structure, like a URDF; never state such as "locked" or "blocked".
   */
  joints: z.array(z.object({ name: z.string(), object: z.string(), handle: z.string(), description: z.string() })).optional(),
  /** Named target points a motion may aim for (e.g. a shelf spot inside a cabinet), and the place each is in. */
  targets: z.array(z.object({ name: z.string(), place: z.string() })).optional(),
  /** Display names and other wordings of its labels, places, navigation points, joints, handles and targets. */
  names: z.record(z.string(), Naming).optional(),
}).superRefine((w, ctx) => {
  const known = new Set([
    ...w.labels,
    ...w.places.map((p) => p.name),
    ...w.navigationPoints,
    ...(w.joints ?? []).flatMap((j) => [j.name, j.object, j.handle]),
    ...(w.targets ?? []).map((t) => t.name),
  ]);
  for (const key of Object.keys(w.names ?? {})) {
    if (!known.has(key)) ctx.addIssue({ code: "custom", path: ["names", key], message: `${key} names nothing in world ${w.name}` });
  }
});
export type WorldDescription = z.infer<typeof WorldDescription>;

/** The `/robograph/manifest` service response. */
export const ManifestResponse = z.object({
  robots: z.array(RobotManifest).min(1),
  world: WorldDescription.optional(),
});
export type ManifestResponse = z.infer<typeof ManifestResponse>;

export const MANIFEST_SERVICE = "/robograph/manifest";

/** The zod validator of a skill's arguments, built from its JSON schema: tools and simulators validate with the same one. */
export function argumentsValidator(params: ArgumentSchema): z.ZodObject<Record<string, z.ZodType>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, p] of Object.entries(params.properties)) {
    let t: z.ZodType;
    if (p.enum && p.enum.length > 0) {
      t = p.enum.every((v) => typeof v === "string")
        ? z.enum(p.enum as [string, ...string[]])
        : z.union(p.enum.map((v) => z.literal(v)) as unknown as [z.ZodLiteral, z.ZodLiteral, ...z.ZodLiteral[]]);
    } else if (p.type === "array") {
      let a = z.array(p.items ? z.fromJSONSchema(p.items as Parameters<typeof z.fromJSONSchema>[0]) : z.unknown());
      if (p.minItems !== undefined) a = a.min(p.minItems);
      if (p.maxItems !== undefined) a = a.max(p.maxItems);
      t = a;
    } else if (p.type === "string") t = z.string();
    else if (p.type === "boolean") t = z.boolean();
    else {
      let n = p.type === "integer" ? z.number().int() : z.number();
      if (p.minimum !== undefined) n = n.min(p.minimum);
      if (p.maximum !== undefined) n = n.max(p.maximum);
      t = n;
    }
    if (p.description) t = t.describe(p.description);
    shape[key] = params.required.includes(key) ? t : t.optional();
  }
  return z.strictObject(shape);
}

/** Static facts every client may derive from a world description (the planner's typing facts). */
export function worldFacts(world: WorldDescription): string[] {
  const facts: string[] = [];
  for (const p of world.places) {
    facts.push(`${p.kind}(${p.name})`);
    if (p.openable) facts.push(`openable(${p.name})`);
  }
  for (const n of world.navigationPoints) facts.push(`navigation_point(${n})`);
  return facts;
}
