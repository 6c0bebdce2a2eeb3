/**
 * Generated kitchen scenarios: which objects exist and where (within each place's room), which doors and drawers start
 * open, where the mobile robot starts, and a goal of one or two parts drawn from what the world's skills can do —
 * find things and report where they are, move a thing the instruction locates, or find a thing and bring it somewhere.
 * Instructions are worded as the hand-made dataset's are. A scenario is a pure function of its seed, named
 * `generated_<seed>` (tuning and scored ranges: ../generated.ts).
 * Whether a scenario can be done is not decided here: solve.ts plans and runs it on the true state.
 */
import { generatedName } from "../generated";
import { Rng, shuffle } from "../../random";
import { NAVIGATION_POINTS, OBJECTS, PLACES } from "./layout";
import type { KitchenScenario } from "./scenario";

/** How an instruction names where a thing is ("which is in the oven"), and where it goes ("into the oven"). */
const PHRASE: Record<string, { at: string; into: string }> = {
  table: { at: "on the table", into: "on the table" },
  sink: { at: "in the sink", into: "into the sink" },
  refrigerator: { at: "in the refrigerator", into: "into the refrigerator" },
  oven: { at: "in the oven", into: "into the oven" },
  drawer_top: { at: "in drawer_top", into: "into drawer_top" },
  drawer_middle: { at: "in drawer_middle", into: "into drawer_middle" },
  trash_can: { at: "in the trash_can", into: "into the trash_can" },
};

export function generateKitchen(seed: number): KitchenScenario {
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`a generated scenario's seed is a whole number >= 0, got ${seed}`);
  const rng = new Rng(seed * 2246822519 + 3266489917);
  const room = new Map(PLACES.map((p) => [p.name, p.slots.length]));
  // Nothing starts in the trash can: a thing there is thrown away, not put away.
  const startPlaces = PLACES.map((p) => p.name).filter((p) => p !== "trash_can");
  const placements: Record<string, string> = {};
  for (const o of shuffle(rng, OBJECTS).slice(0, 4 + Math.floor(rng.next() * 4))) {
    const free = startPlaces.filter((p) => room.get(p)! > 0);
    const chosen = rng.pick(free);
    placements[o.name] = chosen;
    room.set(chosen, room.get(chosen)! - 1);
  }
  const open = PLACES.filter((p) => p.openable && rng.next() < 0.25).map((p) => p.name);
  const mobileAt = rng.pick(NAVIGATION_POINTS).name;
  const objects = Object.keys(placements);
  const family = rng.pick(["search", "manipulation", "integration"] as const);
  const two = rng.next() < 0.5;
  const targets = shuffle(rng, objects).slice(0, two ? 2 : 1);
  const name = generatedName(seed);
  if (family === "search") {
    const [first, second] = targets;
    const instruction = second
      ? `Find the ${first} and the ${second} and report where each one is. Do not move anything.`
      : `Find the ${first} and report where it is. Do not move anything.`;
    return {
      name,
      family,
      instruction,
      placements,
      open,
      mobileAt,
      perturbations: [],
      goal: targets.map((t) => `found(${t})`),
    };
  }
  // Where each target goes: somewhere else with room left (the room the other target frees does not count).
  const dest = (object: string) => {
    const choices = PLACES.map((p) => p.name).filter((p) => p !== placements[object] && room.get(p)! > 0);
    const destination = rng.pick(choices);
    room.set(destination, room.get(destination)! - 1);
    return destination;
  };
  const moves = targets.map((t) => ({ t, to: dest(t) }));
  const verb = (to: string) => (to === "trash_can" ? "throw" : "put");
  let instruction: string;
  if (family === "manipulation") {
    const part = (move: { t: string; to: string }, first: boolean) =>
      `${first ? verb(move.to)[0].toUpperCase() + verb(move.to).slice(1) : verb(move.to)} the ${move.t}, which ${move.t.endsWith("s") ? "are" : "is"} ${PHRASE[placements[move.t]].at}, ${PHRASE[move.to].into}`;
    instruction =
      moves.length === 1 ? `${part(moves[0], true)}.` : `${part(moves[0], true)}. Then ${part(moves[1], false)}.`;
  } else {
    const part = (move: { t: string; to: string }, first: boolean) =>
      `${first ? "Find" : "find"} the ${move.t} and ${verb(move.to)} ${move.t.endsWith("s") ? "them" : "it"} ${PHRASE[move.to].into}`;
    instruction =
      moves.length === 1 ? `${part(moves[0], true)}.` : `${part(moves[0], true)}. Then ${part(moves[1], false)}.`;
  }
  return {
    name,
    family,
    instruction,
    placements,
    open,
    mobileAt,
    perturbations: [],
    goal: moves.map((m) => `in(${m.t}, ${m.to})`),
  };
}
