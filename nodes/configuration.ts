/**
 * A run's configuration as every node reads it: the shared settings (./settings.ts) and every method's own
 * (nodes/<method>/configuration.ts), resolved from the environment, `configurable` and LangGraph's `context`.
 */
import { z } from "zod";
import type { RunnableConfig } from "@langchain/core/runnables";
import { dataDir } from "../memory/checkpointer";
import { runConfiguration } from "./settings";
import { CLEA_VARIANTS } from "./clea/configuration";
import { REPLAN_SETTINGS, REPLAN_VARIANTS } from "./replan/configuration";
import { VLMPC_SETTINGS, VLMPC_VARIANTS } from "./vlmpc/configuration";
import { CRITIC_SETTINGS, CRITIC_VARIANTS } from "./behaviorCritic/configuration";
import { CURRICULUM_SETTINGS, CURRICULUM_VARIANTS } from "./curriculum/configuration";

export type Variant = (typeof CLEA_VARIANTS)[number] | (typeof REPLAN_VARIANTS)[number] | (typeof VLMPC_VARIANTS)[number] | (typeof CRITIC_VARIANTS)[number] | (typeof CURRICULUM_VARIANTS)[number];
const VARIANTS = [...new Set<Variant>([...CLEA_VARIANTS, ...REPLAN_VARIANTS, ...VLMPC_VARIANTS, ...CRITIC_VARIANTS, ...CURRICULUM_VARIANTS])] as [Variant, ...Variant[]];

/** Any graph's configuration: nodes do not know which graph runs them; the graph's own schema checks its variants. */
const AnyRunConfiguration = runConfiguration(VARIANTS, { ...REPLAN_SETTINGS, ...VLMPC_SETTINGS, ...CRITIC_SETTINGS, ...CURRICULUM_SETTINGS });
export type RunOptions = z.infer<typeof AnyRunConfiguration> & { bridgeUrl: string; variant: Variant; dataDir: string };

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ""));

/**
 * The run's configuration, from the environment overlaid by `configurable` and then LangGraph's `context`.
 * `robotless`: a node that needs no robot (a critique of recorded rollouts) runs without a bridge URL.
 */
export function runOptions(config?: RunnableConfig & { context?: unknown }, robotless = false): RunOptions {
  const env = process.env;
  const fromEnv = defined({ bridgeUrl: env.ROBOGRAPH_BRIDGE_URL, bridgeToken: env.ROBOGRAPH_BRIDGE_TOKEN, manifest: env.ROBOGRAPH_MANIFEST, variant: env.ROBOGRAPH_VARIANT, seed: env.ROBOGRAPH_SEED, noise: env.ROBOGRAPH_NOISE, approve: env.ROBOGRAPH_APPROVE });
  const given = { ...fromEnv, ...defined((config?.configurable ?? {}) as Record<string, unknown>), ...defined((config?.context ?? {}) as Record<string, unknown>) };
  const parsed = AnyRunConfiguration.safeParse(given);
  if (!parsed.success) throw new Error(`invalid run configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  if (!c.bridgeUrl && !robotless) throw new Error("no bridge URL: set configurable.bridgeUrl or ROBOGRAPH_BRIDGE_URL (e.g. ws://127.0.0.1:9090)");
  return { ...c, bridgeUrl: c.bridgeUrl ?? "", dataDir: c.dataDir ?? dataDir() };
}

/**
 * `runOptions` for a graph's first node: the LangGraph server validates `context` against the graph's schema but not
 * `configurable`, so a variant of another graph would otherwise run here as an unnamed hybrid.
 */
export function graphRunOptions(config: RunnableConfig | undefined, graph: string, variants: readonly string[], robotless = false): RunOptions {
  const opts = runOptions(config, robotless);
  if (!variants.includes(opts.variant)) throw new Error(`invalid run configuration: variant ${opts.variant} is not one of ${graph}'s: ${variants.join(", ")}`);
  return opts;
}
