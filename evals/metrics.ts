/**
 * What an episode yields, and the evaluators that score it. Evaluators are plain functions of the run's outputs:
 * the local report and LangSmith's `evaluate` call the same ones.
 */
export interface EpisodeResult {
  id: string;
  variant: string;
  example: string;
  task: string;
  family: string;
  /** RePLan's task number, for its Table 1 layout. */
  paperTask?: number;
  /** VLM-PC: which of its tables reports the course (I: real settings, II: the simulated dead end). */
  paperTable?: "I" | "II" | "generated";
  /** VLM-PC: skill seconds until the toy was reached; a failure counts as the whole budget (100 s). */
  courseSeconds?: number;
  /** VLM-PC's Table II: the robot got out of the dead end. */
  firstSuccess?: boolean;
  condition: string;
  seed: number;
  noise: number;
  status: string;
  statusReason: string;
  /**
   * The episode counts as a success. CLEA and RePLan: the goal holds on the simulator's true state and the run did not
   * end on a budget — an agent that ran out of budget did not finish. VLM-PC: the simulator saw the body reach the toy
   * within the time budget, for every variant, as a trial ends when the robot gets there (`agentReached` says whether
   * the planner said so).
   */
  success: boolean;
  /** VLM-PC: the planner itself declared the toy reached (the run ended `succeeded`). */
  agentReached?: boolean;
  /** The simulator's check alone, whatever the run's status (absent in results made before it was recorded). */
  goalHeld?: boolean;
  goal: { literal: string; holds: boolean }[];
  /** CLEA's score: one point per correctly executed action (a skill the robot completed) within the run's budget. */
  score: number;
  steps: number;
  /** RePLan: motion (MPC) and vision (VLM) actions. */
  motions?: number;
  visionSteps?: number;
  /** RePLan: new procedures after a plan failed without a known cause or ended without the goal. */
  procedures?: number;
  failedActions: number;
  replans: number;
  verdicts: Record<string, number>;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  skillSeconds: number;
  wallSeconds: number;
  /** Episode record, relative to the experiment directory. */
  record: string;
  error?: string;
  /** The experiment's settings the episode was made under, and its dataset row's fingerprint (resume checks both). */
  settings?: Record<string, unknown>;
  exampleHash?: string;
}

/**
 * Whether an episode counts as a success in a table. Results written before `success` excluded budget-exhausted runs
 * say success with that status; they are judged by the same rule — except VLM-PC's trials (they carry `paperTable`),
 * which the simulator's reach decides whatever the run did afterwards.
 */
export function counted(e: Pick<EpisodeResult, "success" | "status"> & { paperTable?: string }): boolean {
  return !!e.success && (e.paperTable !== undefined || e.status !== "budget_exhausted");
}

/**
 * Points for actions that succeeded within the run's budget, in order: actions past the budget (the skill that ran
 * over a time budget, anything after it) add nothing. `cost` is what each action spends of the budget (1 for a count).
 */
export function scoreWithinBudget(actions: { ok: boolean; cost: number }[], budget: number): number {
  let spent = 0;
  let score = 0;
  for (const a of actions) {
    spent += a.cost;
    if (spent > budget) break;
    if (a.ok) score++;
  }
  return score;
}

export type EvaluatorResult = { key: string; score: number };
type Outputs = { outputs?: Partial<EpisodeResult> };

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Each evaluator: ({ outputs }) → { key, score }, the shape LangSmith's evaluate accepts. */
export const EVALUATORS: Record<string, (args: Outputs) => EvaluatorResult> = {
  success: ({ outputs }) => ({ key: "success", score: outputs && counted({ success: !!outputs.success, status: outputs.status ?? "", paperTable: outputs.paperTable }) ? 1 : 0 }),
  average_score: ({ outputs }) => ({ key: "average_score", score: num(outputs?.score) }),
  steps: ({ outputs }) => ({ key: "steps", score: num(outputs?.steps) }),
  replans: ({ outputs }) => ({ key: "replans", score: num(outputs?.replans) }),
  critic_rejections: ({ outputs }) => ({
    key: "critic_rejections",
    score: Object.entries(outputs?.verdicts ?? {}).reduce((n, [k, v]) => (k === "ok" ? n : n + v), 0),
  }),
  model_calls: ({ outputs }) => ({ key: "model_calls", score: num(outputs?.modelCalls) }),
  tokens: ({ outputs }) => ({ key: "tokens", score: num(outputs?.inputTokens) + num(outputs?.outputTokens) }),
  skill_seconds: ({ outputs }) => ({ key: "skill_seconds", score: num(outputs?.skillSeconds) }),
  wall_seconds: ({ outputs }) => ({ key: "wall_seconds", score: num(outputs?.wallSeconds) }),
};
