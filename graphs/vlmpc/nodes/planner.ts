/**
 * VLM-PC's planner: from the current view and the interaction history (earlier views, its own earlier answers, what
 * each skill did), reason about progress, write a multi-step plan of (skill, magnitude), compare it with the previous
 * plan, keep or revise it; the first skill is run. The variants differ only in what the prompt carries:
 * no-history drops the earlier steps and the previous plan, no-multi-step asks for one skill, full+ic adds labelled
 * example frames once at the start; random asks no model at all.
 */
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { askStructured, imagePart } from "../../../models";
import { contextBlock } from "../../../models/context";
import { COURSE_SKILLS, CourseCommand, CoursePlan, MAGNITUDES, type CourseContext } from "../schemas";
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { Session } from "../../../runtime/session";
import type { StepRecord, VlmpcStateType, VlmpcUpdate } from "../state";
import { parseSettings, runOf } from "../../../runtime/run";
import { tokens } from "../../../models/tokens";
import { VlmpcConfiguration, type VlmpcSettings } from "../configuration";

export const COURSE_PLANNER_PROMPT = `You steer a four-legged robot about the size of a golden retriever (body about 0.6 m long and
0.25 m wide) through an obstacle course to a red chew toy. Its only sense is a camera on its head, at the front of the
body: the hips are 0.6 m behind what the camera shows, so the camera can be through a gap while the body is stuck.
Skills, each with a magnitude small (1 s), medium (2 s) or large (4 s):
- walk: forward; slopes are fine.
- crawl: forward with the body lowered to 0.14 m — for going under things with room beneath (sofas, benches).
- climb: forward over something lower than 0.2 m (a cushion, a log, a curb, a plank, a stair step).
- backward: reverse, to back out of a dead end or away from something the body is stuck on.
- turn_left / turn_right: turn in place by about 15°, 30° or 60°; walking, crawling and climbing then go the new way.
Each step you get the newest image with the detector's report (label, box in pixels, distance in metres, bearing in
degrees with left positive, height of the top and of the underside, width in metres) and, unless told otherwise,
every earlier step: its image, your answer then and what the body did (moved metres, turned degrees, stalled). A skill
that moved nothing means the body is stuck, even if the view looks clear: do not simply repeat it.
Answer with:
- progress: what the history shows — what was tried, what worked, what got stuck, where the toy was last seen;
- plan: the next skills in order (several, unless asked for exactly one); only the first runs now;
- keepsPrevious and comparison: whether this plan continues your previous one, and why you keep or change it;
- reached: true only when the toy is right in front of the robot.
Images come in this order: labelled examples (if any), then one per earlier step, then the current view last.`;

/** A labelled example frame, as a person would label views of the course with the best command (VLM-PC+IC). */
const Example = z.object({
  image: z.string().describe("base64 PNG"),
  detections: z.array(z.any()),
  best: CourseCommand,
  note: z.string(),
});
const ExampleFile = z.object({
  course: z.string(),
  seed: z.number().int().optional().describe("the course seed the examples were taken at"),
  examples: z.array(Example).min(1),
});
type Example = z.infer<typeof Example>;

const exampleCache = new Map<string, Example[]>();
function loadExamples(path: string | undefined): Example[] {
  if (!path)
    throw new Error(
      "variant full+ic needs labelled examples: set `labelledExamples` (a file under evals/datasets/course_examples/)",
    );
  let cached = exampleCache.get(path);
  if (!cached) {
    const parsed = ExampleFile.safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (!parsed.success)
      throw new Error(`${path} is not a file of labelled examples: ${z.prettifyError(parsed.error)}`);
    cached = parsed.data.examples;
    exampleCache.set(path, cached);
  }
  return cached;
}

const toySighting = (detections: RangedDetection[]) => {
  const toy = detections.find((d) => d.label === "toy");
  return toy ? { distance: toy.distance, bearing: toy.bearing } : undefined;
};

/** What the prompt carries for this variant, and the frames that go with it (artifact refs or PNG base64), in order. */
export function coursePrompt(
  state: VlmpcStateType,
  opts: VlmpcSettings,
): { context: CourseContext; frames: { ref?: string; base64?: string }[] } {
  const sight = state.sight!;
  const withHistory = opts.variant !== "no-history";
  const done = state.steps.filter((r): r is StepRecord & { result: NonNullable<StepRecord["result"]> } => !!r.result);
  const window = opts.historyWindow > 0 ? opts.historyWindow : done.length;
  const recent = withHistory ? done.slice(Math.max(0, done.length - window)) : [];
  const older = withHistory ? done.slice(0, done.length - recent.length) : [];
  const examples = opts.variant === "full+ic" ? loadExamples(opts.labelledExamples) : [];
  const context: CourseContext = {
    frame: { fov: sight.fov, imageWidth: sight.imageWidth, detections: sight.detections },
    history: recent.map((r) => ({ step: r.step, detections: r.detections, answer: r.answer, result: strip(r.result) })),
    ...(older.length
      ? { summary: older.map((r) => ({ step: r.step, ...strip(r.result), toy: toySighting(r.detections) })) }
      : {}),
    ...(withHistory && state.plan.length ? { previousPlan: state.plan } : {}),
    multiStep: opts.variant !== "no-multi-step",
    ...(examples.length
      ? {
          examples: examples.map((example) => ({
            detections: example.detections as RangedDetection[],
            best: example.best,
            note: example.note,
          })),
        }
      : {}),
  };
  const frames = [
    ...examples.map((e) => ({ base64: e.image })),
    ...recent.map((r) => ({ ref: r.frame })),
    { ref: sight.frame },
  ];
  return { context, frames };
}

/** The text a planning call sends besides its images: instructions and the context block. */
export const promptChars = (context: CourseContext) =>
  COURSE_PLANNER_PROMPT.length + contextBlock("plan_course", context as unknown as Record<string, unknown>).length;

const strip = ({ seconds: _s, ...r }: NonNullable<StepRecord["result"]>) => r;

/** The random baseline's draw: uniform over skills and magnitudes, keyed by the seed and the step. */
function randomCommand(seed: number, step: number): CourseCommand {
  const digest = createHash("sha256").update(`random-baseline|${seed}|${step}`).digest();
  return {
    skill: COURSE_SKILLS[digest[0] % COURSE_SKILLS.length],
    magnitude: MAGNITUDES[digest[1] % MAGNITUDES.length],
  };
}

async function imagesFor(session: Session, frames: { ref?: string; base64?: string }[]) {
  if (session.modelConfig.backend !== "openai") return [];
  return Promise.all(
    frames.map((frame) =>
      imagePart(
        frame.ref ? session.artifacts.get(frame.ref) : Buffer.from(frame.base64!, "base64"),
        session.modelConfig.imageMaxSide,
      ),
    ),
  );
}

export async function planCourse(state: VlmpcStateType, config?: RunnableConfig): Promise<VlmpcUpdate> {
  const run = runOf<VlmpcSettings>(config);
  const opts = run.settings;
  const sight = state.sight!;
  const step = state.steps.length;
  if (opts.variant === "random") {
    const command = randomCommand(opts.seed, step);
    const answer: CoursePlan = {
      progress: "",
      plan: [command],
      keepsPrevious: false,
      comparison: "random baseline: no model is asked",
      reached: false,
    };
    return { steps: [{ step, ...sight, answer, prompt: { images: 0, chars: 0 } }], sight: null, plan: [] };
  }
  const session = await run.session();
  const { context, frames } = coursePrompt(state, opts);
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "planner",
    schema: CoursePlan,
    schemaName: "CoursePlan",
    system: COURSE_PLANNER_PROMPT,
    task: "plan_course",
    context: context as unknown as Record<string, unknown>,
    images: await imagesFor(session, frames),
  });
  // Asked for one skill, a longer answer still runs only its first.
  const answer = context.multiStep ? value : { ...value, plan: value.plan.slice(0, 1) };
  const prompt = { images: frames.length, chars: promptChars(context) };
  const record = { step, ...sight, answer, prompt };
  if (answer.reached)
    return {
      steps: [record],
      sight: null,
      plan: [],
      usage,
      status: "succeeded",
      statusReason: "the planner sees the toy reached",
    };
  return { steps: [record], sight: null, plan: answer.plan.slice(1), usage };
}

/**
 * What the planning call carries at `state` when it keeps the last `window` steps of history (0: the whole history,
 * the paper's): its text tokens (o200k, as the latency bench counts them) and its images — the bench's measure of
 * the history window (evals/bench/course.ts), asked here so the setting is named in its method's folder alone.
 */
export function planningPromptSize(state: VlmpcStateType, window: number): { tokens: number; images: number } {
  const settings = parseSettings(VlmpcConfiguration, { variant: "full", historyWindow: window }, {});
  const { context, frames } = coursePrompt(state, settings);
  return {
    tokens:
      tokens(COURSE_PLANNER_PROMPT).length +
      tokens(contextBlock("plan_course", context as unknown as Record<string, unknown>)).length,
    images: frames.length,
  };
}
