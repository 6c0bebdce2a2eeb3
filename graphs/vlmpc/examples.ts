/** Where VLM-PC + IC's labelled example frames of a course are kept (evals/datasets/courseExamples.ts makes them). */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A hand-made course's examples are committed; a generated course's are made on demand, into the runs' cache. */
export const courseExamplesPath = (course: string) =>
  /^generated_\d+$/.test(course)
    ? join(ROOT, "runs", "cache", "course-generated", "examples", `${course}.json`)
    : join(ROOT, "evals", "datasets", "course_examples", `${course}.json`);
