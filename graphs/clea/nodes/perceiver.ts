/** Perceiver: each robot's latest frame and detections → a structured observation (CLEA's observer). */
import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured, imagePart, type Usage, addUsage } from "../../../models";
import { Observation } from "../schemas";
import type { Session } from "../../../runtime/session";
import type { ClosedLoopStateType, ClosedLoopUpdate, SeenFrame } from "../state";
import { worldForModel } from "../../../nodes/modelContext";
import { detectionsOf, framePng } from "../../../nodes/perceiver";
import type { DetectionsMessage } from "../../../robots/msgs/detections";
import { runOf } from "../../../runtime/run";
import type { CleaSettings } from "../configuration";

export const PERCEIVER_PROMPT = `You are the eyes of a household robot team. You get one robot's camera image and the list of
objects its detector found, each with the place it is in or on. Report what this robot can see:
- objects: every object you can confirm, with "in"/"on" a place or "held_by" a robot; use the detector's names
  unless the image clearly shows otherwise;
- containers: every door or drawer in view and whether it is open or closed;
- visiblePlaces: the places whose inside or top you can actually see (a closed container's inside is not visible);
- summary: one or two plain sentences.
When the request has lookFor, the team disagrees about those things and places: look at each of them closely and
report exactly what the image shows of them.
Never report an object you cannot see.`;

/**
 * What each frame was seen to show, by the content of the request that asked (frame hash + detections): a robot back
 * in front of a view it has already reported gets that report again without a new model call. Per session (one
 * bridge, one model configuration), in memory; the run's own reports are also in its state (`perceived`), so a run
 * resumed in another process does not ask again.
 */
const reports = new WeakMap<Session["views"], Map<string, Observation>>();

export async function perceive(state: ClosedLoopStateType, config?: RunnableConfig): Promise<ClosedLoopUpdate> {
  const run = runOf<CleaSettings>(config);
  const session = await run.session();
  await session.firstViews;
  if (!reports.has(session.views)) reports.set(session.views, new Map());
  const known = reports.get(session.views)!;
  // A look asked to settle something (graphs/clea/loops.ts), or the look a search plan's last step was for.
  const focus =
    state.focus && (!state.focus.afterPlan || !(state.plan && state.cursor < state.plan.steps.length))
      ? state.focus
      : null;
  // Every robot's frame at once (a fan-out): one model round trip per look, however many robots.
  const looks = await Promise.all(
    session.robots.map(async (robot) => {
      const view = session.views.get(robot.id);
      const detections = view && detectionsOf<DetectionsMessage>(session, robot, view);
      if (!view?.image || !detections) return undefined;
      const png = await framePng(robot, view);
      const image = session.artifacts.put(png);
      const previous = state.observations[robot.id];
      // A look for something asks anew, of an unchanged picture too.
      if (previous && previous.image === image && !focus) {
        // Nothing changed in front of this robot since its last look: no model call. If it acted since and the camera
        // has taken a new picture, the unchanged view is news all the same (a grasp that closed on nothing leaves the
        // picture as it was), so the same observation is entered again for the summarizer to weigh against what the
        // action reported. The same picture again (a frame from before the action, as after a resume) is no news.
        const { image: _i, stamp, ...value } = previous;
        const retaken = stamp.sec !== view.image.header.stamp.sec || stamp.nanosec !== view.image.header.stamp.nanosec;
        const lastLook = state.history.findLast((e) => e.kind === "observation" && e.robot === robot.id)?.id ?? -1;
        const actedSince = state.history.some(
          (e) => e.kind === "action" && e.call.robot === robot.id && e.id > lastLook,
        );
        return retaken && actedSince
          ? { robot: robot.id, value, usage: {}, image, stamp: view.image.header.stamp }
          : undefined;
      }
      // The world's vocabulary first: it is the same in every request, so a provider's prompt cache can reuse it.
      const context = {
        world: worldForModel(session.world),
        robot: robot.id,
        detections: view.detections
          ? { detections: detections.detections, places: detections.places }
          : {
              detections: [],
              places: [],
              note: "this robot has no object detector: name what the image shows with the world's labels and places",
            },
        ...(focus ? { lookFor: focus } : {}),
      };
      const key = createHash("sha256")
        .update(`${image}|${JSON.stringify(context)}`)
        .digest("hex");
      // A view a look was asked about keeps that careful answer while the robot's detector reports the same (the
      // picture itself may differ: another robot passing at its edge); without a detector, while the picture is the same.
      const settled = `settled:${createHash("sha256")
        .update(`${robot.id}|${view.detections ? JSON.stringify(context.detections) : image}`)
        .digest("hex")}`;
      let value =
        (focus ? undefined : (known.get(settled) ?? state.perceived?.[settled])) ??
        known.get(key) ??
        state.perceived?.[key];
      let usage: Usage = {};
      let fresh: string | undefined;
      if (!value) {
        fresh = key;
        ({ value, usage } = await askStructured(session.models, session.modelConfig, {
          role: "perceiver",
          schema: Observation,
          schemaName: "Observation",
          system: PERCEIVER_PROMPT,
          task: "perceive",
          context,
          images: [await imagePart(png, session.modelConfig.imageMaxSide)],
        }));
        known.set(key, value);
        if (focus) known.set(settled, value);
      }
      return {
        robot: robot.id,
        value,
        usage,
        image,
        stamp: view.image.header.stamp,
        fresh,
        ...(focus ? { settled } : {}),
      };
    }),
  );
  const observations: Record<string, SeenFrame> = {};
  const history: ClosedLoopUpdate["history"] = [];
  let usage: Usage = {};
  let nextId = state.counters.nextEntryId;
  const perceived: Record<string, Observation> = {};
  for (const look of looks) {
    if (!look) continue;
    if ("fresh" in look && look.fresh) perceived[look.fresh] = look.value;
    if ("settled" in look && look.settled) perceived[look.settled] = look.value;
    usage = addUsage(usage, look.usage);
    observations[look.robot] = { ...look.value, robot: look.robot, image: look.image, stamp: look.stamp };
    history.push({
      id: nextId++,
      step: state.counters.steps,
      kind: "observation",
      robot: look.robot,
      observation: look.value,
      ...(focus?.objects.length ? { askedAbout: focus.objects } : {}),
    });
  }
  return {
    observations,
    history,
    usage,
    ...(Object.keys(perceived).length ? { perceived } : {}),
    ...(focus ? { focus: null, focusedAt: state.counters.iterations + 1 } : {}),
    counters: { ...state.counters, nextEntryId: nextId, iterations: state.counters.iterations + 1 },
    startedAt: state.startedAt || Date.now(),
  };
}
