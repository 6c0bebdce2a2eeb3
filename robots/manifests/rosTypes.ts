/**
 * ROS message types as a manifest's argument schemas: rosapi's typedefs (what `/rosapi/message_details` and
 * `/rosapi/service_request_details` answer) and how each ROS field type is written in the manifest's JSON-schema
 * subset. `robograph connect` drafts arguments from them (argumentSchemaOf); ./check.ts holds a manifest to them.
 */
import type { ArgumentSchema, FieldSchema } from "./arguments";

/** One message type as rosapi describes it: its fields' names, types and array lengths (-1 none, 0 any, n fixed). */
export interface TypeDef {
  type: string;
  fieldnames: string[];
  fieldtypes: string[];
  fieldarraylen: number[];
}

const TIME_SECS = { type: "integer", minimum: 0, maximum: 4294967295 } as const;

/** ROS's plain field types as JSON: integers with the bounds of their width (a field that overflows is refused, named). */
export const PRIMITIVE: Record<string, FieldSchema> = {
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
    properties: { secs: TIME_SECS, nsecs: { type: "integer", minimum: 0, maximum: 999999999 } },
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

/** ROS 2's names for the same primitives (rosapi on ROS 2 may answer in IDL spelling). */
const ROS2_SPELLING: Record<string, string> = {
  boolean: "bool",
  double: "float64",
  float: "float32",
  octet: "byte",
  wstring: "string",
};

/**
 * The primitive a ROS field type names, in ROS 1 spelling (`double` → `float64`, `string<=10` → `string`), or
 * undefined for a message type.
 */
export function primitiveOf(fieldType: string): string | undefined {
  const plain = fieldType.replace(/<=\d+$/, "");
  const name = ROS2_SPELLING[plain] ?? plain;
  return PRIMITIVE[name] ? name : undefined;
}

/** Byte arrays travel through rosbridge as base64 text. */
export const BYTES = new Set(["uint8", "char", "byte"]);

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
      const fieldType = primitiveOf(def.fieldtypes[i]) ?? def.fieldtypes[i];
      const len = def.fieldarraylen[i];
      const at = path ? `${path}.${name}` : name;
      let field: FieldSchema | undefined;
      if (len >= 0 && BYTES.has(fieldType))
        field = { type: "string", description: `bytes (${fieldType}[${len > 0 ? len : ""}]), base64` };
      else {
        const one = PRIMITIVE[fieldType] ?? message(fieldType, at, depth + 1);
        if (one && len >= 0)
          field = { type: "array", items: one, ...(len > 0 ? { minItems: len, maxItems: len } : {}) };
        else field = one;
      }
      if (!field) return;
      properties[name] = field;
      if (!mayOmit(def.type, name, fieldType)) required.push(name);
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
