/**
 * `robograph connect ws://HOST:PORT [--out FILE]` — the first thing a robot owner runs: it asks rosapi what the robot
 * offers (topics, services, action servers, with their types), expands the types into JSON Schemas all the way down
 * (rosapi's message and service details), proposes a manifest draft (a camera per robot from its image, depth and
 * CameraInfo topics, with the size of its first frame; skills from action servers and services; a goal that is one
 * PoseStamped as named poses for a person to measure), validates it with `RobotManifest`, and says what a person must
 * still write.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BridgeClient } from "../robots/bridge/client";
import {
  RobotManifest,
  type ArgumentSchema,
  type FieldSchema,
  type GoalTemplate,
  type SkillSpec,
} from "../robots/manifests/schema";
import { imageSize, type CameraInfo, type ImageMessage } from "../robots/msgs/images";
import { learnDialect } from "../tools/skills";

export const CONNECT_HELP = `usage: robograph connect ws://HOST:PORT [--out FILE] [--token T]      (npm run connect -- URL …)

Lists through rosapi what the robot behind a rosbridge offers (topics, services, action servers and their types),
expands the types into JSON Schemas (nested messages as objects, all the way down), and proposes a manifest draft:
one robot per namespace (/mobile/go_to → robot mobile, skill go_to), a camera from its image topics (raw Image or
CompressedImage, depth, CameraInfo; its size from the first frame), skills from its action servers (ROS 1 actionlib
or ROS 2 actions) and its own services; an action whose goal is one PoseStamped (move_base) takes a named pose, from
a table of poses a person measures. The draft is validated with RobotManifest and written to FILE (default:
printed); what a person must still write (descriptions, poses, preconditions, effects, approvals) is listed at the end.

options:
  --out FILE       write the draft there ({ "robots": [...] }, one manifest per robot)
  --token T        the bridge's token (also ROBOGRAPH_BRIDGE_TOKEN)
  --timeout-ms N   time limit of each rosapi call (default 5000)
`;

interface TypeDef {
  type: string;
  fieldnames: string[];
  fieldtypes: string[];
  fieldarraylen: number[];
}

/** Names ROS and rosbridge serve for themselves, not skills of the robot. */
const SYSTEM = [
  /^\/rosapi\//,
  /^\/rosout/,
  /\/get_loggers$/,
  /\/set_logger_level$/,
  /^\/robograph\//,
  /^\/evaluator\//,
  /^\/rosbridge_websocket\//,
  /^\/rosapi_node\//,
];
const IMAGE_TYPES = /^sensor_msgs\/(msg\/)?(CompressedImage|Image)$/;
const TO_WRITE = "(to write)";

/** ROS's plain field types as JSON: integers with the bounds of their width (a field that overflows is refused, named). */
const PRIMITIVE: Record<string, FieldSchema> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  float32: { type: "number" },
  float64: { type: "number" },
  int8: { type: "integer", minimum: -128, maximum: 127 },
  int16: { type: "integer", minimum: -32768, maximum: 32767 },
  int32: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  int64: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  uint8: { type: "integer", minimum: 0, maximum: 255 },
  uint16: { type: "integer", minimum: 0, maximum: 65535 },
  uint32: { type: "integer", minimum: 0, maximum: 4294967295 },
  uint64: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  byte: { type: "integer", minimum: 0, maximum: 255 },
  char: { type: "integer", minimum: 0, maximum: 255 },
  // ROS 1's time and duration, as rosbridge writes them.
  time: {
    type: "object",
    description: "a time (secs, nsecs since the epoch); left out: zero",
    properties: {
      secs: { type: "integer", minimum: 0, maximum: 4294967295 },
      nsecs: { type: "integer", minimum: 0, maximum: 999999999 },
    },
    required: ["secs", "nsecs"],
    additionalProperties: false,
  },
  duration: {
    type: "object",
    description: "a duration (secs, nsecs); left out: zero",
    properties: {
      secs: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
      nsecs: { type: "integer", minimum: -999999999, maximum: 999999999 },
    },
    required: ["secs", "nsecs"],
    additionalProperties: false,
  },
};

/** Byte arrays travel through rosbridge as base64 text. */
const BYTES = new Set(["uint8", "char", "byte"]);

/**
 * Fields a caller may leave out, taking ROS's default: stamps and durations (zero — for a goal's header "now" or
 * "the latest transform") and a header's sequence number (ROS numbers it). Every other field of a goal is required:
 * a move_base goal without its frame or its orientation's w is a mistake to catch before it reaches the robot.
 */
const mayOmit = (owner: string, field: string, type: string) =>
  type === "time" ||
  type === "duration" ||
  /^builtin_interfaces\/(msg\/)?(Time|Duration)$/.test(type) ||
  (/^std_msgs\/(msg\/)?Header$/.test(owner) && field === "seq");

/**
 * A goal or request message as a skill's argument schema, expanded from rosapi's typedefs all the way down: a nested
 * message is an object of its fields, `T[]` an array, `T[n]` an array of n, `uint8[]` base64 text. What rosapi does
 * not define is named in `unsupported` for a person to decide.
 */
export function argumentSchemaOf(type: string, typedefs: TypeDef[]): { schema: ArgumentSchema; unsupported: string[] } {
  const unsupported: string[] = [];
  const message = (typeName: string, path: string, depth: number): FieldSchema | undefined => {
    const def = typedefs.find((d) => d.type === typeName);
    if (!def || depth > 16) {
      unsupported.push(`${path ? `${path} (${typeName})` : typeName}: rosapi gave no definition`);
      return undefined;
    }
    const properties: Record<string, FieldSchema> = {};
    const required: string[] = [];
    def.fieldnames.forEach((name, i) => {
      const ft = def.fieldtypes[i];
      const len = def.fieldarraylen[i];
      const at = path ? `${path}.${name}` : name;
      let field: FieldSchema | undefined;
      if (len >= 0 && BYTES.has(ft))
        field = { type: "string", description: `bytes (${ft}[${len > 0 ? len : ""}]), base64` };
      else {
        const one = PRIMITIVE[ft] ?? message(ft, at, depth + 1);
        if (one && len >= 0)
          field = { type: "array", items: one, ...(len > 0 ? { minItems: len, maxItems: len } : {}) };
        else field = one;
      }
      if (!field) return;
      properties[name] = field;
      if (!mayOmit(def.type, name, ft)) required.push(name);
    });
    return { type: "object", properties, required, additionalProperties: false };
  };
  const top = message(type, "", 0);
  const schema: ArgumentSchema = {
    type: "object",
    properties: top?.properties ?? {},
    required: top?.required ?? [],
    additionalProperties: false,
  };
  return { schema, unsupported };
}

const POSE_STAMPED = /^geometry_msgs\/(msg\/)?PoseStamped$/;

/** The planner-level argument a pose template takes. */
export const POSE_ARGUMENT = "navigation_point";

/**
 * A goal that is one `PoseStamped` (move_base's): the planner names a pose, a table a person measures turns the name
 * into the goal. Undefined for any other goal.
 */
export function poseTemplateOf(
  goalType: string,
  typedefs: TypeDef[],
  message: ArgumentSchema,
): { parameters: ArgumentSchema; goal: GoalTemplate } | undefined {
  const def = typedefs.find((d) => d.type === goalType);
  if (!def || def.fieldnames.length !== 1 || !POSE_STAMPED.test(def.fieldtypes[0]) || def.fieldarraylen[0] >= 0)
    return undefined;
  return {
    parameters: {
      type: "object",
      properties: { [POSE_ARGUMENT]: { type: "string", description: "where to go: a pose named in goal.poses" } },
      required: [POSE_ARGUMENT],
      additionalProperties: false,
    },
    goal: { message, template: { [def.fieldnames[0]]: { $pose: POSE_ARGUMENT } }, poses: {} },
  };
}

/** `/mobile/go_to` → robot `mobile`, skill `go_to`; names that are no manifest names are made into ones. */
function split(name: string): { robot: string; skill: string } {
  const parts = name.split("/").filter(Boolean);
  const clean = (part: string) =>
    part
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "_")
      .replace(/^[^a-z]+/, "") || "robot";
  return {
    robot: clean(parts.length > 1 ? parts[0] : "robot"),
    skill: clean(parts.slice(parts.length > 1 ? 1 : 0).join("_")),
  };
}

export interface ConnectReport {
  topics: { name: string; type: string }[];
  services: { name: string; type: string }[];
  actions: { name: string; type: string }[];
  robots: RobotManifest[];
  toWrite: string[];
}

/** Everything `connect` finds and proposes, from a client connected to the bridge. */
export async function proposeManifests(client: BridgeClient, timeoutMs = 5000): Promise<ConnectReport> {
  const call = <T>(service: string, args: unknown = {}) => client.callService<T>(service, args, { timeoutMs });
  const { topics: names, types } = await call<{ topics: string[]; types: string[] }>("/rosapi/topics");
  const topics = names.map((name, i) => ({ name, type: types[i] }));
  const { services: serviceNames } = await call<{ services: string[] }>("/rosapi/services");
  const services = await Promise.all(
    serviceNames.map(async (name) => ({
      name,
      type: (await call<{ type: string }>("/rosapi/service_type", { service: name })).type,
    })),
  );
  // ROS 1's rosapi lists an action server once per node that touches it: once is enough.
  const actionNames = [
    ...new Set((await call<{ action_servers: string[] }>("/rosapi/action_servers")).action_servers),
  ].sort();
  const typeOf = (topic: string) => topics.find((t) => t.name === topic)?.type ?? "";
  const actions = actionNames.map((name) => {
    // ROS 1: the goal topic's type is <pkg>/<Name>ActionGoal; ROS 2 bridges (ours) name no goal topic.
    const goal = typeOf(`${name}/goal`);
    return { name, type: goal.replace(/ActionGoal$/, ""), ros1: !!goal };
  });
  const toWrite: string[] = [];
  const details = async (type: string, service: boolean): Promise<TypeDef[]> => {
    try {
      return (
        await call<{ typedefs: TypeDef[] }>(service ? "/rosapi/service_request_details" : "/rosapi/message_details", {
          type,
        })
      ).typedefs;
    } catch {
      return [];
    }
  };

  const byRobot = new Map<string, { skills: SkillSpec[]; cameras: RobotManifest["cameras"] }>();
  const robot = (id: string) => {
    let entry = byRobot.get(id);
    if (!entry) byRobot.set(id, (entry = { skills: [], cameras: [] }));
    return entry;
  };
  const skill = (
    name: string,
    actionType: string,
    transport: SkillSpec["transport"],
    parameters: ArgumentSchema,
  ): SkillSpec => ({
    name,
    action: `/${name}`,
    actionType,
    transport,
    description: TO_WRITE,
    parameters,
    preconditions: [],
    effects: [],
    timeoutSec: 60,
    requiresApproval: false,
  });
  for (const a of actions) {
    if (SYSTEM.some((re) => re.test(a.name))) continue;
    const { robot: id, skill: name } = split(a.name);
    if (!a.ros1) {
      robot(id).skills.push({
        ...skill(name, TO_WRITE, "action", {
          type: "object",
          properties: {},
          required: [],
          additionalProperties: false,
        }),
        action: a.name,
      });
      toWrite.push(`${id}.${name}: its goal's type and arguments (a ROS 2 action: rosapi names no goal topic)`);
      continue;
    }
    const goalType = `${a.type}Goal`;
    const typedefs = await details(goalType, false);
    const { schema, unsupported } = argumentSchemaOf(goalType, typedefs);
    for (const u of unsupported) toWrite.push(`${id}.${name}: argument ${u}`);
    const poses = unsupported.length ? undefined : poseTemplateOf(goalType, typedefs, schema);
    robot(id).skills.push({
      ...skill(name, a.type, "actionlib", poses?.parameters ?? schema),
      ...(poses ? { goal: poses.goal } : {}),
      action: a.name,
    });
    if (poses) {
      toWrite.push(
        `${id}.${name}: its goal is one PoseStamped, so the draft lets the planner name where to go (${POSE_ARGUMENT}) and fills the pose from goal.poses: measure each place it may go to (e.g. drive there and read \`rostopic echo -n1 /amcl_pose\`) as { "frame_id": "map", "position": { "x": …, "y": … }, "yaw": … }; until then it has no pose to go to. To let the model write the raw goal instead, make goal.message the parameters and drop goal`,
      );
    }
  }
  // A service that is an actionlib server's own, or the system's, is no skill.
  for (const s of services) {
    if (SYSTEM.some((re) => re.test(s.name)) || actionNames.some((a) => s.name.startsWith(`${a}/`))) continue;
    const { robot: id, skill: name } = split(s.name);
    const { schema, unsupported } = argumentSchemaOf(`${s.type}Request`, await details(s.type, true));
    robot(id).skills.push({ ...skill(name, s.type, "service", schema), action: s.name });
    for (const u of unsupported) toWrite.push(`${id}.${name}: argument ${u}`);
  }
  // Cameras: topics named under a robot with skills are its own; with one such robot, a camera outside any (as
  // /camera/image_raw beside /move_base) is that robot's.
  const withSkills = [...byRobot].filter(([, r]) => r.skills.length).map(([id]) => id);
  const ownerOf = (topic: string) => {
    const { robot: id } = split(topic);
    return byRobot.get(id)?.skills.length || withSkills.length !== 1 ? id : withSkills[0];
  };
  const imageTopics = topics.filter((t) => IMAGE_TYPES.test(t.type));
  const infoTopics = topics.filter((t) => /^sensor_msgs\/(msg\/)?CameraInfo$/.test(t.type));
  for (const id of new Set(imageTopics.map((t) => ownerOf(t.name)))) {
    const mine = imageTopics.filter((t) => ownerOf(t.name) === id).sort((a, b) => a.name.localeCompare(b.name));
    const isDepth = (t: { name: string }) => /depth/i.test(t.name);
    const compressed = (t: { type: string }) => /CompressedImage$/.test(t.type);
    // Colour: a compressed stream where there is one (a raw 640x480 frame is 1.2 MB as JSON); depth: raw, exact.
    const colour = mine.filter((t) => !isDepth(t)).sort((a, b) => Number(compressed(b)) - Number(compressed(a)))[0];
    const depth = mine.filter(isDepth).sort((a, b) => Number(compressed(a)) - Number(compressed(b)))[0];
    if (!colour) continue;
    const near = (t: string) => colour.name.split("/").filter((p, i) => t.split("/")[i] === p).length;
    const info = infoTopics
      .filter((t) => ownerOf(t.name) === id && !isDepth(t))
      .sort((a, b) => near(b.name) - near(a.name))[0];
    let size: { width: number; height: number } | undefined;
    try {
      size = imageSize(await client.nextMessage<ImageMessage>(colour.name, colour.type, timeoutMs));
    } catch {
      // No frame in time: the camera info below may still say the size.
    }
    if (!size && info) {
      try {
        const infoMessage = await client.nextMessage<CameraInfo>(info.name, info.type, timeoutMs);
        if (infoMessage.width > 0 && infoMessage.height > 0)
          size = { width: infoMessage.width, height: infoMessage.height };
      } catch {
        // No camera info either: the size goes on the list of things to write by hand.
      }
    }
    if (!size)
      toWrite.push(
        `${id}: the camera's width and height (no frame came on ${colour.name}${info ? ` nor on ${info.name}` : ""})`,
      );
    const typeOfTopic = (topic: { type: string }) =>
      (compressed(topic) ? "sensor_msgs/msg/CompressedImage" : "sensor_msgs/msg/Image") as "sensor_msgs/msg/Image";
    robot(id).cameras.push({
      name: "camera",
      image: colour.name,
      imageType: typeOfTopic(colour),
      ...(depth ? { depth: depth.name, depthType: typeOfTopic(depth) } : {}),
      ...(info ? { info: info.name } : {}),
      width: size?.width ?? 640,
      height: size?.height ?? 480,
    });
    const unused = mine.filter((t) => t !== colour && t !== depth).map((t) => t.name);
    if (unused.length)
      toWrite.push(
        `${id}: other image topics, not used (a manifest camera is one colour stream, its depth and CameraInfo): ${unused.join(", ")}`,
      );
  }
  for (const [id, r] of byRobot) {
    const det = topics.find((t) => t.name.startsWith(`/${id}/`) && /Detections$/.test(t.type));
    if (det && r.cameras[0]) r.cameras[0].detections = det.name;
    else if (r.cameras[0] && r.skills.length)
      toWrite.push(
        `${id}: no detections topic: a VLM reads its images; the offline reasoner, which reads only detections, cannot run it`,
      );
  }

  const robots: RobotManifest[] = [];
  for (const [id, r] of byRobot) {
    if (!r.skills.length) continue;
    const draft = {
      id,
      kind: TO_WRITE,
      description: TO_WRITE,
      cameras: r.cameras,
      facts: [],
      skills: r.skills.sort((a, b) => a.name.localeCompare(b.name)),
    };
    const parsed = RobotManifest.safeParse(draft);
    if (!parsed.success)
      throw new Error(
        `the draft for ${id} is not a valid manifest: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    robots.push(parsed.data);
    toWrite.push(
      `${id}: kind, description; per skill a description for the model, the values each text argument may take (enum: ROS types have none), preconditions and effects, timeoutSec, requiresApproval; facts and names if the planner needs them`,
    );
  }
  return { topics, services, actions: actions.map(({ name, type }) => ({ name, type })), robots, toWrite };
}

/** A message's fields as dotted paths (`target_pose.pose.position.x`), for a person to read. */
export function fieldList(schema: FieldSchema | ArgumentSchema, at = ""): string[] {
  const props = Object.entries(schema.properties ?? {});
  if (!props.length) return at ? [at] : [];
  return props.flatMap(([k, p]) => fieldList(p, at ? `${at}.${k}` : k));
}

export async function connectCommand(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      token: { type: "string" },
      "timeout-ms": { type: "string", default: "5000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help || !positionals[0]) {
    process.stdout.write(CONNECT_HELP);
    return flags.help ? 0 : 2;
  }
  const url = positionals[0];
  const timeoutMs = Number(flags["timeout-ms"]);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new Error(`--timeout-ms must be a positive number, got ${flags["timeout-ms"]}`);
  const client = await BridgeClient.connect(url, {
    token: flags.token ?? process.env.ROBOGRAPH_BRIDGE_TOKEN,
    connectAttempts: 3,
  });
  try {
    await learnDialect(client, timeoutMs);
    const proposal = await proposeManifests(client, timeoutMs);
    const say = (s: string) => process.stdout.write(`${s}\n`);
    say(
      `${url}: ${proposal.topics.length} topics, ${proposal.services.length} services, ${proposal.actions.length} action servers (${client.dialect === "ros1" ? "ROS 1" : "ROS 2 / rosbridge v2"})`,
    );
    for (const m of proposal.robots) {
      say(
        `\nrobot ${m.id}: ${m.cameras.map((c) => `camera ${c.image}${c.depth ? ` + ${c.depth}` : ""}${c.info ? ` + ${c.info}` : ""}${c.detections ? ` + ${c.detections}` : ""} (${c.width}x${c.height})`).join("; ") || "no camera"}`,
      );
      for (const s of m.skills) {
        say(
          `  ${s.name}(${Object.entries(s.parameters.properties)
            .map(([k, p]) => `${k}: ${p.type}`)
            .join(", ")})  ${s.transport} ${s.action} [${s.actionType}]`,
        );
        if (s.goal) say(`    goal ${JSON.stringify(s.goal.template)} → ${fieldList(s.goal.message).join(", ")}`);
      }
    }
    const text = `${JSON.stringify({ robots: proposal.robots }, null, 2)}\n`;
    if (flags.out) {
      writeFileSync(flags.out, text);
      say(`\nmanifest draft (valid RobotManifest): ${flags.out}`);
    } else say(`\n${text}`);
    say(`\nstill to write by a person:\n${[...new Set(proposal.toWrite)].map((t) => `  - ${t}`).join("\n")}`);
    return proposal.robots.length ? 0 : 1;
  } finally {
    await client.close();
  }
}
