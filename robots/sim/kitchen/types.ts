/** Names the kitchen's parts share (its world, controllers and cameras): who acts, and where a thing can be. */
import type { PlaceSpec } from "./layout";

export type RobotId = "mobile" | "arm";

/** Where an object is: in a place's slot, or in a robot's hand. */
export type Where = { place: PlaceSpec; slot: number } | { heldBy: RobotId };
