/**
 * ROS 1's reference rosbridge speaks our messages a little differently (see ./ros1.ts for the rest): stamps in
 * `secs`/`nsecs`, a header `seq`, every field present (an optional text comes empty), and values without a fixed
 * shape as JSON text in robograph_msgs/Json services. The client translates with these; it needs nothing else of ROS 1.
 */

export const JSON_SERVICE_TYPE = "robograph_msgs/Json";

/** Optional texts of our messages (a detection's display name and colour): absent when ROS 1 sends them empty. */
const OPTIONAL_TEXT = new Set(["display", "color"]);

/** A message from a ROS 1 bridge in our shapes: stamps in sec/nanosec, no header seq, empty optional texts left out. */
export function fromRos1(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromRos1);
  if (!value || typeof value !== "object") return value;
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length === 2 && "secs" in fields && "nsecs" in fields) return { sec: fields.secs, nanosec: fields.nsecs };
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === "seq" && "stamp" in fields && "frame_id" in fields) continue;
    if (OPTIONAL_TEXT.has(k) && fields[k] === "") continue;
    out[k] = fromRos1(fields[k]);
  }
  return out;
}

/** A message of ours in ROS 1's shapes (stamps in secs/nsecs; missing fields the bridge fills with defaults). */
export function toRos1(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toRos1);
  if (!value || typeof value !== "object" || Buffer.isBuffer(value)) return value;
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length === 2 && "sec" in fields && "nanosec" in fields) return { secs: fields.sec, nsecs: fields.nanosec };
  return Object.fromEntries(keys.map((k) => [k, toRos1(fields[k])]));
}
