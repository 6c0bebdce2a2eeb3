/**
 * ROS 1's reference rosbridge speaks our messages a little differently (see ./ros1.ts for the rest): stamps in
 * `secs`/`nsecs`, a header `seq`, every field present (an optional text comes empty), and values without a fixed
 * shape as JSON text in robograph_msgs/Json services. The client translates with these; it needs nothing else of ROS 1.
 */

export const JSON_SERVICE_TYPE = "robograph_msgs/Json";

/** Optional texts of our messages (a detection's display name and colour): absent when ROS 1 sends them empty. */
const OPTIONAL_TEXT = new Set(["display", "color"]);

/** A message from a ROS 1 bridge in our shapes: stamps in sec/nanosec, no header seq, empty optional texts left out. */
export function fromRos1(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromRos1);
  if (!v || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 2 && "secs" in o && "nsecs" in o) return { sec: o.secs, nanosec: o.nsecs };
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === "seq" && "stamp" in o && "frame_id" in o) continue;
    if (OPTIONAL_TEXT.has(k) && o[k] === "") continue;
    out[k] = fromRos1(o[k]);
  }
  return out;
}

/** A message of ours in ROS 1's shapes (stamps in secs/nsecs; missing fields the bridge fills with defaults). */
export function toRos1(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toRos1);
  if (!v || typeof v !== "object" || Buffer.isBuffer(v)) return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 2 && "sec" in o && "nanosec" in o) return { secs: o.sec, nsecs: o.nanosec };
  return Object.fromEntries(keys.map((k) => [k, toRos1(o[k])]));
}
