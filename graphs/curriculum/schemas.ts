/**
 * What Game On's curriculum roles answer: the proposer a free-text task, the decomposer free-text steps, the retriever
 * one library skill (or none) per step, the analyst a converged yes/no about a learning-curve plot — each with its
 * reasoning, as the paper's prompts ask for it. Also what each prompt carries, and how a learning curve is drawn
 * (the analyst's offline reader and the renderer agree on the plot's look, as a person reading plots knows it).
 */
import { z } from "zod";

export const TaskProposal = z.object({
  reasoning: z
    .string()
    .describe(
      "what the image and the record of successes and failures show, and why this task is both new and within reach",
    ),
  task: z
    .string()
    .min(3)
    .describe("one task for the robot, in free text, e.g. 'put the red block on top of the green one'"),
});
export type TaskProposal = z.infer<typeof TaskProposal>;

export const TaskDecomposition = z.object({
  reasoning: z.string().describe("how the task breaks down, given what the image shows and the skills available now"),
  steps: z
    .array(z.string().min(2))
    .min(1)
    .max(12)
    .describe(
      "the steps in order, in free text; use an available skill's wording where one does the step, and name a step plainly where none does",
    ),
});
export type TaskDecomposition = z.infer<typeof TaskDecomposition>;

export const SkillRetrieval = z.object({
  reasoning: z.string().describe("which library skill does what the step asks, or why none does"),
  skill: z
    .string()
    .nullable()
    .describe("exactly one skill caption copied from the library, or null when no skill in the library does the step"),
});
export type SkillRetrieval = z.infer<typeof SkillRetrieval>;

export const ConvergenceVerdict = z.object({
  reasoning: z
    .string()
    .describe("what the curve's shape shows: still rising, a plateau, a peak and decline, or too short to tell"),
  converged: z.boolean().describe("true when the training of this skill has converged (YES), false otherwise (NO)"),
});
export type ConvergenceVerdict = z.infer<typeof ConvergenceVerdict>;

/** A block the camera's detector reports: its colour, where in the image (pixels), and what it rests on. */
export interface SeenBlock {
  /** The block's colour: red, green or blue. */
  label: string;
  /** Centre in image pixels. */
  u: number;
  v: number;
  /** What it rests on as the image shows it: "basket", another block's colour, or "gripper" when held. */
  on?: string;
}

/** A task tried and how it went (the paper's successful and failed trials, counted). */
export interface Trial {
  task: string;
  successes: number;
  failures: number;
}

export interface ProposeContext {
  blocks: SeenBlock[];
  /** What the gripper holds, when the detector sees it. */
  holding?: string | null;
  library: string[];
  succeeded: string[];
  failed: string[];
  /** Tasks proposed so far (so a proposal can be new). */
  proposedBefore: string[];
}

export interface DecomposeContext {
  /** The proposed task (named so it is not taken for the prompt's own task tag). */
  proposal: string;
  blocks: SeenBlock[];
  library: string[];
}

export interface RetrieveContext {
  step: string;
  library: string[];
}

/** One exemplar plot with its verdict, in-context (the paper's six). */
export interface CurveExemplar {
  reasoning: string;
  converged: boolean;
}

export interface AnalyseContext {
  skill: string;
  /** What the image shows: x learner iterations (0 … xMax), y evaluation return scaled to the known maximum. */
  axes: { xMax: number; yMax: number; xLabel: string; yLabel: string };
  exemplars: CurveExemplar[];
  /**
   * The plot as a PNG (base64), for a reader that cannot take image parts (the offline analyst reads its pixels);
   * an OpenAI-compatible model gets the same PNG as an image part instead.
   */
  plotPng?: string;
}

/** How every learning-curve plot is drawn: the offline analyst finds the frame and the curve by these colours. */
export const PLOT_STYLE = {
  width: 320,
  height: 200,
  /** Plot area inside the frame, in pixels. */
  area: { left: 44, top: 22, right: 308, bottom: 172 },
  /** Margin between the frame and the data (0 and the maximum are drawn this many pixels inside the frame). */
  inset: 4,
  frame: "#222222",
  grid: "#dddddd",
  curve: "#1f5fbf",
  background: "#ffffff",
} as const;
