/**
 * RePLan with speculation (configurable.pipeline): beside each motion the next step's model work is prepared on the
 * motion's predicted success. A failed motion revokes it (the prepared motion is never sent: the failure is diagnosed
 * as ever); a motion that succeeds sends the prepared one at once. At noise 0 the robot does what the unpipelined run
 * does, motion for motion — speculation moves model work earlier, it does not change the method. Beside the plan
 * verifier the plan's current step is prepared on the plan as written, and beside the name check of a failure's
 * explanations their consolidation: each goes when the check changed nothing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../../runtime/run";
import type { ReplanSpeculation, ReplanStateType } from "../../../graphs/replan/state";
import { loadDataset } from "../../../evals/datasets";
import { runMethodEpisode, type EpisodeRun } from "../../../evals/episode";
import { startSimProcess, type SimProcess } from "../../../robots/sim/process";
import { sentAgainstTheReport } from "../../../nodes/speculation";
import { method } from "../../../graphs";
import { scratchDir } from "../../helpers/episode";

const sims: SimProcess[] = [];
afterAll(async () => {
  await closePooledSessions();
  await Promise.all(sims.map((s) => s.stop()));
});

const instruction = (scene: string) =>
  loadDataset("tabletop").find((r) => r.example.inputs.world === "tabletop" && r.example.inputs.scenario === scene)!
    .example.inputs.goal;

async function episode(scene: string, pipeline: boolean): Promise<EpisodeRun<ReplanStateType>> {
  const sim = await startSimProcess("tabletop", ["--scenario", scene, "--speed", "max"]);
  sims.push(sim);
  return runMethodEpisode({
    mode: "replan",
    url: sim.url,
    goal: instruction(scene),
    thread: `${scene}-${pipeline}`,
    dataDir: scratchDir(),
    maxSteps: 20,
    settings: { pipeline },
  });
}

const motionsSent = (run: EpisodeRun<ReplanStateType>) =>
  run.trace
    .flatMap((t) => (t.node === "executor" ? (t.update.log ?? []) : []))
    .flatMap((x) => (x.kind === "motion" ? [`${x.step} → ${x.ok}`] : []));
const allChecks = (run: EpisodeRun<ReplanStateType>) =>
  run.trace.filter((t) => t.node === "prediction_check").map((t) => t.update.speculation as ReplanSpeculation);
/** The checks of work prepared beside a motion (not beside a check). */
const checks = (run: EpisodeRun<ReplanStateType>) => allChecks(run).filter((c) => !c.beside);
const nodesRun = (run: EpisodeRun<ReplanStateType>) => run.trace.map((t) => t.node);

describe("RePLan pipelined", () => {
  it("on task 3, drops the motion prepared beside the failed one, and sends the prepared ones after motions that succeed", async () => {
    const piped = await episode("cabinet_barred", true);
    const [first, ...rest] = checks(piped);
    // The first motion (open the cabinet) fails on the bar: what was prepared for the next step is dropped.
    expect(first).toMatchObject({ outcome: "revoked", step: "move the yellow_cube to the target_position" });
    expect(first.why).toMatch(/did not succeed/);
    const afterFailure = piped.trace.findIndex(
      (t) => t.node === "prediction_check" && !(t.update.speculation as ReplanSpeculation).beside,
    );
    const nextMotion = piped.trace.slice(afterFailure).find((t) => t.node === "dispatch" && t.update.pendingGoal)!
      .update.pendingGoal!.motion.step;
    expect(nextMotion).toBe("move the red_bar away from the wooden_cabinet");
    expect(piped.trace[afterFailure + 1].node).toBe("diagnose");
    // After the bar and the door, the prepared motions went at once (no planner between the check and the dispatch).
    expect(rest.filter((c) => c.outcome === "used").length).toBe(2);
    for (let i = 0; i < piped.trace.length - 1; i++) {
      const entry = piped.trace[i];
      const sp = entry.update.speculation as ReplanSpeculation | undefined;
      if (entry.node === "prediction_check" && sp?.outcome === "used")
        expect(piped.trace[i + 1].node).toBe(sp.consolidated ? "high_level_planner" : "dispatch");
    }
    expect(sentAgainstTheReport(piped.trace as never, method("replan").speculation!)).toBe(0);
    expect(piped.truth.success).toBe(true);
    // Beside the checks: both plans' first motions were drafted beside the plan verifier and went when it kept the
    // plan, and the failure's explanations were consolidated beside their name check.
    const besideChecks = allChecks(piped).filter((c) => c.beside);
    expect(besideChecks.map((c) => [c.beside, c.outcome])).toEqual([
      ["plan_verifier", "used"],
      ["remap_reasons", "used"],
      ["plan_verifier", "used"],
    ]);
    expect(besideChecks[0].motion?.step).toBe("open the wooden_cabinet");
    expect(besideChecks[2].motion?.step).toBe("move the red_bar away from the wooden_cabinet");
    // The same motions as without speculation, and the same diagnosis, with no planner or consolidation asked after
    // a check that changed nothing.
    const plain = await episode("cabinet_barred", false);
    expect(motionsSent(piped)).toEqual(motionsSent(plain));
    const reasons = (run: EpisodeRun<ReplanStateType>) =>
      run.trace.flatMap((t) => (t.update.log ?? []).filter((x) => x.kind === "diagnosis"));
    expect(reasons(piped)).toEqual(reasons(plain));
    expect(nodesRun(piped)).not.toContain("consolidate");
    expect(nodesRun(plain)).toContain("consolidate");
    expect(nodesRun(piped).filter((n) => n === "low_level_planner").length).toBeLessThan(
      nodesRun(plain).filter((n) => n === "low_level_planner").length,
    );
    expect(piped.state.pipeline).toMatchObject({ used: 5, revoked: 1 });
  });

  it("prepares a vision step's questions beside the motion before it; the perceiver answers them on the view after", async () => {
    const piped = await episode("kitchen", true);
    expect(piped.truth.success).toBe(true);
    const usedQuestions = piped.trace.findIndex(
      (entry) =>
        entry.node === "prediction_check" &&
        (entry.update.speculation as ReplanSpeculation).outcome === "used" &&
        (entry.update.speculation as ReplanSpeculation).answers?.length,
    );
    expect(usedQuestions).toBeGreaterThan(0);
    // No planner asks them again: the perceiver is next.
    expect(piped.trace[usedQuestions + 1].node).toBe("vision_answer");
    expect(sentAgainstTheReport(piped.trace as never, method("replan").speculation!)).toBe(0);
  });
});
