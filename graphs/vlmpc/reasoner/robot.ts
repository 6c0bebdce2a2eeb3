/**
 * What the VLM-PC prompt tells the model about the robot and the course: the quadruped's size and what it can crawl
 * under or climb over, when the toy counts as reached, how far and how fast each skill's magnitudes carry it, the
 * ranges at which things in the way are dealt with, and commonsense about the course's kinds of things (how tall,
 * how deep, whether there is room beneath), used when the model misreads what it sees.
 */
import type { Magnitude } from "../schemas";

export const ROBOT = { length: 0.6, width: 0.25, height: 0.3, crawlHeight: 0.14, climbHeight: 0.2 } as const;
/** The toy this close to the camera counts as reached. */
export const REACH_DISTANCE = 0.35;
export const TOY = "toy";
export const SECONDS: Record<Magnitude, number> = { small: 1, medium: 2, large: 4 };
export const SPEED = { walk: 0.3, crawl: 0.15, backward: 0.2 };
/** A climb carries the body about 0.25 / 0.4 / 0.6 m forward (the manifest), not a speed times the time. */
export const CLIMB: Record<Magnitude, number> = { small: 0.25, medium: 0.4, large: 0.6 };
export const TURN_DEG: Record<Magnitude, number> = { small: 15, medium: 30, large: 60 };
/** Half-width of the strip the body sweeps walking straight, with a margin for the gait's sway. */
export const CORRIDOR = ROBOT.width / 2 + 0.08;
/** Something this close in the way is dealt with now. */
export const NEAR = 1.0;
/** Things to go around are turned from earlier: turning costs the same near or far. */
export const NEAR_AROUND = 1.5;
export const WALL_NEAR = 1.5;
/** How many steps back a detour still counts as the current one. */
export const RECENT_STEPS = 6;

export type Way = "walk" | "crawl" | "climb" | "around";
interface Kind {
  top: number;
  underside: number;
  /** Typical depth front to back, to know when the body is out from beneath. */
  depth: number;
  /** Whether there is open room beneath it (a couch's skirt-less frame; not a stool's legs or a bush's stems). */
  roomBeneath: boolean;
  slope?: true;
  steps?: true;
  /** Rounded or slippery: a climb's feet slip now and then (the manifest: they get up 7 times in 10), so a slip is worth retrying. */
  slippery?: true;
}

/** Commonsense about the course's things: how they usually look, used when the model misreads what it sees. */
export const KINDS: Record<string, Kind> = {
  couch: { top: 0.8, underside: 0.2, depth: 0.9, roomBeneath: true },
  bench: { top: 0.45, underside: 0.25, depth: 0.5, roomBeneath: true },
  cushion: { top: 0.18, underside: 0, depth: 0.5, roomBeneath: false },
  log: { top: 0.15, underside: 0, depth: 0.3, roomBeneath: false, slippery: true },
  curb: { top: 0.12, underside: 0, depth: 0.3, roomBeneath: false },
  plank: { top: 0.1, underside: 0, depth: 0.3, roomBeneath: false },
  stairs: { top: 0.6, underside: 0, depth: 1.2, roomBeneath: false, steps: true },
  hill: { top: 0.5, underside: 0, depth: 2, roomBeneath: false, slope: true },
  stool: { top: 0.5, underside: 0, depth: 0.4, roomBeneath: false },
  bush: { top: 0.8, underside: 0, depth: 0.8, roomBeneath: false },
  bamboo: { top: 2, underside: 0, depth: 0.5, roomBeneath: false },
  wall: { top: 1.5, underside: 0, depth: 0.2, roomBeneath: false },
};
export const OBSTACLE_LABELS = Object.keys(KINDS);
