/** The obstacle-course world (VLM-PC's legged robot) as a served simulator. */
import { serveWorld, type ServeOptions, type ServedWorld } from "../serve";
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
  const world = await CourseWorld.create({ ...opts, scenario: opts.scenario });
  return { ...(await serveWorld(world, opts)), world };
}
export { generateCourse, generatedName, generatedSeed, FIRST_SCORED_SEED } from "./generate";
