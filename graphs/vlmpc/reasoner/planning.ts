/**
 * Planning: what to do next, from the scene. The toy close enough is reached; a crawl stuck for good or a turn that
 * hit something backs out first (a walk that stalled on standing up just after a crawl crawls on); a labelled example
 * that matches the view is followed; otherwise its own idea — a dead-end corridor backed out of, furniture crawled on
 * beneath, the toy remembered well off to one side turned to (what stands ahead is not in the way to it), the thing in
 * the way met (walked over, crawled under, climbed or gone around on the freer side), or the open way toward the
 * target — any turn toward where it means to look or go planned whole, not its first part, and a way searched for that
 * a frame from this spot already showed walked rather than looked at again — and a skill that already stalled twice
 * here (at the same thing, or from the same spot) is not tried a third time.
 */
import type { RangedDetection } from "../../../robots/msgs/detections";
import type { CourseCommand, Magnitude, ToySighting } from "../schemas";
import { CORRIDOR, KINDS, NEAR, NEAR_AROUND, REACH_DISTANCE, ROBOT, TURN_DEG } from "./robot";
import { judge, type Judged, plainWay } from "./judging";
import {
  corridorOf,
  deg,
  firstInPath,
  groupOf,
  lowView,
  obstaclesOf,
  offsets,
  rad,
  SIDE_LABELS,
  wrap,
} from "./geometry";
import {
  approach,
  banned,
  beneath,
  detourSide,
  FORWARD,
  NOTHING_NAMED,
  relative,
  roomBehind,
  stalledHere,
  triesAllowed,
  wayLeft,
} from "./memory";
import type { Scene } from "./scene";
import {
  backwardFor,
  cmd,
  type Decision,
  distanceOf,
  freeAhead,
  turn,
  turnMagnitude,
  turns,
  turnToward,
  walkFor,
} from "./commands";

/** The turn that clears one edge of an obstacle; one touching the image's edge may go on beyond it. */
function turnToClear(detection: RangedDetection, side: "left" | "right", fov: number): number {
  const { x, y } = offsets(detection);
  const edgeY = side === "left" ? y + detection.width / 2 : y - detection.width / 2;
  const edge = deg(Math.atan2(edgeY, x));
  if ((side === "left" ? edge : -edge) >= fov / 2 - 1) return fov / 2 + 30;
  const margin = deg(Math.asin(Math.min(1, (CORRIDOR + 0.1) / Math.max(0.01, Math.hypot(x, edgeY)))));
  return Math.max(0, (side === "left" ? edge : -edge) + margin);
}

/** The side with more free space: the smaller turn, fewer other blockers there, and toward the toy when it is a tie. */
function freeSide(scene: Scene, blocker: RangedDetection): "left" | "right" {
  const inside = (other: RangedDetection) => {
    const otherY = offsets(other).y,
      blockerY = offsets(blocker).y;
    return (
      Math.abs(otherY - blockerY) <= blocker.width / 2 + 0.05 && Math.abs(offsets(other).x - offsets(blocker).x) < 0.7
    );
  };
  const others = obstaclesOf(scene.ctx.frame.detections).filter(
    (o) => o !== blocker && o.distance < 2 && plainWay(o) === "around" && !inside(o),
  );
  const score = (side: "left" | "right") => {
    const sign = side === "left" ? 1 : -1;
    const crowd = others.filter((o) => sign * (o.bearing - blocker.bearing) > 0).length * 20;
    const towardToy = sign * scene.target.bearing > 0 ? -10 : 0;
    return turnToClear(blocker, side, scene.ctx.frame.fov) + crowd + towardToy;
  };
  return score("left") <= score("right") ? "left" : "right";
}

/** Degrees more than the other side's turn past a thing that make the side taken before a long way round. */
const LONG_WAY_ROUND = 30;

function around(scene: Scene, j: Judged): Decision {
  // Things with gaps narrower than the body between them are gone around as one.
  const group = groupOf(j.d, scene.ctx.frame.detections);
  // The side taken before, unless its turn past this thing is much bigger than the other side's (the thing runs on
  // out of view that way).
  const free = freeSide(scene, group);
  const taken = detourSide(scene.mem, j.label);
  const remembered =
    taken &&
    turnToClear(group, taken, scene.ctx.frame.fov) <= turnToClear(group, free, scene.ctx.frame.fov) + LONG_WAY_ROUND
      ? taken
      : undefined;
  const side = remembered ?? free;
  const mag = turnMagnitude(turnToClear(group, side, scene.ctx.frame.fov));
  const back = side === "left" ? "right" : "left";
  // Walk far enough to take the whole body past its edge: a thing cut off at the image's edge goes on beyond it.
  const sign = side === "left" ? 1 : -1;
  const cut = (thing: RangedDetection) =>
    Math.abs(thing.bearing) > scene.ctx.frame.fov / 2 - 10 ? (KINDS[thing.label]?.depth ?? 0.4) : 0;
  const members = obstaclesOf(scene.ctx.frame.detections).filter(
    (thing) =>
      thing === j.d ||
      (Math.abs(offsets(thing).y - offsets(group).y) <= group.width / 2 + 0.01 &&
        plainWay(thing) === "around" &&
        !SIDE_LABELS.has(thing.label)),
  );
  const edge = Math.max(...members.map((o) => sign * offsets(o).y + o.width / 2 + cut(o)));
  const need = (Math.max(0, edge) + ROBOT.width / 2 + 0.15) / Math.sin(rad(TURN_DEG[mag]));
  const walks =
    group.width > 1 || need > 1.0
      ? [cmd("walk", "large")]
      : need > 0.65
        ? [cmd("walk", "medium"), cmd("walk", "small")]
        : [cmd("walk", "medium")];
  // Too close to turn past it: the body would swing into it, so step back first — unless, by my own moves, the
  // furniture I just crawled out from under is right behind the hips (backing would run into it; a turn in place fits).
  const room = j.d.distance < 0.45 && roomBehind(scene.mem) > 0.45 ? [cmd("backward", "medium")] : [];
  const plan = [...room, turn(scene, side, mag), ...walks, turn(scene, back, mag), cmd("walk", "medium")];
  const gap = group !== j.d ? ` (with the ${j.label}s beside it the gaps are narrower than my body)` : "";
  const why = `the ${j.label} ahead is too tall to climb and has no room beneath${gap}: ${room.length ? "step back, " : ""}go around it on the ${side}${remembered ? " (the side I took before)" : " where there is more room"}, then turn back`;
  return { plan, why };
}

function approachThen(detection: RangedDetection, within: number, then: CourseCommand[]): CourseCommand[] {
  return detection.distance > within ? [walkFor(detection.distance - 0.35), ...then] : then;
}

/** What to do about the thing in the way, given how it is judged and what already failed at it. */
function meet(scene: Scene, j: Judged): Decision {
  const way = wayLeft(scene.mem, j.label, j.way, approach(scene.mem.pose, j.d));
  const changed = way !== j.way ? ` (${j.way} already failed here)` : "";
  if (way === "around") return around(scene, j);
  if (way === "crawl")
    return {
      plan: approachThen(j.d, 0.7, [cmd("crawl", "large"), cmd("crawl", "large"), cmd("walk", "medium")]),
      why: `the ${j.label} ahead has room beneath for a crawl${changed}`,
    };
  if (way === "climb")
    return {
      plan: approachThen(j.d, 0.6, [cmd("climb", "medium"), cmd("walk", "medium")]),
      why: `the ${j.label} ahead is low enough to climb over${changed}`,
    };
  return {
    plan: [cmd("walk", "large"), cmd("walk", "medium")],
    why: `the ${j.label} ahead can be walked over or beneath${changed}`,
  };
}

/** After a crawl that got stuck for good, the body is still beneath: back out before turning. */
function backOut(scene: Scene): Decision | undefined {
  const lastSkill = scene.mem.past.at(-1)?.result.skill;
  const { under } = beneath(scene.mem);
  if (lastSkill === "backward" && under > 0.05) {
    return {
      plan: [...backwardFor(under + 0.3), turn(scene, scene.target.bearing < 0 ? "right" : "left", "large")],
      why: `by my own moves the body is still ${under.toFixed(1)} m beneath the furniture: back out further before turning`,
    };
  }
  const last = scene.mem.stalls.at(-1);
  if (!last || last.index !== scene.mem.past.length - 1) return undefined;
  // Standing up stalled on the spot just after crawling: the hind legs are still beneath (it went in at a slant, or
  // the thing is deeper than most), so crawl on rather than turn or back in beneath it again.
  const before = scene.mem.past.at(-2)?.result;
  if (
    last.skill === "walk" &&
    Math.abs(scene.mem.past[last.index].result.moved) < 0.05 &&
    before?.skill === "crawl" &&
    !before.stalled
  ) {
    return {
      plan: [cmd("crawl", "medium"), cmd("walk", "medium")],
      why: "standing up to walk stalled on the spot just after crawling: the hind legs are still beneath, so crawl on",
    };
  }
  if (last.skill === "turn_left" || last.skill === "turn_right") {
    // Backed up against something a moment ago: the room to turn is ahead, not behind.
    const behind = scene.mem.stalls.some((x) => x.skill === "backward" && x.index >= scene.mem.past.length - 4);
    if (behind)
      return {
        plan: [cmd("walk", "small"), cmd(last.skill, "large")],
        why: "the turn hit something, and backing up stalled against something behind just before: step forward first",
      };
    return {
      plan: [cmd("backward", "small"), cmd(last.skill, "small")],
      why: "the turn hit something: step back first",
    };
  }
  if (last.skill !== "crawl" || !banned(scene.mem, "crawl", last.label)) return undefined;
  const side = detourSide(scene.mem, last.label) ?? (scene.target.bearing < 0 ? "right" : "left");
  const back = side === "left" ? "right" : "left";
  // Back out as far as it crawled in, and a little more so the turn is clear of the furniture.
  const out = backwardFor(Math.max(0.8, beneath(scene.mem).under + 0.4));
  const plan = [...out, turn(scene, side, "large"), cmd("walk", "large"), turn(scene, back, "large")];
  const why = last.walls
    ? `the crawl under the ${last.label} stalled with walls close around: a dead end, so back out and go around`
    : `crawling under the ${last.label} stalled twice: back out and go around`;
  return { plan, why };
}

/**
 * In a corridor too narrow to turn in, with its end blocked: back straight out (a turn there only wedges the body)
 * until the corridor's mouth shows ahead of the camera; then the body is out, and it turns toward the side that looks
 * more open (the farther things beyond the corridor's walls), away from the dead end.
 */
function deadEndCorridor(scene: Scene): Decision | undefined {
  const corridor = corridorOf(scene.ctx.frame.detections);
  if (!corridor || !corridor.narrow || scene.toy) return undefined;
  const last = scene.mem.past.at(-1)?.result;
  const stuckAhead = last && FORWARD.includes(last.skill) && last.stalled;
  if (!corridor.end && !stuckAhead) return undefined;
  const backedStuck = last?.skill === "backward" && last.stalled;
  // A corridor whose mouth is ahead and that it did not just back out of is one it is not in: nothing to back out of.
  if (corridor.mouthAhead && last?.skill !== "backward") return undefined;
  if (corridor.mouthAhead || backedStuck) {
    const beyond = (sign: number) =>
      Math.max(
        0,
        ...obstaclesOf(scene.ctx.frame.detections)
          .filter((d) => d !== corridor.left && d !== corridor.right && sign * d.bearing > 12)
          .map((d) => d.distance),
      );
    const leftRoom = beyond(1),
      rightRoom = beyond(-1);
    const side =
      leftRoom === rightRoom
        ? scene.target.bearing < -12
          ? "right"
          : "left"
        : leftRoom > rightRoom
          ? "left"
          : "right";
    const why = corridor.mouthAhead
      ? `the walls close on both sides now begin ahead of me: I am out of the dead-end corridor, so turn a right angle ${side}, where it looks more open`
      : `backing out stalled against something behind: turn ${side} here`;
    // The way on is across the corridor's line, not back into it: a right angle.
    return {
      plan: [...turns(scene, side, ["large", "medium"]), cmd("walk", "medium")],
      why,
      news: "the body is out of the corridor now",
    };
  }
  const why = `walls close on both sides (${(offsets(corridor.left).y - offsets(corridor.right).y).toFixed(2)} m apart, too narrow to turn in) and ${corridor.end ? `a ${corridor.end.label} across the end` : "the way ahead stalled"}: a dead end, so back straight out`;
  return { plan: [cmd("backward", "large"), cmd("backward", "large")], why };
}

/** Within this range a thing counts as part of what a view shows (farther things are background). */
const SALIENT = 2.5;

/** Two detections that look like the same thing at about the same place in the image. */
function alike(first: RangedDetection, second: RangedDetection): boolean {
  return (
    first.label === second.label &&
    Math.abs(first.distance - second.distance) <= Math.max(0.12, 0.1 * first.distance) &&
    Math.abs(first.bearing - second.bearing) <= 6
  );
}

/** Every salient thing of each view has its like in the other: the same scene, seen from about the same place. */
function sameView(here: RangedDetection[], there: RangedDetection[]): boolean {
  const salient = (dets: RangedDetection[]) => dets.filter((d) => d.distance <= SALIENT);
  const salientHere = salient(here);
  const salientThere = salient(there);
  if (!salientHere.length || !salientThere.length) return false;
  return (
    salientHere.every((d) => there.some((e) => alike(d, e))) && salientThere.every((e) => here.some((d) => alike(d, e)))
  );
}

/**
 * Labelled examples: followed only when the current frame really matches one — every salient thing in it matches one
 * in the example (same kind, similar range and bearing) and the other way round. A view that merely shares its
 * nearest thing is not the same situation. A labelled command that already stalled here is not followed.
 */
function fromExample(scene: Scene): Decision | undefined {
  const here = scene.ctx.frame.detections;
  const ex = (scene.ctx.examples ?? []).find((e) => sameView(here, e.detections));
  if (!ex) return undefined;
  const thing = firstInPath(here, NEAR_AROUND);
  if (banned(scene.mem, ex.best.skill, thing?.label ?? NOTHING_NAMED, approach(scene.mem.pose, thing)))
    return undefined;
  // The model writes the labelled turn itself, so it can slip the same way as any turn it writes.
  const best =
    ex.best.skill === "turn_left" || ex.best.skill === "turn_right"
      ? turn(scene, ex.best.skill === "turn_left" ? "left" : "right", ex.best.magnitude)
      : ex.best;
  return {
    plan: [best],
    why: `this view matches a labelled example (${ex.note}): its best command is ${ex.best.skill} ${ex.best.magnitude}`,
    news: "this view matches a labelled example",
  };
}

/** The last skill turned away from something in the way: walk on before turning back, or it would face it again. */
function midDetour(scene: Scene): boolean {
  const previous = scene.mem.past.at(-1);
  if (
    !previous ||
    (previous.result.skill !== "turn_left" && previous.result.skill !== "turn_right") ||
    previous.result.stalled
  )
    return false;
  const blocker = previous.detections && firstInPath(previous.detections, NEAR_AROUND);
  const turnedFrom =
    blocker && (plainWay(blocker) === "around" || scene.mem.stalls.some((x) => x.label === blocker.label));
  const planned = previous.answer?.plan;
  const plannedDetour =
    planned &&
    planned.length >= 3 &&
    planned[1].skill === "walk" &&
    planned[2].skill.startsWith("turn") &&
    planned[2].skill !== planned[0].skill;
  return !!turnedFrom || !!plannedDetour;
}

/** Nothing in the way: toward the toy (seen or remembered), else on in the course's direction. */
function openWay(scene: Scene): Decision {
  const room = freeAhead(scene.view);
  const toyRoom = scene.target.source === "course" ? room : Math.min(room, scene.target.distance - 0.2);
  const where =
    scene.target.source === "view"
      ? "the toy is in view"
      : scene.target.source === "memory"
        ? "the toy was seen earlier"
        : "the toy has not been seen yet";
  if (scene.target.routed) return routedLeg(scene, where);
  // With the toy in view, go to it: a detour half done no longer matters.
  if (!scene.toy && midDetour(scene)) {
    const back = scene.target.bearing >= 0 ? "left" : "right";
    return {
      plan: [walkFor(room), turn(scene, back, turnMagnitude(Math.abs(scene.target.bearing))), walkFor(1.2)],
      why: "I just turned away from an obstacle: walk past it, then turn back",
    };
  }
  if (Math.abs(scene.target.bearing) >= 12) {
    return {
      plan: [...turnsThrough(scene, scene.target.bearing), cmd("walk", "medium"), cmd("walk", "medium")],
      why: `${where}, ${angleWords(scene.target.bearing)}: turn toward it, then walk`,
    };
  }
  return {
    plan: [walkFor(toyRoom), walkFor(Math.max(0.3, toyRoom - distanceOf(walkFor(toyRoom))))],
    why: `${where}, straight ahead and the way is clear: walk`,
  };
}

/**
 * A leg of a way its frames showed (around a wall to a place remembered, or to ground not seen yet). Searching, it
 * turns to look first (the whole turn) and lets the frame after decide where to walk; going to the toy, it turns and walks.
 */
function routedLeg(scene: Scene, where: string): Decision {
  const side = angleWords(scene.target.bearing);
  if (Math.abs(scene.target.bearing) < 12)
    return {
      plan: [walkFor(Math.min(freeAhead(scene.view), scene.target.distance)), cmd("walk", "medium")],
      why: `${where}; what I have seen shows a clear way straight ahead: walk`,
    };
  // Searching, the whole turn to where it has not looked, in one plan it keeps to while the frames on the way show
  // nothing new: planned a turn at a time, each new frame moved the map's way a little and the next turn undid the last.
  if (scene.target.source === "course") {
    // A look that way from here already showed what can be seen of it: turning there again only spins on the spot.
    if (!lookedFromHere(scene, scene.target.bearing))
      return {
        plan: turnsThrough(scene, scene.target.bearing),
        why: `the toy has not been seen yet and I have not looked ${side}: turn to look there first`,
      };
    return {
      plan: [...turnsThrough(scene, scene.target.bearing), walkFor(scene.target.distance), cmd("walk", "medium")],
      why: `the toy has not been seen yet; I already looked ${side} from here, and what I have seen shows a way on there: turn to it, then walk`,
    };
  }
  return {
    plan: [...turnsThrough(scene, scene.target.bearing), cmd("walk", "medium"), cmd("walk", "medium")],
    why: `${where}; what I have seen shows a way around what is in between, ${side}: turn to it, then walk`,
  };
}

/** Within this distance (m) of where a frame was taken, the frame looked from here. */
const LOOKED_FROM = 0.4;

/** Whether this frame, or one taken about here, already showed the way `bearing` (degrees, + left, from the way it faces now). */
function lookedFromHere(scene: Scene, bearing: number): boolean {
  const { pose } = scene.mem;
  // Within the image, a little in from its edges.
  const within = scene.ctx.frame.fov / 2 - 3;
  if (Math.abs(bearing) <= within) return true;
  return scene.mem.past.some(
    (earlier) =>
      earlier.detections &&
      Math.hypot(earlier.pose.x - pose.x, earlier.pose.y - pose.y) <= LOOKED_FROM &&
      Math.abs(wrap(earlier.pose.th - (pose.th + bearing))) <= within,
  );
}

/** How the model says where something lies: "40° to the right". */
const angleWords = (bearing: number) => `${Math.round(Math.abs(bearing))}° to the ${bearing > 0 ? "left" : "right"}`;

/**
 * Turns that together come within a small turn of `bearing` (degrees, + left; at least one turn): the whole of a turn,
 * not its first part.
 */
function turnsThrough(scene: Scene, bearing: number): CourseCommand[] {
  const sizes: Magnitude[] = [];
  for (let left = Math.abs(bearing); !sizes.length || (left >= 11 && sizes.length < 4);) {
    const magnitude = turnMagnitude(left);
    sizes.push(magnitude);
    left -= TURN_DEG[magnitude];
  }
  return turns(scene, bearing > 0 ? "left" : "right", sizes);
}

/** The toy close in view — or, just lost from view at the nose, close by my own last moves. */
function reachedToy(scene: Scene): ToySighting | undefined {
  if (scene.toy) return scene.toy.distance <= REACH_DISTANCE ? scene.toy : undefined;
  const remembered = scene.mem.toy;
  return remembered && remembered.stepsAgo <= 2 && remembered.distance <= REACH_DISTANCE ? remembered : undefined;
}

/**
 * A skill that already stalled twice here is not tried a third time, even with nothing to name in the way: try
 * another way of moving (something low may be underfoot, something low overhead), else step back and turn.
 */
function unstick(scene: Scene, decision: Decision): Decision {
  const first = decision.plan[0];
  if (decision.reached || first.skill === "turn_left" || first.skill === "turn_right") return decision;
  const thing = firstInPath(scene.view, NEAR_AROUND);
  const label = thing?.label ?? NOTHING_NAMED;
  const toward = approach(scene.mem.pose, thing);
  const out = (k: CourseCommand["skill"]) =>
    banned(scene.mem, k, label, toward) || stalledHere(scene.mem, k) >= triesAllowed(k, label);
  if (!out(first.skill)) return decision;
  const side = scene.target.bearing < 0 ? "right" : "left";
  const why = `${first.skill} already stalled twice here`;
  const next = (["climb", "crawl", "backward"] as const).find((k) => k !== first.skill && !out(k));
  if (next === "backward")
    return {
      plan: [cmd("backward", "medium"), turn(scene, side, "large"), cmd("walk", "large")],
      why: `${why}: step back and try another heading`,
    };
  if (next) return { plan: [cmd(next, "medium"), cmd("walk", "medium")], why: `${why}: try to ${next} instead` };
  return {
    plan: [turn(scene, side, "large"), cmd("walk", "large")],
    why: `${why}, and so did the other ways forward: turn away`,
  };
}

export function decide(scene: Scene): Decision {
  return unstick(scene, firstIdea(scene));
}

function firstIdea(scene: Scene): Decision {
  const reached = reachedToy(scene);
  if (reached)
    return {
      plan: [cmd("walk", "small")],
      why: `the toy is ${reached.distance.toFixed(2)} m away, right in front: reached`,
      reached: true,
    };
  const out = backOut(scene);
  if (out) return out;
  const example = fromExample(scene);
  const own = ownIdea(scene);
  if (!example) return own;
  // The example labels the next command only; what follows is my own plan when it starts the same way, else nothing
  // more (the next view decides).
  const first = example.plan[0];
  const rest = own.plan[0].skill === first.skill ? own.plan.slice(1) : [];
  return { ...example, plan: [first, ...rest] };
}

function ownIdea(scene: Scene): Decision {
  const corridor = deadEndCorridor(scene);
  if (corridor) return corridor;
  // Something beyond the toy is not in the way to it.
  const reach =
    scene.toy && Math.abs(scene.toy.bearing) < 12 ? Math.min(NEAR_AROUND, scene.toy.distance - 0.1) : NEAR_AROUND;
  const ahead = firstInPath(scene.view, reach);
  const j = ahead && judge(ahead, scene.noise, scene.rng);
  // Beneath furniture nothing but crawling on is possible (a stall here tells the history it is a dead end).
  const still = beneath(scene.mem);
  if (still.toClear > 0)
    return {
      plan: [cmd("crawl", still.toClear > 0.3 ? "large" : "medium"), cmd("walk", "medium")],
      why: "I am beneath the furniture I crawled under: keep crawling until the body is clear",
    };
  // The view itself says the head is low: what fills it up to the image's top edge shows only its lowest few
  // centimetres. Crouched beneath something, crawling on is the only move — unless the history shows a crawl stalled.
  if (lowView(scene.ctx.frame.detections) && !scene.mem.stalls.some((x) => x.skill === "crawl")) {
    return {
      plan: [cmd("crawl", "medium"), cmd("walk", "medium")],
      why: "the view is cut off just above the floor: I am crouched beneath something, so crawl on",
    };
  }
  // The toy in view with a clear way to it: turn to it rather than deal with what stands straight ahead.
  if (
    j &&
    scene.toy &&
    Math.abs(scene.toy.bearing) >= 10 &&
    !firstInPath(scene.view, Math.min(scene.toy.distance, NEAR_AROUND), scene.toy.bearing)
  ) {
    return {
      plan: [turnToward(scene, scene.toy.bearing), cmd("walk", "medium")],
      why: "the toy is in view and the way to it is clear: turn to it",
    };
  }
  // The toy remembered well off to one side, with nothing its frames showed between: what stands ahead is not in the
  // way to it, so turn to it rather than deal with that.
  if (j && scene.target.source === "memory" && !scene.target.routed && Math.abs(scene.target.bearing) >= 45) {
    return {
      plan: [...turnsThrough(scene, scene.target.bearing), cmd("walk", "medium")],
      why: `the toy was seen ${angleWords(scene.target.bearing)} with nothing seen between: turn to it rather than pass the ${j.label} ahead`,
    };
  }
  // Facing away from the toy, crossing what lies ahead only leads further from it.
  if (j && j.way !== "around" && scene.target.source !== "course" && Math.abs(scene.target.bearing) > 100) {
    return {
      plan: [...turnsThrough(scene, scene.target.bearing), cmd("walk", "medium")],
      why: `the toy is behind me (${Math.round(Math.abs(scene.target.bearing))}° away): turn back toward it rather than cross the ${j.label}`,
    };
  }
  // Searching, and a wall or hedge is in the way: edging along it finds an opening only by luck; look where the
  // frames have not shown yet instead. (The scene's target changes with it, so the comparison with the previous plan
  // judges against where it now means to go.)
  if (
    j &&
    j.way === "around" &&
    scene.target.source === "course" &&
    !scene.target.routed &&
    SIDE_LABELS.has(j.label) &&
    scene.mem.past.length
  ) {
    const unseen = scene.map.toUnseen(scene.mem.pose);
    if (unseen) scene.target = { ...relative(scene.mem.pose, unseen), source: "course", routed: true };
  }
  // Something it cannot pass across the way, and its frames show a way around it that the body can take straight:
  // take that leg rather than edge along it.
  if (j && j.way === "around" && scene.target.routed && Math.abs(scene.target.bearing) >= 12) {
    const leg = routedLeg(scene, "");
    return { ...leg, why: `the ${j.label} ahead cannot be passed: ${leg.why.replace(/^; /, "")}` };
  }
  // Searching, facing the leg its frames show clear to ground not seen yet: walk it as far as there is room, rather
  // than turn away from what stands beyond (one skill at a time, a detour's first turn and the next look undo each other).
  if (
    j &&
    j.way === "around" &&
    scene.target.routed &&
    scene.target.source === "course" &&
    freeAhead(scene.view) >= 0.3
  )
    return routedLeg(scene, "the toy has not been seen yet");
  if (j && (j.way === "around" || j.d.distance <= NEAR)) return meet(scene, j);
  return openWay(scene);
}
