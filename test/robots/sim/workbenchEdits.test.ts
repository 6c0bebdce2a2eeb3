/**
 * The generated critic benchmark's grammar (robots/sim/workbench/edits.ts), run on the real workbench world: every
 * edit, on a task it applies to, reaches the goal and shows what it is meant to cause in the event monitor's log, while
 * the clean twin on the same layout shows nothing; the offline critic, reading only the key frames' detections, flags
 * the edited rollout with a claim the log bears out and leaves the twin alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observedEvents } from "../../../methods/behaviorCritic/evidence";
import { seenFrame } from "../../../methods/behaviorCritic/nodes/rollouts";
import { UNDESIRABLE_KINDS, type Undesirable } from "../../../robots/msgs/rollout";
import type { SimEvent } from "../../../robots/sim/events";
import { WorkbenchWorld } from "../../../robots/sim/workbench";
import { buildProgram, carefulSpec, drawCase, EDIT_NAMES, EDITS, editedProgram, type EditName } from "../../../robots/sim/workbench/edits";
import { buildWorkbenchScene, WORKBENCH_SCENES, type WorkbenchSceneName } from "../../../robots/sim/workbench/scenes";
import type { PrimitiveProgramInput } from "../../../robots/msgs/primitives";

let world: WorkbenchWorld;
beforeAll(async () => {
  world = await WorkbenchWorld.create({ scene: "apple_plate", seed: 0 });
});
afterAll(async () => {
  await world?.close();
});

const isUndesirable = (e: SimEvent) => (UNDESIRABLE_KINDS as string[]).includes(e.kind);

async function run(scene: WorkbenchSceneName, layout: number, make: (w: WorkbenchWorld) => PrimitiveProgramInput) {
  world.reset({ scenario: scene, seed: layout });
  const r = await world.runProgram(make(world));
  const rollout = r.recorded!.rollout;
  const { startTime, duration } = rollout;
  const logged = world.events.since().filter((e) => isUndesirable(e) && e.t >= startTime - 1e-9 && e.t <= startTime + duration + 1e-9);
  const claims = observedEvents(rollout.instruction, rollout.frames.map((f) => seenFrame(f.t, f.detections)));
  return { ok: r.status === "succeeded" && world.evaluate().success, logged, claims };
}

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

  it.each(EDIT_NAMES)("%s: the edited rollout shows what it causes and the critic flags it; the clean twin shows nothing and is not flagged", async (e) => {
    const scene = sceneFor(e);
    const layout = 2;
    const twin = await run(scene, layout, (w) => buildProgram(w.scene, carefulSpec(w.scene)));
    expect(twin.ok).toBe(true);
    expect(twin.logged.map((x) => `${x.kind}(${x.object})`)).toEqual([]);
    expect(twin.claims.map((x) => `${x.kind}(${x.object})`)).toEqual([]);
    const edited = await run(scene, layout, (w) => editedProgram(w.scene, { seed: 0, scene, edits: [e], jitter: [0.5] }, 0));
    expect(edited.ok).toBe(true);
    const meant = EDITS[e].causes;
    expect(edited.logged.some((x) => meant.includes(x.kind as Undesirable)), edited.logged.map((x) => x.kind).join(", ")).toBe(true);
    // Flagged, with a claim the log bears out (kind and thing) among what the edit is meant to cause.
    const borne = edited.claims.filter((c) => edited.logged.some((x) => x.kind === c.kind && x.object === c.object));
    expect(borne.some((c) => meant.includes(c.kind)), `claims: ${edited.claims.map((c) => `${c.kind}(${c.object})`).join(", ")}; logged: ${edited.logged.map((x) => `${x.kind}(${x.object})`).join(", ")}`).toBe(true);
  });
});
