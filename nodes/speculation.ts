/**
 * Speculation's bookkeeping, shared by the methods that pipeline (CLEA, RePLan): while a skill runs, the next action is
 * prepared against the skill's predicted outcome; what the robot reports and sees after it decides whether that work
 * is used (the action is sent at once), revoked (the world did not come out as predicted: the work is dropped and the
 * ordinary path runs) or unused (the prediction held, but nothing was prepared that could go: the ordinary path runs).
 * Where the look has more than one likely outcome, work is prepared for each (a branch); the look confirms at most
 * one, and what the others cost is counted as wasted like revoked work. Alternatives are prepared only while what
 * they added to the waste stays within a share of the run's tokens (`mayPrepareAlternatives`).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { addUsage, totalUsage, withModelScope, type ModelScope, type Usage } from "../models";
import { runSignal } from "../runtime/estop";

export type SpeculationOutcome = "used" | "revoked" | "unused";

/**
 * What a run's speculation came to; tokens of revoked work and of branches the look did not confirm are wasted (spent
 * on a world that did not happen).
 */
export interface PipelineCounts {
  /** Skills during which the next action was prepared (and, where there is a critic, judged fit). */
  prepared: number;
  used: number;
  revoked: number;
  unused: number;
  /** Outcomes prepared for beyond the first (branches), and how many of them a look confirmed. */
  alternatives?: number;
  alternativesUsed?: number;
  /**
   * Tokens the alternatives added to the waste: what was dropped beyond what one prediction alone would have lost. Where
   * an alternative is confirmed, the first prediction's work is what a single prediction would have had revoked; so
   * only the other alternatives count.
   */
  alternativesWasted?: number;
  wastedCalls: number;
  wastedInputTokens: number;
  wastedOutputTokens: number;
}

export const NO_PIPELINE: PipelineCounts = {
  prepared: 0,
  used: 0,
  revoked: 0,
  unused: 0,
  alternatives: 0,
  alternativesUsed: 0,
  alternativesWasted: 0,
  wastedCalls: 0,
  wastedInputTokens: 0,
  wastedOutputTokens: 0,
};

/**
 * The counts after one speculation was decided: what a revoked one spent is wasted; of one the look decided otherwise,
 * what its `dropped` branches spent. `branches`: the alternatives prepared, whether the look confirmed one, and what
 * the alternatives the look did not confirm spent (their share of the waste: `alternativesWasted`).
 */
export function tally(
  counts: PipelineCounts,
  outcome: SpeculationOutcome,
  prepared: boolean,
  usage: Usage,
  dropped: Usage[] = [],
  branches: { alternatives: number; alternativeUsed: boolean; unconfirmed?: Usage[] } = {
    alternatives: 0,
    alternativeUsed: false,
  },
): PipelineCounts {
  const spent = totalUsage(outcome === "revoked" ? usage : dropped.reduce((u, d) => addUsage(u, d), {}));
  const extra = totalUsage((branches.unconfirmed ?? []).reduce((u, d) => addUsage(u, d), {}));
  return {
    ...counts,
    prepared: counts.prepared + (prepared ? 1 : 0),
    [outcome]: counts[outcome] + 1,
    alternatives: (counts.alternatives ?? 0) + branches.alternatives,
    alternativesUsed: (counts.alternativesUsed ?? 0) + (branches.alternativeUsed ? 1 : 0),
    alternativesWasted: (counts.alternativesWasted ?? 0) + extra.inputTokens + extra.outputTokens,
    wastedCalls: counts.wastedCalls + spent.calls,
    wastedInputTokens: counts.wastedInputTokens + spent.inputTokens,
    wastedOutputTokens: counts.wastedOutputTokens + spent.outputTokens,
  };
}

/**
 * The share of a run's tokens that `mayPrepareAlternatives` keeps what alternatives add to the waste under (give or
 * take one skill's branches).
 */
export const DISCARD_SHARE = 0.2;

/**
 * The bound on what branches may cost: beside the next skill, outcomes beyond the first are prepared only while what
 * alternatives added to the waste so far (`alternativesWasted`) is at most `share` of the run's tokens (prepared work
 * included). A single prediction's revoked work does not count against it: it is what speculating costs with or
 * without alternatives, and an alternative the look confirms is what saves it. A run whose alternatives keep being
 * dropped falls back to one prediction.
 */
export function mayPrepareAlternatives(usage: Usage, counts: PipelineCounts, share = DISCARD_SHARE): boolean {
  const spent = totalUsage(usage);
  return (counts.alternativesWasted ?? 0) <= share * (spent.inputTokens + spent.outputTokens);
}

/**
 * A speculator's work, in a model scope of its own: `work` fills in what it prepares and returns why nothing (more) was
 * prepared, if so. The usage is every request the work sent; a failure (an endpoint down, an answer that never fit)
 * costs only the time and becomes the note, since the ordinary path runs after the skill all the same.
 */
export async function prepareBeside(
  config: RunnableConfig | undefined,
  work: () => Promise<string | undefined>,
): Promise<{ note?: string; usage: Usage }> {
  const scope: ModelScope = { signal: runSignal(config), usage: {} };
  try {
    const note = await withModelScope(scope, work);
    return { ...(note ? { note } : {}), usage: scope.usage };
  } catch (err) {
    return { note: `could not prepare: ${(err as Error).message}`, usage: scope.usage };
  }
}

/**
 * The nodes of a graph that pipelines, as its descriptor declares them (graphs/method.ts `speculation`): what the
 * measures below read a trace by, besides the skill path's `dispatch` and `executor` every graph has.
 */
export interface SpeculatingNodes {
  /** The nodes whose update clears the action a dispatch sends on the ordinary path (a critique of it, a checked motion). */
  clearing: readonly string[];
  /** The node that clears it from work prepared beside the skill before (the check of the prediction after it). */
  prepared: string;
  /** The node whose update carries each robot's latest look (`observations`), where the method has one. */
  looks?: string;
}

/** The node names a measure reads a trace by. */
function speculating(nodes: SpeculatingNodes): { clearing: Set<string>; prepared: Set<string>; looks: Set<string> } {
  return {
    clearing: new Set([...nodes.clearing, nodes.prepared]),
    prepared: new Set([nodes.prepared]),
    looks: new Set(nodes.looks ? [nodes.looks] : []),
  };
}

/** What a look showed, as a perceiver's update carries it per robot. */
interface Seen {
  objects?: { name: string; relation: string; place: string }[];
  containers?: { name: string; state: string }[];
  visiblePlaces?: string[];
}

/** Why the looks say a skill call could not be what the world allows, if they do (a thing seen elsewhere, a door in the other state). */
function contradictedBy(call: { skill: string; args: Record<string, string> }, looks: Seen[]): string | undefined {
  const { object, place, target } = call.args;
  if (call.skill === "pick_from" && object && place) {
    for (const o of looks) {
      const here = o.objects?.some((x) => x.name === object && x.place === place);
      if (here) return undefined;
      const elsewhere = o.objects?.find((x) => x.name === object && x.place !== place);
      if (elsewhere) return `the ${object} was seen ${elsewhere.relation} the ${elsewhere.place}`;
      if (o.visiblePlaces?.includes(place)) return `the ${place} was seen without the ${object}`;
    }
  }
  if ((call.skill === "open" || call.skill === "close") && target) {
    const state = looks.flatMap((o) => o.containers ?? []).find((c) => c.name === target)?.state;
    if (state === (call.skill === "open" ? "open" : "closed")) return `the ${target} was seen ${state}`;
  }
  return undefined;
}

/**
 * Measured on a run's trace, not read from the prediction check's own verdicts: each skill sent, set against the
 * looks that came before it (every robot's latest observation). A skill whose object or door those looks show
 * otherwise — the thing seen elsewhere or its place seen without it, the door already in the state asked for — was
 * sent against the look. Counted for every dispatch, prepared or not; `prepared` counts those that went out on
 * prepared work (the prediction check's write), which is what speculation must never do.
 */
export function sentAgainstTheLook(
  trace: readonly { node: string; update: unknown }[],
  nodes: SpeculatingNodes,
): {
  all: number;
  prepared: number;
  examples: string[];
} {
  const { clearing, prepared, looks } = speculating(nodes);
  const latest = new Map<string, Seen>();
  let source: string | undefined;
  const out = { all: 0, prepared: 0, examples: [] as string[] };
  for (const step of trace) {
    const update = step.update as Record<string, unknown>;
    if (looks.has(step.node) && update.observations)
      for (const [robot, seen] of Object.entries(update.observations as Record<string, Seen>)) latest.set(robot, seen);
    if (clearing.has(step.node) && (update.critique || update.motion)) source = step.node;
    const sent =
      step.node === "dispatch"
        ? (
            update.pendingGoal as
              { call?: { robot: string; skill: string; args: Record<string, string> } } | null | undefined
          )?.call
        : undefined;
    if (!sent) continue;
    const why = contradictedBy(sent, [...latest.values()]);
    if (!why) continue;
    out.all++;
    if (source !== undefined && prepared.has(source)) out.prepared++;
    if (out.examples.length < 3)
      out.examples.push(`${sent.robot}.${sent.skill}(${Object.values(sent.args).join(", ")}): ${why}`);
  }
  return out;
}

/**
 * Measured on a run's trace, not read from the prediction check's verdicts: motions sent on prepared work right after
 * the controller reported the motion before them failed (RePLan speculates on the controller's report; it compares no
 * observed fact). The report is the executor's last motion entry before each dispatch.
 */
export function sentAgainstTheReport(
  trace: readonly { node: string; update: unknown }[],
  nodes: SpeculatingNodes,
): number {
  const { clearing, prepared } = speculating(nodes);
  let lastOk: boolean | undefined;
  let source: string | undefined;
  let count = 0;
  for (const step of trace) {
    const update = step.update as Record<string, unknown>;
    if (step.node === "executor") {
      const motion = ((update.log ?? []) as { kind: string; ok?: boolean }[]).findLast((x) => x.kind === "motion");
      if (motion) lastOk = !!motion.ok;
    }
    // Work prepared beside a check after the report (a plan verified since the failure) is not work on the report.
    const besideCheck = !!(update.speculation as { beside?: string } | undefined)?.beside;
    if (clearing.has(step.node) && (update.critique || update.motion)) source = besideCheck ? "check" : step.node;
    if (
      step.node === "dispatch" &&
      update.pendingGoal &&
      source !== undefined &&
      prepared.has(source) &&
      lastOk === false
    )
      count++;
  }
  return count;
}

/** The kinds of reason a prediction check gives (CLEA's look, RePLan's controller report), as the report counts them. */
const REASONS: [RegExp, string][] = [
  [/did not succeed/, "the controller reported the skill or motion failed"],
  [/plan is not at the step/, "the plan moved off the step the work was prepared for"],
  [/made for an earlier skill/, "the work was made for an earlier skill"],
  [/where predicted$/, "the look: a thing missing from a place in view where it was predicted"],
  [/, not .* as predicted$/, "the look: a thing, door or hand in another state than predicted"],
  [/which the prediction did not hold$/, "the look: a thing seen that the prediction did not hold"],
  [/verifier changed the plan/, "the plan verifier changed the plan the work was prepared on"],
  [/name check rewrote/, "the name check rewrote an explanation the work was prepared on"],
];

/** Why each revoked speculation was revoked, by kind of reason, counted from the trace: what the report tabulates. */
export function revocations(
  trace: readonly { node: string; update: unknown }[],
  nodes: SpeculatingNodes,
): Record<string, number> {
  const { prepared } = speculating(nodes);
  const out: Record<string, number> = {};
  for (const step of trace) {
    const sp = (step.update as { speculation?: { outcome?: string; why?: string } }).speculation;
    if (!prepared.has(step.node) || sp?.outcome !== "revoked") continue;
    const kinds = new Set(
      (sp.why ?? "").split("; ").map((part) => REASONS.find(([re]) => re.test(part))?.[1] ?? "other"),
    );
    for (const k of kinds) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
