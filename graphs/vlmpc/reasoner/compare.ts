/**
 * Comparing with the previous plan: it is kept while its next skill still fits the newest frame and the last skill
 * did not stall; otherwise it is revised, saying why (a walk cut short by something new in the way mid-detour keeps
 * the rest of the plan). The comparison's text is what the model writes.
 */
import type { CourseCommand } from "../schemas";
import { NEAR_AROUND } from "./robot";
import { plainWay } from "./judging";
import { firstInPath, inPath, obstaclesOf } from "./geometry";
import { approach, banned, FORWARD } from "./memory";
import type { Scene } from "./scene";
import { type Decision, distanceOf, walkFor } from "./commands";

const say = (plan: CourseCommand[]) => plan.map((c) => `${c.skill} ${c.magnitude}`).join(", ");

/** Why the previous plan's next skill no longer fits the newest frame, or undefined when it still does. */
function misfit(scene: Scene, next: CourseCommand, fresh: Decision): string | undefined {
  // News only when the last frame did not show it: with the toy in view all along, a detour around what stands
  // between is carried out, not dropped for a turn back toward the toy (that swings between the two for good).
  const seenBefore = !!scene.mem.past.at(-1)?.toy;
  // A turn the same way but of another size is another turn: kept, it would swing the toy out of view again.
  const turning = next.skill === "turn_left" || next.skill === "turn_right";
  if (
    scene.toy &&
    !seenBefore &&
    (fresh.plan[0].skill !== next.skill || (turning && fresh.plan[0].magnitude !== next.magnitude))
  )
    return "the toy is in view now";
  const ahead = firstInPath(scene.view, NEAR_AROUND);
  if (ahead && banned(scene.mem, next.skill, ahead.label, approach(scene.mem.pose, ahead)))
    return `${next.skill} already failed twice at the ${ahead.label}`;
  if (next.skill === "walk") {
    const blocker = obstaclesOf(scene.view).find((d) => inPath(d, distanceOf(next) + 0.3) && plainWay(d) !== "walk");
    if (blocker) return `the ${blocker.label} is in the way of a ${next.magnitude} walk`;
  }
  if (next.skill === fresh.plan[0].skill) return undefined;
  const forward = (c: CourseCommand) => FORWARD.includes(c.skill);
  if (forward(next) && forward(fresh.plan[0]))
    return `the way ahead calls for ${fresh.plan[0].skill}, not ${next.skill}`;
  if (next.skill === "walk") return undefined;
  if (next.skill === "turn_left" || next.skill === "turn_right") {
    const facing = Math.abs(scene.target.bearing) < 12 && fresh.plan[0].skill === "walk";
    return facing ? "I already face the way I want to go" : undefined;
  }
  if (next.skill === "crawl" || next.skill === "climb") {
    return ahead && plainWay(ahead) === next.skill
      ? undefined
      : `nothing ahead to ${next.skill} ${next.skill === "crawl" ? "under" : "over"}`;
  }
  return undefined;
}

export function compare(
  scene: Scene,
  fresh: Decision,
): { plan: CourseCommand[]; keepsPrevious: boolean; comparison: string } {
  const prev = scene.ctx.previousPlan ?? [];
  const revise = (because: string) => ({
    plan: fresh.plan,
    keepsPrevious: false,
    comparison: `${because}; new plan: ${say(fresh.plan)}, because ${fresh.why}.`,
  });
  if (!prev.length) return revise("There is no previous plan left");
  if (fresh.reached) return revise("The toy is reached, so the previous plan is done");
  const last = scene.mem.past.at(-1)?.result;
  if (last?.stalled)
    return revise(
      `The last skill (${last.skill} ${last.magnitude}) stalled, so the previous plan (${say(prev)}) is revised`,
    );
  if (fresh.news && prev[0].skill !== fresh.plan[0].skill)
    return revise(`The previous plan (${say(prev)}) no longer fits: ${fresh.news}`);
  const why = misfit(scene, prev[0], fresh);
  // Mid-detour the leg past the obstacle is cut short by something new in the way: turn back now, as planned next.
  const turnNext = prev[1] && (prev[1].skill === "turn_left" || prev[1].skill === "turn_right");
  if (why && prev[0].skill === "walk" && turnNext && !scene.toy && /in the way of/.test(why)) {
    const room =
      Math.min(
        ...obstaclesOf(scene.view)
          .filter((d) => inPath(d, 3) && plainWay(d) !== "walk")
          .map((d) => d.distance),
      ) - 0.3;
    const plan = room >= 0.25 ? [walkFor(room), ...prev.slice(1, 5)] : prev.slice(1, 6);
    return {
      plan,
      keepsPrevious: true,
      comparison: `The previous plan (${say(prev)}) still holds but ${why}: ${room >= 0.25 ? "walk only as far as there is room" : "skip that walk"}, then turn back as planned.`,
    };
  }
  if (why) return revise(`The previous plan (${say(prev)}) no longer fits: ${why}`);
  return {
    plan: prev.slice(0, 5),
    keepsPrevious: true,
    comparison: `The previous plan (${say(prev)}) is still consistent with this image and the last skill did not stall: keep it.`,
  };
}
