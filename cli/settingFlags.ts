/**
 * The command line's flags for methods' own settings, generated from their configurations (graphs/<id>/configuration.ts)
 * with their --help lines: `historyWindow` is `--history-window N`, described by its declaration.
 */
import type { Method } from "../graphs";
import { givenSettings, ownSettings, type OwnSetting } from "../runtime/settings";

/** Where --help's descriptions start (robograph run's column; eval's is one further), and how wide its lines are. */
const INDENT = 23;
const WIDTH = 118;

/** Every own setting of these methods but those left out (by key), once per flag, with the methods that have it. */
function flagsOf(methods: readonly Method[], leftOut: readonly string[]): { setting: OwnSetting; methods: Method[] }[] {
  const byFlag = new Map<string, { setting: OwnSetting; methods: Method[] }>();
  for (const method of methods)
    for (const setting of ownSettings(method.configuration)) {
      if (leftOut.includes(setting.key)) continue;
      const entry = byFlag.get(setting.flag) ?? { setting, methods: [] };
      entry.methods.push(method);
      byFlag.set(setting.flag, entry);
    }
  return [...byFlag.values()];
}

/** parseArgs's options for these methods' own settings (no defaults: a flag not given leaves the method's default). */
export function settingFlagOptions(
  methods: readonly Method[],
  leftOut: readonly string[] = [],
): Record<string, { type: "string" | "boolean" }> {
  return Object.fromEntries(
    flagsOf(methods, leftOut).map(({ setting }) => [setting.flag, { type: setting.boolean ? "boolean" : "string" }]),
  );
}

/** What a flag's value is, in --help's usage. */
function placeholder(setting: OwnSetting): string {
  const schema = setting.schema as { type?: string; enum?: string[] };
  if (setting.boolean) return "";
  if (schema.enum) return ` ${schema.enum.join("|")}`;
  if (schema.type === "integer") return " N";
  if (schema.type === "number") return " X";
  if (schema.type === "array") return " LIST";
  return /\bfile\b/i.test(setting.schema.description ?? "") ? " FILE" : " S";
}

/** Text wrapped at --help's width, its lines after the first indented to the descriptions' column. */
function wrap(text: string, first: number, indent: number): string {
  const lines: string[] = [];
  let line = "";
  let room = WIDTH - first;
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

/** One option of --help: its usage, then what it does, wrapped to the descriptions' column. */
export function helpLine(usage: string, text: string, indent = INDENT): string {
  const lead = usage.length < indent - 3 ? `  ${usage}`.padEnd(indent) : `  ${usage}\n${" ".repeat(indent)}`;
  return `${lead}${wrap(text, indent, indent)}`;
}

/** --help's lines for these methods' own settings, each saying which graphs have it. */
export function settingFlagHelp(
  methods: readonly Method[],
  name: (method: Method) => string,
  leftOut: readonly string[] = [],
  indent = INDENT,
): string {
  return flagsOf(methods, leftOut)
    .map(({ setting, methods: having }) =>
      helpLine(
        `--${setting.flag}${placeholder(setting)}`,
        `${having.map(name).join(", ")}: ${setting.schema.description ?? ""}`,
        indent,
      ),
    )
    .join("\n");
}

/**
 * The own settings of `method` the command line gives, as configuration keys; a flag given for a setting this method
 * does not have is refused, naming the methods that have it.
 */
export function settingsFromFlags(
  method: Method,
  flags: Record<string, unknown>,
  methods: readonly Method[],
  name: (method: Method) => string,
  leftOut: readonly string[] = [],
): Record<string, unknown> {
  const own = new Set(ownSettings(method.configuration).map((setting) => setting.flag));
  for (const { setting, methods: having } of flagsOf(methods, leftOut))
    if (flags[setting.flag] !== undefined && !own.has(setting.flag))
      throw new Error(
        `--${setting.flag}: ${name(method)} has no such setting; ${having.map(name).join(" and ")} ${having.length > 1 ? "have" : "has"} it`,
      );
  return givenSettings(method.configuration, (setting) =>
    leftOut.includes(setting.key) ? undefined : flags[setting.flag],
  );
}
