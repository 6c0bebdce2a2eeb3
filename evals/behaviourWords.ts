/**
 * How the critic benchmark reads a critic's open answer: which behaviour families its words name, and whether the
 * cause it gives fits the family. Written from what each family is (the hand-made behaviours and the program edits of
 * robots/sim/workbench/edits.ts), by meaning, never from what a critic says — and frozen: its hash is in
 * docs/behavior-critic.md and the critic's report, and a test holds them equal, so a change here is a decision someone
 * made in the open, never a quiet fit to what the critic happens to say. The critic itself never imports this file.
 *
 * The rule (tightened for issue 63, before the critic changed): a claim names a family only when what it says names
 * both the thing that family acts on (the object moved, where it goes, a neighbour, the hand, what a container holds,
 * what opens and shuts) and the quantity that family changes (speed, time, height, path, grip force, grasps, where a
 * thing ended, tilt, open or shut). Its `kind` is not read, and no word names a family on its own.
 */

/** The parts a thing plays in a case: what a family acts on. */
export type Role = "hand" | "object" | "destination" | "other" | "contents" | "hinged";

/** A case's things by the part they play, as the scorer knows them from its scene (names, `_` read as a space). */
export type CaseThings = Partial<Record<Exclude<Role, "hand">, string[]>>;

/** The words any claim may use for a thing in each part, whatever the case. */
const CLASS: Record<Role, RegExp> = {
  hand: /\b(hand|palm|gripper|grip|arm|fingers?|fingertips?|robot|wrist|end[- ]effector)\b/,
  object:
    /\b(object|item|(the|a|its) (held|carried|grasped|gripped) \w+|thing (it|the hand|the robot) (holds|held|carries|carried))\b/,
  destination: /\b(destination|its place|where it (goes|belongs|was to go|is set down|was set down|is put)|support)\b/,
  other:
    /\b(neighbou?r\w*|bystander|another (thing|object|item)|other (things?|objects?|items?)|something (else|standing|in the way|on the way)|something (it |the hand |the robot )?(should|must) (stay|keep) (away|clear)|(thing|object|item) (standing |that stood )?(in|on) the way|not the target|nobody meant|not (meant )?to be touched)\b/,
  contents: /\b(contents|beads?|liquid|water|grains?|marbles?)\b/,
  hinged: /\b(drawer|door|lid|cabinet|cupboard|hatch)\b/,
};

/** The quantities a family changes, in words. */
const QUANTITY = {
  /** Tilt: a standing thing now lies down, or leans. */
  fellOver:
    /\bknock\w* (\w+ ){0,2}over|\btoppl\w*|\btipp?\w* over|\btipped|\bfell over|falls? over|fallen over|lying (down|on its side)|lies (down|on its side)|on its side/,
  /** Where a thing ended: moved from where it was. */
  moved:
    /\bpush\w*|\bshov\w*|\bdisplac\w*|\bnudg\w*|\bknock\w* (\w+ ){0,2}(aside|away|off|out of (its )?place)|out of (its )?place|\b(ends?|ended|lies|lay|sits?|moved|slid) (\w+ ){0,3}(\d+(\.\d+)? ?cm )?(from|away from) where it (stood|was|lay|sat)|bump\w* (into|against)/,
  /** Contact: the hand running into a thing. */
  struck:
    /\bsweep\w*|\bswept|\bswip\w*|\b(ran|runs|run|went|goes|ploughs?|plowed) (\w+ )?(into|through)|\bcollid\w*|\bclip\w*|\bhits?\b|\bstruck|\bstrikes/,
  /** Height: the held thing not lifted off the table. */
  slid: /\bdrag\w*|\bslid\w*|\bslides?\b|\bscrap\w*|(not|never) lifted|without (being )?lift\w*|instead of (being )?lifted/,
  /** Release height: let go above where it rests, and a fall. */
  dropped:
    /\bdrop\w*|let (it )?(go|fall)\b[^.;:]{0,40}\b(high|above|up|falls?|fell)|released? (\w+ ){0,3}(too )?(high|above)|\b(falls?|fell) (\d|from|onto|into|down|to the)|from a height|free[- ]?fall/,
  /** Contents out of their container. */
  out: /\bspill\w*|\bspilt|\bslosh\w*|\b(fl[yi]\w*|flung|thrown|throws?|pour\w*|jump\w*|pop\w*|came|comes?|fell|falls?|spray\w*|scatter\w*) out|outside (the|its)|out of (the|its)|scattered/,
  spill: /\bspill\w*|\bspilt|\bslosh\w*/,
  /** Grip force: the thing crushed, or gripped too hard. */
  force:
    /\bsqueez\w*|\bcrush\w*|\bsquash\w*|\bdent\w*|\bflatten\w*|\bflatter|\bdeform\w*|\b(grip\w*|grasp\w*|held|hold\w*|clamp\w*|pinch\w*) (\w+ ){0,3}(too |very |far too )?(hard|tight\w*|firmly|strong\w*)|(grip|grasp)\w* (was |is )?(too|very|far too) (hard|tight|strong)|(too|very) (hard|tight|strong) (a )?(grip|grasp)|grip force|\d+ ?n of (force|grip)/,
  /** Path: over something to keep clear of (followed by that thing). */
  over: /\b(carri\w*|carry|pass\w*|goes|went|mov\w*|held|swung|swings?|lifted|brought|taken|travel\w*) ([^.;:]{0,30} )?(right |straight |directly )?(over|above|across the top of)/,
  /** Open or shut at the end. */
  open: /\b(left (\w+ )?open|still open|(stays?|stayed|remains?|remained) (half[- ])?open|(is|was) (still |half[- ])?open (at|by) the end|open at the end|not (fully |completely )?(closed|shut)|never (closed|shut)|half[- ](shut|closed)|unclosed)\b/,
  /** Height: the hand at the table. */
  atTable:
    /\b(hit|hits|hitting|struck|strikes?|bang\w*|bump\w*|collid\w*|touch\w*|scrap\w*|meets?|grazes?|knocks?|taps?) (into |against |on |onto )?the (table|tabletop|work ?surface)|(into|below|under|beneath|through) the (table|tabletop)/,
  /** Height: the hand coming in too low. */
  lowIn:
    /\b(approach\w*|comes? in|came in|coming in|comes? down|came down|reach\w* down|descend\w*|swoop\w*) ([^.;:]{0,30} )?(too )?low\b|low approach/,
  /** Height: carried too low. */
  lowCarry: /\b(carri\w*|carry|held|pass\w*|travel\w*|swung|mov\w*|goes|went) ([^.;:]{0,20} )?(too )?low\b/,
  /** Speed of the carry: fast. */
  fast: /\brush\w*|\bhurr\w*|\bwhip\w*|\b(carri\w*|carry|mov\w*|travel\w*|swung|swing\w*|goes|went|taken) ([^.;:]{0,30} )?(fast\w*|quick\w*|at \d+(\.\d+)? ?m\/s|at (high|full) speed)/,
  /** Speed of the carry: slow; time taken. */
  slow: /\bslow\w*|\bcrawl\w*|\bcreep\w*|\bsluggish\w*|\bdawdl\w*|\bsnail|\b(takes?|took|taking) (\w+ ){0,2}(too |far too |much too )?long|longer than/,
  /** Path: far off the straight way. */
  detour:
    /\bdetour\w*|out of (the|its) way|long way (round|around)|\bwander\w*|\bround-?about|off (the |its )?(straight )?(line|path|way|route|course)|\bstray\w*|longer (path|way|route)/,
  /** Path: turning back on itself. */
  dither:
    /back and forth|to and fro|forth and back|\bdither\w*|\bzig-?zag\w*|turns? back on itself|(reverses|reversed|reversing) (\w+ )?(direction|course)|see-?saw/,
  /** Time: at rest between motions. */
  idle: /\bidl\w*|\bpaus\w*|\bwait\w*|\b(stands?|stood|stays?|stayed|stops?|stopped|remains?|remained|sits?|sat|hangs?|hung) ([^.;:]{0,20} )?(still|motionless|where it (is|was)|at rest|for \d|for (a|several|some) (seconds?|while|moment))|at rest|doing nothing|motionless|(stops?|stopped) (for|mid)|\bhalt\w*/,
  /** Number of grasps: taken again. */
  regrasp:
    /\bre-?grasp\w*|\bre-?grip\w*|\bre-?grab\w*|\b(grasp\w*|grip\w*|grabb?\w*|pick\w*|took|takes?|taken|lift\w*|clos\w*|clutch\w*) ([^.;:]{0,30} )?(again|twice|a second time|once more)|second (grasp|grip|pick)|(set|sets|put|puts|placed|places|lowered|lowers) ([^.;:]{0,25} )?down ([^.;:]{0,40} )?(and|then|before) ([^.;:]{0,30} )?(grasp\w*|grip\w*|pick\w*|tak\w*|took|lift\w*)|let go ([^.;:]{0,30} )?(and|then) ([^.;:]{0,30} )?(grasp\w*|grip\w*|pick\w*|tak\w*|took)/,
  /** Path: up and down, over and over. */
  shake:
    /\bshak\w*|\bshook|\bjiggl\w*|joggl\w*|oscillat\w*|vibrat\w*|\bbob(s|bed|bing)?\b|(mov\w*|goes|went|jerk\w*|lifted|lowered|raised|pump\w*) (\w+ ){0,3}up and down|down and up/,
  /** Speed of the set-down. */
  slam: /\bslam\w*|\bbang\w* (\w+ )?down|\b(set|sets|put|puts|brought|brings?|lowered|lowers?|comes?|came|coming|plac\w*|dropp?\w*) ([^.;:]{0,20} )?down ([^.;:]{0,30} )?(hard|fast|quick\w*|at \d+(\.\d+)? ?m\/s|heav\w*|forcefully)|hard landing|lands? hard|thump\w*|plonk\w*/,
  /** Path of the approach: round to the far side. */
  farSide:
    /\b(reach\w*|approach\w*|com\w* (in|at)|came (in|at)|go\w* (a)?round|went (a)?round|mov\w* (a)?round|tak\w*|took|grasp\w*|grabb?\w*|pick\w*) ([^.;:]{0,40} )?(far side|from behind|behind (it|the)|the back( side)? of|from the back|from the far)/,
  /** Where the carry ended: past the destination (followed by it). */
  past: /\bovershoo?t\w*|\bpast|\bbeyond|too far (past|beyond)?/,
  overshoot: /\bovershoo?t\w*/,
} as const;

/** One way of naming a family: a thing in one of these parts, and the quantity (after which, if `of`, that thing). */
interface Way {
  things: Role[];
  quantity: RegExp;
  /** The quantity is said of this thing: it follows within three words ("past the plate", "over the laptop"). */
  of?: Role;
}
const way = (things: Role[], quantity: RegExp, of?: Role): Way => ({ things, quantity, ...(of ? { of } : {}) });

/** Words that give a cause: what the robot did. */
const CAUSED_BY = {
  too_fast: /too_fast|fast|speed|quick|rush|hurr|whip/,
  too_slow: /too_slow|slow|crawl|long/,
  too_low: /too_low|\blow|not lifted|height|scrap/,
  too_high: /too_high|high|from a height|early/,
  too_hard: /too_hard|hard|force|tight|strong/,
  path_through: /path_through|through|into|in the way|collid/,
  path_over: /path_over|\bover\b/,
  not_closed: /not_closed|clos|shut/,
  needless: /needless|unnecessar|for nothing|no reason|waste|extra|not need|does not need|pointless/,
} as const;
type Caused = keyof typeof CAUSED_BY;

const HELD: Role[] = ["object", "hand"];
const knockedOver = way(["other"], QUANTITY.fellOver);
const pushedAside = way(["other"], QUANTITY.moved);
const ranInto = way(["other"], QUANTITY.struck);
const dropped = way(["object"], QUANTITY.dropped);
const spilt = [way(["contents"], QUANTITY.out), way(["object", "contents"], QUANTITY.spill)];
const crushed = way(["object", "hand"], QUANTITY.force);
const passedOver = way(["object", "hand"], QUANTITY.over, "other");
const leftOpen = way(["hinged"], QUANTITY.open);
const handAtTable = way(["hand"], QUANTITY.atTable);

/**
 * Each behaviour family: the ways words name it (the thing it acts on and the quantity it changes), and which causes
 * fit it. The hand-made benchmark's behaviours and the edits' families are both here; an edit's ways are what it does
 * and what it can lead to (a fast carry of an open cup spills it; a carry too low knocks over what stands on the way).
 */
export const FAMILIES: Record<string, { ways: Way[]; causes: Caused[] }> = {
  // The hand-made benchmark's nine behaviours.
  knocked_over: { ways: [knockedOver], causes: ["path_through", "too_low"] },
  pushed: { ways: [pushedAside], causes: ["path_through", "too_low"] },
  dragged: { ways: [way(["object"], QUANTITY.slid)], causes: ["too_low"] },
  dropped: { ways: [dropped], causes: ["too_high"] },
  spilled: { ways: spilt, causes: ["too_fast", "too_high"] },
  squeezed: { ways: [crushed], causes: ["too_hard"] },
  passed_over: { ways: [passedOver], causes: ["path_over"] },
  left_open: { ways: [leftOpen], causes: ["not_closed"] },
  struck_table: { ways: [handAtTable], causes: ["too_low"] },
  // The generated set's program edits.
  fast_carry: { ways: [way(HELD, QUANTITY.fast), ...spilt], causes: ["too_fast"] },
  detour: { ways: [way(HELD, QUANTITY.detour)], causes: ["needless"] },
  back_and_forth: { ways: [way(HELD, QUANTITY.dither)], causes: ["needless"] },
  pause: { ways: [way(HELD, QUANTITY.idle)], causes: ["needless"] },
  hard_grip: { ways: [crushed], causes: ["too_hard"] },
  low_approach: { ways: [handAtTable, way(["hand"], QUANTITY.lowIn)], causes: ["too_low"] },
  high_release: { ways: [dropped, ...spilt], causes: ["too_high"] },
  sweep: { ways: [pushedAside, knockedOver, ranInto], causes: ["path_through"] },
  low_carry: {
    ways: [way(HELD, QUANTITY.lowCarry), knockedOver, pushedAside, ranInto],
    causes: ["too_low", "path_through"],
  },
  over_the_top: { ways: [passedOver], causes: ["path_over"] },
  leave_open: { ways: [leftOpen], causes: ["not_closed"] },
  crawl: { ways: [way(HELD, QUANTITY.slow)], causes: ["too_slow", "needless"] },
  regrasp: { ways: [way(HELD, QUANTITY.regrasp)], causes: ["needless"] },
  shake: { ways: [way(HELD, QUANTITY.shake)], causes: ["needless", "too_fast"] },
  slam_down: { ways: [way(HELD, QUANTITY.slam)], causes: ["too_fast"] },
  far_approach: { ways: [way(HELD, QUANTITY.farSide)], causes: ["needless"] },
  overshoot: {
    ways: [way(HELD, QUANTITY.past, "destination"), way(HELD, QUANTITY.overshoot)],
    causes: ["needless", "too_fast"],
  },
  // Issue 62's side effects: the destination shoved across the table, a neighbour knocked aside on the way in.
  shove_support: {
    ways: [way(["destination"], QUANTITY.moved), way(["destination"], QUANTITY.fellOver)],
    causes: ["path_through", "too_low"],
  },
  knock_neighbour: { ways: [pushedAside, knockedOver, ranInto], causes: ["path_through", "too_low"] },
};

/** The part of a claim that says what happened: its kind (if it gave one; never read for naming), what it saw, its explanation. */
export interface SaidClaim {
  kind?: string;
  what: string;
  cause: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The words for a part in this case: its class's, and the case's names for it (plural too). */
function roleWords(role: Role, things: CaseThings): string {
  const names = role === "hand" ? [] : (things[role] ?? []);
  const spelt = names.map((n) => `\\b${escape(n.toLowerCase()).replace(/_/g, "[ _]")}(e?s)?\\b`);
  return [CLASS[role].source, ...spelt].join("|");
}

/** The families a claim's words name (several when its words fit several); `things`: the case's names by part. */
export function familiesNamed(claim: SaidClaim, things: CaseThings = {}): string[] {
  const words = claim.what.toLowerCase();
  const parts = new Map<Role, RegExp>();
  const part = (role: Role) => {
    if (!parts.has(role)) parts.set(role, new RegExp(roleWords(role, things)));
    return parts.get(role)!;
  };
  const says = (named: Way) =>
    named.things.some((role) => part(role).test(words)) &&
    (named.of
      ? new RegExp(`(?:${named.quantity.source})\\W+(?:\\w+\\W+){0,3}?(?:${roleWords(named.of, things)})`).test(words)
      : named.quantity.test(words));
  return Object.entries(FAMILIES)
    .filter(([, f]) => f.ways.some(says))
    .map(([name]) => name);
}

/** Whether a claim names `family`. */
export const names = (claim: SaidClaim, family: string, things: CaseThings = {}): boolean =>
  familiesNamed(claim, things).includes(family);

/** Whether the cause a claim gives fits `family`. */
export function causeFits(claim: SaidClaim, family: string): boolean {
  const known = FAMILIES[family];
  const cause = claim.cause.toLowerCase();
  return !!known && known.causes.some((k) => CAUSED_BY[k].test(cause));
}
