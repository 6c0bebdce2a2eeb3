/**
 * The obstacle-course world (VLM-PC's legged robot) as a served simulator; `/robograph/reset` changes course and seed
 * in place.
 */
import { RebuiltWorld, serveWorld, type ServeOptions, type ServedWorld } from "../serve";
import { CourseWorld, type CourseOptions } from "./world";
import { findCourse } from "./scenarios";

export { CourseWorld, SUCCESS_RADIUS, ROBOT, type CourseEvaluation, type CourseOptions } from "./world";
export { listCourses, findCourse, COURSES, PROBES, type Course, type Step } from "./scenarios";
export {
  SKILLS,
  MAGNITUDES,
  SECONDS,
  SPEED,
  CLIMB_DISTANCE,
  TURN_DEG,
  DISTURBANCE,
  SLIP_SUCCESS,
  type Skill,
  type Magnitude,
} from "./controllers";
export { LABELS, CRAWL_HEIGHT, CLIMB_HEIGHT, CAMERA_FOV_DEG, CAMERA_PITCH_DEG } from "./scene";

export interface CourseServeOptions extends Omit<CourseOptions, "scenario">, ServeOptions {
  /** One of listCourses() (or a probe yard). */
  scenario: string;
}

export async function serveCourse(opts: CourseServeOptions): Promise<ServedWorld & { world: CourseWorld }> {
  findCourse(opts.scenario); // a clear error for an unknown name, before anything starts
  const world: RebuiltWorld<CourseWorld> = new RebuiltWorld(
    await CourseWorld.create({ ...opts, scenario: opts.scenario }),
    async (args) => {
      // A course given by value (a test's) is kept; a named one is found again, as a new process would find it.
      const scenario = args.scenario === undefined ? world.current.course.name : String(args.scenario);
      const course = args.scenario === undefined ? world.current.course : findCourse(scenario);
      const seed = args.seed === undefined ? (opts.seed ?? 0) : Number(args.seed);
      if (!Number.isInteger(seed) || seed < 0)
        throw new Error(`seed must be a non-negative integer, got ${JSON.stringify(args.seed)}`);
      return { world: await CourseWorld.create({ ...opts, scenario, course, seed }), scenario, seed };
    },
  );
  const served = await serveWorld(world, opts);
  return {
    ...served,
    // The world of the episode now (a reset replaces it).
    get world() {
      return world.current;
    },
  };
}
export { generateCourse, generatedName, generatedSeed, FIRST_SCORED_SEED } from "./generate";
