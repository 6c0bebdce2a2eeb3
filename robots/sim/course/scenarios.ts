/**
 * The obstacle courses, after VLM-PC's five real-world settings and its simulated dead end with stairs, plus small
 * probe yards that check one skill against one thing (for tests). Every course starts the dog at the origin facing +x
 * ("the direction it started in") with the red chew toy somewhere beyond the obstacles.
 *
 * Each course carries a scripted solution — a skill sequence that reaches the toy well within the 100 s budget. It is
 * for tests only: the agent never sees it (nor anything else in this file but the labels).
 */
import type { Course } from "./types";

export type { Course, Step } from "./types";

/** VLM-PC's task on every course. */
export const COURSE_GOAL = "Find the red chew toy and go to it.";
import { generateCourse, generatedSeed } from "./generate";
import {
  bamboo,
  bench,
  bush,
  couch,
  curb,
  cushion,
  hedge,
  hill,
  log,
  plank,
  room,
  stairs,
  stool,
  wall,
  type Thing,
} from "./scene";

const start = { x: 0, y: 0, yawDeg: 0 };

/** A corridor of hedges on both sides (and behind the start) from x0 to x1, |y| up to halfWidth (inner edge). */
function corridor(x0: number, x1: number, halfWidth: number): Thing[] {
  const radius = 0.3;
  return [
    ...hedge(x0, halfWidth + radius, x1, halfWidth + radius, radius),
    ...hedge(x0, -halfWidth - radius, x1, -halfWidth - radius, radius),
    ...hedge(x0 - radius, -halfWidth, x0 - radius, halfWidth, radius),
  ];
}

const COURSE_LIST: Course[] = [
  {
    name: "indoor_1",
    summary:
      "A couch against a wall: crawling under it leads into a dead end. The way on is to back out, go around the couch's left end through an opening in the wall that a floor cushion fills, climb the cushion, and find the toy behind the wall.",
    ground: "indoor",
    start,
    things: [
      ...room(-1, 4.2, -1.8, 1.7),
      // The wall the couch stands against, open only at its left end (y > 0.4).
      wall(2.05, -1.8, 2.05, 0.4),
      couch({ x: 1.6, y: -0.5, length: 1.8, depth: 0.8, clearance: 0.22 }),
      cushion({ x: 2.35, y: 1.05, length: 1.3, depth: 0.5, height: 0.16 }),
    ],
    toy: { x: 3.3, y: 0.1 },
    toyHiddenAtStart: true,
    solution: [
      ["walk", "medium"],
      ["crawl", "large"],
      ["crawl", "large"], // under the couch, into the wall: a dead end
      ["backward", "large"],
      ["backward", "medium"], // out from beneath it, and clear of its corner
      ["turn_left", "large"],
      ["walk", "large"],
      ["turn_right", "large"],
      ["walk", "medium"], // around the couch's end
      ["climb", "large"],
      ["climb", "medium"],
      ["walk", "small"], // over the cushion and off it
      ["turn_right", "large"],
      ["walk", "large"],
    ],
  },
  {
    name: "indoor_2",
    summary:
      "A couch across the whole room must be crawled under; behind it stools stand with gaps narrower than the body. The way on is to turn left and go around the last stool to the toy.",
    ground: "indoor",
    start,
    things: [
      ...room(-1, 5, -1.3, 1.3),
      couch({ x: 1.4, y: 0, length: 2.6, depth: 0.8, clearance: 0.22 }),
      stool({ x: 3.0, y: -0.9 }),
      stool({ x: 3.0, y: -0.29 }),
      stool({ x: 3.0, y: 0.29 }),
    ],
    toy: { x: 4.2, y: 0.1 },
    toyHiddenAtStart: true,
    solution: [
      ["walk", "medium"],
      ["crawl", "large"],
      ["crawl", "large"],
      ["crawl", "large"], // under the couch and out
      ["walk", "medium"], // into the narrow gap between two stools: stalls
      ["backward", "medium"],
      ["turn_left", "large"],
      ["walk", "medium"],
      ["walk", "small"],
      ["turn_right", "large"], // around the left stool
      ["walk", "large"],
      ["turn_right", "large"],
      ["walk", "medium"],
    ],
  },
  {
    name: "outdoor_1",
    summary:
      "Bushes straight ahead to go around (on the left), then two small round logs across the way to climb (each climb gets up with probability 0.7), then the toy.",
    ground: "outdoor",
    start,
    things: [
      ...corridor(-0.8, 4.8, 1.6),
      ...hedge(1.8, -1.6, 1.8, -0.05, 0.3),
      log({ x: 2.7, y: 0, length: 4, radius: 0.08 }),
      log({ x: 3.3, y: 0, length: 4, radius: 0.08 }),
      ...hedge(4.8, -1.6, 4.8, 1.6, 0.3),
    ],
    toy: { x: 4.1, y: 0.6 },
    toyHiddenAtStart: false,
    solution: [
      ["turn_left", "medium"],
      ["walk", "large"],
      ["turn_right", "medium"],
      ["walk", "medium"],
      // Climbs to spare: a slip leaves the body before the log and the next climb tries again.
      ["climb", "large"],
      ["climb", "large"],
      ["climb", "large"],
      ["climb", "large"],
      ["climb", "large"],
      ["walk", "small"],
    ],
  },
  {
    name: "outdoor_2",
    summary:
      "A stand of bamboo straight ahead to go around (on the right), then a low garden bench across the way to crawl under, then the toy.",
    ground: "outdoor",
    start,
    things: [
      ...corridor(-0.8, 5, 1.6),
      bamboo({ x: 1.8, y: 0.82, rows: 3, columns: 8, spacing: 0.22 }),
      bench({ x: 3.0, y: 0, length: 3.3, depth: 0.45, clearance: 0.22 }),
      ...hedge(5, -1.6, 5, 1.6, 0.3),
    ],
    toy: { x: 4.2, y: -0.6 },
    toyHiddenAtStart: false,
    solution: [
      ["turn_right", "medium"],
      ["walk", "large"],
      ["turn_left", "medium"],
      ["walk", "large"],
      ["crawl", "large"],
      ["crawl", "large"],
      ["crawl", "large"],
      ["walk", "medium"],
    ],
  },
  {
    name: "outdoor_3",
    summary:
      "A curb to climb, a dirt hill to walk up and over, a wooden plank to climb, and the toy between two bushes.",
    ground: "outdoor",
    start,
    things: [
      ...corridor(-0.8, 6, 1.5),
      curb({ x: 1.0, y: 0, length: 3.6, depth: 0.3, height: 0.12 }),
      hill({ x: 2.6, y: 0, height: 0.3, halfDepth: 0.9, halfLength: 1.4 }),
      plank({ x: 4.0, y: 0, length: 3.6, depth: 0.25, height: 0.1 }),
      bush({ x: 5.0, y: 0.6, rx: 0.3 }),
      bush({ x: 5.0, y: -0.6, rx: 0.3 }),
      ...hedge(5.8, -1.5, 5.8, 1.5, 0.3),
    ],
    toy: { x: 5.0, y: 0 },
    toyHiddenAtStart: false,
    solution: [
      ["walk", "small"],
      ["climb", "large"],
      ["climb", "medium"], // over the curb
      ["walk", "large"],
      ["walk", "large"], // up the hill and down
      ["climb", "large"],
      ["climb", "small"], // over the plank
      ["walk", "large"],
    ],
  },
  {
    name: "dead_end_stairs",
    summary:
      "The dog starts in a narrow dead-end corridor (too narrow to turn in), must back out of it, turn left, and climb a flight of three steps (0.12 m each) to the landing where the toy is.",
    ground: "indoor",
    start,
    things: [
      ...room(-2.6, 2.2, -1.2, 3.2),
      wall(-0.6, 0.35, 1.55, 0.35),
      wall(-0.6, -0.35, 1.55, -0.35),
      wall(1.55, -0.4, 1.55, 0.4),
      stairs({ x: -1.2, y: 1.0, yaw: 90, width: 1.2, steps: 3, rise: 0.12, run: 0.35, landing: 1.15 }),
    ],
    toy: { x: -1.15, y: 2.5, z: 0.36 },
    toyHiddenAtStart: true,
    deadEnd: { x0: -0.6, x1: 1.55, y0: -0.35, y1: 0.35 },
    solution: [
      ["walk", "large"], // into the end wall
      ["backward", "large"],
      ["backward", "large"],
      ["backward", "large"], // out of the corridor
      ["turn_left", "large"],
      ["turn_left", "medium"],
      ["walk", "medium"],
      ["climb", "large"],
      ["climb", "large"],
      ["climb", "large"],
      ["walk", "medium"],
    ],
  },
];

/** Yards with one thing each, to check a skill against it (tests; also handy to see a skill work). */
const PROBE_LIST: Course[] = [
  probe("probe_wall", "A wall 1 m ahead.", [wall(1.05, -1, 1.05, 1)]),
  probe("probe_couch", "A couch with 0.22 m of room beneath, 1 m ahead.", [
    couch({ x: 1.4, y: 0, length: 2, depth: 0.8, clearance: 0.22 }),
  ]),
  probe(
    "probe_low_log",
    "A thin log (a branch) resting on two stumps with 0.125 m beneath it: the head fits under, the hips do not.",
    [log({ x: 0.8, y: 0, length: 1.6, radius: 0.045, raisedTo: 0.125, slippery: false })],
  ),
  probe("probe_blocks", "A 0.15 m cushion 1 m ahead, then a 0.3 m cushion (too tall to climb).", [
    cushion({ x: 1.2, y: 0, length: 1.5, depth: 0.4, height: 0.15 }),
    cushion({ x: 2.6, y: 0, length: 1.5, depth: 0.4, height: 0.3 }),
  ]),
  probe("probe_gap", "Two stools with a 0.2 m gap between them, straight ahead.", [
    stool({ x: 1.0, y: -0.29 }),
    stool({ x: 1.0, y: 0.29 }),
  ]),
  probe("probe_hill", "A dirt hill 0.3 m high starting 0.5 m ahead.", [
    hill({ x: 1.6, y: 0, height: 0.3, halfDepth: 0.9, halfLength: 1.2 }),
  ]),
  probe("probe_log", "A round (slippery) log on the ground just ahead of the front feet.", [
    log({ x: 0.4, y: 0, length: 2, radius: 0.08 }),
  ]),
  probe("probe_toy", "Open ground with the toy 1.8 m ahead.", [], { x: 2.1, y: 0 }),
];

function probe(name: string, summary: string, things: Thing[], toy = { x: 6, y: 3 }): Course {
  return { name, summary, ground: "outdoor", start, things, toy, solution: [], toyHiddenAtStart: false };
}

export const COURSES: ReadonlyMap<string, Course> = new Map(COURSE_LIST.map((c) => [c.name, c]));
export const PROBES: ReadonlyMap<string, Course> = new Map(PROBE_LIST.map((c) => [c.name, c]));

/** The six courses, in the paper's order. */
export function listCourses(): string[] {
  return COURSE_LIST.map((c) => c.name);
}

/** A hand-made course, a probe yard, or a generated course (`generated_<seed>`). */
export function findCourse(name: string): Course {
  const seed = generatedSeed(name);
  if (seed !== undefined) return generateCourse(seed);
  const course = COURSES.get(name) ?? PROBES.get(name);
  if (!course)
    throw new Error(
      `unknown course ${JSON.stringify(name)}; courses: ${listCourses().join(", ")}, or generated_<seed>; probes: ${[...PROBES.keys()].join(", ")}`,
    );
  return course;
}
