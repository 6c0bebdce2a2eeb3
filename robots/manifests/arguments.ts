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

/** The subset's own validator; the manifest file's JSON Schema (./jsonSchema.ts) describes an argument field with it. */
export const FieldShape: z.ZodType<FieldSchema> = z.lazy(() =>
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
    .superRefine((field, ctx) => {
      if (!field.type && !field.oneOf && field.const === undefined)
        ctx.addIssue({ code: "custom", message: "a field needs a type (or oneOf, or const)" });
      if (field.type === "object") {
        for (const k of field.required ?? [])
          if (!field.properties?.[k])
            ctx.addIssue({
              code: "custom",
              path: ["required"],
              message: `${k} is required but not among the properties`,
            });
      } else if (field.properties || field.required)
        ctx.addIssue({
          code: "custom",
          path: ["properties"],
          message: `properties and required belong to an object, not to a ${field.type ?? "oneOf"}`,
        });
      if (field.type !== "array" && (field.items !== undefined || field.prefixItems))
        ctx.addIssue({
          code: "custom",
          path: ["items"],
          message: `items belong to an array, not to a ${field.type ?? "oneOf"}`,
        });
    }),
) as z.ZodType<FieldSchema>;

/** A field checked against the subset and kept as written (key order too: it is what a model reads). */
export const FieldSchema = z.unknown().superRefine((value, ctx) => {
  const parsed = FieldShape.safeParse(value);
  if (!parsed.success)
    for (const i of parsed.error.issues) ctx.addIssue({ code: "custom", path: i.path, message: i.message });
}) as unknown as z.ZodType<FieldSchema>;

/** A skill's arguments: an object of fields (any of them nested objects, arrays of objects, unions of shapes). */
export const ArgumentSchema = z
  .object({
    type: z.literal("object"),
    properties: z.record(z.string(), FieldSchema),
    required: z.array(z.string()).default([]),
    additionalProperties: z.literal(false).default(false),
  })
  .superRefine((schema, ctx) => {
    for (const k of schema.required)
      if (!schema.properties[k])
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
function closed(field: FieldSchema): FieldSchema {
  const out: FieldSchema = { ...field };
  if (field.properties)
    out.properties = Object.fromEntries(Object.entries(field.properties).map(([k, p]) => [k, closed(p)]));
  if (field.type === "object") out.additionalProperties = false;
  if (field.items) out.items = closed(field.items);
  if (field.prefixItems) out.prefixItems = field.prefixItems.map(closed);
  if (field.oneOf) out.oneOf = field.oneOf.map(closed);
  return out;
}

const validators = new WeakMap<object, z.ZodType<Record<string, unknown>>>();

/** The zod validator of a skill's arguments, built once per schema from its JSON schema by zod itself. */
export function argumentsValidator(params: ArgumentSchema): z.ZodType<Record<string, unknown>> {
  let validator = validators.get(params);
  if (!validator) {
    validator = z.fromJSONSchema(
      closed({ ...params, required: params.required ?? [] }) as Parameters<typeof z.fromJSONSchema>[0],
    ) as z.ZodType<Record<string, unknown>>;
    validators.set(params, validator);
  }
  return validator;
}

/** Every value an enum anywhere in these fields allows (nested objects, items and shapes included). */
export function enumValues(field: FieldSchema | ArgumentSchema): string[] {
  const own = "enum" in field && field.enum ? field.enum.map(String) : [];
  const nested = [
    ...Object.values(field.properties ?? {}),
    ...("items" in field && field.items ? [field.items] : []),
    ...("prefixItems" in field ? (field.prefixItems ?? []) : []),
    ...("oneOf" in field ? (field.oneOf ?? []) : []),
  ];
  return [...own, ...nested.flatMap(enumValues)];
}

type Placeholder = { $arg: string } | { $pose: string };
const placeholder = (value: unknown): Placeholder | undefined => {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 &&
    (keys[0] === "$arg" || keys[0] === "$pose") &&
    typeof (value as Record<string, unknown>)[keys[0]] === "string"
    ? (value as Placeholder)
    : undefined;
};

/** Every placeholder of a template, where it stands. */
function placeholders(value: unknown, at: string[] = []): { at: string[]; p: Placeholder }[] {
  const found = placeholder(value);
  if (found) return [{ at, p: found }];
  if (Array.isArray(value)) return value.flatMap((x, i) => placeholders(x, [...at, String(i)]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, x]) => placeholders(x, [...at, k]));
  return [];
}

/** A named pose as a `geometry_msgs/PoseStamped` (stamp and seq left to their ROS defaults: "latest", numbered by ROS). */
export function poseStamped(pose: NamedPose): {
  header: { frame_id: string };
  pose: { position: { x: number; y: number; z: number }; orientation: { x: number; y: number; z: number; w: number } };
} {
  const orientation = pose.orientation ?? { x: 0, y: 0, z: Math.sin(pose.yaw! / 2), w: Math.cos(pose.yaw! / 2) };
  return {
    header: { frame_id: pose.frame_id },
    pose: { position: { x: pose.position.x, y: pose.position.y, z: pose.position.z ?? 0 }, orientation },
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
  const walk = (value: unknown): unknown => {
    const found = placeholder(value);
    if (found && "$arg" in found) return args[found.$arg];
    if (found && "$pose" in found) {
      const name = String(args[found.$pose]);
      const pose = goal.poses[name];
      if (!pose)
        throw new GoalTemplateError([
          `${found.$pose}: no pose named ${JSON.stringify(name)}; the manifest's poses are ${Object.keys(goal.poses).join(", ") || "none yet (measure them into goal.poses)"}`,
        ]);
      return poseStamped(pose);
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, walk(x)]));
    return value;
  };
  return walk(goal.template);
}

const issuesOf = (e: z.ZodError) => e.issues.map((i) => `${i.path.join(".") || "(goal)"}: ${i.message}`);

/**
 * The goal a robot's action takes, from the planner's (already valid) arguments: the template filled and checked
 * against the message. Throws GoalTemplateError naming each field that does not fit.
 */
export function goalFromTemplate(goal: GoalTemplate, args: Record<string, unknown>): Record<string, unknown> {
  const parsed = argumentsValidator(goal.message).safeParse(fill(goal, args));
  if (!parsed.success) throw new GoalTemplateError(issuesOf(parsed.error));
  return parsed.data;
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
      const parsed = argumentsValidator(goal.message).safeParse(fill(goal, { [poseArgs[0]!]: name }));
      if (!parsed.success)
        out.push({
          path: ["goal", "poses", name],
          message: `its goal does not fit the message: ${issuesOf(parsed.error).join("; ")}`,
        });
    }
  }
  return out;
}

/** The argument of a template whose values are pose names (`navigation_point`), if it has one. */
export function poseArgument(goal: GoalTemplate): string | undefined {
  const found = placeholders(goal.template).find(({ p }) => "$pose" in p)?.p;
  return found && "$pose" in found ? found.$pose : undefined;
}
