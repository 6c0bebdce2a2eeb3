/**
 * Validation issues of a manifest in a person's words: `robots.0.skills.2.parameters` names the robot and the skill
 * (`robot "arm", skill "set_gripper": parameters`), as the file they are editing does, not by position.
 */
import type { z } from "zod";

/** What an element of each named list is called, and the key that names it in the file. */
const NAMED_LISTS: Record<string, { noun: string; key: string }> = {
  robots: { noun: "robot", key: "id" },
  skills: { noun: "skill", key: "name" },
  cameras: { noun: "camera", key: "name" },
  places: { noun: "place", key: "name" },
  joints: { noun: "joint", key: "name" },
  targets: { noun: "target", key: "name" },
};

/**
 * An issue's path, read against the value that was validated: each element of a named list by its name (its index
 * when it has none), the rest as dotted keys.
 */
export function issuePath(raw: unknown, path: readonly PropertyKey[]): string {
  const parts: string[] = [];
  let rest: string[] = [];
  let value: unknown = raw;
  const flush = () => {
    if (rest.length) parts.push(rest.join("."));
    rest = [];
  };
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const list = NAMED_LISTS[String(key)];
    const index = path[i + 1];
    const items = (value as Record<string, unknown> | undefined)?.[String(key)];
    if (list && typeof index === "number" && Array.isArray(items)) {
      const item: unknown = items[index];
      const name = (item as Record<string, unknown> | undefined)?.[list.key];
      flush();
      parts.push(
        typeof name === "string" && name ? `${list.noun} ${JSON.stringify(name)}` : `${list.noun} #${index + 1}`,
      );
      value = item;
      i++;
      continue;
    }
    rest.push(String(key));
    value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  flush();
  return parts.join(", ");
}

/** Each issue as `where: what`, where a named list's element is named (see issuePath); `; `-separated. */
export function describeIssues(raw: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issuePath(raw, issue.path) || "(the file)"}: ${issue.message}`).join("; ");
}
