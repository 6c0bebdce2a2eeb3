/**
 * Seeded noise of the symbolic reasoner: the knobs every method's reasoner draws from, one level that sets them all
 * in fixed proportions, and the keyed draws that make the same request meet the same noise.
 */
import { createHash } from "node:crypto";

/**
 * Noise knobs, each a probability per opportunity:
 * - misname: the perceiver reports a detected object under another wording ("tea_bottle" for bottle_of_tea)
 * - hallucinate: the perceiver adds, once per look, an object that is not there
 * - missDetection: the perceiver leaves out an object it was shown
 * - wrongArgument: the planner writes one argument of one step wrong (another object or place)
 * - skipStep: the planner leaves out one step of a multi-step plan
 * - criticFalseAlarm: the critic rejects an action that was fine
 * - criticMiss: the critic lets through an action it should have rejected
 * - misreadObstacle (VLM-PC): the planner takes an obstacle in view for another kind of obstacle
 * - misjudgeClearance (VLM-PC): the planner misjudges the room under or the height of an obstacle
 * - wrongTurn (VLM-PC): the planner turns the other way than it meant to (once per turn it means, all of its skills)
 * - hallucinateEvent (behaviour critic): a critique names, once per video, an undesirable event that did not happen
 * - missEvent (behaviour critic): a critique leaves out an event the frames show
 * - wrongCause (behaviour critic): a critique names an event that happened with the wrong cause
 * - wrongRetrieval (curriculum): the retriever picks a skill of the same kind on another block
 * - misjudgeCurve (curriculum): the analyst calls a learning curve the opposite way
 */
export interface NoiseKnobs {
  misname: number;
  hallucinate: number;
  missDetection: number;
  wrongArgument: number;
  skipStep: number;
  criticFalseAlarm: number;
  criticMiss: number;
  misreadObstacle: number;
  misjudgeClearance: number;
  wrongTurn: number;
  hallucinateEvent: number;
  missEvent: number;
  wrongCause: number;
  wrongRetrieval: number;
  misjudgeCurve: number;
}

export const NO_NOISE: NoiseKnobs = { misname: 0, hallucinate: 0, missDetection: 0, wrongArgument: 0, skipStep: 0, criticFalseAlarm: 0, criticMiss: 0, misreadObstacle: 0, misjudgeClearance: 0, wrongTurn: 0, hallucinateEvent: 0, missEvent: 0, wrongCause: 0, wrongRetrieval: 0, misjudgeCurve: 0 };

/** One noise level → every knob, in fixed proportions (documented in docs/models.md; shared by every variant). */
export function noiseLevel(level: number): NoiseKnobs {
  return {
    misname: level,
    hallucinate: level / 3,
    missDetection: level / 3,
    wrongArgument: level,
    skipStep: level / 2,
    criticFalseAlarm: level / 4,
    criticMiss: level / 4,
    misreadObstacle: level / 2,
    misjudgeClearance: level / 2,
    wrongTurn: level / 2,
    hallucinateEvent: level,
    missEvent: level / 2,
    wrongCause: level / 2,
    wrongRetrieval: level / 2,
    misjudgeCurve: level / 4,
  };
}

export interface Draw {
  next(): number;
}

/** One node's reasoning: its context block in, its structured answer out; noise and draws for the roles that use them. */
// The context is whatever that node's prompt carries; each reasoner function declares its own shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Task = (ctx: any, noise: NoiseKnobs, rng: Draw) => unknown;

/** Deterministic draws from a key (models/symbolic/meaning.ts): the same request always meets the same noise. */
export class KeyedDraw implements Draw {
  private i = 0;
  constructor(private readonly key: string) {}
  next(): number {
    return createHash("sha256").update(`${this.key}#${this.i++}`).digest().readUInt32BE(0) / 2 ** 32;
  }
}
