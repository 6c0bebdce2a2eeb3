/**
 * How the critic benchmark reads a critic's open answer: which behaviour families its words name, and whether the
 * cause it gives fits the family. Written from what each family is (the hand-made behaviours and the program edits of
 * robots/sim/workbench/edits.ts), by meaning, before the critic's cues for the new families were written — and frozen:
 * its hash is in docs/behavior-critic.md and a test holds them equal, so a change here is a decision someone made in
 * the open, never a quiet fit to what the critic happens to say. The critic itself never imports this file.
 */

/** Words that name a behaviour (matched, case-insensitive, against the claim's kind, what it saw and its explanation). */
const SAYS = {
  toppled:
    /knock\w* (it |\w+ )?over|toppl|tipp?\w* over|fell over|falls over|fallen over|lying (down|on its side)|on its side/,
  shoved:
    /\bpush|shov|displac|nudg|knock\w* (aside|out of place)|moved out of place|out of (its )?place|bump\w* (into|against)/,
  slid: /\bdrag|slid\w* along|slides along|scrap|not lifted|along the (table|surface)/,
  fell: /\bdrop|let (it )?(go|fall) (from|too|high|above)|fell from|falls? from|from a height|released? (too )?high|\bfalls? \d/,
  spilt: /spill|spilt|contents|flung|thrown out|slosh/,
  crushed: /squeez|crush|squash|\bdent|flatten|grip\w* (too )?hard|too (strong|tight)|hard grip/,
  over: /(carried|passed|passes|goes|moved|held|swung) (right |straight )?over|over the (laptop|keyboard|phone|tablet|monitor|computer)/,
  open: /left open|still open|not (closed|shut)|open at the end|never (closed|shut)|left_open/,
  table:
    /(hit|hits|struck|strike|strikes|bang\w*|collid\w*|touch\w*|scrap\w*) (into |against )?the table|into the table|below the table/,
  fast: /rush|too fast|\bfast|hurr|high speed|quick|whip/,
  detour: /detour|out of (the|its) way|long way|wander|round-?about|off the (straight )?(line|path|way)|stray/,
  dither: /back and forth|to and fro|dither|zig-?zag|turns back|reverses/,
  idle: /\bidl|pause|\bwait|stands? still|stays where it is|stops? (for|mid)|at rest|doing nothing|motionless/,
  sweep: /sweep|swip|ran into|runs into|collid|through the/,
  low: /too low|low (past|through|carry)|carried low|clip/,
  slow: /too slow|slowly|\bslow\b|crawl|sluggish|takes? (far |much )?too long|dawdl|creep/,
  regrasp:
    /re-?grasp|re-?grip|grasp\w* (it )?again|pick\w* (it )?up again|picked up twice|(put|set|places?) (it )?down (and|then|mid|half|on the way)|let go (of it )?and|second grasp|twice/,
  shake: /shak|jiggl|joggl|jerk|up and down|bounc|wobbl|rattl|oscillat|vibrat|jolt/,
  slam: /slam|bang\w* (it )?down|(set|put|brought|lowered|comes|came) (it )?down (too )?(hard|fast)|lower\w* (it )?too fast|hard landing|crash|impact/,
  farSide: /far side|from behind|behind (the|it)|back of|round (the|it) (before|to)|from the back|reach\w* (a)?round/,
  overshoot: /overshoot|overshot|\bpast (the|its)|beyond|too far|comes? back|goes? past/,
} as const;

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
type Said = keyof typeof SAYS;
type Caused = keyof typeof CAUSED_BY;

/**
 * Each behaviour family: what words name it, and which causes fit it. The hand-made benchmark's behaviours and the
 * edits' families are both here; an edit's words are what it does and what it can lead to (a fast carry of an open cup
 * spills it).
 */
export const FAMILIES: Record<string, { says: Said[]; causes: Caused[] }> = {
  // The hand-made benchmark's nine behaviours.
  knocked_over: { says: ["toppled"], causes: ["path_through", "too_low"] },
  pushed: { says: ["shoved"], causes: ["path_through", "too_low"] },
  dragged: { says: ["slid"], causes: ["too_low"] },
  dropped: { says: ["fell"], causes: ["too_high"] },
  spilled: { says: ["spilt"], causes: ["too_fast", "too_high"] },
  squeezed: { says: ["crushed"], causes: ["too_hard"] },
  passed_over: { says: ["over"], causes: ["path_over"] },
  left_open: { says: ["open"], causes: ["not_closed"] },
  struck_table: { says: ["table"], causes: ["too_low"] },
  // The generated set's program edits.
  fast_carry: { says: ["fast", "spilt"], causes: ["too_fast"] },
  detour: { says: ["detour"], causes: ["needless"] },
  back_and_forth: { says: ["dither"], causes: ["needless"] },
  pause: { says: ["idle"], causes: ["needless"] },
  hard_grip: { says: ["crushed"], causes: ["too_hard"] },
  low_approach: { says: ["table"], causes: ["too_low"] },
  high_release: { says: ["fell", "spilt"], causes: ["too_high"] },
  sweep: { says: ["shoved", "toppled", "sweep"], causes: ["path_through"] },
  low_carry: { says: ["toppled", "shoved", "low"], causes: ["too_low", "path_through"] },
  over_the_top: { says: ["over"], causes: ["path_over"] },
  leave_open: { says: ["open"], causes: ["not_closed"] },
  crawl: { says: ["slow"], causes: ["too_slow", "needless"] },
  regrasp: { says: ["regrasp"], causes: ["needless"] },
  shake: { says: ["shake"], causes: ["needless", "too_fast"] },
  slam_down: { says: ["slam"], causes: ["too_fast"] },
  far_approach: { says: ["farSide"], causes: ["needless"] },
  overshoot: { says: ["overshoot"], causes: ["needless", "too_fast"] },
  // Issue 62's side effects: the destination shoved across the table, a neighbour knocked aside on the way in.
  shove_support: { says: ["shoved", "toppled"], causes: ["path_through", "too_low"] },
  knock_neighbour: { says: ["shoved", "toppled", "sweep"], causes: ["path_through", "too_low"] },
};

/** The part of a claim that says what happened: its kind (if it gave one), what it saw, its explanation. */
export interface SaidClaim {
  kind?: string;
  what: string;
  cause: string;
}

const text = (c: SaidClaim) => `${(c.kind ?? "").replace(/_/g, " ")} ${c.what}`.toLowerCase();

/** The families a claim's words name (several when its words fit several). */
export function familiesNamed(claim: SaidClaim): string[] {
  const words = text(claim);
  return Object.entries(FAMILIES)
    .filter(([, f]) => f.says.some((s) => SAYS[s].test(words)))
    .map(([name]) => name);
}

/** Whether a claim names `family`. */
export const names = (c: SaidClaim, family: string): boolean => familiesNamed(c).includes(family);

/** Whether the cause a claim gives fits `family`. */
export function causeFits(claim: SaidClaim, family: string): boolean {
  const known = FAMILIES[family];
  const cause = claim.cause.toLowerCase();
  return !!known && known.causes.some((k) => CAUSED_BY[k].test(cause));
}
