/** Summarizer: the bounded history buffer → a belief about the world and the task's progress (CLEA's memory). */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { Summary } from "../schemas";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { recallSightings, rememberSightings } from "../lessons";
import { runOf } from "../../../nodes/run";
import type { CleaSettings } from "../configuration";

export const SUMMARIZER_PROMPT = `You keep the team's memory. From your previous belief and the newest history entries
(observations, actions with their outcomes, feedback), write the updated belief:
- where each object is (a place, or the robot holding it) and how you know it: seen, the result of an action, or told
  by the instruction; an object not seen in a place whose inside is now in view is no longer there;
- each door or drawer: open, closed or unknown; what each robot holds; where each robot stands;
- which places have been looked into, which objects have been seen at least once;
- progress: which parts of the task are done and which remain.
At the start of an episode you may also get where objects were found in earlier episodes: treat those as likely,
not certain.
Prefer what was seen most recently over older beliefs.
Then judge the task against the updated belief: achieved when every part of the instruction is done (for a "find"
task, an object counts as found once a camera has seen it), and the parts that remain.`;

export async function summarize(state: ClosedLoopStateType, config?: LangGraphRunnableConfig): Promise<ClosedLoopUpdate> {
  const run = runOf<CleaSettings>(config);
  const opts = run.settings;
  const entries = state.history.filter((e) => e.id > state.beliefUpTo);
  // Ablation: no summarizer — the planner works from the raw (bounded) history instead of a belief.
  if (opts.variant === "no-summarizer" || entries.length === 0) return {};
  const s = await run.session();
  // Cross-episode memory: where things were found before (only when the graph runs with a store).
  const remembered = state.belief ? [] : await recallSightings(config?.store, s.world.name);
  const { value, usage } = await askStructured(s.models, s.modelConfig, {
    role: "summarizer",
    schema: Summary,
    schemaName: "Summary",
    system: SUMMARIZER_PROMPT,
    task: "summarize",
    // What holds for the whole run first (a prompt-cache prefix), then what changed.
    context: { world: worldForModel(s.world), robots: s.robots.map((r) => r.id), goal: state.goal, remembered, previousBelief: state.belief, entries },
  });
  const { achieved, remaining, ...belief } = value;
  const thread = String((config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "");
  await rememberSightings(config?.store, s.world.name, state.belief, belief, s.world.places.map((p) => p.name), thread);
  const upTo = entries.at(-1)!.id;
  return { belief, beliefUpTo: upTo, judged: { achieved, remaining, upTo }, usage };
}
