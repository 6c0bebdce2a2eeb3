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
import { ArgumentSchema, enumValues, GoalTemplate, poseArgument, templateIssues } from "./arguments";

export * from "./arguments";

const LITERAL = /^(not\s+)?([a-z_][a-z0-9_]*)\(\s*([^()]*?)\s*\)$/;

export interface Literal {
  negated: boolean;
  pred: string;
  args: string[];
}

export function parseLiteral(text: string): Literal {
  const match = LITERAL.exec(text.trim());
  if (!match) throw new Error(`not a literal: ${JSON.stringify(text)} (expected pred(a, b) or not pred(a, b))`);
  const args = match[3] === "" ? [] : match[3].split(",").map((a) => a.trim());
  if (args.some((a) => !/^(\?[a-z_][a-z0-9_]*|_|[A-Za-z_][A-Za-z0-9_]*)$/.test(a))) {
    throw new Error(`bad argument in literal ${JSON.stringify(text)}`);
  }
  return { negated: !!match[1], pred: match[2], args };
}

export const LiteralText = z.string().superRefine((text, ctx) => {
  try {
    parseLiteral(text);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

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

export const SkillSpec = z
  .object({
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
    /** What the caller (a model, an MCP client) gives: the goal itself, or the planner's words when `goal` is set. */
    parameters: ArgumentSchema,
    /** How the planner's words become the goal the robot takes (a named pose → a PoseStamped); absent: the arguments are the goal. */
    goal: GoalTemplate.optional(),
    preconditions: z.array(LiteralText).default([]),
    effects: z.array(LiteralText).default([]),
    timeoutSec: z.number().positive().default(60),
    requiresApproval: z.boolean().default(false),
  })
  .superRefine((skill, ctx) => {
    if (skill.goal)
      for (const i of templateIssues(skill.parameters, skill.goal)) ctx.addIssue({ code: "custom", ...i });
  })
  .transform((skill) => {
    // A pose argument written without its values takes the names of the poses measured: the model chooses among them.
    const name = skill.goal && poseArgument(skill.goal);
    const argument = name ? skill.parameters.properties[name] : undefined;
    if (!name || !argument || argument.enum || !Object.keys(skill.goal!.poses).length) return skill;
    return {
      ...skill,
      parameters: {
        ...skill.parameters,
        properties: { ...skill.parameters.properties, [name]: { ...argument, enum: Object.keys(skill.goal!.poses) } },
      },
    };
  });
export type SkillSpec = z.infer<typeof SkillSpec>;

const IMAGE_TYPES = ["sensor_msgs/msg/CompressedImage", "sensor_msgs/msg/Image"] as const;
/**
 * An image topic's type, written either way (`sensor_msgs/Image` as ROS 1 says, `sensor_msgs/msg/Image` as ROS 2), read
 * as ROS 2 writes it. Every spelling is listed so the file's JSON Schema (its input side) takes both too.
 */
const ImageType = z
  .enum([...IMAGE_TYPES, "sensor_msgs/CompressedImage", "sensor_msgs/Image"])
  .transform((t) => t.replace(/^sensor_msgs\/(msg\/)?/, "sensor_msgs/msg/") as (typeof IMAGE_TYPES)[number]);

/**
 * A camera as the robot publishes it: colour frames as `CompressedImage` (JPEG or PNG; the default) or raw `Image`
 * (rgb8, bgr8, rgba8, bgra8, mono8), depth as raw 16UC1 (mm) / 32FC1 (m) or a 16-bit PNG, `CameraInfo` for the
 * intrinsics depth is back-projected with. A detections topic is ours and optional: a VLM reads the image itself.
 */
export const CameraSpec = z.object({
  name: z.string(),
  image: z.string().describe("colour image topic"),
  imageType: ImageType.optional().describe("its message type (default sensor_msgs/msg/CompressedImage)"),
  depth: z.string().optional().describe("depth image topic (millimetres in 16 bits, or metres in 32-bit floats)"),
  depthType: ImageType.optional().describe("its message type (default sensor_msgs/msg/CompressedImage: a 16-bit PNG)"),
  info: z.string().optional().describe("sensor_msgs/msg/CameraInfo topic: the intrinsics depth is back-projected with"),
  detections: z.string().optional().describe("robograph_msgs/msg/Detections topic"),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  latched: z
    .boolean()
    .optional()
    .describe(
      "true when the camera publishes a frame only when its view changes (a latched topic, as our simulators do): its quiet is no sign of trouble while its robot lives",
    ),
  staleSec: z
    .number()
    .positive()
    .optional()
    .describe(
      "how long a camera that publishes at a rate may go quiet, its robot alive, before its last frame is reported stale (default 5)",
    ),
});

export const RobotManifest = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/),
    kind: z.string().min(1),
    description: z.string().min(1),
    cameras: z.array(CameraSpec).default([]),
    /** Static facts about this robot (what it reaches, which navigation point serves which place), in literal form. */
    facts: z.array(LiteralText).default([]),
    skills: z.array(SkillSpec).min(1),
    /** Words for the names its skills' arguments take (an object, a place, a navigation point): only names it uses. */
    names: z.record(z.string(), Naming).optional(),
    livenessSec: z
      .number()
      .positive()
      .optional()
      .describe(
        "how long the robot may give no sign of life (its actionlib actions' status, the bridge's socket) before it is taken for lost (default 2): a running skill ends robot_lost and the run pauses, resumable",
      ),
  })
  .superRefine((manifest, ctx) => {
    const used = new Set(manifest.skills.flatMap((s) => enumValues(s.parameters)));
    for (const key of Object.keys(manifest.names ?? {})) {
      if (!used.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["names", key],
          message: `${key} is no argument value of any skill of ${manifest.id}`,
        });
    }
  });
export type RobotManifest = z.infer<typeof RobotManifest>;

/** What a world tells any client about itself: the vocabulary a detector and a planner share. Never hidden state. */
export const WorldDescription = z
  .object({
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
    joints: z
      .array(z.object({ name: z.string(), object: z.string(), handle: z.string(), description: z.string() }))
      .optional(),
    /** Named target points a motion may aim for (e.g. a shelf spot inside a cabinet), and the place each is in. */
    targets: z.array(z.object({ name: z.string(), place: z.string() })).optional(),
    /** Display names and other wordings of its labels, places, navigation points, joints, handles and targets. */
    names: z.record(z.string(), Naming).optional(),
  })
  .superRefine((world, ctx) => {
    const known = new Set([
      ...world.labels,
      ...world.places.map((p) => p.name),
      ...world.navigationPoints,
      ...(world.joints ?? []).flatMap((j) => [j.name, j.object, j.handle]),
      ...(world.targets ?? []).map((t) => t.name),
    ]);
    for (const key of Object.keys(world.names ?? {})) {
      if (!known.has(key))
        ctx.addIssue({ code: "custom", path: ["names", key], message: `${key} names nothing in world ${world.name}` });
    }
  });
export type WorldDescription = z.infer<typeof WorldDescription>;

/** The `/robograph/manifest` service response. */
export const ManifestResponse = z.object({
  robots: z.array(RobotManifest).min(1),
  world: WorldDescription.optional(),
});
export type ManifestResponse = z.infer<typeof ManifestResponse>;

/**
 * A manifest file as a person writes it (`robograph connect` drafts one): the service's response, and the JSON Schema
 * an editor validates it with while it is completed.
 */
export const ManifestFile = ManifestResponse.extend({
  $schema: z.string().optional().describe("the JSON Schema this file follows (robots/manifests/manifest.schema.json)"),
});
export type ManifestFile = z.infer<typeof ManifestFile>;

export const MANIFEST_SERVICE = "/robograph/manifest";

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

/** The fact a manifest states when its robot's gripper senses whether it holds something (force or finger width). */
export const SENSES_GRASP = "senses_grasp(self)";

/**
 * Whether a skill's result is an unsensed report of what a hand holds: the skill changes what the robot holds (its
 * effects name `holding` or `hand_empty`) and the manifest does not say the gripper senses a grasp. Such a robot's
 * "holds the cup" says only that the fingers closed there.
 */
export function reportsHoldUnsensed(robot: RobotManifest, skill: string): boolean {
  const spec = robot.skills.find((k) => k.name === skill);
  if (!spec || robot.facts.includes(SENSES_GRASP)) return false;
  return spec.effects.some((e) => /^(not )?(holding|hand_empty)\(/.test(e));
}
