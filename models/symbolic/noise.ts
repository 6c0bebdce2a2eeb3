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

export const NO_NOISE: NoiseKnobs = {
  misname: 0,
  hallucinate: 0,
  missDetection: 0,
  wrongArgument: 0,
  skipStep: 0,
  criticFalseAlarm: 0,
  criticMiss: 0,
  misreadObstacle: 0,
  misjudgeClearance: 0,
  wrongTurn: 0,
  hallucinateEvent: 0,
  missEvent: 0,
  wrongCause: 0,
  wrongRetrieval: 0,
  misjudgeCurve: 0,
};

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
  /**
   * Draws about one thing, keyed on the seed and these parts alone (not on the rest of the request): a perceiver's
   * faults about a thing in a view (`perceived`). Absent from hand-made draws in tests, which then serve as they are.
   */
  about?(...parts: string[]): Draw;
}

/**
 * How much a thing's miss rate shrinks when the perceiver is asked to look at it closely (CLEA's `lookFor`): the same
 * draw decides, so a closer look only ever finds more. One factor for every method (docs/models.md).
 */
export const FOCUSED_MISS_FACTOR = 0.5;

/** The chance that the perceiver leaves out a thing it was shown, looked at closely or not. */
export const missRate = (noise: NoiseKnobs, focused = false) =>
  noise.missDetection * (focused ? FOCUSED_MISS_FACTOR : 1);

/**
 * A perceiver's draws about one thing in one view: keyed on the seed, the view (what the detector reported of it, as
 * `meaningHash` gives it) and the thing (its detection, or its name where it was not detected) — never on the question
 * asked, the method asking, or anything else the request carries. Asking twice about an unchanged view gives one answer.
 */
export function perceived(rng: Draw, view: string, thing: string): Draw {
  return rng.about ? rng.about("perceiver", view, thing) : rng;
}

/** One node's reasoning: its context block in, its structured answer out; noise and draws for the roles that use them. */
// The context is whatever that node's prompt carries; each reasoner function declares its own shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a task's context is its own node's shape, declared by each reasoner function
export type Task = (ctx: any, noise: NoiseKnobs, rng: Draw) => unknown;

const unit = (key: string) => createHash("sha256").update(key).digest().readUInt32BE(0) / 2 ** 32;

/** Deterministic draws from a key (models/symbolic/meaning.ts): the same request always meets the same noise. */
export class KeyedDraw implements Draw {
  private i = 0;
  constructor(
    private readonly key: string,
    private readonly seed?: number,
  ) {}
  next(): number {
    return unit(`${this.key}#${this.i++}`);
  }
  about(...parts: string[]): Draw {
    return new KeyedDraw(`${this.seed ?? this.key}|${parts.join("|")}`, this.seed);
  }
}

/**
 * A request's context, watched: which of its top-level fields a reasoner reads. `fields` is what it read; the draws are
 * keyed on the seed and the role alone, so what it reads here follows from the fields it read and nothing else
 * (models/symbolic/index.ts runs this dry pass first, then keys the real draws on the fields read).
 */
export class ReadWatch implements Draw {
  private readonly read = new Set<string>();
  private readonly draws: KeyedDraw;
  readonly context: Record<string, unknown> & { task: string };
  constructor(seed: number, ctx: Record<string, unknown> & { task: string }) {
    this.draws = new KeyedDraw(`${seed}|${ctx.task}|fields`, seed);
    const note = (p: string | symbol) => typeof p === "string" && this.read.add(p);
    this.context = new Proxy(ctx, {
      get: (t, p, r) => (note(p), Reflect.get(t, p, r)),
      has: (t, p) => (note(p), Reflect.has(t, p)),
      getOwnPropertyDescriptor: (t, p) => (note(p), Reflect.getOwnPropertyDescriptor(t, p)),
    });
  }
  /** The fields read. */
  get fields(): ReadonlySet<string> {
    return this.read;
  }
  next(): number {
    return this.draws.next();
  }
  about(...parts: string[]): Draw {
    return this.draws.about(...parts);
  }
}
