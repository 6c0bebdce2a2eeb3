/**
 * Game On's state: the skill library (what the curriculum may plan with), the skills being learned with their
 * learning curves and the analyst's verdicts, and the record of every cycle — the image it was proposed from, the
 * proposal, the decomposition, each step's retrieval, the embodied episodes and how they went. Frames and plots are
 * artifact references; the episodes themselves live in the episode store on disk.
 */
import { Annotation } from "@langchain/langgraph";
import type { SeenBlock, TaskDecomposition, TaskProposal } from "./schemas";
import { delta, deltaLast, last, usageChannel, type Status } from "../../nodes/state";

export interface LibrarySkill {
  caption: string;
  /** Learner iteration at which it joined (0: a base skill). */
  since: number;
  source: "base" | "learned";
}

/** What the curriculum saw when it proposed: the frame (artifact ref) and the detector's blocks. */
export interface Scene {
  frame: string;
  blocks: SeenBlock[];
  holding?: string | null;
}

export interface Retrieval {
  step: string;
  skill: string | null;
  reasoning: string;
}

/** One embodied episode, as the rollout reports it (the full episode is in the episode store). */
export interface EpisodeSummary {
  id: string;
  instance: number;
  cycle: number;
  /** plan: the curriculum's embodied plan; practice: a skill being learned, tried alone with samples of its policy. */
  purpose: "plan" | "practice";
  skills: string[];
  /** Highest reward of each skill during its own segment. */
  segmentMax: number[];
  /** Each skill's reward at the end of its segment. */
  segmentEnd: number[];
  success: boolean;
  /** The task was already done at the episode's start (its own skill's reward above 0.95): not counted a success. */
  doneAtStart?: boolean;
  /** Block centres at the start and the end (x, y, z per block, red, green, blue): what the diversity figures use. */
  start?: number[];
  end?: number[];
}

/** A skill being learned: its learning curve (scaled returns per iteration) and each analysis of it. */
export interface LearningTarget {
  caption: string;
  family: string;
  /** Why it is learned: the step that no library skill did, and the task it came from. */
  proposedFor: string;
  /** Learner iteration at which it was proposed, then the one at which its learning began (its curve's first point). */
  since: number;
  returns: number[];
  /** Share of evaluation episodes that ended with the skill's reward above 0.95, per point (the stack really built). */
  finalSuccess: number[];
  /** The policies (artifact ref) each return was measured with: where training is rolled back to on early stopping. */
  snapshots: string[];
  /**
   * The same policies' returns on the selection layouts (scaled alike): early stopping picks its point by these, so the
   * point kept is not chosen on the layouts `returns` reports.
   */
  selection?: number[];
  maxReturn: number;
  /** The layouts its curve (evaluation) and early stopping (selection) are measured on, chosen at its first point. */
  layouts?: { evaluation: number[]; selection: number[] };
  analyses: { iteration: number; plot: string; converged: boolean; reasoning: string }[];
  converged: boolean;
  /** When it converged: the point of the curve whose policy the library keeps (the best on the selection layouts). */
  kept?: { point: number; return: number; finalSuccess: number };
}

/** A step no library skill does, recorded as a proposal for learning (a learning target when a reward is known). */
export interface SkillProposal {
  cycle: number;
  step: string;
  task: string;
  /** The rewardable skill it names, or null when the embodiment has no reward for it (then it cannot be learned). */
  skill: string | null;
}

/** One turn of the curriculum: proposed from one image, decomposed, retrieved, and discarded or embodied. */
export interface CycleRecord {
  cycle: number;
  /** The library the curriculum planned with (captions). */
  library: string[];
  scene: Scene;
  proposal: TaskProposal;
  decomposition?: TaskDecomposition;
  retrievals?: Retrieval[];
  /** The rewardable skill (caption) the task itself is, when it is one: its reward at an episode's start tells whether the task was done before the plan ran. */
  taskSkill?: string;
  /** discarded: a step had no skill; embodied: succeeded in `successes` of `episodes` episodes. */
  outcome?: { kind: "discarded"; missing: string[] } | { kind: "embodied"; episodes: number; successes: number };
}

export interface CurriculumCounters {
  cycles: number;
  episodes: number;
  iterations: number;
  discards: number;
  /** Plans discarded in a row (bounded: then the cycle goes on to learning without new episodes). */
  discardsInRow: number;
}

/** A list channel that checkpoints only the new entries. */
const appended = <T>() =>
  delta<T[], T[]>(
    (a, writes) => writes.reduce<T[]>((acc, w) => [...acc, ...w], a),
    () => [],
  );

export const CurriculumState = Annotation.Root({
  goal: Annotation<string>(),
  library: last<LibrarySkill[]>([]),
  /** The cycle in progress (appended to `cycles` once it is discarded or embodied). */
  current: deltaLast<CycleRecord | null>(null),
  cycles: appended<CycleRecord>(),
  /** The skill sequence to embody, once every step was retrieved. */
  plan: deltaLast<string[] | null>(null),
  // Every rollout branch of the fan-out appends its episodes here.
  episodes: appended<EpisodeSummary>(),
  targets: last<Record<string, LearningTarget>>({}),
  /** Artifact reference of every skill's policy (JSON), updated by each learner iteration. */
  policies: last<string>(""),
  proposals: appended<SkillProposal>(),
  counters: last<CurriculumCounters>({ cycles: 0, episodes: 0, iterations: 0, discards: 0, discardsInRow: 0 }),
  status: last<Status>("running"),
  statusReason: last<string>(""),
  usage: usageChannel(),
  startedAt: last<number>(0),
});

export type CurriculumStateType = typeof CurriculumState.State;
export type CurriculumUpdate = typeof CurriculumState.Update;

/** What the Send fan-out hands one rollout branch: the plan, which simulator instance, which episodes. */
export interface RolloutOrder {
  plan: string[];
  /** The task's own skill (caption), when it is one (CycleRecord.taskSkill). */
  taskSkill?: string;
  instance: number;
  url: string;
  cycle: number;
  /** Episodes this branch runs (each starts from the instance's next seeded block layout). */
  episodes: number;
  policies: string;
}

/** The library's captions, in order. */
export const captions = (s: Pick<CurriculumStateType, "library">) => s.library.map((l) => l.caption);
