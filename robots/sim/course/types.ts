/** What a course is, for the parts that make, list and solve courses (the generator, the scenarios, the solver). */
import type { Magnitude, Skill } from "./controllers";
import type { SceneSpec } from "./scene";

export type Step = [Skill, Magnitude];

export interface Course extends SceneSpec {
  name: string;
  /** What the course is, for people reading tests and reports. Never served to an agent. */
  summary: string;
  start: { x: number; y: number; yawDeg: number };
  /** Empty for a generated course: solve.ts finds a way through it. */
  solution: Step[];
  /** Obstacles hide the toy from the start, so an agent has to explore (hand-made courses; not worked out for generated ones). */
  toyHiddenAtStart?: boolean;
  /** A dead end the dog starts in (VLM-PC's Table II scores getting out of it as the first success). */
  deadEnd?: { x0: number; x1: number; y0: number; y1: number };
}
