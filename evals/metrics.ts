/**
 * What an episode yields, and the evaluators that score it. Evaluators are plain functions of the run's outputs:
 * the local report and LangSmith's `evaluate` call the same ones.
 */
import { counted, type EpisodeResult } from "../graphs/report";

export { counted, scoreWithinBudget, type EpisodeResult } from "../graphs/report";

export type EvaluatorResult = { key: string; score: number };
type Outputs = { outputs?: Partial<EpisodeResult> };

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Each evaluator: ({ outputs }) → { key, score }, the shape LangSmith's evaluate accepts. */
export const EVALUATORS: Record<string, (args: Outputs) => EvaluatorResult> = {
  success: ({ outputs }) => ({
    key: "success",
    score:
      outputs && counted({ success: !!outputs.success, status: outputs.status ?? "", paperTable: outputs.paperTable })
        ? 1
        : 0,
  }),
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
