/** Summarizer: the bounded history buffer → a belief about the world and the task's progress (CLEA's memory). */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { Summary, type Belief } from "../schemas";
import { lookContradicts } from "../belief";
import type { ClosedLoopStateType, ClosedLoopUpdate } from "../state";
import { recallSightings, rememberSightings } from "../lessons";
import { runOf } from "../../../runtime/run";
import type { CleaSettings } from "../configuration";

export const SUMMARIZER_PROMPT = `You keep the team's memory. From your previous belief and the newest history entries
(observations, actions with their outcomes, feedback), write the updated belief:
- where each object is (a place, or the robot holding it) and how you know it: seen, the sensed result of an action,
  an action's unsensed report (an entry marked unsensed: a gripper that cannot feel a grasp says only that it closed
  or opened there), or told by the instruction. Weigh them in this order: a sensed result is not undone by one frame
  that misses the thing; a camera's sighting beats an unsensed report and anything older; an object not seen in a
  place whose inside is now in view is no longer there; a hand's content is never judged by a camera not showing it
  (cameras here do not reliably see a hand); when two cameras disagree about a place in the same look, keep what you
  knew before;
- use the world's names for objects, whatever wording an observation used;
- each door or drawer: open, closed or unknown; what each robot holds; where each robot stands;
- which places have been looked into, which objects have been seen at least once;
- progress: which parts of the task are done and which remain.
At the start of an episode you may also get where objects were found in earlier episodes: treat those as likely,
not certain.
Prefer what was seen most recently over older beliefs.
Then judge the task against the updated belief: achieved when every part of the instruction is done (for a "find"
task, an object counts as found once a camera has seen it), and the parts that remain.`;

export async function summarize(
  state: ClosedLoopStateType,
  config?: LangGraphRunnableConfig,
): Promise<ClosedLoopUpdate> {
  const run = runOf<CleaSettings>(config);
  const opts = run.settings;
  const entries = state.history.filter((e) => e.id > state.beliefUpTo);
  // Ablation: no summarizer — the planner works from the raw (bounded) history instead of a belief.
  if (opts.variant === "no-summarizer" || entries.length === 0) return {};
  const session = await run.session();
  // Cross-episode memory: where things were found before (only when the graph runs with a store).
  const remembered = state.belief ? [] : await recallSightings(config?.store, session.world.name);
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "summarizer",
    schema: Summary,
    schemaName: "Summary",
    system: SUMMARIZER_PROMPT,
    task: "summarize",
    // What holds for the whole run first (a prompt-cache prefix), then what changed.
    context: {
      world: worldForModel(session.world),
      robots: session.robots.map((r) => r.id),
      goal: state.goal,
      remembered,
      previousBelief: state.belief,
      entries,
    },
  });
  const { achieved, remaining, ...belief } = value;
  const thread = String((config?.configurable as { thread_id?: string } | undefined)?.thread_id ?? "");
  await rememberSightings(
    config?.store,
    session.world.name,
    state.belief,
    belief,
    session.world.places.map((p) => p.name),
    thread,
  );
  const upTo = entries.at(-1)!.id;
  return {
    belief,
    beliefUpTo: upTo,
    judged: { achieved, remaining, upTo },
    usage,
    ...settle(
      state,
      belief,
      session.world.places.map((p) => p.name),
      session.world.labels,
    ),
  };
}

/**
 * A look that speaks against what a gripper reported without sensing it (the thing not where it was put, or not in
 * the hand) is one camera against the robot's account: unless that look was itself asked about the thing, the
 * cameras look again, for that thing, before anything else (graphs/clea/loops.ts). The belief keeps the report
 * meanwhile (graphs/clea/belief.ts); a model's summary that dropped it counts as the same disagreement.
 */
function settle(
  state: ClosedLoopStateType,
  belief: Belief,
  places: string[],
  labels: readonly string[],
): ClosedLoopUpdate {
  if (state.focusedAt === state.counters.iterations || state.focus) return {};
  const fresh = state.history.filter((e) => e.id > state.beliefUpTo);
  // What was reported: the belief's earlier reports, and those of the actions this summary folded in.
  const reported = [
    ...(state.belief?.objects ?? []).filter((o) => o.source === "reported"),
    ...fresh.flatMap((entry) =>
      entry.kind === "action" && entry.ok && entry.unsensed && entry.call.args.object
        ? [
            {
              name: entry.call.args.object,
              place: entry.call.skill === "release_to" ? entry.call.args.place : entry.call.robot,
            },
          ]
        : [],
    ),
  ];
  // A look since, not asked about the thing, that contradicts its latest report.
  const looks = fresh.flatMap((e) => (e.kind === "observation" && !e.askedAbout?.length ? [e] : []));
  const undone = reported.filter((report, i) => {
    if (reported.findLastIndex((x) => x.name === report.name) !== i) return false;
    if (!belief.objects.some((n) => n.name === report.name && n.place === report.place)) return true;
    const after = looks.filter(
      (l) => l.id > (fresh.findLast((e) => e.kind === "action" && e.call.args.object === report.name)?.id ?? 0),
    );
    return (
      after.length > 0 &&
      lookContradicts(
        after.map((l) => l.observation),
        report,
        labels,
      )
    );
  });
  if (!undone.length) return {};
  const why = `a look disagrees with what a gripper reported: ${undone.map((o) => `the ${o.name} ${places.includes(o.place) ? `in the ${o.place}` : `held by ${o.place}`}`).join(", ")}`;
  return {
    focus: {
      objects: undone.map((o) => o.name),
      places: undone.map((o) => o.place).filter((p) => places.includes(p)),
      why,
    },
  };
}
