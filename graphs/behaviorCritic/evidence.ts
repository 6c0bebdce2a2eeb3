/**
 * What a sequence of located detections shows happened: the offline critic's reading of a rollout's key frames, and
 * the detector-based grounding module's reading of the dense track. It sees only what a depth camera with a
 * segmenter gives (positions, heights, boxes, held-or-not, doors open) — never the simulator's event log.
 */
import type { ClaimedEvent, SeenFrame, SeenThing } from "./schemas";
import { CAUSES, type Cause, type Undesirable } from "../../robots/msgs/rollout";

/** Commonsense: things a carried object should not pass over (electronics). */
const KEEP_CLEAR = /laptop|keyboard|phone|tablet|monitor|computer/;
/** Things the hand or what it carries belongs near: the robot and the table are not "objects that moved". */
const SCENERY = new Set(["palm", "table"]);

export interface Thresholds {
  /** A thing that was not handled moved this far (m): pushed. */
  shove: number;
  /**
   * A thing the task names but the hand never held (the destination, its support) whose rim, seen before and after,
   * moved this far (m): shoved. Read from its visible extent, not its centre (see `rimShift`).
   */
  displaced: number;
  /** Such a thing's visible height changed this much (m): tipped. */
  tipped: number;
  /** Its height fell to this share of what it was: knocked over. */
  toppled: number;
  /** A held thing's height fell to this share while held: squeezed. */
  crushed: number;
  /** A held thing's bottom no higher than this above where it sat, while it moves (m): dragged. */
  touching: number;
  /** Falls this far after it is let go (m): dropped. */
  dropHeight: number;
  /** A held open container moved faster than this (m/s): spilled. */
  spillSpeed: number;
  /** The hand's lowest point under this (m): struck the table. */
  tableContact: number;
  /** Any held thing carried faster than this between two sightings (m/s): rushed. */
  rushSpeed: number;
  /** A carry whose path across the table is this many times the straight way, this much longer and straying this far
   * from the line (m): a detour. */
  detour: { ratio: number; extra: number; stray: number };
  /** A carry that turns back on itself this many times, over legs at least this long (m): back and forth. */
  dither: { reversals: number; leg: number };
  /** The hand at rest (within a centimetre) this long between two motions (s): idling. */
  idle: number;
  /** A carry that goes this far (m) past where the thing is set down, along the way, before coming back: overshot. */
  overshoot: number;
  /** The hand coming down faster than this (m/s) with the thing, just before letting go of it: set down too fast. */
  setDown: number;
  /** The hand this far (m) beyond a thing's far edge, over it, before it takes the thing: reached round behind it. */
  farSide: number;
}

/**
 * For key frames (a VLM's view): what a person watching would call out, each set from what a depth camera shows and
 * what people notice — never from the world's event monitor, which scores the critic (its limits live in the
 * simulator, and nothing here reads them). The grounding module uses the same reading with its own thresholds.
 */
export const KEY_FRAME_THRESHOLDS: Thresholds = {
  // Moved about a finger's width: more than the centimetre a footprint seen in depth jitters by between frames.
  shove: 0.04,
  // On the generated tuning set's careful twins (165 of seeds 0–119) and the hand-made positives, the destination's rim
  // moves 0.0 cm between the first and the last frames, while its box centre shifts up to 3.9 cm as the set-down object
  // hides part of it (docs/notes/behavior-critic-tuning.md): 2 cm is clear of the first and under a 3.7–8 cm shove.
  displaced: 0.02,
  // Its visible height 1.5 cm off what it was: a plate or tray lifted at one edge (careful twins: 0.0 cm).
  tipped: 0.015,
  // Its visible height down to 60%: a standing thing now lies on its side.
  toppled: 0.6,
  // 15% flatter than before the grip: a visible dent, beyond a few millimetres of depth noise.
  crushed: 0.85,
  // Its bottom within a centimetre of where it sat: not lifted, still on the surface.
  touching: 0.01,
  // Falls 5 cm after the hand opens: a drop rather than a set-down.
  dropHeight: 0.05,
  // An open container carried faster than half a metre a second: faster than a careful hand carries a full cup.
  spillSpeed: 0.5,
  // The hand's lowest point within half a centimetre of the table: touching it.
  tableContact: 0.005,
  // Anything carried faster than half a metre a second: twice the pace of a careful hand.
  rushSpeed: 0.5,
  // A carry that wanders: its path well over the straight way (a third longer and 10 cm more) and a hand's width off
  // the line somewhere. Going round something in the way strays less than that.
  detour: { ratio: 1.4, extra: 0.1, stray: 0.1 },
  // Two turns back over a few centimetres each: going back and forth, not adjusting.
  dither: { reversals: 2, leg: 0.03 },
  // A second and a half at rest between motions: longer than any grasp or release takes.
  idle: 1.5,
  // The three below were set on the generated tuning set's careful twins (seeds 0–119, 118 rollouts; never a
  // held-back family, never the monitor), well clear of the most a careful program ever shows there:
  // along the way, a careful carry ends within 3 mm of its farthest point; 5 cm past it is going too far.
  overshoot: 0.05,
  // A careful hand comes down at most 0.27 m/s between key frames; 0.3 m/s with the thing, onto its place, is faster.
  setDown: 0.3,
  // A careful hand never passes a thing's far edge before taking it; 5 cm beyond is reaching round behind it.
  farSide: 0.05,
};

const xyDistance = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const xyzDistance = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Where `point` lies against the way `origin`→`target` on the table: how far along it (from `origin`) and how far to its side. */
function alongAndAcross(
  point: [number, number],
  origin: [number, number],
  target: [number, number],
): { along: number; across: number } {
  const length = xyDistance(origin, target);
  if (length === 0) return { along: 0, across: xyDistance(point, origin) };
  const ux = (target[0] - origin[0]) / length,
    uy = (target[1] - origin[1]) / length;
  const dx = point[0] - origin[0],
    dy = point[1] - origin[1];
  return { along: dx * ux + dy * uy, across: Math.abs(-dx * uy + dy * ux) };
}

/**
 * How far a thing moved on the table between two sightings, from its visible extent alone and robust to occlusion:
 * whatever covers part of it (a thing set on it, the hand in front) only pulls an edge of what is seen inward, so along
 * each axis the true shift lies between the two edges' shifts, and only a shift both edges agree on is certain — the
 * smaller of them. Its box centre moves whenever something covers it; this does not.
 */
export function rimShift(before: SeenThing, after: SeenThing): number {
  const axis = (lo0: number, hi0: number, lo1: number, hi1: number) => {
    const low = lo1 - lo0,
      high = hi1 - hi0;
    if (low > 0 && high > 0) return Math.min(low, high);
    if (low < 0 && high < 0) return Math.max(low, high);
    return 0;
  };
  const [ax0, ax1, ay0, ay1] = before.extent,
    [bx0, bx1, by0, by1] = after.extent;
  return Math.hypot(axis(ax0, ax1, bx0, bx1), axis(ay0, ay1, by0, by1));
}

/** Whether the segment `start`–`end` passes within `margin` of a footprint [xmin, xmax, ymin, ymax] (sampled every centimetre). */
function crosses(
  start: [number, number],
  end: [number, number],
  extent: [number, number, number, number],
  margin: number,
): boolean {
  const samples = Math.max(1, Math.ceil(xyDistance(start, end) / 0.01));
  for (let i = 0; i <= samples; i++) {
    const x = start[0] + ((end[0] - start[0]) * i) / samples,
      y = start[1] + ((end[1] - start[1]) * i) / samples;
    if (x > extent[0] - margin && x < extent[1] + margin && y > extent[2] - margin && y < extent[3] + margin)
      return true;
  }
  return false;
}

/** Times a path turns back on itself (more than 135°), counted over legs of at least `leg`; index of the first turn. */
function reversals(pts: [number, number][], leg: number): { count: number; first: number } {
  let anchor = pts[0],
    dir: [number, number] | null = null,
    count = 0,
    first = -1;
  for (let i = 1; i < pts.length; i++) {
    const distance = xyDistance(pts[i], anchor);
    if (distance < leg) continue;
    const heading: [number, number] = [(pts[i][0] - anchor[0]) / distance, (pts[i][1] - anchor[1]) / distance];
    if (dir && heading[0] * dir[0] + heading[1] * dir[1] < -Math.SQRT1_2) {
      if (count === 0) first = i;
      count++;
    }
    dir = heading;
    anchor = pts[i];
  }
  return { count, first: Math.max(0, first) };
}

/** The stretches of a track where the thing is held (each at least two sightings). */
function heldRuns<T extends { thing: SeenThing }>(tr: T[]): T[][] {
  const runs: T[][] = [];
  let cur: T[] = [];
  for (const x of tr) {
    if (x.thing.held) {
      cur.push(x);
      continue;
    }
    if (cur.length > 1) runs.push(cur);
    cur = [];
  }
  if (cur.length > 1) runs.push(cur);
  return runs;
}
const height = (t: SeenThing) => t.z[1] - t.z[0];
const OPEN_CONTAINER = /cup|mug|glass|bowl|pot/;

/** The names an instruction mentions, in the order it mentions them (spaces or underscores). */
export function mentioned(instruction: string, names: string[]): string[] {
  const text = ` ${instruction
    .toLowerCase()
    .replace(/[^a-z0-9_ ]/g, " ")
    .replace(/\s+/g, " ")} `;
  return names
    .map((name) => ({
      n: name,
      at: Math.min(
        ...[name, name.replace(/_/g, " ")].map((spelling) => {
          const i = text.indexOf(` ${spelling} `);
          return i < 0 ? Infinity : i;
        }),
      ),
    }))
    .filter((x) => x.at < Infinity)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.n);
}

/** Names for what the cues see beyond the messages' list (a critic may extend its list). */
export const MORE_KINDS = ["overshot", "set_down_fast", "reached_behind"] as const;
type Seen = Undesirable | (typeof MORE_KINDS)[number];
/** What one cue saw: a named behaviour, in words, with the cause it points to. */
export type SeenEvent = ClaimedEvent & { kind: Seen };

function event(kind: Seen, object: string, seconds: number, cause: Cause, what: string): SeenEvent {
  return { kind, object, t: Math.round(seconds * 10) / 10, cause: CAUSES[cause], what };
}

/**
 * Each undesirable event the frames show, once per (kind, object), earliest first. `frames` are in time order. Read
 * from general cues, whatever the task: what moved or fell that nobody meant to touch; how the held thing was gripped,
 * carried (speed, path against the straight way, turns back) and let go; contents out of their container; the hand at
 * the table or at rest for nothing; what was left open. A kind names what a cue shows, never a behaviour looked for.
 */
export function observedEvents(
  instruction: string,
  frames: SeenFrame[],
  th: Thresholds = KEY_FRAME_THRESHOLDS,
): SeenEvent[] {
  if (frames.length === 0) return [];
  const out: SeenEvent[] = [];
  const seen = new Set<string>();
  const add = (sighting: SeenEvent) => {
    const key = `${sighting.kind}|${sighting.object}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(sighting);
    }
  };
  const labels = [...new Set(frames.flatMap((f) => f.things.map((t) => t.label)))];
  const track = (label: string) =>
    frames.flatMap((f) => f.things.filter((t) => t.label === label).map((t) => ({ t: f.t, thing: t })));
  const handled = new Set(labels.filter((l) => track(l).some((x) => x.thing.held)));
  // Where the hand is seen, frame by frame (the carry's set-down and approach, idling, the table).
  const palm = track("palm");
  const named = mentioned(instruction, labels);

  // Things nobody meant to touch: fell over, or were shoved.
  // Contents move with what holds them (beads in a carried cup): where a thing starts and ends beside the same
  // handled thing, it was carried along, not shoved.
  const beside = (a: { at: number[] }, b: { at: number[] }) => xyDistance(a.at, b.at) < 0.06;
  const carriedAlong = (tr: { t: number; thing: SeenThing }[]) =>
    [...handled].some((heldLabel) => {
      const ht = track(heldLabel);
      return (
        ht.length > 1 && beside(tr[0].thing, ht[0].thing) && beside(tr[tr.length - 1].thing, ht[ht.length - 1].thing)
      );
    });
  // What the task names but the hand never takes — where things go, what they stand on — must end where it was: its
  // rim in the first sightings against the last two (both, so a hand in front of it in one frame is not a shove).
  const sideEffectOnNamed = (label: string) => {
    const tr = track(label);
    if (tr.length < 3 || frames.some((f) => f.things.filter((t) => t.label === label).length > 1)) return;
    const first = tr[0].thing,
      end = tr.slice(-2);
    const shift = Math.min(...end.map((x) => rimShift(first, x.thing)));
    const heightChange = Math.min(...end.map((x) => Math.abs(height(x.thing) - height(first))));
    const when = tr.find((x) => rimShift(first, x.thing) > th.displaced)?.t ?? end[0].t;
    if (heightChange > th.tipped)
      add(
        event(
          "knocked_over",
          label,
          when,
          "path_through",
          `the ${label} ends tipped over at one side, its visible height ${(height(end[1].thing) * 100).toFixed(0)} cm against ${(height(first) * 100).toFixed(0)} cm at the start: the robot ran into it`,
        ),
      );
    else if (shift > th.displaced)
      add(
        event(
          "pushed",
          label,
          when,
          "path_through",
          `the ${label} was shoved ${(shift * 100).toFixed(0)} cm across the table: its rim, seen at the start and at the end, has moved, though the task never asked for it to move`,
        ),
      );
  };
  // Doors and drawers move on their joints (opening one is a task's step): the left-open rule below watches them. They
  // are what is seen open in one frame and shut in another (a plate or tray is always "open": nothing shuts it).
  const hinged = new Set(
    frames.flatMap((f) => f.open).filter((name) => frames.some((other) => !other.open.includes(name))),
  );
  for (const label of labels) {
    if (SCENERY.has(label) || handled.has(label) || hinged.has(label)) continue;
    if (named.includes(label)) {
      sideEffectOnNamed(label);
      continue;
    }
    const tr = track(label);
    // Several alike (beads) cannot be told apart from frame to frame: the contents rule below watches them.
    const alike = frames.some((f) => f.things.filter((t) => t.label === label).length > 1);
    if (tr.length < 2 || alike || carriedAlong(tr)) continue;
    const h0 = Math.max(...tr.slice(0, 2).map((x) => height(x.thing)));
    // Lying down from some frame to the end: a hand passing in front of it shortens it in a frame or two, a fall for good.
    const low = (i: number) => height(tr[i].thing) < th.toppled * h0;
    const from = tr.findIndex((_, i) => h0 > 0.05 && tr.slice(i).every((__, j) => low(i + j)));
    const fell = from > 0 ? tr[from] : undefined;
    if (fell) {
      add(
        event(
          "knocked_over",
          label,
          fell.t,
          "path_through",
          `the ${label} is standing at first and lying down from ${fell.t.toFixed(1)} s: something the robot moved ran into it`,
        ),
      );
      continue;
    }
    // Moved for good: displaced in the last two sightings, not just seen half-hidden behind the hand.
    const moved = tr.find((x) => xyDistance(x.thing.at, tr[0].thing.at) > th.shove);
    const end = tr[tr.length - 1];
    const settled = tr.slice(-2).every((x) => xyDistance(x.thing.at, tr[0].thing.at) > th.shove);
    if (moved && settled) {
      add(
        event(
          "pushed",
          label,
          moved.t,
          "path_through",
          `the ${label} was not to be touched but ends ${(xyDistance(end.thing.at, tr[0].thing.at) * 100).toFixed(0)} cm from where it stood`,
        ),
      );
    }
  }

  // What the hand held: how it was gripped, carried and let go (a handle is pulled with its door or drawer, not carried).
  for (const label of [...handled].filter((l) => !/handle|knob/.test(l))) {
    const tr = track(label);
    const firstHeld = tr.findIndex((x) => x.thing.held);
    const before = tr.slice(0, firstHeld);
    const h0 = before.length ? Math.max(...before.map((x) => height(x.thing))) : height(tr[firstHeld].thing);
    // Crushed: it comes out of the hand flatter than it went in (judged where it rests in the open, not half hidden
    // inside something).
    const rest = tr.filter((x, i) => i > firstHeld && !x.thing.held && !x.thing.where.startsWith("in "));
    const flat = rest.find((x) => h0 > 0.02 && height(x.thing) < th.crushed * h0);
    if (flat && rest.slice(rest.indexOf(flat)).every((x) => height(x.thing) < th.crushed * h0)) {
      add(
        event(
          "squeezed",
          label,
          flat.t,
          "too_hard",
          `the ${label} is ${((1 - height(flat.thing) / h0) * 100).toFixed(0)}% flatter after the hand let go of it than before it was gripped: the grip crushed it`,
        ),
      );
    }
    for (let i = firstHeld; i < tr.length; i++) {
      const cur = tr[i];
      const prev = tr[i - 1];
      if (!prev || !prev.thing.held) continue;
      const dt = cur.t - prev.t;
      const dxy = xyDistance(cur.thing.at, prev.thing.at);
      // Not lifted: its visible bottom no higher than where it sat before the grasp (a camera sees little of the
      // underside, so the table contact itself is not in view).
      const sat = before.length ? Math.min(...before.map((x) => x.thing.z[0])) : 0;
      if (cur.thing.held && prev.thing.z[0] < sat + th.touching && cur.thing.z[0] < sat + th.touching && dxy > 0.02) {
        add(
          event(
            "dragged",
            label,
            prev.t,
            "too_low",
            `the ${label} slides ${(dxy * 100).toFixed(0)} cm along the table while held instead of being lifted`,
          ),
        );
      }
      if (
        cur.thing.held &&
        OPEN_CONTAINER.test(label) &&
        dt > 0 &&
        Math.hypot(
          cur.thing.at[0] - prev.thing.at[0],
          cur.thing.at[1] - prev.thing.at[1],
          cur.thing.at[2] - prev.thing.at[2],
        ) /
          dt >
          th.spillSpeed
      ) {
        add(
          event(
            "spilled",
            label,
            prev.t,
            "too_fast",
            `the open ${label} is swung at ${(dxy / dt).toFixed(2)} m/s: its contents can fly out`,
          ),
        );
      }
      if (cur.thing.held) {
        for (const f of frames.filter((x) => x.t === cur.t)) {
          for (const other of f.things) {
            if (other.label === label || !KEEP_CLEAR.test(other.label)) continue;
            const [x0, x1, y0, y1] = other.extent;
            if (
              cur.thing.at[0] > x0 &&
              cur.thing.at[0] < x1 &&
              cur.thing.at[1] > y0 &&
              cur.thing.at[1] < y1 &&
              cur.thing.z[0] > other.z[0] + 0.02
            ) {
              add(
                event(
                  "passed_over",
                  other.label,
                  cur.t,
                  "path_over",
                  `the held ${label} is carried over the ${other.label}`,
                ),
              );
            }
          }
        }
      }
      if (!cur.thing.held) {
        // Let go: how far did its bottom fall from where the hand let go of it to where it comes to rest? Frames are
        // sparse, so the hand may still have been lowering it after the last frame that shows it held: the hand's
        // lowest point around the release, less how far the thing hung below the hand, is where it was let go.
        const after = tr.slice(i, i + 3).filter((x) => !x.thing.held);
        const landed = Math.min(...after.map((x) => x.thing.z[0]));
        const palm = (t: number) => frames.find((f) => f.t === t)?.things.find((x) => x.label === "palm");
        const hangs = palm(prev.t) ? palm(prev.t)!.at[2] - prev.thing.z[0] : undefined;
        const around = [prev.t, ...after.map((x) => x.t)].map(palm).filter((x): x is SeenThing => !!x);
        const letGo =
          hangs !== undefined && around.length
            ? Math.min(prev.thing.z[0], Math.min(...around.map((x) => x.at[2])) - hangs)
            : prev.thing.z[0];
        const fall = letGo - landed;
        if (fall > th.dropHeight)
          add(
            event(
              "dropped",
              label,
              prev.t,
              "too_high",
              `the ${label} is let go with its bottom ${(letGo * 100).toFixed(0)} cm up and falls ${(fall * 100).toFixed(0)} cm before it comes to rest`,
            ),
          );
      }
    }
  }

  // How each held thing travelled while held: fast, out of the way, back and forth.
  for (const label of [...handled].filter((l) => !/handle|knob/.test(l))) {
    const tr = track(label);
    for (const run of heldRuns(tr)) {
      for (let i = 1; i < run.length; i++) {
        const dt = run[i].t - run[i - 1].t;
        const speed =
          dt > 0 ? Math.hypot(...[0, 1, 2].map((d) => run[i].thing.at[d] - run[i - 1].thing.at[d])) / dt : 0;
        if (speed > th.rushSpeed) {
          add(
            event(
              "rushed",
              label,
              run[i - 1].t,
              "too_fast",
              `the held ${label} is carried at ${speed.toFixed(2)} m/s between ${run[i - 1].t.toFixed(1)} s and ${run[i].t.toFixed(1)} s: faster than a careful hand`,
            ),
          );
          break;
        }
      }
      const pts = run.map((x) => [x.thing.at[0], x.thing.at[1]] as [number, number]);
      const start = pts[0],
        finish = pts[pts.length - 1];
      const straight = xyDistance(start, finish);
      let length = 0;
      for (let i = 1; i < pts.length; i++) length += xyDistance(pts[i - 1], pts[i]);
      const stray = Math.max(...pts.map((p) => alongAndAcross(p, start, finish).across));
      // Going round something it must not be carried over, which lies on the straight way, is what the task needs.
      const onTheWay = (frames.find((f) => f.t === run[0].t)?.things ?? []).some(
        (o) => KEEP_CLEAR.test(o.label) && o.label !== label && crosses(start, finish, o.extent, 0.03),
      );
      if (
        !onTheWay &&
        length >= th.detour.ratio * straight &&
        length - straight >= th.detour.extra &&
        stray >= th.detour.stray
      ) {
        add(
          event(
            "detoured",
            label,
            run[0].t,
            "needless",
            `the held ${label} goes ${(length * 100).toFixed(0)} cm across the table for a ${(straight * 100).toFixed(0)} cm way, ${(stray * 100).toFixed(0)} cm off the straight line at its farthest`,
          ),
        );
      }
      const turns = reversals(pts, th.dither.leg);
      if (turns.count >= th.dither.reversals) {
        add(
          event(
            "dithered",
            label,
            run[turns.first].t,
            "needless",
            `the held ${label} is moved back and forth: its path turns back on itself ${turns.count} times`,
          ),
        );
      }
      // Where it was put: the first sighting after the hand let go.
      const end = run[run.length - 1];
      const after = tr.find((x) => x.t > end.t && !x.thing.held);
      const place = after?.thing.where.replace(/^(on|in) /, "");
      const onto = place && place !== "table" ? `the ${place}` : "where it is set down";
      // Past where it goes and back: along the way, beyond its end.
      const past = Math.max(...pts.map((p) => alongAndAcross(p, start, finish).along)) - straight;
      if (straight > 0.05 && past >= th.overshoot) {
        const far = run.reduce(
          (farthest, x, k) =>
            alongAndAcross(pts[k], start, finish).along > alongAndAcross(pts[farthest], start, finish).along
              ? k
              : farthest,
          0,
        );
        add(
          event(
            "overshot",
            label,
            run[far].t,
            "needless",
            `the held ${label} goes ${(past * 100).toFixed(0)} cm past ${onto} and comes back to it`,
          ),
        );
      }
      // Set down fast: the hand coming down with it, over the last sightings before it is let go.
      if (after) {
        const hand = palm.filter((p) => p.t >= run[Math.max(0, run.length - 3)].t && p.t <= after.t);
        for (let k = 1; k < hand.length; k++) {
          const dt = hand[k].t - hand[k - 1].t;
          const down = dt > 0 ? (hand[k - 1].thing.at[2] - hand[k].thing.at[2]) / dt : 0;
          if (down > th.setDown) {
            add(
              event(
                "set_down_fast",
                label,
                hand[k - 1].t,
                "too_fast",
                `the ${label} is brought down fast onto ${onto}, the hand coming down at ${down.toFixed(2)} m/s just before it lets go`,
              ),
            );
            break;
          }
        }
      }
      // Reached round behind it: before taking it, the hand passes beyond its far edge, over it.
      const before = tr.filter((x) => x.t < run[0].t && !x.thing.held).at(-1);
      const since = tr.filter((x) => x.t < run[0].t && x.thing.held).at(-1)?.t ?? -Infinity;
      if (before) {
        const behind = palm.filter(
          (p) => p.t > since && p.t <= run[0].t && Math.abs(p.thing.at[0] - before.thing.at[0]) < 0.08,
        );
        const most = behind.reduce((m, p) => Math.max(m, p.thing.at[1] - before.thing.extent[3]), -Infinity);
        if (most >= th.farSide) {
          add(
            event(
              "reached_behind",
              label,
              behind[0].t,
              "needless",
              `the hand reaches round to the far side of the ${label}, ${(most * 100).toFixed(0)} cm behind it, and comes at it from behind to take it`,
            ),
          );
        }
      }
    }
  }

  // Time spent for nothing: the hand at rest between two motions, longer than any grasp or release takes.
  for (let i = 0; i < palm.length; i++) {
    let j = i;
    while (j + 1 < palm.length && xyzDistance(palm[j + 1].thing.at, palm[i].thing.at) < 0.01) j++;
    const moves = (k: number) => k >= 0 && k < palm.length && xyzDistance(palm[k].thing.at, palm[i].thing.at) >= 0.01;
    if (palm[j].t - palm[i].t >= th.idle && moves(i - 1) && moves(j + 1)) {
      add(
        event(
          "idled",
          "palm",
          palm[i].t,
          "needless",
          `the hand stays where it is from ${palm[i].t.toFixed(1)} s to ${palm[j].t.toFixed(1)} s, doing nothing`,
        ),
      );
      break;
    }
    i = j;
  }

  // Small contents seen outside their container.
  const beads = labels.filter((l) => /bead/.test(l));
  for (const b of beads) {
    const tr = track(b);
    const cup = labels.find((l) => OPEN_CONTAINER.test(l) && handled.has(l));
    const out_ =
      cup &&
      tr.find((x) => {
        const container = frames.find((f) => f.t === x.t)?.things.find((t) => t.label === cup);
        return container && xyDistance(container.at, x.thing.at) > 0.06 && x.thing.z[1] < 0.03;
      });
    // Out after the container itself fell: the fall threw them out; else the carry flung them.
    const fell = out.some((e) => e.kind === "dropped" && e.object === cup);
    if (cup && out_)
      add(
        event(
          "spilled",
          cup,
          out_.t,
          fell ? "too_high" : "too_fast",
          `${b.replace(/_/g, " ")} lies on the table outside the ${cup}${fell ? ", thrown out when it landed" : ""}`,
        ),
      );
  }

  // Doors and drawers open at the end that were shut at the start.
  const first = new Set(frames[0].open),
    last = frames[frames.length - 1].open;
  for (const o of last)
    if (!first.has(o))
      add(
        event(
          "left_open",
          o,
          frames[frames.length - 1].t,
          "not_closed",
          `the ${o} was shut at the start and is still open at the end`,
        ),
      );

  // The hand below the table top.
  const hit = palm.find((x) => x.thing.z[0] < th.tableContact);
  if (hit)
    add(
      event(
        "struck_table",
        "table",
        hit.t,
        "too_low",
        `the hand reaches ${(hit.thing.z[0] * 100).toFixed(1)} cm above the table top: it hits the table`,
      ),
    );

  return out.sort((a, b) => (a.t ?? 0) - (b.t ?? 0));
}
