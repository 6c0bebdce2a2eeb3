/**
 * rosbridge's `topics_glob` / `services_glob` / `actions_glob`: which names a client may reach. Patterns are matched as
 * Python's fnmatch matches them in rosbridge (`*` any run of characters, `/` included; `?` one character; `[…]` a set,
 * `[!…]` its complement), so a list written for a rosbridge launch file means the same here.
 */
export interface Allowlists {
  /** Topics a client may subscribe to, advertise and publish on; absent or empty: every topic. */
  topics?: string[];
  /** Services a client may call (the rosapi services included, as in rosbridge); absent or empty: every service. */
  services?: string[];
  /** Actions a client may send goals to and cancel; absent or empty: every action. */
  actions?: string[];
}

/** A glob as fnmatch translates it: the whole name must match. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") out += ".*";
    else if (char === "?") out += ".";
    else if (char === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) {
        out += "\\[";
        continue;
      }
      let set = glob.slice(i + 1, end);
      const negated = set.startsWith("!");
      if (negated) set = set.slice(1);
      out += `[${negated ? "^" : ""}${set.replace(/\\/g, "\\\\").replace(/\^/g, "\\^")}]`;
      i = end;
    } else out += char.replace(/[.+^${}()|\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

/** A matcher for one list: every name when the list is absent or empty. */
export function allows(globs: string[] | undefined): (name: string) => boolean {
  if (!globs?.length) return () => true;
  const res = globs.map(globToRegExp);
  return (name) => res.some((re) => re.test(name));
}

/** `--allow-topics '/mobile/*,/arm/*'` → the list (blank entries dropped). */
export const parseGlobs = (text: string | undefined): string[] | undefined => {
  const list = (text ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
};
