/**
 * A skill's arguments: the JSON-schema subset a manifest writes them in, the one zod validator built from it (tools,
 * MCP, the verifier and the simulators all check with it), and goal templates — how a planner's names (a navigation
 * point) become the fields of the message a robot's action takes (a `geometry_msgs/PoseStamped`).
 */
import { z } from "zod";

/**
 * One field of a skill's arguments, in the JSON-schema subset manifests are written in — enough for any ROS message
 * (rosapi's typedefs expand into it: nested messages are objects, `T[]` arrays, `T[n]` arrays of n items) and for our
 * own typed programs (a union of step shapes is `oneOf`, a step's kind a `const`). A keyword outside the subset is
 * refused by name, so a manifest never says more than its validator checks.
 */
export interface FieldSchema {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  description?: string;
  enum?: (string | number)[];
  const?: string | number | boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  /** An object: its fields; those in `required` must be given; no other field is taken. */
  properties?: Record<string, FieldSchema>;
  required?: string[];
  additionalProperties?: false;
  /** An array: the schema of its items (`false` with `prefixItems`: a tuple), how many it holds. */
  items?: FieldSchema | false;
  prefixItems?: FieldSchema[];
  minItems?: number;
  maxItems?: number;
  /** Exactly one of these shapes. */
  oneOf?: FieldSchema[];
}

const FieldShape: z.ZodType<FieldSchema> = z.lazy(() =>
  z
    .strictObject({
      type: z.enum(["string", "number", "integer", "boolean", "array", "object"]).optional(),
      description: z.string().optional(),
      enum: z.array(z.union([z.string(), z.number()])).optional(),
      const: z.union([z.string(), z.number(), z.boolean()]).optional(),
      pattern: z.string().optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      default: z.unknown().optional(),
      properties: z.record(z.string(), FieldShape).optional(),
      required: z.array(z.string()).optional(),
      additionalProperties: z.literal(false).optional(),
      items: z.union([FieldShape, z.literal(false)]).optional(),
      prefixItems: z.array(FieldShape).optional(),
      minItems: z.number().int().nonnegative().optional(),
      maxItems: z.number().int().nonnegative().optional(),
      oneOf: z.array(FieldShape).min(1).optional(),
    })
    .superRefine((f, ctx) => {
      if (!f.type && !f.oneOf && f.const === undefined)
        ctx.addIssue({ code: "custom", message: "a field needs a type (or oneOf, or const)" });
      if (f.type === "object") {
        for (const k of f.required ?? [])
          if (!f.properties?.[k])
            ctx.addIssue({
              code: "custom",
              path: ["required"],
              message: `${k} is required but not among the properties`,
            });
      } else if (f.properties || f.required)
        ctx.addIssue({
          code: "custom",
          path: ["properties"],
          message: `properties and required belong to an object, not to a ${f.type ?? "oneOf"}`,
        });
      if (f.type !== "array" && (f.items !== undefined || f.prefixItems))
        ctx.addIssue({
          code: "custom",
          path: ["items"],
          message: `items belong to an array, not to a ${f.type ?? "oneOf"}`,
        });
    }),
) as z.ZodType<FieldSchema>;

/** A field checked against the subset and kept as written (key order too: it is what a model reads). */
export const FieldSchema = z.unknown().superRefine((v, ctx) => {
  const r = FieldShape.safeParse(v);
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: "custom", path: i.path, message: i.message });
}) as unknown as z.ZodType<FieldSchema>;

/** A skill's arguments: an object of fields (any of them nested objects, arrays of objects, unions of shapes). */
export const ArgumentSchema = z
  .object({
    type: z.literal("object"),
    properties: z.record(z.string(), FieldSchema),
    required: z.array(z.string()).default([]),
    additionalProperties: z.literal(false).default(false),
  })
  .superRefine((a, ctx) => {
    for (const k of a.required)
      if (!a.properties[k])
        ctx.addIssue({ code: "custom", path: ["required"], message: `${k} is required but not among the properties` });
  });
export type ArgumentSchema = z.infer<typeof ArgumentSchema>;

/**
 * A pose a person measured on the robot and named (`in_front_of_table`): the frame it is in, the position, and the
 * heading as a quaternion or, more simply, as a yaw in radians about z. A goal template turns such a name into a
 * `geometry_msgs/PoseStamped`.
 */
export const NamedPose = z
  .strictObject({
    frame_id: z.string().min(1),
    position: z.strictObject({ x: z.number(), y: z.number(), z: z.number().default(0) }),
    orientation: z.strictObject({ x: z.number(), y: z.number(), z: z.number(), w: z.number() }).optional(),
    yaw: z.number().optional(),
  })
  .refine((p) => (p.orientation === undefined) !== (p.yaw === undefined), {
    message: "give the heading either as orientation (a quaternion) or as yaw (radians), not both or neither",
  });
export type NamedPose = z.infer<typeof NamedPose>;

/**
 * How what the planner says becomes what the robot takes. The skill's `parameters` are the planner's words (a
 * navigation point's name); `message` is the goal the robot's action takes (as rosapi describes it); `template` is
 * that goal with the planner's words put in:
 *   - `{ "$arg": "name" }` is the argument's value as it is,
 *   - `{ "$pose": "name" }` is the pose the argument names, from `poses`, as a `geometry_msgs/PoseStamped`,
 *   - anything else is a constant (`"frame_id": "map"`).
 * The filled goal is checked against `message` before it is sent.
 */
export const GoalTemplate = z.strictObject({
  message: ArgumentSchema,
  template: z.record(z.string(), z.unknown()),
  poses: z.record(z.string(), NamedPose).default({}),
});
export type GoalTemplate = z.infer<typeof GoalTemplate>;

/** A copy in which every object takes no field it does not name (a ROS message has no other fields). */
function closed(f: FieldSchema): FieldSchema {
  const out: FieldSchema = { ...f };
  if (f.properties) out.properties = Object.fromEntries(Object.entries(f.properties).map(([k, p]) => [k, closed(p)]));
  if (f.type === "object") out.additionalProperties = false;
  if (f.items) out.items = closed(f.items);
  if (f.prefixItems) out.prefixItems = f.prefixItems.map(closed);
  if (f.oneOf) out.oneOf = f.oneOf.map(closed);
  return out;
}

const validators = new WeakMap<object, z.ZodType<Record<string, unknown>>>();

/** The zod validator of a skill's arguments, built once per schema from its JSON schema by zod itself. */
export function argumentsValidator(params: ArgumentSchema): z.ZodType<Record<string, unknown>> {
  let v = validators.get(params);
  if (!v) {
    v = z.fromJSONSchema(
      closed({ ...params, required: params.required ?? [] }) as Parameters<typeof z.fromJSONSchema>[0],
    ) as z.ZodType<Record<string, unknown>>;
    validators.set(params, v);
  }
  return v;
}

/** Every value an enum anywhere in these fields allows (nested objects, items and shapes included). */
export function enumValues(f: FieldSchema | ArgumentSchema): string[] {
  const own = "enum" in f && f.enum ? f.enum.map(String) : [];
  const nested = [
    ...Object.values(f.properties ?? {}),
    ...("items" in f && f.items ? [f.items] : []),
    ...("prefixItems" in f ? (f.prefixItems ?? []) : []),
    ...("oneOf" in f ? (f.oneOf ?? []) : []),
  ];
  return [...own, ...nested.flatMap(enumValues)];
}

type Placeholder = { $arg: string } | { $pose: string };
const placeholder = (v: unknown): Placeholder | undefined => {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 &&
    (keys[0] === "$arg" || keys[0] === "$pose") &&
    typeof (v as Record<string, unknown>)[keys[0]] === "string"
    ? (v as Placeholder)
    : undefined;
};

/** Every placeholder of a template, where it stands. */
function placeholders(v: unknown, at: string[] = []): { at: string[]; p: Placeholder }[] {
  const p = placeholder(v);
  if (p) return [{ at, p }];
  if (Array.isArray(v)) return v.flatMap((x, i) => placeholders(x, [...at, String(i)]));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => placeholders(x, [...at, k]));
  return [];
}

/** A named pose as a `geometry_msgs/PoseStamped` (stamp and seq left to their ROS defaults: "latest", numbered by ROS). */
export function poseStamped(p: NamedPose): {
  header: { frame_id: string };
  pose: { position: { x: number; y: number; z: number }; orientation: { x: number; y: number; z: number; w: number } };
} {
  const orientation = p.orientation ?? { x: 0, y: 0, z: Math.sin(p.yaw! / 2), w: Math.cos(p.yaw! / 2) };
  return {
    header: { frame_id: p.frame_id },
    pose: { position: { x: p.position.x, y: p.position.y, z: p.position.z ?? 0 }, orientation },
  };
}

export class GoalTemplateError extends Error {
  override name = "GoalTemplateError";
  constructor(readonly issues: string[]) {
    super(issues.join("; "));
  }
}

/** The template with the planner's arguments put in (not yet checked against the message). */
function fill(goal: GoalTemplate, args: Record<string, unknown>): unknown {
  const walk = (v: unknown): unknown => {
    const p = placeholder(v);
    if (p && "$arg" in p) return args[p.$arg];
    if (p && "$pose" in p) {
      const name = String(args[p.$pose]);
      const pose = goal.poses[name];
      if (!pose)
        throw new GoalTemplateError([
          `${p.$pose}: no pose named ${JSON.stringify(name)}; the manifest's poses are ${Object.keys(goal.poses).join(", ") || "none yet (measure them into goal.poses)"}`,
        ]);
      return poseStamped(pose);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(goal.template);
}

const issuesOf = (e: z.ZodError) => e.issues.map((i) => `${i.path.join(".") || "(goal)"}: ${i.message}`);

/**
 * The goal a robot's action takes, from the planner's (already valid) arguments: the template filled and checked
 * against the message. Throws GoalTemplateError naming each field that does not fit.
 */
export function goalFromTemplate(goal: GoalTemplate, args: Record<string, unknown>): Record<string, unknown> {
  const p = argumentsValidator(goal.message).safeParse(fill(goal, args));
  if (!p.success) throw new GoalTemplateError(issuesOf(p.error));
  return p.data;
}

/**
 * What is wrong with a skill's goal template, before any goal is sent: a placeholder naming no argument, a pose
 * argument that is no text, a value the planner may choose with no pose measured for it, a pose whose goal does not
 * fit the message.
 */
export function templateIssues(
  parameters: ArgumentSchema,
  goal: GoalTemplate,
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const found = placeholders(goal.template);
  for (const { at, p } of found) {
    const name = "$arg" in p ? p.$arg : p.$pose;
    const param = parameters.properties[name];
    if (!param)
      out.push({
        path: ["goal", "template", ...at],
        message: `${name} is no argument of this skill (it has ${Object.keys(parameters.properties).join(", ") || "none"})`,
      });
    else if ("$pose" in p && param.type !== "string")
      out.push({ path: ["parameters", "properties", name], message: `${name} names a pose, so it is a string` });
    else if ("$pose" in p)
      for (const v of param.enum ?? [])
        if (!goal.poses[String(v)])
          out.push({ path: ["parameters", "properties", name, "enum"], message: `${v} has no pose in goal.poses` });
  }
  // Each measured pose, filled in where the template takes one argument only, must make a goal the message takes.
  const poseArgs = [...new Set(found.map(({ p }) => ("$pose" in p ? p.$pose : undefined)))];
  if (out.length === 0 && found.length > 0 && found.every(({ p }) => "$pose" in p) && poseArgs.length === 1) {
    for (const name of Object.keys(goal.poses)) {
      const p = argumentsValidator(goal.message).safeParse(fill(goal, { [poseArgs[0]!]: name }));
      if (!p.success)
        out.push({
          path: ["goal", "poses", name],
          message: `its goal does not fit the message: ${issuesOf(p.error).join("; ")}`,
        });
    }
  }
  return out;
}

/** The argument of a template whose values are pose names (`navigation_point`), if it has one. */
export function poseArgument(goal: GoalTemplate): string | undefined {
  const p = placeholders(goal.template).find(({ p }) => "$pose" in p)?.p;
  return p && "$pose" in p ? p.$pose : undefined;
}
