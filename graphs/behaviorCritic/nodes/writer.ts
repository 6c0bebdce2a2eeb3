/**
 * The policy writer (code-as-policies with typed primitives): from the instruction, the scene's named things and where
 * the camera sees them, it writes a primitive program; after a critique it rewrites the program to remove what the
 * critique blamed. Its answer is validated against the program schema, never run as code.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { askStructured } from "../../../models";
import { WrittenProgram } from "../schemas";
import type { WriterContext } from "../schemas";
import type { LocatedDetection } from "../../../robots/msgs/rollout";
import { PRIMITIVE_OPS } from "../../../robots/msgs/primitives";
import { RESET_SERVICE } from "../../../robots/msgs/rollout";
import { lastAttempt, type CriticStateType, type CriticUpdate } from "../state";
import { runOf } from "../../../runtime/run";
import type { CriticSettings } from "../configuration";

export const WRITER_PROMPT = `You program a robot hand over a table with a short list of primitives (${PRIMITIVE_OPS.join(", ")}):
move_to a named thing or point with an offset in metres (x right, y away from the camera, z up) and an optional speed;
grasp a thing within 4 cm of the hand with a grip force in newtons and a finger opening; release; lift by a height;
pause; set the default speed; set_joint a door or drawer whose handle the hand holds to a fraction (0 shut, 1 open).
Do the task, and do it the way a careful person would. When a critique of your last program's video is given, change
what caused each event it lists (and nothing that worked), and say what you changed.`;

export async function writeProgram(state: CriticStateType, config?: RunnableConfig): Promise<CriticUpdate> {
  const run = runOf<CriticSettings>(config);
  const session = await run.session();
  const prev = lastAttempt(state);
  // Every try starts from the same scene, and the writer looks at that scene, not at what the last try left behind
  // (a bottle it knocked over would look short). The reset answers after the new frames are on the wire.
  if (prev) await session.client.callService(RESET_SERVICE, {});
  await session.firstViews;
  const view = session.views.values().next().value?.detections as { detections: LocatedDetection[] } | undefined;
  const seen = new Map((view?.detections ?? []).map((d) => [d.label, d]));
  const context: WriterContext = {
    instruction: state.goal,
    scene: {
      // What a program may name: the world's things, places and points — never the robot itself, which the detector
      // also labels (a move to the hand is no move).
      things: [
        ...new Set([
          ...session.world.labels,
          ...session.world.places.map((p) => p.name),
          ...(session.world.targets ?? []).map((t) => t.name),
        ]),
      ]
        .filter((name) => !session.robots.some((r) => r.id === name))
        .map((name) => {
          const detection = seen.get(name);
          return detection?.position
            ? {
                name,
                at: detection.position,
                z: detection.zRange,
                extent: [...detection.xRange, ...detection.yRange] as [number, number, number, number],
              }
            : { name };
        }),
      joints: (session.world.joints ?? []).map((j) => ({ name: j.name, handle: j.handle, object: j.object })),
    },
    ...(prev?.program && prev.refined ? { previous: { program: prev.program, critique: prev.refined.events } } : {}),
  };
  const { value, usage } = await askStructured(session.models, session.modelConfig, {
    role: "writer",
    schema: WrittenProgram,
    schemaName: "WrittenProgram",
    system: WRITER_PROMPT,
    task: "write_program",
    context: context as unknown as Record<string, unknown>,
  });
  return { program: value.program, usage };
}
