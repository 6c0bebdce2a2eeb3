/**
 * CLEA with speculation (configurable.pipeline), end to end: the real `@langchain/openai` client against a local
 * OpenAI-compatible endpoint that answers as the symbolic reasoner would, the kitchen simulator over the real bridge.
 * A confirmed prediction sends its action with no model call after the look — opening the refrigerator in the tea
 * search, both outcomes of the look were prepared (the tea there, or the search going on) and the one the look showed
 * went; a perturbation revokes it, and the prepared action is never sent; an endpoint that refuses the speculative
 * requests costs only time.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../../runtime/run";
import { LATENCY_TASKS, latencyEpisode, startReasonerEndpoint, type LatencyRun } from "../../../evals/bench/latency";
import { sentAgainstTheLook } from "../../../nodes/speculation";
import { method } from "../../../graphs";
import type { Speculation } from "../../../graphs/clea/prediction";
import { startSim, type SimProcess } from "../../helpers/processes";
import { callText, executed, runEpisode, scratchDir } from "../../helpers/episode";
import { generateKitchen } from "../../../robots/sim/kitchen/generate";

const task = LATENCY_TASKS.find((t) => t.mode === "clea")!;
let endpoint: Awaited<ReturnType<typeof startReasonerEndpoint>>;
const sims: SimProcess[] = [];
beforeAll(async () => {
  endpoint = await startReasonerEndpoint(50);
});
afterAll(async () => {
  await closePooledSessions();
  await endpoint?.fake.close();
  await Promise.all(sims.map((s) => s.stop()));
});

/**
 * Per skill after the first: the roles of the model calls the robot waited through before it (started after the skill
 * before ended, answered before this one started). Prepared work is named "prepared": the calls that began before the
 * look did (after a skill the graph runs the perceiver only once the executor and the speculator beside it have both
 * ended, so on a loaded machine the speculator's later calls — a plan made on a predicted belief carries no predicted
 * entry — can start after the skill and still be its work), and any call that carries the prediction. The robot
 * waits on those for time, not for a call made after the look.
 */
function waitedOn(run: LatencyRun): string[][] {
  return run.busy.slice(1).map((skill, i) => {
    const gap = run.calls.filter((c) => c.start >= run.busy[i].end && c.end <= skill.start);
    const look = Math.min(...gap.filter((c) => c.role === "perceiver").map((c) => c.start));
    return gap.map((c) => (c.onPrediction || c.start < look ? "prepared" : c.role));
  });
}

/** Per skill: whether it went out on work prepared beside the skill before and confirmed by the look after it. */
function sentPrepared(run: LatencyRun): boolean[] {
  const out: boolean[] = [];
  let outcome: string | undefined;
  for (const t of run.trace) {
    if (t.node === "prediction_check") outcome = (t.update.speculation as Speculation | undefined)?.outcome;
    if (t.node === "dispatch" && t.update.pendingGoal) {
      out.push(outcome === "used");
      outcome = undefined;
    }
  }
  return out;
}

describe("CLEA pipelined, through the openai backend", () => {
  it("sends a confirmed prediction's action with no model call between the look and the dispatch", async () => {
    const piped = await latencyEpisode(endpoint, task, "full", true, "max");
    expect(piped.success).toBe(true);
    const prepared = sentPrepared(piped);
    expect(prepared.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    const waited = waitedOn(piped);
    prepared.forEach((fromPrepared, k) => {
      // Skill k's wait is waited[k - 1]: only the look (the perceiver) and work prepared on the prediction may be in it.
      if (k > 0 && fromPrepared)
        expect(
          waited[k - 1].filter((role) => role !== "perceiver" && role !== "prepared"),
          `skill ${k}`,
        ).toEqual([]);
    });
    // The same task without speculation waits on the summarizer and the critic after its looks.
    const plain = await latencyEpisode(endpoint, task, "full", false, "max");
    expect(plain.success).toBe(true);
    const modelWaits = (w: string[][]) => w.flat().filter((role) => role !== "perceiver" && role !== "prepared").length;
    expect(modelWaits(waitedOn(plain))).toBeGreaterThan(modelWaits(waited));
    expect(sentAgainstTheLook(piped.trace, method("clea").speculation!).prepared).toBe(0);
    // The look after opening the refrigerator confirmed the branch where the tea is there: the pick went at once, and
    // the search prepared for the other outcome was dropped, never sent.
    const decided = piped.trace
      .filter((t) => t.node === "prediction_check")
      .map((t) => t.update.speculation as Speculation);
    const found = decided.find((s) => s.outcome === "used" && (s.chosen ?? 0) > 0);
    expect(found?.assumes).toBe("the bottle_of_tea in the refrigerator");
    expect(found?.action).toEqual({
      robot: "mobile",
      skill: "pick_from",
      args: { object: "bottle_of_tea", place: "refrigerator" },
    });
    const dropped = found!.alternatives!.map((b) => b.action).filter((a) => a !== null);
    expect(dropped.length).toBeGreaterThan(0);
    const sent = piped.trace.flatMap((step) => {
      const goal =
        step.node === "dispatch" ? (step.update.pendingGoal as { call: unknown } | null | undefined) : undefined;
      return goal ? [JSON.stringify(goal.call)] : [];
    });
    for (const action of dropped) expect(sent).not.toContain(JSON.stringify(action));
    expect(piped.pipeline).toMatchObject({ revoked: 0, alternativesUsed: 1 });
    expect(piped.pipeline!.alternatives).toBeLessThanOrEqual(2 * piped.skills);
  });

  it("an endpoint that refuses every speculative request costs time only: the ordinary path runs and the task is done", async () => {
    const answer = endpoint.fake.respond;
    // A request made on a prediction carries the predicted entry (summarizer) or the note saying so (critic).
    endpoint.fake.respond = (req, count) =>
      JSON.stringify(req.messages).includes('\\"predicted\\"')
        ? { status: 400, body: JSON.stringify({ error: { message: "refused" } }) }
        : answer(req, count);
    try {
      const run = await latencyEpisode(endpoint, task, "full", true, "max");
      expect(run.success).toBe(true);
      expect(run.status).toBe("succeeded");
      const notes = run.trace
        .filter((t) => t.node === "speculator")
        .map((t) => (t.update.speculation as Speculation).note);
      expect(notes.length).toBeGreaterThan(0);
      for (const note of notes) expect(note).toMatch(/could not prepare: .*400/);
      expect(run.pipeline).toMatchObject({ used: 0, prepared: 0 });
    } finally {
      endpoint.fake.respond = answer;
    }
  });
});

describe("CLEA pipelined, the symbolic backend", () => {
  it("drops the action prepared for a thing the look shows gone (moved to the sink mid-task), and never sends it", async () => {
    const sim = await startSim(["--scenario", "manipulation_tea_moved_to_sink", "--speed", "max"]);
    sims.push(sim);
    const episode = await runEpisode({
      url: sim.url,
      scenario: "manipulation_tea_moved_to_sink",
      thread: "pipelined-moved",
      pipeline: true,
    });
    expect(episode.events.find((ev) => ev.kind === "perturbation")).toBeDefined();
    const checks = episode.trace
      .filter((t) => t.node === "prediction_check")
      .map((t) => t.update.speculation as Speculation);
    const revoked = checks.filter((c) => c.outcome === "revoked" && /bottle_of_tea/.test(c.why ?? ""));
    expect(revoked.length).toBeGreaterThan(0);
    // What was prepared on the tea being in the refrigerator never reached the robot.
    const dropped = revoked
      .map((c) => c.action)
      .filter((a) => a !== null)
      .map((a) => callText(a!));
    expect(dropped).toContain("mobile.pick_from(bottle_of_tea, refrigerator)");
    expect(executed(episode).map((x) => x.call)).not.toContain("mobile.pick_from(bottle_of_tea, refrigerator)");
    expect(sentAgainstTheLook(episode.trace as never, method("clea").speculation!).prepared).toBe(0);
    expect(episode.state.pipeline.revoked).toBeGreaterThan(0);
    expect(episode.truth.success).toBe(true);
  });

  it("follows a rejection on the prediction as the loop does: the planner's next step, judged and sent at once, the record the same as without speculation", async () => {
    // Tuning kitchen 112: the mobile robot goes to the oven, whose door it has not seen. The branch "the oven open,
    // nothing sought inside" prepares the plan's next step, opening it, which the critic calls redundant there; the
    // branch goes on to the planner's next step (the arm opens drawer_middle), and the look that shows the oven open
    // sends that at once.
    const scenario = join(scratchDir(), "generated_112.json");
    writeFileSync(scenario, JSON.stringify(generateKitchen(112)));
    const record = async (pipeline: boolean) => {
      const sim = await startSim(["--scenario", scenario, "--speed", "max"]);
      sims.push(sim);
      return runEpisode({ url: sim.url, scenario, thread: `rejected-on-prediction-${pipeline}`, pipeline });
    };
    const piped = await record(true);
    const checks = piped.trace
      .filter((t) => t.node === "prediction_check")
      .map((t) => t.update.speculation as Speculation);
    const followed = checks.find((c) => c.outcome === "used" && c.rejection);
    expect(followed?.assumes).toBe("the oven open, nothing sought inside");
    expect(followed?.rejection).toMatchObject({
      verdict: "redundant",
      action: { robot: "mobile", skill: "open", args: { target: "oven" } },
    });
    expect(followed?.action).toEqual({ robot: "arm", skill: "open", args: { target: "drawer_middle" } });
    expect(executed(piped).map((x) => x.call)).not.toContain("mobile.open(oven)");
    expect(sentAgainstTheLook(piped.trace as never, method("clea").speculation!).prepared).toBe(0);
    // What was decided is what the loop decides without speculation: the skills, the verdicts (the rejection counted
    // once), the replan and the failed plan it left.
    const plain = await record(false);
    expect(piped.truth.success).toBe(true);
    expect(executed(piped).map((x) => x.call)).toEqual(executed(plain).map((x) => x.call));
    expect(piped.state.verdicts).toEqual(plain.state.verdicts);
    expect(piped.state.counters.replans).toBe(plain.state.counters.replans);
    expect(piped.state.failedPlans).toEqual(plain.state.failedPlans);
  });
});
