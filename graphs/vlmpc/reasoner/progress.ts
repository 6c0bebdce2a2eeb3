/**
 * Progress as the model writes it: the latest skills and what came of them, what stalled where, and where the toy is
 * — in view, last seen and now about where by its own moves, or not seen yet.
 */
import type { Scene } from "./scene";

export function progressText(scene: Scene): string {
  const { past, stalls, toy } = scene.mem;
  if (!past.length) return "No earlier steps are shown, so I only know this image.";
  const recent = past
    .slice(-4)
    .map(
      (step) =>
        `${step.result.skill} ${step.result.magnitude} (${step.result.stalled ? "stalled" : step.result.skill.startsWith("turn") ? `turned ${Math.round(Math.abs(step.result.turned))}°` : `moved ${step.result.moved.toFixed(2)} m`})`,
    );
  const parts = [`${past.length} skills so far; the latest: ${recent.join(", ")}.`];
  const kinds = [...new Set(stalls.map((x) => `${x.skill} at the ${x.label}`))];
  for (const k of kinds) {
    const times = stalls.filter((x) => `${x.skill} at the ${x.label}` === k).length;
    parts.push(
      `${k[0].toUpperCase()}${k.slice(1)} stalled ${times === 1 ? "once" : `${times} times`}${stalls.some((x) => `${x.skill} at the ${x.label}` === k && x.walls) ? ", with walls close" : ""}.`,
    );
  }
  if (scene.toy) parts.push(`The toy is in view, ${scene.toy.distance.toFixed(1)} m away.`);
  else if (toy)
    parts.push(
      `The toy was last seen ${toy.stepsAgo} step${toy.stepsAgo === 1 ? "" : "s"} ago; by my own moves it is now about ${toy.distance.toFixed(1)} m away, ${Math.round(Math.abs(toy.bearing))}° to the ${toy.bearing >= 0 ? "left" : "right"}.`,
    );
  else parts.push("The toy has not been seen yet.");
  return parts.join(" ");
}
