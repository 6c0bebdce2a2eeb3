/** Perceiver: each robot's latest frame and detections → a structured observation (CLEA's observer). */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart, type Usage, addUsage } from "../../models";
import { Observation } from "../../models/schemas";
import { CLEA_VARIANTS, graphRunOptions, session } from "../runtime";
import type { ClosedLoopStateType, ClosedLoopUpdate, SeenFrame } from "./state";

export const PERCEIVER_PROMPT = `You are the eyes of a household robot team. You get one robot's camera image and the list of
objects its detector found, each with the place it is in or on. Report what this robot can see:
- objects: every object you can confirm, with "in"/"on" a place or "held_by" a robot; use the detector's names
  unless the image clearly shows otherwise;
- containers: every door or drawer in view and whether it is open or closed;
- visiblePlaces: the places whose inside or top you can actually see (a closed container's inside is not visible);
- summary: one or two plain sentences.
Never report an object you cannot see.`;

export async function perceive(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const opts = graphRunOptions(config, "closedLoop", CLEA_VARIANTS);
  const s = await session(opts);
  await s.firstViews;
  const observations: Record<string, SeenFrame> = {};
  const history: ClosedLoopUpdate["history"] = [];
  let usage: Usage = {};
  let nextId = state.counters.nextEntryId;
  for (const robot of s.robots) {
    const view = s.views.get(robot.id);
    if (!view?.image || !view.detections) continue;
    const png = Buffer.from(view.image.data, "base64");
    const image = s.artifacts.put(png);
    const previous = state.observations[robot.id];
    // Nothing changed in front of this robot since its last look: keep that observation, skip the model call.
    if (previous && previous.image === image) continue;
    const { value, usage: u } = await askStructured(s.models, s.modelConfig, {
      role: "perceiver",
      schema: Observation,
      schemaName: "Observation",
      system: PERCEIVER_PROMPT,
      task: "perceive",
      context: { robot: robot.id, detections: { detections: view.detections.detections, places: view.detections.places }, world: s.world },
      images: [await imagePart(png, s.modelConfig.imageMaxSide)],
    });
    usage = addUsage(usage, u);
    observations[robot.id] = { ...value, robot: robot.id, image, stamp: view.image.header.stamp };
    history.push({ id: nextId++, step: state.counters.steps, kind: "observation", robot: robot.id, observation: value });
  }
  return { observations, history, usage, counters: { ...state.counters, nextEntryId: nextId, iterations: state.counters.iterations + 1 }, startedAt: state.startedAt || Date.now() };
}
