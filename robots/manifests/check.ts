/**
 * A manifest held to the robot it describes, through rosapi alone: each skill's action server or service must be one
 * rosapi lists (a misspelling is refused naming the nearest real name), its type the one ROS says, and its arguments
 * the fields of its goal or request message as rosapi's typedefs describe them — a field the message does not have,
 * a string where ROS has a bool, an integer for a float array are refused naming the skill and the field, before a
 * goal ever carries them to the robot. What rosapi cannot describe (our simulators' bridge has no typedef services) is
 * reported as not checked, never as a fit.
 */
import type { FieldSchema } from "./arguments";
import { BYTES, PRIMITIVE, primitiveOf, type TypeDef } from "./rosTypes";
import type { ManifestResponse, RobotManifest, SkillSpec } from "./schema";

/** A rosapi service call (`/rosapi/topics`, …) through whatever bridge client the caller holds. */
export type RosapiCall = <T>(service: string, args?: Record<string, unknown>) => Promise<T>;

export interface CheckReport {
  /** Each mismatch, led by the skill (`arm/set_gripper: …`). */
  problems: string[];
  /** What rosapi could not describe, and why: neither fit nor mismatch. */
  unchecked: string[];
  /** Skills whose name, type and every declared field were found on the robot as declared. */
  fit: string[];
}

/** A manifest refused because it does not fit the robot; `problems` are the report's, one per mismatch. */
export class ManifestMismatchError extends Error {
  override name = "ManifestMismatchError";
  constructor(
    where: string,
    readonly problems: string[],
  ) {
    super(`${where} does not fit the robot (as rosapi describes it):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** What a message field is in ROS: its type (a primitive in ROS 1 spelling, or a message) and array length. */
interface RosSlot {
  type: string;
  /** -1: not an array; 0: an array of any length; n: exactly n items. */
  length: number;
}

const rosText = (slot: RosSlot) => (slot.length < 0 ? slot.type : `${slot.type}[${slot.length || ""}]`);

/** ROS 1's time and duration as rosbridge takes them: an object of seconds and nanoseconds. */
const TIME_DEFS: Record<string, TypeDef> = {
  time: { type: "time", fieldnames: ["secs", "nsecs"], fieldtypes: ["uint32", "uint32"], fieldarraylen: [-1, -1] },
  duration: {
    type: "duration",
    fieldnames: ["secs", "nsecs"],
    fieldtypes: ["int32", "int32"],
    fieldarraylen: [-1, -1],
  },
};

const FLOATS = new Set(["float32", "float64"]);

/** The JSON types a manifest may declare for a ROS primitive: an integer is a valid float, never the other way. */
function jsonTypesOf(primitive: string): string[] {
  if (primitive === "bool") return ["boolean"];
  if (primitive === "string") return ["string"];
  if (FLOATS.has(primitive)) return ["number", "integer"];
  return ["integer"];
}

/** The bounds of a ROS integer type, as connect drafts them. */
const integerBounds = (primitive: string) => {
  const { minimum, maximum } = PRIMITIVE[primitive] ?? {};
  return { minimum: minimum ?? -Infinity, maximum: maximum ?? Infinity };
};

/** A declared field in a few words: `string`, `array of integer`, `oneOf`. */
function declaredText(field: FieldSchema): string {
  if (field.type === "array" && field.items) return `array of ${declaredText(field.items)}`;
  if (field.type) return field.type;
  if (field.oneOf) return "oneOf";
  return `the constant ${JSON.stringify(field.const)}`;
}

/** Levenshtein distance: how many single-character edits turn one name into the other. */
export function editDistance(from: string, to: string): number {
  let previous = Array.from({ length: to.length + 1 }, (_, j) => j);
  for (let i = 1; i <= from.length; i++) {
    const current = [i];
    for (let j = 1; j <= to.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (from[i - 1] === to[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[to.length];
}

/** The candidate closest to `name` by edit distance (the first of equals), if there is any candidate. */
export function nearestName(name: string, candidates: string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

/** `std_srvs/srv/SetBool` and `std_srvs/SetBool` are one type, written as ROS 2 and ROS 1 write it. */
const ros1Spelling = (type: string) => type.replace(/\/(msg|srv|action)\//, "/");
const sameType = (declared: string, actual: string) => ros1Spelling(declared) === ros1Spelling(actual);

/**
 * How a skill's declared fields are compared with one message: the typedefs rosapi gave (by type), the message's
 * name for a person (`std_srvs/SetBool's request`), and where problems and unchecked parts are collected.
 */
interface Comparison {
  defs: Map<string, TypeDef>;
  message: string;
  problems: string[];
  unchecked: string[];
}

/**
 * Where a field stands: its path as the manifest declares it, how a problem names it (`argument "data"`), and its
 * path in the ROS message.
 */
interface At {
  path: string;
  subject: (path: string) => string;
  rosPath: string;
}

const leadOf = (at: At) => at.subject(at.path);

const childPath = (path: string, name: string) => (path ? `${path}.${name}` : name);

function definitionOf(type: string, comparison: Comparison): TypeDef | undefined {
  return TIME_DEFS[type] ?? comparison.defs.get(type);
}

/** Why a value (a default, an enum value, a constant) cannot be this ROS field, or undefined when it can. */
function valueIssue(value: unknown, slot: RosSlot, defs: Map<string, TypeDef>): string | undefined {
  if (slot.length >= 0) {
    if (BYTES.has(slot.type) && typeof value === "string") return undefined;
    if (!Array.isArray(value)) return `${JSON.stringify(value)} is no array`;
    if (slot.length > 0 && value.length !== slot.length)
      return `${value.length} items where ROS takes exactly ${slot.length}`;
    for (const item of value) {
      const issue = valueIssue(item, { type: slot.type, length: -1 }, defs);
      if (issue) return issue;
    }
    return undefined;
  }
  const def = TIME_DEFS[slot.type] ?? defs.get(slot.type);
  if (def) {
    if (!value || typeof value !== "object" || Array.isArray(value)) return `${JSON.stringify(value)} is no message`;
    for (const [key, inner] of Object.entries(value)) {
      const index = def.fieldnames.indexOf(key);
      if (index < 0) return `${slot.type} has no field ${key}`;
      const issue = valueIssue(
        inner,
        { type: primitiveOf(def.fieldtypes[index]) ?? def.fieldtypes[index], length: def.fieldarraylen[index] },
        defs,
      );
      if (issue) return issue;
    }
    return undefined;
  }
  const shown = JSON.stringify(value);
  if (slot.type === "bool") return typeof value === "boolean" ? undefined : `${shown} is no bool`;
  if (slot.type === "string") return typeof value === "string" ? undefined : `${shown} is no string`;
  if (FLOATS.has(slot.type)) return typeof value === "number" ? undefined : `${shown} is no number`;
  if (PRIMITIVE[slot.type]) {
    if (typeof value !== "number" || !Number.isInteger(value)) return `${shown} is no integer`;
    const { minimum, maximum } = integerBounds(slot.type);
    return value < minimum || value > maximum
      ? `${shown} is outside ${slot.type} (${minimum} to ${maximum})`
      : undefined;
  }
  return undefined;
}

/** The values a field names (its constant, enum values, default), each checked against the ROS field. */
function compareValues(field: FieldSchema, slot: RosSlot, at: At, comparison: Comparison): void {
  const named: [string, unknown][] = [
    ...(field.const !== undefined ? [["is the constant", field.const] as [string, unknown]] : []),
    ...(field.enum ?? []).map((v) => ["allows", v] as [string, unknown]),
    ...(field.default !== undefined ? [["defaults to", field.default] as [string, unknown]] : []),
  ];
  for (const [how, value] of named) {
    const issue = valueIssue(value, slot, comparison.defs);
    if (issue)
      comparison.problems.push(
        `${leadOf(at)} ${how} ${JSON.stringify(value)} but ${comparison.message} has ${rosText(slot)} ${at.rosPath} (${issue})`,
      );
  }
}

/** The item counts an array field allows, as [fewest, most]. */
function itemRange(field: FieldSchema): [number, number] {
  const tuple = field.items === false ? (field.prefixItems?.length ?? 0) : undefined;
  return [field.minItems ?? tuple ?? 0, field.maxItems ?? tuple ?? Infinity];
}

/** Compares one declared field with one ROS field, recording each mismatch under `at`. */
function compareField(field: FieldSchema, slot: RosSlot, at: At, comparison: Comparison): void {
  const mismatch = () => {
    comparison.problems.push(
      `${leadOf(at)} is declared ${declaredText(field)} but ${comparison.message} has ${rosText(slot)} ${at.rosPath}`,
    );
  };
  for (const shape of field.oneOf ?? []) compareField(shape, slot, at, comparison);
  compareValues(field, slot, at, comparison);
  if (!field.type) return;

  if (slot.length >= 0) {
    if (BYTES.has(slot.type) && field.type === "string") return;
    if (field.type !== "array") return mismatch();
    const [fewest, most] = itemRange(field);
    if (slot.length > 0 && (fewest !== slot.length || most !== slot.length))
      comparison.problems.push(
        `${leadOf(at)} takes ${fewest === most ? fewest : `${fewest} to ${most === Infinity ? "any number of" : most}`} items but ${comparison.message} has ${rosText(slot)} ${at.rosPath}, exactly ${slot.length}: set minItems and maxItems to ${slot.length}`,
      );
    const item: RosSlot = { type: slot.type, length: -1 };
    if (field.items)
      compareField(field.items, item, { ...at, path: `${at.path}[]`, rosPath: `${at.rosPath}[]` }, comparison);
    field.prefixItems?.forEach((shape, i) =>
      compareField(shape, item, { ...at, path: `${at.path}[${i}]`, rosPath: `${at.rosPath}[${i}]` }, comparison),
    );
    return;
  }

  const def = definitionOf(slot.type, comparison);
  if (!def) {
    if (!PRIMITIVE[slot.type]) {
      comparison.unchecked.push(`${leadOf(at)} (${slot.type}): rosapi gave no definition of ${slot.type}`);
      return;
    }
    if (!jsonTypesOf(slot.type).includes(field.type)) return mismatch();
    if (field.type === "integer" && !FLOATS.has(slot.type)) {
      const { minimum, maximum } = integerBounds(slot.type);
      if ((field.minimum ?? minimum) < minimum || (field.maximum ?? maximum) > maximum)
        comparison.problems.push(
          `${leadOf(at)} is declared from ${field.minimum ?? "any"} to ${field.maximum ?? "any"} but ${comparison.message} has ${rosText(slot)} ${at.rosPath} (${minimum} to ${maximum})`,
        );
    }
    return;
  }
  if (field.type !== "object") return mismatch();
  compareObject(field, def, at, comparison);
}

/** A message's fields in a few words, for a person looking for the right name. */
const fieldsText = (def: TypeDef) => def.fieldnames.join(", ") || "no fields";

/** Compares a declared object's properties with a message's fields (a field ROS has and the manifest leaves out takes ROS's default). */
function compareObject(field: FieldSchema, def: TypeDef, at: At, comparison: Comparison): void {
  for (const [name, property] of Object.entries(field.properties ?? {})) {
    const index = def.fieldnames.indexOf(name);
    const inner: At = { ...at, path: childPath(at.path, name), rosPath: childPath(at.rosPath, name) };
    if (index < 0) {
      // A field's name is short: only a near miss (a third of its letters or fewer) is worth suggesting.
      const nearest = nearestName(name, def.fieldnames);
      const likely = nearest && editDistance(name, nearest) <= Math.floor(name.length / 3) ? nearest : undefined;
      comparison.problems.push(
        `${leadOf(inner)} is a field ${comparison.message} does not have (${at.rosPath || "the message"} has ${fieldsText(def)}${likely ? `; did you mean ${likely}?` : ""})`,
      );
      continue;
    }
    const fieldType = def.fieldtypes[index];
    compareField(
      property,
      { type: primitiveOf(fieldType) ?? fieldType, length: def.fieldarraylen[index] },
      inner,
      comparison,
    );
  }
}

const POSE_STAMPED = /^geometry_msgs\/(msg\/)?PoseStamped$/;

type Placeholder = { $arg: string } | { $pose: string };
function placeholderOf(value: unknown): Placeholder | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === "$arg" || keys[0] === "$pose") ? (value as Placeholder) : undefined;
}

/**
 * Compares a goal template with the message it fills: each `$arg` argument's declared schema with the field it lands
 * in, each `$pose` with a PoseStamped field, each constant with its field's type.
 */
function compareTemplate(skill: SkillSpec, value: unknown, slot: RosSlot, rosPath: string, comparison: Comparison) {
  const found = placeholderOf(value);
  if (found && "$arg" in found) {
    const argument = skill.parameters.properties[found.$arg];
    const subject = (path: string) => `argument "${path}" (put in the goal at ${rosPath})`;
    if (argument) compareField(argument, slot, { path: found.$arg, subject, rosPath }, comparison);
    return;
  }
  if (found && "$pose" in found) {
    if (slot.length >= 0 || !POSE_STAMPED.test(slot.type))
      comparison.problems.push(
        `goal.template puts a named pose (a geometry_msgs/PoseStamped) at ${rosPath} but ${comparison.message} has ${rosText(slot)} ${rosPath}`,
      );
    return;
  }
  if (Array.isArray(value) && slot.length >= 0) {
    value.forEach((item, i) =>
      compareTemplate(skill, item, { type: slot.type, length: -1 }, `${rosPath}[${i}]`, comparison),
    );
    return;
  }
  const def = slot.length < 0 ? definitionOf(slot.type, comparison) : undefined;
  if (def && value && typeof value === "object" && !Array.isArray(value)) {
    for (const [name, inner] of Object.entries(value)) {
      const index = def.fieldnames.indexOf(name);
      if (index < 0) {
        comparison.problems.push(
          `goal.template's ${childPath(rosPath, name)} is a field ${comparison.message} does not have (${rosPath || "the message"} has ${fieldsText(def)})`,
        );
        continue;
      }
      const fieldType = def.fieldtypes[index];
      compareTemplate(
        skill,
        inner,
        { type: primitiveOf(fieldType) ?? fieldType, length: def.fieldarraylen[index] },
        childPath(rosPath, name),
        comparison,
      );
    }
    return;
  }
  const issue = valueIssue(value, slot, comparison.defs);
  if (issue)
    comparison.problems.push(
      `goal.template has ${JSON.stringify(value)} at ${rosPath} but ${comparison.message} has ${rosText(slot)} ${rosPath} (${issue})`,
    );
}

/**
 * How one skill's arguments differ from its message as rosapi's typedefs describe it (the root typedef first, as rosapi
 * answers). `message` names it for a person (`std_srvs/SetBool's request`). Problems are led by `who` (robot/skill).
 */
export function skillMessageIssues(
  who: string,
  skill: SkillSpec,
  typedefs: TypeDef[],
  message: string,
): { problems: string[]; unchecked: string[] } {
  const comparison: Comparison = {
    defs: new Map(typedefs.map((def) => [def.type, def])),
    message,
    problems: [],
    unchecked: [],
  };
  const root = typedefs[0];
  if (!root) return { problems: [], unchecked: [`${who}: rosapi gave no definition of ${message}`] };
  if (skill.goal) {
    const subject = (path: string) => `goal.message field "${path}"`;
    compareObject(skill.goal.message, root, { path: "", subject, rosPath: "" }, comparison);
    compareTemplate(skill, skill.goal.template, { type: root.type, length: -1 }, "", comparison);
  } else
    compareObject(
      skill.parameters,
      root,
      { path: "", subject: (path) => `argument "${path}"`, rosPath: "" },
      comparison,
    );
  const lead = (text: string) => `${who}: ${text}`;
  return { problems: comparison.problems.map(lead), unchecked: comparison.unchecked.map(lead) };
}

/** What rosapi lists: topics with their types, services, action servers (ROS 1: also every `<name>/goal` topic's name). */
interface RobotGraph {
  topics: Map<string, string>;
  services: string[];
  actionServers: string[];
}

async function readGraph(rosapi: RosapiCall): Promise<RobotGraph> {
  const { topics, types } = await rosapi<{ topics: string[]; types: string[] }>("/rosapi/topics");
  const { services } = await rosapi<{ services: string[] }>("/rosapi/services");
  const { action_servers: listed } = await rosapi<{ action_servers: string[] }>("/rosapi/action_servers");
  // ROS 1's rosapi lists an action server only once all five of its topics exist: its goal topic is enough to be one.
  const goalTopics = topics.filter((t, i) => /\/goal$/.test(t) && /ActionGoal$/.test(types[i] ?? ""));
  return {
    topics: new Map(topics.map((t, i) => [t, types[i] ?? ""])),
    services,
    actionServers: [...new Set([...listed, ...goalTopics.map((t) => t.replace(/\/goal$/, ""))])].sort(),
  };
}

/** Whether rosapi lists the skill's server under its transport; else the refusal, naming the nearest real one. */
function locate(who: string, skill: SkillSpec, graph: RobotGraph): string | undefined {
  const wantsService = skill.transport === "service";
  const [own, other] = wantsService ? [graph.services, graph.actionServers] : [graph.actionServers, graph.services];
  if (own.includes(skill.action)) return undefined;
  const [kind, otherKind] = wantsService ? ["a service", "an action server"] : ["an action server", "a service"];
  if (other.includes(skill.action)) {
    const transport = wantsService ? '"actionlib" (ROS 1) or "action" (ROS 2)' : '"service"';
    return `${who}: ${skill.action} is ${otherKind}, not ${kind}: its transport is ${transport}`;
  }
  const nearest = nearestName(skill.action, [...graph.services, ...graph.actionServers]);
  if (!nearest) return `${who}: rosapi lists no ${kind.replace(/^an? /, "")} ${skill.action} (nor any other)`;
  const nearestKind = graph.services.includes(nearest) ? "a service" : "an action server";
  return `${who}: rosapi lists no ${kind.replace(/^an? /, "")} ${skill.action}; the nearest real one is ${nearest} (${nearestKind})`;
}

/**
 * The message a skill's arguments become, as rosapi names and describes it: the service's request, or the action's
 * goal. Undefined with the reason when rosapi cannot say; a problem when the declared type is not the robot's.
 */
async function messageOf(
  who: string,
  skill: SkillSpec,
  graph: RobotGraph,
  rosapi: RosapiCall,
): Promise<{ typedefs: TypeDef[]; message: string } | { problem: string } | { unchecked: string }> {
  const offers = (service: string) => graph.services.includes(service);
  const details = async (service: string, type: string) => {
    if (!offers(service)) return { unchecked: `${who}: fields not checked: this rosapi offers no ${service}` };
    try {
      return { typedefs: (await rosapi<{ typedefs: TypeDef[] }>(service, { type })).typedefs };
    } catch (err) {
      return { unchecked: `${who}: fields not checked: ${service} for ${type} failed: ${(err as Error).message}` };
    }
  };
  if (skill.transport === "service") {
    const { type } = await rosapi<{ type: string }>("/rosapi/service_type", { service: skill.action });
    if (type && !sameType(type, skill.actionType))
      return { problem: `${who}: declared actionType ${skill.actionType} but ${skill.action} is a ${type}` };
    const answer = await details("/rosapi/service_request_details", type || skill.actionType);
    return "typedefs" in answer ? { ...answer, message: `${skill.actionType}'s request` } : answer;
  }
  if (skill.transport === "actionlib") {
    const goalType = graph.topics.get(`${skill.action}/goal`) ?? "";
    if (goalType && !sameType(goalType, `${skill.actionType}ActionGoal`))
      return {
        problem: `${who}: declared actionType ${skill.actionType} but ${skill.action} is a ${goalType.replace(/ActionGoal$/, "")} action`,
      };
    const answer = await details(
      "/rosapi/message_details",
      `${goalType.replace(/ActionGoal$/, "") || skill.actionType}Goal`,
    );
    return "typedefs" in answer ? { ...answer, message: `${skill.actionType}'s goal` } : answer;
  }
  const answer = await details("/rosapi/action_goal_details", skill.actionType);
  return "typedefs" in answer ? { ...answer, message: `${skill.actionType}'s goal` } : answer;
}

/**
 * Holds every skill of these manifests to the robot rosapi describes: its server listed under its transport, its type
 * the robot's, its declared fields those of its message. Problems name robot/skill and the field.
 */
export async function checkAgainstRobot(
  manifests: Pick<ManifestResponse, "robots">,
  rosapi: RosapiCall,
): Promise<CheckReport> {
  const graph = await readGraph(rosapi);
  const report: CheckReport = { problems: [], unchecked: [], fit: [] };
  const check = async (robot: RobotManifest, skill: SkillSpec) => {
    const who = `${robot.id}/${skill.name}`;
    const missing = locate(who, skill, graph);
    if (missing) {
      report.problems.push(missing);
      return;
    }
    const message = await messageOf(who, skill, graph, rosapi);
    if ("problem" in message) {
      report.problems.push(message.problem);
      return;
    }
    if ("unchecked" in message) {
      report.unchecked.push(message.unchecked);
      return;
    }
    const { problems, unchecked } = skillMessageIssues(who, skill, message.typedefs, message.message);
    report.problems.push(...problems);
    report.unchecked.push(...unchecked);
    if (!problems.length && !unchecked.length) report.fit.push(who);
  };
  for (const robot of manifests.robots) for (const skill of robot.skills) await check(robot, skill);
  return report;
}

/** Throws ManifestMismatchError (led by `where`, e.g. the file) when a skill does not fit the robot; else the report. */
export async function refuseMismatches(
  where: string,
  manifests: Pick<ManifestResponse, "robots">,
  rosapi: RosapiCall,
): Promise<CheckReport> {
  const report = await checkAgainstRobot(manifests, rosapi);
  if (report.problems.length) throw new ManifestMismatchError(where, report.problems);
  return report;
}
