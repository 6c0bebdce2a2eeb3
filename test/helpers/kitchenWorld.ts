/** The kitchen as the symbolic reasoner's prompts describe it: its labels, places, robots and world description. */
import { bundledManifests } from "../../robots/manifests";
import { OBJECTS, PLACES, NAVIGATION_POINTS } from "../../robots/sim/kitchen/layout";

export const labels = OBJECTS.map((o) => o.name);
export const places = PLACES.map((p) => p.name);
export const robots = bundledManifests("kitchen");
export const world = {
  name: "kitchen",
  places: PLACES.map((p) => ({ name: p.name, kind: p.kind, openable: p.openable, capacity: p.slots.length })),
  navigationPoints: NAVIGATION_POINTS.map((n) => n.name),
  labels,
};
