/**
 * Analyse: each skill still being learned has its learning curve drawn as a plot (PNG, kept as an artifact), and the
 * analyst — shown six example plots with their verdicts first — says whether its training has converged, with its
 * reasoning. A converged skill joins the library — with the policy of its curve's best point — and the next proposals
 * and decompositions can use it.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart, addUsage, type Usage } from "../../../models";
import { ConvergenceVerdict, type AnalyseContext } from "../schemas";
import { EXEMPLARS, exemplarPlots } from "./exemplars";
import { renderCurve } from "./plot";
import { loadPolicies, storePolicies, type Policies } from "./policies";
import { skillId } from "./skills";
import type { CurriculumStateType, CurriculumUpdate, LearningTarget, LibrarySkill } from "../state";
import { runOf } from "../../../runtime/run";
import type { CurriculumSettings } from "../configuration";

export const ANALYST_PROMPT = `You watch over reinforcement-learning experiments. Each image is a plot of one skill's evaluation return
(y, from 0 to the largest return possible) against learner iterations (x, the axis spans the planned iterations, so
a young curve covers only its left part). Decide whether training of the skill has converged: YES when the curve has
levelled off, or has peaked and is declining; NO while it is still rising, when it fell and is rising again, or when
there is too little of it to tell. First come example plots, in order, each with its verdict and reason; the last
image is the curve to judge. Answer with a short reasoning about the curve's shape and converged true (YES) or false (NO).`;

/** Judges one curve: its plot rendered and stored, the analyst asked. */
export async function judge(target: LearningTarget, iteration: number, horizon: number, config?: RunnableConfig) {
  const run = runOf<CurriculumSettings>(config);
  const png = await renderCurve({
    title: target.caption,
    returns: target.returns,
    maxReturn: target.maxReturn,
    horizon,
  });
  const plot = run.artifacts.put(png);
  const symbolic = run.modelConfig.backend === "symbolic";
  const context: AnalyseContext = {
    skill: target.caption,
    axes: {
      xMax: Math.max(horizon, target.returns.length - 1),
      yMax: target.maxReturn,
      xLabel: "learner iterations",
      yLabel: "evaluation return",
    },
    exemplars: EXEMPLARS.map(({ reasoning, converged }) => ({ reasoning, converged })),
    // A reader without image input (the offline analyst) gets the same PNG inside the prompt.
    ...(symbolic ? { plotPng: png.toString("base64") } : {}),
  };
  const images = symbolic
    ? []
    : await Promise.all(
        [...(await exemplarPlots(horizon)), png].map((p) => imagePart(p, run.modelConfig.imageMaxSide)),
      );
  const { value, usage } = await askStructured(run.models, run.modelConfig, {
    role: "analyst",
    schema: ConvergenceVerdict,
    schemaName: "ConvergenceVerdict",
    system: ANALYST_PROMPT,
    task: "analyse_curve",
    context: context as unknown as Record<string, unknown>,
    images,
  });
  return { analysis: { iteration, plot, converged: value.converged, reasoning: value.reasoning }, usage };
}

export async function analyse(state: CurriculumStateType, config?: RunnableConfig): Promise<CurriculumUpdate> {
  const run = runOf<CurriculumSettings>(config);
  const opts = run.settings;
  const iteration = state.counters.iterations;
  const targets: Record<string, LearningTarget> = { ...state.targets };
  const joined: LibrarySkill[] = [];
  const kept: Policies = {};
  let usage: Usage = {};
  for (const t of Object.values(state.targets)) {
    // A curve is judged once per new point.
    if (t.converged || !t.returns.length || t.analyses.at(-1)?.iteration === iteration) continue;
    const { analysis, usage: spent } = await judge(t, iteration, opts.curveHorizon, config);
    usage = addUsage(usage, spent);
    targets[t.caption] = { ...t, analyses: [...t.analyses, analysis], converged: analysis.converged };
    if (analysis.converged && !state.library.some((l) => l.caption === t.caption)) {
      joined.push({ caption: t.caption, since: iteration, source: "learned" });
      // Training stops here; the library keeps the policy of the curve's best point (early stopping, what the analysis
      // is for): a curve judged converged after it peaked does not leave the skill at its declined end. Best on the
      // selection layouts, so the figures reported for the kept policy are not the ones it was chosen by.
      const chosenBy = t.selection?.length === t.returns.length ? t.selection : t.returns;
      const point = chosenBy.indexOf(Math.max(...chosenBy));
      targets[t.caption].kept = { point, return: t.returns[point], finalSuccess: t.finalSuccess[point] ?? 0 };
      const id = skillId(t.caption);
      // (A best point before the skill had a policy of its own keeps the current one.)
      const best =
        point < t.returns.length - 1 && t.snapshots[point]
          ? loadPolicies(run.artifacts, t.snapshots[point])[id]
          : undefined;
      if (best) kept[id] = best;
    }
  }
  const policies = Object.keys(kept).length
    ? storePolicies(run.artifacts, { ...loadPolicies(run.artifacts, state.policies), ...kept })
    : undefined;
  return {
    targets,
    usage,
    ...(joined.length ? { library: [...state.library, ...joined] } : {}),
    ...(policies ? { policies } : {}),
  };
}
