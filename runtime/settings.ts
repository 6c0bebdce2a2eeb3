/**
 * The settings every graph's run configuration shares (bridge, variant, models, noise, budgets), and the builder each
 * method's configuration (graphs/<id>/configuration.ts) adds its own settings to.
 */
import { z } from "zod";
import { ROLES, type Role } from "../models";

export const count = (what: string, dflt: number) =>
  z.coerce.number().int().min(0).default(dflt).describe(`${what} (default ${dflt})`);

/**
 * Speculation (CLEA, RePLan): while a skill runs, prepare the next action and its check against the skill's predicted
 * outcome; the look after the skill confirms it (sent at once) or revokes it. Off by default, so a method's rows stay
 * the paper's loop. A form's or a command line's "false" is false.
 */
export const pipelineSetting = z
  .preprocess(
    (v) => (v === "true" || v === "1" ? true : v === "false" || v === "0" || v === "" ? false : v),
    z.boolean(),
  )
  .default(false)
  .describe(
    "prepare the next action and its critique while a skill runs, against the skill's predicted effects; the look after it confirms (sent at once) or revokes them (default off: the paper's loop)",
  );

/**
 * A graph's run configuration: what Studio draws as the assistant's form (published by the LangGraph server as the
 * graph's config/context schema) and what every node's run settings are parsed against; a node reads them with
 * `runOf(config).settings` (runtime/run.ts). One schema, so the form's defaults are the defaults the run uses.
 */
export function runConfiguration<
  V extends readonly [string, ...string[]],
  E extends z.ZodRawShape = Record<never, never>,
>(variants: V, own: E = {} as E) {
  return z.object({
    bridgeUrl: z
      .string()
      .optional()
      .describe(
        "WebSocket URL of the robot bridge (rosbridge v2), e.g. ws://127.0.0.1:9090; falls back to ROBOGRAPH_BRIDGE_URL",
      ),
    bridgeToken: z
      .string()
      .optional()
      .describe("token the bridge requires off loopback; falls back to ROBOGRAPH_BRIDGE_TOKEN"),
    manifest: z
      .string()
      .optional()
      .describe(
        "a manifest file ({ robots, world }) for a robot whose bridge serves no /robograph/manifest, such as a plain ROS robot (robograph connect drafts one); falls back to ROBOGRAPH_MANIFEST",
      ),
    variant: z
      .enum(variants)
      .default(variants[0] as V[number] as never)
      .describe(`which agent runs: ${variants.join(", ")} (default ${variants[0]})`),
    backend: z
      .enum(["openai", "symbolic"])
      .optional()
      .describe(
        "model backend: openai (any OpenAI-compatible endpoint; needs OPENAI_API_KEY) or symbolic (the built-in offline reasoner); default openai when a key is set",
      ),
    model: z.string().optional().describe("model name for every role (ROBOGRAPH_MODEL, default gpt-4o-mini)"),
    models: z
      .object(
        Object.fromEntries(ROLES.map((r) => [r, z.string().optional().describe(`model for the ${r} role`)])) as Record<
          Role,
          z.ZodOptional<z.ZodString>
        >,
      )
      .optional()
      .describe("per-role model names, over `model`"),
    seed: z.coerce
      .number()
      .int()
      .default(0)
      .describe("seed of every random draw (symbolic reasoner's noise); the same seed gives the same run"),
    noise: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe("symbolic reasoner's noise level in [0, 1]: one level sets every knob in fixed proportions"),
    noiseKnobs: z
      .record(z.string(), z.number())
      .optional()
      .describe("individual noise knobs on top of the level (studies and tests)"),
    approve: z
      .preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(z.string()))
      .default([])
      .describe("skills that pause for a human's approval before they run, as robot/skill"),
    maxSteps: count("skills (or motions) a run may send", 40),
    maxReplans: count("plans a run may make after its first", 15),
    maxModelCalls: count("model calls a run may make", 400),
    maxWallSeconds: count("wall-clock seconds a run may take", 900),
    pausedSeconds: z.coerce
      .number()
      .min(0)
      .default(0)
      .describe(
        "seconds a resumed run spent stopped (its process dead, its job waiting to be taken over): not counted against maxWallSeconds",
      ),
    dataDir: z
      .string()
      .optional()
      .describe("where checkpoints, memory and frames are kept (ROBOGRAPH_DATA_DIR, default ./data)"),
    ...own,
  });
}

/** The settings every method's run has (its variant is one of the method's own). */
export type SharedSettings = Omit<
  z.infer<ReturnType<typeof runConfiguration<readonly [string, ...string[]]>>>,
  "variant"
> & { variant: string };

/** The keys every method's configuration shares (its own settings are the rest). */
const SHARED_KEYS = new Set(Object.keys(runConfiguration(["full"]).shape));

/**
 * One of a method's own settings as every way in names it: its key in the configuration (Studio's form), its flag on
 * the command line, its argument of an MCP tool. Declared once, in graphs/<id>/configuration.ts; the ways in are
 * generated from the declaration, so no method's setting is named outside its folder.
 */
export interface OwnSetting {
  key: string;
  /** `historyWindow` → `history-window`. */
  flag: string;
  /** `historyWindow` → `history_window` (MCP's arguments are snake_case). */
  argument: string;
  /** Its JSON Schema (the input side: what a caller may give), with its description and default. */
  schema: Record<string, unknown> & { description?: string; type?: string; default?: unknown };
  /** A switch on the command line (`--pipeline`), not a flag with a value. */
  boolean: boolean;
}

/** A method's own settings, in the order its configuration declares them. */
export function ownSettings(configuration: z.ZodObject<z.ZodRawShape>): OwnSetting[] {
  return Object.entries(configuration.shape)
    .filter(([key]) => !SHARED_KEYS.has(key))
    .map(([key, field]) => {
      const { $schema: _, ...schema } = z.toJSONSchema(field as z.ZodType, { io: "input", unrepresentable: "any" });
      return {
        key,
        flag: key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`),
        argument: key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
        schema: schema as OwnSetting["schema"],
        boolean: schema.type === "boolean",
      };
    });
}

/**
 * The own settings a caller gave by flag or argument name (`pick(setting)` returns undefined for one not given), as
 * configuration keys; a value the configuration refuses is refused when the run's settings are parsed.
 */
export function givenSettings(
  configuration: z.ZodObject<z.ZodRawShape>,
  pick: (setting: OwnSetting) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(
    ownSettings(configuration).flatMap((setting) => {
      const value = pick(setting);
      return value === undefined ? [] : [[setting.key, value]];
    }),
  );
}

/**
 * A method's own settings with their defaults filled in, as an experiment records them (what its episodes were made
 * under). Speculation is not among them: it is a row of its own (evals/runner.ts, PIPELINED).
 */
export function ownSettingValues(
  configuration: z.ZodObject<z.ZodRawShape>,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const own = ownSettings(configuration).filter((setting) => setting.key !== "pipeline");
  const parsed = z
    .object(Object.fromEntries(own.map((setting) => [setting.key, configuration.shape[setting.key]!])))
    .safeParse(given);
  if (!parsed.success) throw new Error(`invalid settings: ${z.prettifyError(parsed.error)}`);
  return Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined));
}
