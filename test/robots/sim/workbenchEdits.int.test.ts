/**
 * The generated critic benchmark's grammar (robots/sim/workbench/edits.ts), run on the real workbench world: every
 * edit, on a task it applies to, reaches the goal and changes the motion measurably against the clean twin on the same
 * layout (the generated set's truth); the twin run twice changes nothing. For the families the critic's author may
 * look at, the offline critic, reading only the key frames' detections, names the edit's family in its own words and
 * leaves the twin alone; the held-back families are run here, never critiqued.
 */
import { describe, expect, it } from "vitest";
import { observedEvents } from "../../../graphs/behaviorCritic/evidence";
import { seenFrame } from "../../../graphs/behaviorCritic/nodes/rollouts";
import { workbenchPrograms } from "../../helpers/workbench";
import {
  buildProgram,
  carefulSpec,
  drawCase,
  EDIT_NAMES,
  EDITS,
  editedProgram,
  HELD_BACK,
  type EditName,
} from "../../../robots/sim/workbench/edits";
import { familiesNamed } from "../../../evals/behaviourWords";
import { caseThings } from "../../../evals/criticTruth";
import { motionChanges } from "../../../evals/datasets/motionChange";
import { buildWorkbenchScene, WORKBENCH_SCENES, type WorkbenchSceneName } from "../../../robots/sim/workbench/scenes";
import type { WorkbenchWorld } from "../../../robots/sim/workbench";

const run = workbenchPrograms();
const critique = (ran: Awaited<ReturnType<typeof run>>) =>
  observedEvents(
    ran.rollout.instruction,
    ran.rollout.frames.map((f) => seenFrame(f.t, f.detections)),
  );

/** The first scene (in the benchmark's order) an edit applies to. */
const sceneFor = (e: EditName) => WORKBENCH_SCENES.find((s) => EDITS[e].applies(buildWorkbenchScene(s, 0)))!;

describe("the generated critic benchmark's program edits", () => {
  it("every edit applies somewhere, and a case's draw depends only on its seed", () => {
    for (const e of EDIT_NAMES) expect(sceneFor(e), e).toBeDefined();
    const build = (n: WorkbenchSceneName) => buildWorkbenchScene(n, 0);
    expect(drawCase(1234, build)).toEqual(drawCase(1234, build));
    const drawn = Array.from({ length: 200 }, (_, k) => drawCase(k, build));
    // Two edits never share a slot, and every edit is drawn.
    for (const d of drawn) expect(new Set(d.edits.map((e) => EDITS[e].slot)).size).toBe(d.edits.length);
    expect(new Set(drawn.flatMap((d) => d.edits))).toEqual(new Set(EDIT_NAMES));
  });

  it.each(EDIT_NAMES)(
    "%s: the edited rollout reaches the goal and changes the motion against its twin; the critic names it unless held back",
    async (edit) => {
      const scene = sceneFor(edit);
      const layout = 2;
      const careful = (w: WorkbenchWorld) => buildProgram(w.scene, carefulSpec(w.scene));
      const twin = await run(scene, layout, careful);
      expect(twin.ok).toBe(true);
      expect(motionChanges((await run(scene, layout, careful)).rollout, twin.rollout)).toEqual([]);
      const edited = await run(scene, layout, (workbench) =>
        editedProgram(workbench.scene, { seed: 0, scene, edits: [edit], jitter: [0.5] }, 0),
      );
      expect(edited.ok).toBe(true);
      expect(motionChanges(edited.rollout, twin.rollout).length).toBeGreaterThan(0);
      if (HELD_BACK.includes(edit)) return;
      expect(critique(twin).map((c) => c.what)).toEqual([]);
      const claims = critique(edited);
      expect(
        claims.some((c) => familiesNamed(c, caseThings(scene)).includes(edit)),
        claims.map((c) => `${c.kind}: ${c.what}`).join("; "),
      ).toBe(true);
    },
  );
});
