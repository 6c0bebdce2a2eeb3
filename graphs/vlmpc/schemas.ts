/** What VLM-PC's planner answers each step: progress reasoning, a multi-step skill plan, and the comparison with its last plan. */
import { z } from "zod";
import type { RangedDetection } from "../../robots/msgs/detections";

/** The legged robot's skills, as the planner names them. */
export const COURSE_SKILLS = ["walk", "crawl", "climb", "backward", "turn_left", "turn_right"] as const;
/** How long a skill runs: small 1 s, medium 2 s, large 4 s. */
export const MAGNITUDES = ["small", "medium", "large"] as const;

export const CourseSkill = z.enum(COURSE_SKILLS);
export type CourseSkill = z.infer<typeof CourseSkill>;
export const Magnitude = z.enum(MAGNITUDES);
export type Magnitude = z.infer<typeof Magnitude>;

export const CourseCommand = z.object({
  skill: CourseSkill.describe(
    "walk forward; crawl low under something with room beneath; climb over something low; backward to back out; turn_left or turn_right in place",
  ),
  magnitude: Magnitude.describe("small (1 s), medium (2 s) or large (4 s); turns are about 15°, 30° and 60°"),
});
export type CourseCommand = z.infer<typeof CourseCommand>;

export const CoursePlan = z.object({
  progress: z
    .string()
    .describe(
      "what the earlier images, answers and skill results show: what was tried, what got stuck, where the toy was last seen",
    ),
  plan: z
    .array(CourseCommand)
    .min(1)
    .max(5)
    .describe(
      "the next skills in order; only the first is run now, the rest is what you expect to do next (exactly one when asked for a single skill)",
    ),
  keepsPrevious: z
    .boolean()
    .describe("true when this plan continues your previous plan, false when it revises it (or there was none)"),
  comparison: z
    .string()
    .describe("why the previous plan is kept or revised, given the newest image and the last skill's result"),
  reached: z
    .boolean()
    .describe("true when the toy is right in front of the robot: the task is done and the plan is not run"),
});
export type CoursePlan = z.infer<typeof CoursePlan>;

/** What one skill did, as the robot's odometry reports it. */
export interface CourseResult {
  skill: CourseSkill;
  magnitude: Magnitude;
  /** Metres along the heading (negative backward), by odometry. */
  moved: number;
  /** Degrees, positive to the left. */
  turned: number;
  stalled: boolean;
}

export interface ToySighting {
  distance: number;
  bearing: number;
}

/**
 * What the planning prompt carries: the current detections, the earlier steps (detections, the planner's own answers,
 * the odometry), older steps condensed when the history is windowed, the rest of the last plan, and labelled examples.
 */
export interface CourseContext {
  /** `fov`: horizontal field of view, degrees; `imageWidth`: pixels across the image (what boxes are measured in). */
  frame: { fov: number; imageWidth: number; detections: RangedDetection[] };
  history: { step: number; detections: RangedDetection[]; answer: CoursePlan; result: CourseResult }[];
  summary?: (CourseResult & { step: number; toy?: ToySighting })[];
  previousPlan?: CourseCommand[];
  multiStep: boolean;
  examples?: { detections: RangedDetection[]; best: CourseCommand; note: string }[];
}
