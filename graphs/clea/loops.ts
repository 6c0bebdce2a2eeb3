/**
 * Loops the closed loop must not run in. CLEA's critic feedback is input to the planner, not a veto; when the same
 * action meets the same rejection (or fails for the same reason) twice, nothing the agent knows has changed and a
 * third try would go the same way. So the second time the agent changes what it knows — a look every camera makes
 * for the things and places in question, asked about them (the perceiver's `lookFor`), before the planner runs again —
 * and if the critic still rejects the plan's choice for that reason after that look, the planner's choice stands and
 * the robot's result decides (an action that then fails is an ordinary failure); the same rejection once more after
 * that ends the run `failed`, as neither the look nor the robot settled it. An action that failed twice for the same
 * reason is not sent a third time: the run ends `failed` and says so. A look asked about a view is remembered for that
 * view (the perceiver's settled reports), so a plain look at the same view does not bring back what it settled.
 */
import type { SkillCall } from "./schemas";
import { countFailure, repeatKey, type FailureCounts } from "../../nodes/repeats";

/** What a look is asked to settle: the things and places in question, and why. */
export interface Focus {
  objects: string[];
  places: string[];
  why: string;
  /** A search plan's: asked in the look after the plan's last step (otherwise in the very next look). */
  afterPlan?: boolean;
}

/** How a loop was broken: by a look for the disputed facts, by the planner's choice overruling the critic, or refused. */
export interface BrokenLoop {
  kind: "rejection" | "failure";
  action: string;
  reason: string;
  how: "looked" | "overruled" | "refused" | "ended";
}

export const actionKey = (a: SkillCall) => `${a.robot}/${a.skill} ${JSON.stringify(a.args)}`;

/** Counts one rejection of `action` for `reason`; returns the new counts and how many times this pair has now come. */
export function countRejection(
  counts: FailureCounts,
  action: SkillCall,
  reason: string,
): { rejections: FailureCounts; n: number } {
  const { repeats, n: count } = countFailure(counts, actionKey(action), reason);
  return { rejections: repeats, n: count };
}

/** The reason this action already failed twice for, if it has (the executor's counts, keyed `action → reason`). */
export function failedTwice(counts: FailureCounts, action: SkillCall): string | undefined {
  const prefix = repeatKey(actionKey(action), "");
  const hit = Object.entries(counts).find(([k, n]) => k.startsWith(prefix) && n >= 2);
  return hit?.[0].slice(prefix.length);
}

/** The look that settles a dispute over `action`: its object and places, asked of every camera. */
export function focusOn(action: SkillCall, why: string, places: readonly string[]): Focus {
  const args = Object.values(action.args);
  return {
    objects: action.args.object ? [action.args.object] : [],
    places: args.filter((v) => places.includes(v)),
    why,
  };
}

/** A status reason's account of the loops broken in a run (empty when none were). */
export function loopsText(loops: readonly BrokenLoop[]): string {
  if (!loops.length) return "";
  const how = {
    looked: "looked again for what was in question",
    overruled: "the planner's choice overruled the critic and the robot's result decided",
    refused: "not tried a third time",
    ended: "not settled: the run ended",
  };
  return ` Loops broken: ${loops.map((l) => `${l.action} (${l.kind === "rejection" ? "rejected" : "failed"} twice: ${l.reason}) — ${how[l.how]}`).join("; ")}.`;
}
