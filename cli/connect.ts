/**
 * `robograph connect ws://HOST:PORT [--out FILE]` — the first thing a robot owner runs: it asks rosapi what the robot
 * offers (topics, services, action servers, with their types), expands the types into JSON Schemas (rosapi's message
 * and service details), proposes a manifest draft (cameras from image topics, skills from action servers and
 * services), validates it with `RobotManifest`, and says what a person must still write.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BridgeClient } from "../robots/bridge/client";
import { RobotManifest, type ArgumentSchema, type SkillSpec } from "../robots/manifests/schema";
import { learnDialect } from "../tools/skills";

export const CONNECT_HELP = `usage: robograph connect ws://HOST:PORT [--out FILE] [--token T]      (npm run connect -- URL …)

Lists through rosapi what the robot behind a rosbridge offers (topics, services, action servers and their types),
expands the types into JSON Schemas, and proposes a manifest draft: one robot per namespace (/mobile/go_to → robot
mobile, skill go_to), cameras from its image topics, skills from its action servers (ROS 1 actionlib or ROS 2
actions) and its own services. The draft is validated with RobotManifest and written to FILE (default: printed);
what a person must still write (descriptions, preconditions, effects, approvals) is listed at the end.

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
const SYSTEM = [/^\/rosapi\//, /^\/rosout/, /\/get_loggers$/, /\/set_logger_level$/, /^\/robograph\//, /^\/evaluator\//, /^\/rosbridge_websocket\//, /^\/rosapi_node\//];
const IMAGE_TYPES = /^sensor_msgs\/(msg\/)?(CompressedImage|Image)$/;
const TO_WRITE = "(to write)";

const PRIMITIVE: Record<string, ArgumentSchema["properties"][string]["type"]> = {
  string: "string",
  bool: "boolean",
  float32: "number",
  float64: "number",
  int8: "integer",
  int16: "integer",
  int32: "integer",
  int64: "integer",
  uint8: "integer",
  uint16: "integer",
  uint32: "integer",
  uint64: "integer",
  byte: "integer",
  char: "integer",
};

/**
 * A goal or request message as a skill's argument schema. Plain fields map to their JSON types, arrays of plain fields
 * to arrays; a nested message has no field type in a manifest, so it is named in `unsupported` for a person to decide.
 */
export function argumentSchemaOf(type: string, typedefs: TypeDef[]): { schema: ArgumentSchema; unsupported: string[] } {
  const def = typedefs.find((d) => d.type === type);
  const schema: ArgumentSchema = { type: "object", properties: {}, required: [], additionalProperties: false };
  const unsupported: string[] = [];
  if (!def) return { schema, unsupported: [`${type}: rosapi gave no definition`] };
  def.fieldnames.forEach((name, i) => {
    const t = def.fieldtypes[i];
    const array = def.fieldarraylen[i] >= 0;
    const prim = PRIMITIVE[t];
    if (!prim) {
      unsupported.push(`${name} (${t}${array ? "[]" : ""})`);
      return;
    }
    schema.properties[name] = array ? { type: "array", items: { type: prim } } : { type: prim };
    schema.required.push(name);
  });
  return { schema, unsupported };
}

/** Width and height of a PNG or JPEG in base64, or undefined. */
export function imageSize(b64: string): { width: number; height: number } | undefined {
  const b = Buffer.from(b64.slice(0, 4096), "base64");
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  for (let i = 2; i + 9 < b.length; ) {
    if (b[i] !== 0xff) break;
    const marker = b[i + 1];
    if (marker >= 0xc0 && marker <= 0xc3) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

/** `/mobile/go_to` → robot `mobile`, skill `go_to`; names that are no manifest names are made into ones. */
function split(name: string): { robot: string; skill: string } {
  const parts = name.split("/").filter(Boolean);
  const clean = (s: string) => s.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/^[^a-z]+/, "") || "robot";
  return { robot: clean(parts.length > 1 ? parts[0] : "robot"), skill: clean(parts.slice(parts.length > 1 ? 1 : 0).join("_")) };
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
  const services = await Promise.all(serviceNames.map(async (name) => ({ name, type: (await call<{ type: string }>("/rosapi/service_type", { service: name })).type })));
  // ROS 1's rosapi lists an action server once per node that touches it: once is enough.
  const actionNames = [...new Set((await call<{ action_servers: string[] }>("/rosapi/action_servers")).action_servers)].sort();
  const typeOf = (topic: string) => topics.find((t) => t.name === topic)?.type ?? "";
  const actions = actionNames.map((name) => {
    // ROS 1: the goal topic's type is <pkg>/<Name>ActionGoal; ROS 2 bridges (ours) name no goal topic.
    const goal = typeOf(`${name}/goal`);
    return { name, type: goal.replace(/ActionGoal$/, ""), ros1: !!goal };
  });
  const toWrite: string[] = [];
  const details = async (type: string, service: boolean): Promise<TypeDef[]> => {
    try {
      return (await call<{ typedefs: TypeDef[] }>(service ? "/rosapi/service_request_details" : "/rosapi/message_details", { type })).typedefs;
    } catch {
      return [];
    }
  };

  const byRobot = new Map<string, { skills: SkillSpec[]; cameras: RobotManifest["cameras"] }>();
  const robot = (id: string) => {
    let r = byRobot.get(id);
    if (!r) byRobot.set(id, (r = { skills: [], cameras: [] }));
    return r;
  };
  const skill = (name: string, actionType: string, transport: SkillSpec["transport"], parameters: ArgumentSchema): SkillSpec => ({
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
    const goalType = a.ros1 ? `${a.type}Goal` : "";
    const { schema, unsupported } = goalType ? argumentSchemaOf(goalType, await details(goalType, false)) : { schema: { type: "object" as const, properties: {}, required: [], additionalProperties: false as const }, unsupported: ["its goal type (a ROS 2 action: rosapi names no goal topic; write its arguments)"] };
    robot(id).skills.push({ ...skill(name, a.ros1 ? a.type : TO_WRITE, a.ros1 ? "actionlib" : "action", schema), action: a.name });
    for (const u of unsupported) toWrite.push(`${id}.${name}: argument ${u}`);
  }
  // A service that is an actionlib server's own, or the system's, is no skill.
  for (const s of services) {
    if (SYSTEM.some((re) => re.test(s.name)) || actionNames.some((a) => s.name.startsWith(`${a}/`))) continue;
    const { robot: id, skill: name } = split(s.name);
    const { schema, unsupported } = argumentSchemaOf(`${s.type}Request`, await details(s.type, true));
    robot(id).skills.push({ ...skill(name, s.type, "service", schema), action: s.name });
    for (const u of unsupported) toWrite.push(`${id}.${name}: argument ${u}`);
  }
  for (const t of topics.filter((t) => IMAGE_TYPES.test(t.type))) {
    const { robot: id } = split(t.name);
    const r = robot(id);
    const depth = /depth/.test(t.name);
    let cam = r.cameras[0];
    if (!cam) {
      let size: { width: number; height: number } | undefined;
      try {
        const m = await client.nextMessage<{ data?: string }>(t.name, undefined, timeoutMs);
        if (typeof m.data === "string") size = imageSize(m.data);
      } catch {}
      if (!size) toWrite.push(`${id}: the camera's width and height (no frame came on ${t.name})`);
      cam = { name: "camera", image: t.name, width: size?.width ?? 640, height: size?.height ?? 480 };
      r.cameras.push(cam);
    }
    if (depth) cam.depth = t.name;
    else cam.image = t.name;
  }
  for (const [id, r] of byRobot) {
    const det = topics.find((t) => t.name.startsWith(`/${id}/`) && /Detections$/.test(t.type));
    if (det && r.cameras[0]) r.cameras[0].detections = det.name;
  }

  const robots: RobotManifest[] = [];
  for (const [id, r] of byRobot) {
    if (!r.skills.length) continue;
    const draft = { id, kind: TO_WRITE, description: TO_WRITE, cameras: r.cameras, facts: [], skills: r.skills.sort((a, b) => a.name.localeCompare(b.name)) };
    const p = RobotManifest.safeParse(draft);
    if (!p.success) throw new Error(`the draft for ${id} is not a valid manifest: ${p.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    robots.push(p.data);
    toWrite.push(`${id}: kind, description; per skill a description for the model, the values each text argument may take (enum: ROS types have none), preconditions and effects, timeoutSec, requiresApproval; facts and names if the planner needs them`);
  }
  return { topics, services, actions: actions.map(({ name, type }) => ({ name, type })), robots, toWrite };
}

export async function connectCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: "string" }, token: { type: "string" }, "timeout-ms": { type: "string", default: "5000" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (v.help || !positionals[0]) {
    process.stdout.write(CONNECT_HELP);
    return v.help ? 0 : 2;
  }
  const url = positionals[0];
  const timeoutMs = Number(v["timeout-ms"]);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`--timeout-ms must be a positive number, got ${v["timeout-ms"]}`);
  const client = await BridgeClient.connect(url, { token: v.token ?? process.env.ROBOGRAPH_BRIDGE_TOKEN, connectAttempts: 3 });
  try {
    await learnDialect(client, timeoutMs);
    const r = await proposeManifests(client, timeoutMs);
    const say = (s: string) => process.stdout.write(`${s}\n`);
    say(`${url}: ${r.topics.length} topics, ${r.services.length} services, ${r.actions.length} action servers (${client.dialect === "ros1" ? "ROS 1" : "ROS 2 / rosbridge v2"})`);
    for (const m of r.robots) {
      say(`\nrobot ${m.id}: ${m.cameras.map((c) => `camera ${c.image}${c.depth ? ` + ${c.depth}` : ""}${c.detections ? ` + ${c.detections}` : ""} (${c.width}x${c.height})`).join("; ") || "no camera"}`);
      for (const s of m.skills) say(`  ${s.name}(${Object.entries(s.parameters.properties).map(([k, p]) => `${k}: ${p.type}`).join(", ")})  ${s.transport} ${s.action} [${s.actionType}]`);
    }
    const text = `${JSON.stringify({ robots: r.robots }, null, 2)}\n`;
    if (v.out) {
      writeFileSync(v.out, text);
      say(`\nmanifest draft (valid RobotManifest): ${v.out}`);
    } else say(`\n${text}`);
    say(`\nstill to write by a person:\n${[...new Set(r.toWrite)].map((t) => `  - ${t}`).join("\n")}`);
    return r.robots.length ? 0 : 1;
  } finally {
    await client.close();
  }
}
