/**
 * A recorded rollout (robograph_msgs/msg/Rollout): what the robot's own recorder keeps of one program run — key
 * frames with their detections, a dense detection track, and a step narration. The world's event log is NOT part of
 * it: that is ground truth, reachable only through the evaluator (the benchmark's annotations, "perfect grounding").
 */
import type { DetectionsMessage, PlacedDetection } from "./detections";

/** A detection from a depth camera with known extrinsics: where the object's pixels are in the world, metres. */
export type LocatedDetection = PlacedDetection & {
  /** Median of the object's depth pixels back-projected to world coordinates (x right, y away, z up). */
  position: [number, number, number];
  /** Lowest and highest world z of its pixels. */
  zRange: [number, number];
  /** Its pixels' extent across (x) and away (y), metres: the footprint a depth camera sees. */
  xRange: [number, number];
  yRange: [number, number];
};

export type RolloutDetections = Omit<DetectionsMessage, "detections"> & { detections: LocatedDetection[] };

/** Where a robot serves its recorder's last rollout (images as base64 PNG), and the reset to a scene and seed. */
export const LAST_ROLLOUT_SERVICE = "/palm/last_rollout";
export const LAST_ROLLOUT_TYPE = "robograph_msgs/srv/LastRollout";
export const RESET_SERVICE = "/robograph/reset";
export const RESET_TYPE = "robograph_msgs/srv/Reset";

/** One entry of a world's event log as the evaluator service sends it (the fields grounding and scoring read). */
export interface LoggedEvent {
  t: number;
  kind: string;
  object?: string;
  detail?: string;
  /** The cause the world measured for an undesirable event (CAUSES, or `unknown`). */
  cause?: string;
}

export interface KeyFrame {
  /** Simulated seconds since the program began. */
  t: number;
  /** PNG, longest side ≤ 512: a path relative to the rollout file, or base64 when sent over the bridge. */
  image: string;
  detections: RolloutDetections;
}

export interface NarrationStep {
  /** Index of the primitive in the program. */
  index: number;
  from: number;
  to: number;
  text: string;
  ok: boolean;
}

export interface Rollout {
  id: string;
  instruction: string;
  scene: string;
  seed: number;
  /** The primitive program that was run. */
  program: unknown;
  /** At most 30 frames, in time order: at each primitive's end and start as the controller timed them, the rest spread evenly. */
  frames: KeyFrame[];
  /** Detections every 0.1 s of the whole rollout, without images (the detector-based grounding reads these). */
  track: { t: number; detections: RolloutDetections }[];
  narration: NarrationStep[];
  /** World clock (simulated seconds) when the program began: the window [startTime, startTime + duration] of the log. */
  startTime: number;
  /** Simulated seconds the program ran. */
  duration: number;
  /** Whether every primitive ran (the program's own outcome; the task's goal is the evaluator's to judge). */
  completed: boolean;
}

/**
 * Undesirable-but-goal-reaching behaviours the worlds log as events (kind = the key) and critics name in critiques.
 * Each event carries `object` (what suffered it) and a `detail` that states the measured cause.
 */
export const UNDESIRABLE = {
  knocked_over: "a thing that was not the target fell over",
  pushed: "a thing that was not the target was shoved out of place",
  dragged: "the held object slid along the surface instead of being lifted",
  dropped: "an object was let go from a height and fell",
  spilled: "small contents came out of an open container (flung from it, or thrown out when it landed)",
  squeezed: "an object was gripped hard enough to crush it",
  passed_over: "a held object was carried over something it should stay away from",
  left_open: "a door or drawer that was opened was left open at the end",
  struck_table: "the hand hit the table surface",
  rushed: "a held object was carried faster than a careful hand carries it",
  detoured: "a held object was carried far out of the way to where it was going",
  dithered: "a held object was moved back and forth for nothing",
  idled: "the robot stood still mid-task for nothing",
} as const;
export type Undesirable = keyof typeof UNDESIRABLE;
export const UNDESIRABLE_KINDS = Object.keys(UNDESIRABLE) as Undesirable[];

/**
 * Why an undesirable event happened, in terms of what the robot did (the policy writer can act on these). Critics
 * claim one per event; the event monitor records the one it measured in the physics, which is what a claim is scored
 * against — `unknown` where its measurements support none of these.
 */
export const CAUSES = {
  too_fast: "the hand moved too fast",
  too_low: "the hand or what it held moved too low",
  too_high: "the hand let go too high",
  too_hard: "the grip was too strong",
  path_through: "the path went through something",
  path_over: "the path went over something",
  not_closed: "what was opened was not closed again",
  needless: "the hand made moves or waits the task does not need",
} as const;
export type Cause = keyof typeof CAUSES;
export const CAUSE_KINDS = Object.keys(CAUSES) as Cause[];
export type MeasuredCause = Cause | "unknown";
