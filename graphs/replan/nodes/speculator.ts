/**
 * Speculators (configurable.pipeline). Beside the executor, while the palm runs a motion, the next step's model work on
 * the motion's predicted outcome — it succeeds, and the plan moves on. A motion step gets its reward terms drafted and
 * verified; a vision step gets its questions (the answers need the view after the motion). A plan that runs through
 * leaves nothing to prepare: its completion check needs that view. The controller's report after the motion decides
 * whether the work is used (graphs/replan/nodes/predictionCheck.ts).
 * Beside the two checks whose outcome the next request would wait for, the same on the check's likely outcome — it
 * changes nothing: beside the plan verifier, the plan's current step prepared on the plan as the planner wrote it;
 * beside the name check of the perceiver's explanations, their consolidation on the explanations as worded. The
 * check's own answer decides whether that work is used. A failure here costs only time (nodes/speculation.ts).
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { prepareBeside } from "../../../nodes/speculation";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";
import type { ReplanSpeculation, ReplanStateType, ReplanUpdate } from "../state";
import { planMotion } from "./lowLevelPlanner";
import { verifyMotion } from "./rewardVerifier";
import { askQuestions } from "./visionQuestions";
import { consolidate } from "./consolidate";

const plain = async (u: Promise<ReplanUpdate>) => (await u) as Partial<ReplanStateType>;

export async function speculate(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  if (!state.pendingGoal) return {};
  // The state as it will be when the motion succeeds (runMotion's update on success).
  const hyp: ReplanStateType = {
    ...state,
    pendingGoal: null,
    motion: null,
    cursor: state.cursor + 1,
    counters: { ...state.counters, motions: state.counters.motions + 1 },
  };
  const record: ReplanSpeculation = {
    goalId: state.pendingGoal.goalId,
    cursor: hyp.cursor,
    step: hyp.plan?.steps[hyp.cursor]?.action ?? null,
    motion: null,
    answers: null,
    usage: {},
  };
  return prepared(record, config, () => prepareStep(hyp, record, config));
}

/** Beside the plan verifier: the plan's current step, prepared on the plan as the planner wrote it. */
export async function speculateBesidePlanCheck(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  if (!state.plan) return {};
  const record: ReplanSpeculation = {
    goalId: "",
    beside: "plan_verifier",
    plan: state.plan,
    cursor: state.cursor,
    step: state.plan.steps[state.cursor]?.action ?? null,
    motion: null,
    answers: null,
    usage: {},
  };
  return prepared(record, config, () => prepareStep(state, record, config));
}

/** Beside the name check of a failure's explanations: their consolidation, on the explanations as worded. */
export async function speculateBesideNameCheck(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  if (!state.failure) return {};
  const record: ReplanSpeculation = {
    goalId: "",
    beside: "remap_reasons",
    explanations: state.explanations,
    cursor: state.cursor,
    step: state.failure.step,
    motion: null,
    answers: null,
    usage: {},
  };
  return prepared(record, config, async () => {
    // Its usage is the scope's; the update is applied as it is, with nothing counted twice.
    const { usage: _counted, ...update } = await consolidate(state, config);
    record.consolidated = update;
    return undefined;
  });
}

/** The speculation's record with what `work` put in it, why it stopped short (if it did) and the model work it took. */
async function prepared(
  record: ReplanSpeculation,
  config: RunnableConfig | undefined,
  work: () => Promise<string | undefined>,
): Promise<ReplanUpdate> {
  const { note, usage } = await prepareBeside(config, work);
  return { speculation: { ...record, ...(note ? { note } : {}), usage }, usage };
}

/** The model work for the plan step at `hyp.cursor`, into `record`; why nothing (more) was prepared, if so. */
async function prepareStep(
  hyp: ReplanStateType,
  record: ReplanSpeculation,
  config?: RunnableConfig,
): Promise<string | undefined> {
  const run = runOf<ReplanSettings>(config);
  const next = hyp.plan?.steps[hyp.cursor];
  if (run.settings.variant === "one-shot") return "the one-shot baseline has no next step";
  if (!next) return "the plan runs through: its completion check needs the view after the motion";
  if (next.kind === "vision") {
    const asked = await plain(askQuestions(hyp, config));
    if (asked.status && asked.status !== "running") return `the vision step, on the prediction: ${asked.statusReason}`;
    // No questions: the facts settle the step (the update moves past it); the step after it is not prepared.
    record.answers = asked.answers ?? [];
    return undefined;
  }
  const drafted = await plain(planMotion(hyp, config));
  let motion = drafted.motion ?? null;
  if (motion && !["no-verifier", "one-shot"].includes(run.settings.variant)) {
    const checked = await plain(verifyMotion({ ...hyp, motion }, config));
    motion = checked.motion ?? null;
    if (!motion) return `the verifier kept no term for "${next.action}"`;
    if (checked.log?.length) record.notes = checked.log;
  }
  if (motion) {
    const { draft: _draft, ...sent } = motion as typeof motion & { draft?: unknown };
    record.motion = sent;
  }
  return undefined;
}
