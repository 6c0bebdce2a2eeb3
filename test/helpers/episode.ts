/** Runs the closed-loop graph in this process against a simulator process, and keeps the trace of node updates. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph";
import { compileClosedLoop } from "../../graphs/closedLoop";
import type { ClosedLoopStateType } from "../../graphs/state";
import type { NoiseKnobs } from "../../models/symbolic/reasoner";
import { memoryCheckpointer } from "../../memory/checkpointer";
import { BridgeClient } from "../../robots/bridge/client";
import { loadScenario } from "../../robots/sim/kitchen/scenario";

export interface TraceStep {
  node: string;
  update: Partial<ClosedLoopStateType>;
}

export interface Episode {
  trace: TraceStep[];
  state: ClosedLoopStateType;
  truth: { success: boolean; state: Record<string, string> };
  events: { kind: string; robot?: string; skill?: string; goalId?: string; detail?: string; step: number }[];
}

export const scratchDir = () => mkdtempSync(join(tmpdir(), "robograph-"));

export async function runEpisode(o: {
  url: string;
  scenario: string;
  variant?: string;
  noise?: number;
  noiseKnobs?: Partial<NoiseKnobs>;
  seed?: number;
  thread?: string;
  maxSteps?: number;
  backend?: "symbolic" | "openai";
  store?: BaseStore;
}): Promise<Episode> {
  const graph = compileClosedLoop(memoryCheckpointer(), o.store);
  const config = {
    configurable: {
      thread_id: o.thread ?? `${o.scenario}-${o.variant ?? "full"}`,
      bridgeUrl: o.url,
      variant: o.variant ?? "full",
      backend: o.backend ?? "symbolic",
      noise: o.noise ?? 0,
      noiseKnobs: o.noiseKnobs,
      seed: o.seed ?? 0,
      maxSteps: o.maxSteps ?? 40,
      dataDir: scratchDir(),
    },
    recursionLimit: 1000,
  };
  const trace: TraceStep[] = [];
  for await (const chunk of await graph.stream({ goal: loadScenario(o.scenario).instruction }, { ...config, streamMode: "updates" })) {
    for (const [node, update] of Object.entries(chunk)) trace.push({ node, update: update as Partial<ClosedLoopStateType> });
  }
  const state = (await graph.getState(config)).values as ClosedLoopStateType;
  const c = await BridgeClient.connect(o.url);
  const truth = await c.callService<Episode["truth"]>("/evaluator/check");
  const { events } = await c.callService<{ events: Episode["events"] }>("/evaluator/events");
  await c.close();
  return { trace, state, truth, events };
}

/** The skill calls an episode executed, in order, with their outcome. */
export function executed(e: Episode): { call: string; ok: boolean; message: string }[] {
  return e.trace.flatMap((t) =>
    t.node === "executor" && t.update.history?.[0]?.kind === "action"
      ? [{ call: callText(t.update.history[0].call), ok: t.update.history[0].ok, message: t.update.history[0].message }]
      : [],
  );
}

export const callText = (c: { robot: string; skill: string; args: Record<string, string> }) => `${c.robot}.${c.skill}(${Object.values(c.args).join(", ")})`;
