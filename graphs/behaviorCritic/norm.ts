/**
 * What careful motion looks like, learned from careful runs alone, and what lies far outside it (issue 63). The cues of
 * ./evidence.ts find the behaviours someone wrote a cue for; the norm is what lets the critic notice one nobody listed.
 * From the same key-frame detections the critic reads, each rollout is measured in quantities that do not depend on
 * the task's layout — about timing, speed, path, grasping, contact and what else moved — and a quantity is called out
 * when it lies beyond every careful run's value by more than what the frames can resolve plus a margin in the careful
 * runs' own spread (`outsideNorm`). The careful runs' values are in ./carefulNorm.ts, made by `npm run learn:critic-norm`
 * (evals/criticNorm.ts) from careful programs on tuning seeds only. A claim's words are made from the measurement: which
 * thing, which quantity, how far from careful, and when; no quantity here is named after a behaviour.
 */
import type { ClaimedEvent, SeenFrame, SeenThing } from "./schemas";
import { rimShift } from "./evidence";

/** One quantity's value in a rollout: its most extreme instance, what it happened to, and when. */
export interface Measurement {
  quantity: QuantityId;
  value: number;
  /** The thing it is about (`palm` for the hand). */
  object: string;
  /** When it happens or begins (s). */
  t: number;
  /** What the words need besides the value (a second time, an end, a held thing). */
  also: Record<string, number | string>;
}

/** The careful runs' values of one quantity. */
export interface QuantityNorm {
  /** How many careful runs showed it. */
  n: number;
  median: number;
  /** The median absolute deviation from the median. */
  mad: number;
  min: number;
  max: number;
}

/** What the critic learned from careful runs: each quantity's values, and where they came from. */
export interface Norm {
  learnedFrom: string;
  /** The margin beyond the farthest careful value, in robust standard deviations (1.4826 × MAD) of the careful runs. */
  margin: number;
  quantities: Partial<Record<QuantityId, QuantityNorm>>;
}

type Track = { t: number; thing: SeenThing }[];
/** What every quantity reads: the hand's track, each thing's, and which of them the hand took. */
interface View {
  palm: Track;
  track(label: string): Track;
  handled: string[];
  /** Things neither handled nor opened on a joint nor seen twice in a frame: where they end is the rim rule's to read. */
  untouched: string[];
}

const distance = (a: number[], b: number[]) => Math.hypot(...a.map((v, i) => v - b[i]));
const height = (t: SeenThing) => t.z[1] - t.z[0];
const seconds = (v: number) => `${v.toFixed(1)} s`;
const cm = (v: number) => `${(v * 100).toFixed(0)} cm`;
const name = (label: string) => label.replace(/_/g, " ");
/** "at all" when careful runs never showed it (under half a centimetre), else "more than" their most. */
const atAll = (careful: QuantityNorm) => (careful.max < 0.005 ? " at all" : ` more than ${cm(careful.max)}`);
const ORDINAL = ["", "first", "second", "third", "fourth", "fifth"];
const ordinal = (k: number) => ORDINAL[k] ?? `${k}th`;

function view(frames: SeenFrame[]): View {
  const track = (label: string): Track =>
    frames.flatMap((f) => f.things.filter((x) => x.label === label).map((x) => ({ t: f.t, thing: x })));
  const labels = [...new Set(frames.flatMap((f) => f.things.map((x) => x.label)))];
  // A handle is pulled with its door or drawer, not carried: what the hand carries is the rest.
  const handles = labels.filter((l) => /handle|knob/.test(l));
  const handled = labels.filter((l) => l !== "palm" && !handles.includes(l) && track(l).some((x) => x.thing.held));
  const hinged = new Set(frames.flatMap((f) => f.open));
  const alike = (l: string) => frames.some((f) => f.things.filter((x) => x.label === l).length > 1);
  const untouched = labels.filter(
    (l) => l !== "palm" && l !== "table" && !handled.includes(l) && !hinged.has(l) && !handles.includes(l) && !alike(l),
  );
  return { palm: track("palm"), track, handled, untouched };
}

/** Consecutive sightings with the thing held (one sighting or more). */
function heldRuns(track: Track): Track[] {
  const runs: Track[] = [];
  let current: Track = [];
  for (const x of track) {
    if (x.thing.held) current.push(x);
    else if (current.length) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length) runs.push(current);
  return runs;
}

/** Times a sequence of values turns back (a leg of at least `leg` one way, then one the other way), and when the first is. */
function turnsBack(values: number[], times: number[], leg: number): { count: number; first: number; last: number } {
  let anchor = values[0],
    direction = 0,
    count = 0,
    first = times[0],
    last = times[0];
  for (let i = 1; i < values.length; i++) {
    const step = values[i] - anchor;
    if (Math.abs(step) < leg) continue;
    const now = Math.sign(step);
    if (direction && now !== direction) {
      if (!count) first = times[i - 1];
      count++;
      last = times[i];
    }
    direction = now;
    anchor = values[i];
  }
  return { count, first, last };
}

/** The hand's moves between key frames: how far and how long (a move of under a centimetre is rest). */
function handSteps(palm: Track): { from: number; to: number; length: number; dt: number }[] {
  return palm.slice(1).map((x, i) => ({
    from: palm[i].t,
    to: x.t,
    length: distance(x.thing.at, palm[i].thing.at),
    dt: x.t - palm[i].t,
  }));
}

export type QuantityId =
  | "hand_rest"
  | "hand_speed"
  | "hand_pace"
  | "grasps"
  | "held_up_and_down"
  | "held_turns"
  | "held_path"
  | "hand_lowest"
  | "other_moved"
  | "other_height";

interface Quantity {
  id: QuantityId;
  /** What it measures, for the docs. */
  about: string;
  /** Far is `above` the careful values, or `below` them. */
  far: "above" | "below";
  /** The least difference the key frames resolve (their rounding, a detection's jitter, a frame's spacing). */
  resolution: number;
  /**
   * The cues' kinds (./evidence.ts) that already report this quantity: when one of them was said of the same thing,
   * the norm says nothing more of it — it is there for what no cue covers.
   */
  told: string[];
  measure(seen: View): Measurement | undefined;
  /** The claim's words, from the measurement and the careful values; a known kind only where one fits the quantity. */
  says(found: Measurement, careful: QuantityNorm): Pick<ClaimedEvent, "what" | "cause" | "kind">;
}

const measurement = (
  quantity: QuantityId,
  value: number,
  object: string,
  at: number,
  also: Measurement["also"] = {},
): Measurement => ({ quantity, value, object, t: at, also });

/** Over every stretch a thing is held: the most times `along` (a value per sighting) turns back, over legs of `leg`. */
function mostTurnsWhileHeld(
  seen: View,
  quantity: QuantityId,
  along: (run: Track) => number[],
  leg: number,
): Measurement {
  let best: Measurement | undefined;
  for (const label of seen.handled)
    for (const run of heldRuns(seen.track(label))) {
      const turns = turnsBack(
        along(run),
        run.map((x) => x.t),
        leg,
      );
      if (!best || turns.count > best.value)
        best = measurement(quantity, turns.count, label, turns.first, { until: turns.last });
    }
  return best ?? measurement(quantity, 0, "palm", 0);
}

/**
 * Of the things the hand never took (seen three times or more), the one that changed most: `change` from its first
 * sighting to each of its last two, the smaller (a hand in front of it in one frame is no change). `when` says when
 * it happened and what else the words need.
 */
function mostChangedUntouched(
  seen: View,
  quantity: QuantityId,
  change: (start: SeenThing, later: SeenThing) => number,
  when: (track: Track, value: number) => { at: number; also?: Measurement["also"] },
): Measurement {
  let best: Measurement | undefined;
  for (const label of seen.untouched) {
    const track = seen.track(label);
    if (track.length < 3) continue;
    const value = Math.min(...track.slice(-2).map((x) => change(track[0].thing, x.thing)));
    if (best && value <= best.value) continue;
    const { at, also } = when(track, value);
    best = measurement(quantity, value, label, at, also);
  }
  return best ?? measurement(quantity, 0, "table", 0);
}

/** The quantities, each measured the same way on every rollout. */
export const QUANTITIES: Quantity[] = [
  {
    id: "hand_rest",
    about: "the longest the hand stays still (within a centimetre) between two moves (s)",
    far: "above",
    // A rest is seen between two key frames on each side: it is known to a frame's spacing (30 frames over ~15 s).
    resolution: 0.5,
    told: ["idled"],
    measure(seen) {
      let best: Measurement | undefined;
      for (let i = 0; i < seen.palm.length; i++) {
        let j = i;
        while (j + 1 < seen.palm.length && distance(seen.palm[j + 1].thing.at, seen.palm[i].thing.at) < 0.01) j++;
        const rest = seen.palm[j].t - seen.palm[i].t;
        if (i > 0 && j + 1 < seen.palm.length && (!best || rest > best.value))
          best = measurement("hand_rest", rest, "palm", seen.palm[i].t, { until: seen.palm[j].t });
        i = j;
      }
      return best ?? measurement("hand_rest", 0, "palm", seen.palm[0]?.t ?? 0);
    },
    says: (found, careful) => ({
      kind: "idled",
      what: `the hand stays still from ${seconds(found.t)} to ${seconds(Number(found.also.until))}, ${seconds(found.value)} without moving; careful runs rest at most ${seconds(careful.max)}`,
      cause: "it waits where the task does not need a wait",
    }),
  },
  {
    id: "hand_speed",
    about: "the hand's fastest move between two key frames (m/s)",
    far: "above",
    resolution: 0.05,
    told: ["rushed", "set_down_fast", "spilled"],
    measure(seen) {
      const moves = handSteps(seen.palm).filter((s) => s.dt > 0);
      if (!moves.length) return undefined;
      const fastest = moves.reduce((best, move) => (move.length / move.dt > best.length / best.dt ? move : best));
      const holding = seen.handled.find((label) =>
        seen.track(label).some((x) => x.thing.held && x.t >= fastest.from && x.t <= fastest.to),
      );
      const i = seen.palm.findIndex((x) => x.t === fastest.from);
      const [start, end] = [seen.palm[i].thing.at, seen.palm[i + 1].thing.at];
      // Which way: mostly up, mostly down, or across the table.
      const rise = end[2] - start[2],
        across = Math.hypot(end[0] - start[0], end[1] - start[1]);
      const way = Math.abs(rise) > across ? (rise < 0 ? "down" : "up") : "across";
      return measurement("hand_speed", fastest.length / fastest.dt, holding ?? "palm", fastest.from, {
        until: fastest.to,
        holding: holding ?? "",
        way,
      });
    },
    says: (found, careful) => {
      const what = found.also.holding ? `the held ${name(String(found.also.holding))}` : "the hand";
      const motion = { down: "comes down", up: "goes up", across: "is moved across the table" }[String(found.also.way)];
      return {
        what: `${what} ${motion} at ${found.value.toFixed(2)} m/s between ${seconds(found.t)} and ${seconds(Number(found.also.until))}; careful runs move at most ${careful.max.toFixed(2)} m/s`,
        cause: "the hand moved too fast",
      };
    },
  },
  {
    id: "hand_pace",
    about: "the hand's mean speed over the moves it makes, rests left out (m/s)",
    far: "below",
    resolution: 0.02,
    told: [],
    measure(seen) {
      const moves = handSteps(seen.palm).filter((s) => s.length >= 0.01 && s.dt > 0);
      const time = moves.reduce((sum, s) => sum + s.dt, 0);
      if (!moves.length || time === 0) return undefined;
      const path = moves.reduce((sum, s) => sum + s.length, 0);
      return measurement("hand_pace", path / time, "palm", moves[0].from, { path, time });
    },
    says: (found, careful) => ({
      what: `the hand moves slowly the whole way: ${(Number(found.also.path) * 100).toFixed(0)} cm of moves take it ${seconds(Number(found.also.time))}, ${found.value.toFixed(2)} m/s on average, where careful runs average ${careful.median.toFixed(2)} m/s and never under ${careful.min.toFixed(2)} m/s`,
      cause: "it moved slower than the task needs, taking time for nothing",
    }),
  },
  {
    id: "grasps",
    about: "how many separate times the hand takes hold of the same thing",
    far: "above",
    resolution: 0.5,
    told: [],
    measure(seen) {
      let best: Measurement | undefined;
      for (const label of seen.handled) {
        const track = seen.track(label);
        const runs = heldRuns(track);
        // Let go: first seen out of the hand after the hold before the last.
        const before = runs.length > 1 ? runs[runs.length - 2].at(-1)!.t : runs[0][0].t;
        const released = track.find((x) => x.t > before && !x.thing.held)?.t ?? before;
        if (!best || runs.length > best.value)
          best = measurement("grasps", runs.length, label, runs[runs.length - 1][0].t, { released });
      }
      return best ?? measurement("grasps", 0, "palm", 0);
    },
    says: (found, careful) => ({
      what: `the hand closes on the ${name(found.object)} a ${ordinal(found.value)} time at ${seconds(found.t)}, after letting go of it at ${seconds(Number(found.also.released))}; careful runs take hold of it ${careful.max === 1 ? "once" : `at most ${careful.max} times`}`,
      cause: "it let go and took hold again, which the task does not need",
    }),
  },
  {
    id: "held_up_and_down",
    about: "how many times a held thing's height turns back (legs of 1.5 cm or more)",
    far: "above",
    resolution: 0.5,
    told: [],
    measure: (seen) => mostTurnsWhileHeld(seen, "held_up_and_down", (run) => run.map((x) => x.thing.at[2]), 0.015),
    says: (found, careful) => ({
      what: `the held ${name(found.object)} goes up and down, its height turning back ${found.value} times between ${seconds(found.t)} and ${seconds(Number(found.also.until))}; careful runs turn it at most ${careful.max} times`,
      cause: "the hand made moves the task does not need",
    }),
  },
  {
    id: "held_turns",
    about: "how many times a held thing's way across the table turns back on itself (legs of 3 cm or more)",
    far: "above",
    resolution: 0.5,
    told: ["dithered", "overshot"],
    measure: (seen) =>
      // Along the way it is carried: turning back is going the other way along it.
      mostTurnsWhileHeld(
        seen,
        "held_turns",
        (run) => {
          const start = run[0].thing.at,
            end = run[run.length - 1].thing.at;
          const along = Math.hypot(end[0] - start[0], end[1] - start[1]) || 1;
          const ux = (end[0] - start[0]) / along,
            uy = (end[1] - start[1]) / along;
          return run.map((x) => (x.thing.at[0] - start[0]) * ux + (x.thing.at[1] - start[1]) * uy);
        },
        0.03,
      ),
    says: (found, careful) => ({
      kind: "dithered",
      what: `the held ${name(found.object)} goes back and forth, turning back on its way ${found.value} times between ${seconds(found.t)} and ${seconds(Number(found.also.until))}; careful runs turn back at most ${careful.max} times`,
      cause: "the hand made moves the task does not need",
    }),
  },
  {
    id: "held_path",
    about:
      "a held thing's way across the table as a multiple of the straight way from where it is taken to where it is let go (lifting and lowering left out)",
    far: "above",
    resolution: 0.1,
    told: ["detoured", "dithered", "overshot"],
    measure(seen) {
      let best: Measurement | undefined;
      for (const label of seen.handled)
        for (const run of heldRuns(seen.track(label))) {
          const across = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
          const straight = across(run[0].thing.at, run[run.length - 1].thing.at);
          if (straight < 0.05) continue;
          let path = 0;
          for (let i = 1; i < run.length; i++) path += across(run[i].thing.at, run[i - 1].thing.at);
          if (!best || path / straight > best.value)
            best = measurement("held_path", path / straight, label, run[0].t, { path, straight });
        }
      return best;
    },
    says: (found, careful) => ({
      kind: "detoured",
      what: `the held ${name(found.object)} strays off the straight way: its way across the table is ${cm(Number(found.also.path))} for ${cm(Number(found.also.straight))}, ${found.value.toFixed(1)} times the straight way, from ${seconds(found.t)}; careful runs go at most ${careful.max.toFixed(1)} times it`,
      cause: "the hand made moves the task does not need",
    }),
  },
  {
    id: "hand_lowest",
    about: "how close the hand's lowest point comes to the table top (m)",
    far: "below",
    resolution: 0.005,
    told: ["struck_table", "dragged"],
    measure(seen) {
      if (!seen.palm.length) return undefined;
      const lowest = seen.palm.reduce((a, b) => (b.thing.z[0] < a.thing.z[0] ? b : a));
      return measurement("hand_lowest", lowest.thing.z[0], "palm", lowest.t);
    },
    says: (found, careful) => ({
      what: `the hand comes down too low at ${seconds(found.t)}, its lowest point ${(found.value * 100).toFixed(1)} cm above the table top; careful runs keep it at least ${(careful.min * 100).toFixed(1)} cm above`,
      cause: "the hand moved too low",
    }),
  },
  {
    id: "other_moved",
    about: "how far a thing the hand never took ends from where it stood, by its rim (m)",
    far: "above",
    resolution: 0.01,
    told: ["pushed", "knocked_over"],
    measure: (seen) =>
      mostChangedUntouched(seen, "other_moved", rimShift, (track, shift) => ({
        at: track.find((x) => rimShift(track[0].thing, x.thing) > shift / 2)?.t ?? track[0].t,
      })),
    says: (found, careful) => ({
      kind: "pushed",
      what: `the ${name(found.object)} ends ${cm(found.value)} from where it stood, moved at about ${seconds(found.t)}, though the hand never took it; in careful runs nothing it leaves alone moves${atAll(careful)}`,
      cause: "the path went through it",
    }),
  },
  {
    id: "other_height",
    about: "how much a thing the hand never took changes in visible height, start to end (m)",
    far: "above",
    resolution: 0.01,
    told: ["knocked_over", "pushed"],
    measure: (seen) =>
      mostChangedUntouched(
        seen,
        "other_height",
        (start, later) => Math.abs(height(later) - height(start)),
        (track) => ({ at: track.at(-2)!.t, also: { from: height(track[0].thing), to: height(track.at(-1)!.thing) } }),
      ),
    says: (found, careful) => {
      // Under 60 % of its height: lying down, not leaning.
      const lying = Number(found.also.to) < 0.6 * Number(found.also.from);
      return {
        kind: lying ? "knocked_over" : undefined,
        what: `the ${name(found.object)} stands ${cm(Number(found.also.from))} high at the start and ${cm(Number(found.also.to))} at the end: it is tipped${lying ? " over, lying on its side" : " at one edge"}, though the hand never took it; in careful runs nothing it leaves alone changes height${atAll(careful)}`,
        cause: "the path went through it",
      };
    },
  },
];

/** Every quantity measured on a rollout's key frames (those it can be measured on). */
export function measure(frames: SeenFrame[]): Measurement[] {
  if (frames.length < 2) return [];
  const seen = view(frames);
  return QUANTITIES.flatMap((quantity) => quantity.measure(seen) ?? []);
}

/** 1.4826 × MAD: the standard deviation, for normal values, read robustly. */
const spread = (careful: QuantityNorm) => 1.4826 * careful.mad;

/** Whether a value lies beyond every careful value by more than the resolution and `margin` robust deviations. */
export function beyondCareful(
  quantity: Pick<Quantity, "far" | "resolution">,
  value: number,
  careful: QuantityNorm,
  margin: number,
): boolean {
  const beyond = quantity.resolution + margin * spread(careful);
  return quantity.far === "above" ? value > careful.max + beyond : value < careful.min - beyond;
}

/** The careful values of each quantity, over careful runs' measurements. */
export function learnNorm(runs: Measurement[][], learnedFrom: string, margin: number): Norm {
  const quantities: Norm["quantities"] = {};
  for (const quantity of QUANTITIES) {
    const values = runs
      .flatMap((run) => run.filter((m) => m.quantity === quantity.id).map((m) => m.value))
      .sort((a, b) => a - b);
    if (!values.length) continue;
    const median = quantile(values, 0.5);
    const mad = quantile(
      values.map((x) => Math.abs(x - median)).sort((a, b) => a - b),
      0.5,
    );
    quantities[quantity.id] = { n: values.length, median, mad, min: values[0], max: values[values.length - 1] };
  }
  return { learnedFrom, margin, quantities };
}

function quantile(sorted: number[], share: number): number {
  const at = (sorted.length - 1) * share;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

/**
 * What lies far outside careful motion in these frames, as claims in words made from the measurement. `seen`: what the
 * cues already said, so a quantity a cue reported on the same thing is not said twice.
 */
export function outsideNorm(
  frames: SeenFrame[],
  norm: Norm,
  seen: Pick<ClaimedEvent, "kind" | "object">[] = [],
): ClaimedEvent[] {
  const out: ClaimedEvent[] = [];
  for (const found of measure(frames)) {
    const quantity = QUANTITIES.find((x) => x.id === found.quantity)!;
    const careful = norm.quantities[found.quantity];
    if (!careful || !beyondCareful(quantity, found.value, careful, norm.margin)) continue;
    // Of the hand, any cue that reports the quantity told it (a strike names the table, not the palm).
    if (
      seen.some(
        (s) => s.kind && quantity.told.includes(s.kind) && (s.object === found.object || found.object === "palm"),
      )
    )
      continue;
    const { kind, what, cause } = quantity.says(found, careful);
    out.push({ ...(kind ? { kind } : {}), what, cause, object: found.object, t: Math.round(found.t * 10) / 10 });
  }
  return out;
}
