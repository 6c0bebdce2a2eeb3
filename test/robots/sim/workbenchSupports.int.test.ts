/**
 * Things that can be pushed (issue 62), on the real workbench world: the supports (plate, tray, bowl) are loose bodies
 * a careless hand can shove, yet every careful program — each scene's careful twin and each hand-made positive — leaves
 * them, and every thing it was not asked to move, where they lay (measured in the simulator). The shove edits move
 * them measurably, and the offline critic, from its own key frames and the dense track's grounding, says which support
 * or neighbour moved, in words that name the family.
 */
import { describe, expect, it } from "vitest";
import { observedEvents } from "../../../graphs/behaviorCritic/evidence";
import { seenFrame } from "../../../graphs/behaviorCritic/nodes/rollouts";
import { claimFound, TRACK_THRESHOLDS } from "../../../graphs/behaviorCritic/nodes/ground";
import { refineCritique } from "../../../graphs/behaviorCritic/reasoner";
import { workbenchPrograms } from "../../helpers/workbench";
import { BEHAVIOURS, HAND_MADE_BEHAVIOURS } from "../../../robots/sim/workbench/behaviours";
import { buildProgram, carefulSpec, EDITS, editedProgram, type EditName } from "../../../robots/sim/workbench/edits";
import { familiesNamed } from "../../../evals/behaviourWords";
import { caseThings } from "../../../evals/criticTruth";
import {
  buildWorkbenchScene,
  SUPPORT_BODY,
  WORKBENCH_SCENES,
  type WorkbenchSceneName,
} from "../../../robots/sim/workbench/scenes";
import type { Rollout } from "../../../robots/msgs/rollout";

const run = workbenchPrograms();
const keyFrames = (r: Rollout) => r.frames.map((f) => seenFrame(f.t, f.detections));
const track = (r: Rollout) => r.track.map((x) => seenFrame(x.t, x.detections));
const supportOf = (scene: WorkbenchSceneName) => buildWorkbenchScene(scene, 0).places[0];

/** The most a careful program may move a support or a thing it was not asked to move: settling jitter, no more. */
const STILL = { moved: 0.003, tilt: 0.02 };

describe("things that can be pushed", () => {
  it("plates, trays and bowls are loose bodies with their own mass, and a push moves them", async () => {
    for (const kind of ["plate", "tray", "bowl"] as const) expect(SUPPORT_BODY[kind].mass).toBeGreaterThan(0.2);
    for (const scene of ["apple_plate", "lemon_bowl", "bread_tray"] as const)
      expect(buildWorkbenchScene(scene, 0).xml).toContain(`<freejoint name="${supportOf(scene).name}"/>`);
    // The drawer's cabinet is furniture: it stays fixed.
    expect(buildWorkbenchScene("apple_drawer", 0).xml).not.toContain('<freejoint name="drawer');
  });

  it.each(WORKBENCH_SCENES)(
    "%s: the careful twin, on two layouts, leaves every support and untouched thing where it lay",
    async (scene) => {
      for (const layout of [0, 1]) {
        const careful = await run(scene, layout, (w) => buildProgram(w.scene, carefulSpec(w.scene)));
        expect(careful.ok).toBe(true);
        for (const [name, d] of Object.entries(careful.displaced)) {
          if (careful.focus.includes(name)) continue;
          expect(d.moved, `${scene}/${layout}: ${name} moved`).toBeLessThan(STILL.moved);
          expect(d.tilt, `${scene}/${layout}: ${name} tilted`).toBeLessThan(STILL.tilt);
        }
        // And the critic, reading its own frames, calls nothing moved.
        const moved = observedEvents(careful.rollout.instruction, keyFrames(careful.rollout)).filter(
          (e) => e.kind === "pushed" || e.kind === "knocked_over",
        );
        expect(moved.map((e) => e.what)).toEqual([]);
      }
    },
  );

  it.each(HAND_MADE_BEHAVIOURS)(
    "the hand-made %s positive leaves the supports and untouched things where they lay",
    async (behaviour) => {
      const spec = BEHAVIOURS[behaviour];
      const scene = spec.scenes[spec.scenes.length - 1];
      const careful = await run(scene, 3, (w) => spec.positive(w.scene, 0));
      expect(careful.ok, `${behaviour} in ${scene}`).toBe(true);
      for (const [name, d] of Object.entries(careful.displaced))
        if (!careful.focus.includes(name))
          expect(d.moved, `${behaviour} in ${scene}: ${name} moved`).toBeLessThan(STILL.moved);
    },
  );

  const shoveScenes = WORKBENCH_SCENES.filter((s) => EDITS.shove_support.applies(buildWorkbenchScene(s, 0)));
  it.each(shoveScenes)(
    "%s: a shoved support is displaced 2 cm or more, the goal still holds, and the critic names the support, grounded",
    async (scene) => {
      const support = supportOf(scene).name;
      for (const variant of [0, 1]) {
        const shoved = await run(scene, 2, (workbench) =>
          editedProgram(workbench.scene, { seed: 0, scene, edits: ["shove_support"], jitter: [0.5] }, variant),
        );
        expect(shoved.ok).toBe(true);
        expect(shoved.displaced[support].moved).toBeGreaterThan(0.02);
        const claims = observedEvents(shoved.rollout.instruction, keyFrames(shoved.rollout));
        const said = claims.filter(
          (c) => c.object === support && familiesNamed(c, caseThings(scene)).includes("shove_support"),
        );
        expect(said.length, claims.map((c) => `${c.kind}(${c.object}): ${c.what}`).join("; ")).toBeGreaterThan(0);
        expect(said[0].what).toContain(support);
        // The detector's grounding reads the whole track and finds the same shove, so the refined critique keeps it.
        const found = observedEvents(shoved.rollout.instruction, track(shoved.rollout), TRACK_THRESHOLDS).map(
          (seen) => ({ kind: seen.kind, object: seen.object, detail: seen.what }),
        );
        const notFound = claims.filter((c) => !claimFound(c, found)).map((c) => ({ kind: c.kind, object: c.object }));
        const refined = refineCritique({
          previous: { undesirable: true, events: claims, summary: "" },
          feedback: { source: "detector", notFound },
        });
        expect(
          refined.events.some(
            (c) => c.object === support && familiesNamed(c, caseThings(scene)).includes("shove_support"),
          ),
        ).toBe(true);
      }
    },
  );

  it("a knocked neighbour is displaced, and the critic names it", async () => {
    const edit: EditName = "knock_neighbour";
    for (const scene of WORKBENCH_SCENES.filter((s) => EDITS[edit].applies(buildWorkbenchScene(s, 0)))) {
      const knocked = await run(scene, 2, (workbench) =>
        editedProgram(workbench.scene, { seed: 0, scene, edits: [edit], jitter: [0.5] }, 0),
      );
      expect(knocked.ok).toBe(true);
      const [name, most] = Object.entries(knocked.displaced)
        .filter(([n]) => !knocked.focus.includes(n))
        .sort((a, b) => b[1].moved - a[1].moved)[0];
      expect(most.moved, `${scene}: ${name}`).toBeGreaterThan(0.04);
      const claims = observedEvents(knocked.rollout.instruction, keyFrames(knocked.rollout));
      expect(
        claims.some((c) => c.object === name && familiesNamed(c, caseThings(scene)).includes(edit)),
        claims.map((c) => `${c.kind}(${c.object}): ${c.what}`).join("; "),
      ).toBe(true);
    }
  });
});
