/**
 * `robograph connect ws://HOST:PORT [--out FILE]` — the first thing a robot owner runs: it asks rosapi what the robot
 * offers (topics, services, action servers, with their types), expands the types into JSON Schemas all the way down
 * (rosapi's message and service details), proposes a manifest draft (a camera per robot from its image, depth and
 * CameraInfo topics, with the size of its first frame; skills from action servers and services; a goal that is one
 * PoseStamped as named poses for a person to measure), validates it with `RobotManifest`, and says what a person must
 * still write.
 */
import { writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { BridgeClient } from "../robots/bridge/client";
import { loadManifestFile } from "../robots/manifests";
import { checkAgainstRobot } from "../robots/manifests/check";
import { describeIssues } from "../robots/manifests/issues";
import { MANIFEST_JSON_SCHEMA } from "../robots/manifests/jsonSchema";
import { argumentSchemaOf, type TypeDef } from "../robots/manifests/rosTypes";
import {
  RobotManifest,
  type ArgumentSchema,
  type FieldSchema,
  type GoalTemplate,
  type SkillSpec,
} from "../robots/manifests/schema";
import { imageSize, type CameraInfo, type ImageMessage } from "../robots/msgs/images";
import { learnDialect } from "../tools/skills";

export { argumentSchemaOf };

export const CONNECT_HELP = `usage: robograph connect ws://HOST:PORT [--out FILE] [--token T]      (npm run connect -- URL …)
       robograph connect --check FILE [--bridge-url URL | URL] [--token T]

Lists through rosapi what the robot behind a rosbridge offers (topics, services, action servers and their types),
expands the types into JSON Schemas (nested messages as objects, all the way down), and proposes a manifest draft:
one robot per namespace (/mobile/go_to → robot mobile, skill go_to), a camera from its image topics (raw Image or
CompressedImage, depth, CameraInfo; its size from the first frame), skills from its action servers (ROS 1 actionlib
or ROS 2 actions) and its own services; an action whose goal is one PoseStamped (move_base) takes a named pose, from
a table of poses a person measures. The draft is validated with RobotManifest and written to FILE (default:
printed); what a person must still write (descriptions, poses, preconditions, effects, approvals) is listed at the end.
The draft names the manifest file's JSON Schema ("$schema": robots/manifests/manifest.schema.json, as a path relative
to FILE) so that an editor validates and completes it while a person writes.

--check FILE holds a manifest file (a completed draft) to the robot instead: each skill's action server or service
must be one rosapi lists (a misspelled name is refused naming the nearest real one), its type the robot's, and each
argument a field of its goal or request message with the type rosapi's typedefs give it (bool; integers within their
width; floats; strings; time and duration as secs/nsecs; arrays, fixed ones of their length; nested messages), its
defaults, enum values and goal template included. Every mismatch is printed naming robot/skill and the field; what
rosapi cannot describe is listed as not checked. Exit 0 when every skill fits, 1 when one does not. \`robograph run
--manifest FILE\` (and MCP, workers) make the same check when they load the file, and refuse it on a mismatch.

options:
  --out FILE       write the draft there ({ "robots": [...] }, one manifest per robot)
  --check FILE     check this manifest file against the robot instead of drafting one
  --bridge-url URL the rosbridge (instead of the URL argument)
  --token T        the bridge's token (also ROBOGRAPH_BRIDGE_TOKEN)
  --timeout-ms N   time limit of each rosapi call (default 5000)

A rosbridge run with authenticate:=true (rosauth) needs its 16-character secret, from the environment only:
ROBOGRAPH_ROS_SECRET, or ROBOGRAPH_ROS_SECRET_FILE naming a file whose first line it is.
`;

/** Names ROS and rosbridge serve for themselves, not skills of the robot. */
const SYSTEM = [
  /^\/rosapi\//,
  /^\/rosout/,
  /\/get_loggers$/,
  /\/set_logger_level$/,
  /^\/robograph\//,
  /^\/evaluator\//,
  // A simulator's own controls (pausing physics, resetting the world): ours and Gazebo's.
  /^\/simulator\//,
  /^\/gazebo\//,
  /^\/rosbridge_websocket\//,
  /^\/rosapi_node\//,
  // rosauth's service, which rosbridge run with authenticate:=true asks about each client.
  /^\/authenticate$/,
];
const IMAGE_TYPES = /^sensor_msgs\/(msg\/)?(CompressedImage|Image)$/;
const TO_WRITE = "(to write)";

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
      throw new Error(`the draft for ${id} is not a valid manifest: ${describeIssues(draft, parsed.error.issues)}`, {
        cause: parsed.error,
      });
    robots.push(parsed.data);
    toWrite.push(
      `${id}: kind, description; per skill a description for the model, the values each text argument may take (enum: ROS types have none), preconditions and effects, timeoutSec, requiresApproval; facts and names if the planner needs them`,
    );
  }
  return { topics, services, actions: actions.map(({ name, type }) => ({ name, type })), robots, toWrite };
}

/**
 * Where a draft finds the manifest file's JSON Schema: relative to the file it is written to (editors resolve it so,
 * and it survives moving the checkout), or as a file URL when the draft is printed to go who knows where.
 */
export function schemaReference(out: string | undefined): string {
  if (!out) return pathToFileURL(MANIFEST_JSON_SCHEMA).href;
  const path = relative(dirname(resolve(out)), MANIFEST_JSON_SCHEMA)
    .split(sep)
    .join("/");
  return path.startsWith(".") ? path : `./${path}`;
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
      check: { type: "string" },
      "bridge-url": { type: "string" },
      token: { type: "string" },
      "timeout-ms": { type: "string", default: "5000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const url = flags["bridge-url"] ?? positionals[0];
  if (flags.help || !url) {
    process.stdout.write(CONNECT_HELP);
    return flags.help ? 0 : 2;
  }
  // A file that is no manifest is refused before any robot is asked.
  const toCheck = flags.check ? loadManifestFile(flags.check) : undefined;
  const timeoutMs = Number(flags["timeout-ms"]);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new Error(`--timeout-ms must be a positive number, got ${flags["timeout-ms"]}`);
  const client = await BridgeClient.connect(url, {
    token: flags.token ?? process.env.ROBOGRAPH_BRIDGE_TOKEN,
    connectAttempts: 3,
  });
  try {
    await learnDialect(client, timeoutMs);
    const say = (s: string) => process.stdout.write(`${s}\n`);
    if (toCheck) {
      const report = await checkAgainstRobot(toCheck, (service, args) =>
        client.callService(service, args ?? {}, { timeoutMs }),
      );
      say(`${flags.check} against ${url} (${client.dialect === "ros1" ? "ROS 1" : "ROS 2 / rosbridge v2"}):`);
      if (report.fit.length) say(`fits the robot: ${report.fit.join(", ")}`);
      if (report.unchecked.length) say(`not checked:\n${report.unchecked.map((u) => `  - ${u}`).join("\n")}`);
      if (report.problems.length) say(`does not fit the robot:\n${report.problems.map((p) => `  - ${p}`).join("\n")}`);
      return report.problems.length ? 1 : 0;
    }
    const proposal = await proposeManifests(client, timeoutMs);
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
    const text = `${JSON.stringify({ $schema: schemaReference(flags.out), robots: proposal.robots }, null, 2)}\n`;
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
