/** Perceiver scan (RePLan's PERCEIVERSCAN): which of the scene's known things the camera shows, and their state. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured } from "../../../models";
import { SceneScan } from "../schemas";
import type { Session } from "../../../runtime/session";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { currentView, noteSceneLook, sceneVocabulary, type View } from "./view";
import { runOf } from "../../../runtime/run";
import type { ReplanSettings } from "../configuration";

export const SCAN_PROMPT = `You look at a robot's camera image of a tabletop scene. For each name in the list of things the
robot knows how to interact with, decide whether you can see it. Report the visible ones by their exact names, and a
few short facts about what you see: which doors are open or closed, what rests in or on what.
Report only what the image shows.`;

/** One look: which known things the frame shows, and what is seen of them (also the completion check's look). */
export function lookAtScene(session: Session, view: View) {
  return askStructured(session.models, session.modelConfig, {
    role: "perceiver",
    schema: SceneScan,
    schemaName: "SceneScan",
    system: SCAN_PROMPT,
    task: "scan",
    context: { ...sceneVocabulary(session), world: worldForModel(session.world), detections: view.detections },
    images: [view.image],
  });
}

export async function scanScene(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const run = runOf<ReplanSettings>(config);
  const session = await run.session();
  const view = await currentView(session);
  const { value, usage } = await lookAtScene(session, view);
  const search = noteSceneLook(state.search, state.goal, session, view, value.visible);
  return {
    scene: value.visible,
    sceneFacts: value.facts,
    frame: view.frame,
    usage,
    search,
    startedAt: state.startedAt || Date.now(),
    log: [{ kind: "note", text: `sees ${value.visible.join(", ") || "nothing it knows"}` }],
  };
}
