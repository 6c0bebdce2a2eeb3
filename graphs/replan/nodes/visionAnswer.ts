/** A vision step, second part (RePLan B.16): the perceiver answers each question from the frame and its detections. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { worldForModel } from "../../../nodes/modelContext";
import { askStructured, addUsage, type Usage } from "../../../models";
import { VisionAnswer } from "../schemas";
import type { ReplanStateType, ReplanUpdate } from "../state";
import { currentView, noteSceneLook, sceneVocabulary } from "./view";
import { runOf } from "../../../runtime/run";

export const ANSWER_PROMPT = `You answer one question about a robot's camera image of a tabletop scene. The detector's
findings (names, boxes, colours, where each thing rests) come with the image. Answer in one plain sentence that
starts with yes or no when the question is a yes/no question, using the scene's names. If the image cannot show the
answer (the inside of a closed door, say), say that it is not in view.`;

export async function answerQuestions(state: ReplanStateType, config?: RunnableConfig): Promise<ReplanUpdate> {
  const session = await runOf(config).session();
  const view = await currentView(session);
  let usage: Usage = {};
  const answers: VisionAnswer[] = [];
  for (const { question } of state.answers) {
    const reply = await askStructured(session.models, session.modelConfig, {
      role: "perceiver",
      schema: VisionAnswer,
      schemaName: "VisionAnswer",
      system: ANSWER_PROMPT,
      task: "vision_answer",
      context: {
        question,
        ...sceneVocabulary(session),
        world: worldForModel(session.world),
        detections: view.detections,
      },
      images: [view.image],
    });
    usage = addUsage(usage, reply.usage);
    answers.push({ question, answer: reply.value.answer });
  }
  // A vision action, as RePLan counts them: the perceiver was asked.
  // A look for the search ledger too: what the frame shows the inside of. What the answers found is not read from
  // their words here: a later scan confirms it, and the step's facts keep its search open meanwhile (taskCheck.ts).
  const search = noteSceneLook(state.search, state.goal, session, view, []);
  return {
    answers,
    frame: view.frame,
    usage,
    search,
    counters: { ...state.counters, visionSteps: state.counters.visionSteps + 1 },
  };
}
