/**
 * RePLan's hierarchical mode end to end: the graph in this process, the tabletop simulator (MuJoCo physics under a
 * predictive-sampling controller) as its own process, the real bridge between. Assertions read the trace.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../../runtime/run";
import type { ReplanStateType } from "../../../graphs/replan/state";
import { loadDataset } from "../../../evals/datasets";
import { runMethodEpisode, type EpisodeRun } from "../../../evals/episode";
import { scratchDir } from "../../helpers/episode";
import { SharedSims } from "../../helpers/sharedSims";
import { generateTabletop } from "../../../robots/sim/tabletop/generate";

// One tabletop process for the file, reset to each test's scene (as the experiment runner does between episodes).
const sims = new SharedSims();
afterEach(() => sims.release());
afterAll(async () => {
  await closePooledSessions();
  await sims.stop();
});

const instruction = (scene: string) =>
  loadDataset("tabletop").find((r) => r.example.inputs.world === "tabletop" && r.example.inputs.scenario === scene)!
    .example.inputs.goal;

async function episode(
  scene: string,
  variant = "full",
  extra: { noise?: number; seed?: number } = {},
): Promise<EpisodeRun<ReplanStateType>> {
  const sim = await sims.take("tabletop", scene, ["--speed", "max"], extra.seed ?? 0);
  return runMethodEpisode({
    mode: "replan",
    url: sim.url,
    goal: instruction(scene),
    thread: `${scene}-${variant}`,
    dataDir: scratchDir(),
    variant,
    maxSteps: 20,
    ...extra,
  });
}

const motions = (run: EpisodeRun<ReplanStateType>) =>
  run.trace
    .flatMap((t) => (t.node === "executor" ? (t.update.log ?? []) : []))
    .flatMap((x) => (x.kind === "motion" ? [x] : []));

describe("RePLan on task 3 (the bar across the cabinet's handles), symbolic backend, noise 0", () => {
  it("fails to open the cabinet, diagnoses the bar, replans to remove it first, and succeeds", async () => {
    const run = await episode("cabinet_barred");
    const done = motions(run);
    // The first attempt to open the cabinet fails on the controller's residual.
    expect(done[0]).toMatchObject({ step: "open the wooden_cabinet", ok: false });
    expect(done[0].message).toMatch(/set_joint_fraction\("left_door", 1\) not met: residual/);
    // The perceiver's answers name the bar; the planner's consolidated reason is the bar.
    const diagnosis = run.trace.find((t) => t.node === "consolidate")!.update.log![0];
    expect(diagnosis.kind).toBe("diagnosis");
    if (diagnosis.kind !== "diagnosis") return;
    expect(diagnosis.explanations.length).toBe(6);
    expect(diagnosis.reasons).toEqual(["the red_bar is blocking the wooden_cabinet"]);
    // The replan removes the bar before opening the door, then places the cube; the simulator confirms the goal.
    const replan = run.trace.filter((t) => t.node === "high_level_planner")[1].update.plan!;
    expect(replan.steps.map((s) => s.action)).toEqual([
      "move the red_bar away from the wooden_cabinet",
      "open the wooden_cabinet",
      "move the yellow_cube to the target_position",
    ]);
    expect(done.slice(1).map((m) => [m.step, m.ok])).toEqual([
      ["move the red_bar away from the wooden_cabinet", true],
      ["open the wooden_cabinet", true],
      ["move the yellow_cube to the target_position", true],
    ]);
    expect(run.state.status).toBe("succeeded");
    expect(run.truth.success).toBe(true);
    expect(run.state.counters).toMatchObject({ motions: 4, replans: 1, procedures: 0 });
  });

  it("without replanning the same failure ends the run", async () => {
    const run = await episode("cabinet_barred", "no-replan");
    expect(motions(run)).toHaveLength(1);
    expect(run.trace.some((t) => t.node === "diagnose")).toBe(false);
    expect(run.state.status).toBe("failed");
    expect(run.truth.success).toBe(false);
  });
});

describe("RePLan on a generated scene with obstacles composed (a bar across the handles of a locked door), noise 0", () => {
  it("diagnoses the bar, then the lock, replans after each, and reaches the goal the simulator checks", async () => {
    const scene = generateTabletop(26);
    expect(scene.obstacles).toEqual(["closed door", "bar across the handles", "lever lock"]);
    const sim = await sims.take("tabletop", scene.spec.name, ["--speed", "max"], 0);
    const run = await runMethodEpisode({
      mode: "replan",
      url: sim.url,
      goal: scene.spec.instruction,
      thread: "generated-26",
      dataDir: scratchDir(),
      variant: "full",
      maxSteps: 20,
    });
    const reasons = run.trace
      .filter((t) => t.node === "consolidate")
      .flatMap((t) => t.update.log ?? [])
      .flatMap((x) => (x.kind === "diagnosis" ? x.reasons : []));
    expect(reasons).toEqual([
      "the red_bar is blocking the wooden_cabinet",
      "the wooden_cabinet is locked; the lever beside it may unlock it",
    ]);
    const done = motions(run)
      .filter((m) => m.ok)
      .map((m) => m.step);
    // The second replan keeps every reason of the procedure, so the bar's step is planned (and run) again before the lever.
    expect(done[0]).toBe("move the red_bar away from the wooden_cabinet");
    expect(done.slice(-3)).toEqual([
      "pull the lever",
      "open the wooden_cabinet",
      "move the green_cube to the target_position",
    ]);
    expect(run.state.counters.replans).toBe(2);
    expect(run.state.status).toBe("succeeded");
    expect(run.truth.success).toBe(true);
  });
});
