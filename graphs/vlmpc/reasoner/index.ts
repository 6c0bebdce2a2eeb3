/**
 * The symbolic reasoner for VLM-PC (legged robot on obstacle courses). Like a VLM it is given the current frame's
 * detections, the earlier frames with its own earlier answers and the skills' odometry results (or a condensed summary
 * of older steps), the rest of its last plan, and optionally labelled examples — never a pose, a map or where the toy
 * is. From that it reasons as a VLM would: commonsense about what a quadruped can crawl under or climb over, dead
 * reckoning of where the toy was last seen from its own moves, and what already failed where. What it cannot know
 * (an empty history hides that the last skill stalled) it does not know: no branch asks which variant is running.
 *
 * Its parts, in the order they build on each other: robot (what the prompt says of the robot), judging (an
 * obstacle), geometry (one frame), footing (heights read from on top of something it climbed), memory (dead
 * reckoning, toy sightings, failures), scene and commands and planning, compare (with the previous plan) and
 * progress; this file puts them together.
 */
import type { CourseContext, CoursePlan } from "../schemas";
import type { Draw, NoiseKnobs, Task } from "../../../models/symbolic/noise";
import { toyOf } from "./geometry";
import { remember } from "./memory";
import { onFooting } from "./footing";
import { mapOf, passing, type Scene, target } from "./scene";
import { decide } from "./planning";
import { compare } from "./compare";
import { progressText } from "./progress";

export { REACH_DISTANCE, ROBOT, TOY } from "./robot";

/** VLM-PC's planner: progress, a plan of the next skills (the first is run), and whether it keeps its last plan. */
export function planCourse(shown: CourseContext, noise: NoiseKnobs, rng: Draw): CoursePlan {
  const ctx = onFooting(shown);
  const mem = remember(ctx);
  const passed = passing(mem, ctx.frame);
  const view = ctx.frame.detections.filter((d) => !passed.has(d));
  const map = mapOf(ctx, mem);
  const scene: Scene = {
    ctx,
    mem,
    noise,
    rng,
    toy: toyOf(ctx.frame.detections),
    target: target(ctx, mem, map),
    view,
    map,
  };
  const fresh = decide(scene);
  const chosen = compare(scene, fresh);
  const plan = chosen.plan.slice(0, ctx.multiStep ? 5 : 1);
  return {
    progress: progressText(scene),
    plan,
    keepsPrevious: chosen.keepsPrevious,
    comparison: chosen.comparison,
    reached: !!fresh.reached,
  };
}

/** VLM-PC's part of the offline reasoner: the planner's one task. */
export const TASKS: Record<string, Task> = { plan_course: planCourse };
