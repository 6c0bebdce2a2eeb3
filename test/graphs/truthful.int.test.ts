/**
 * Whole episodes that must not claim what did not happen: an instruction with a part the agent cannot read stops as
 * not understood before any robot moves; an object moved into a place already searched is found by looking again at
 * every place in turn; a RePLan instruction with no target never reaches the robot. The graph in this process, each simulator
 * as its own process.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../runtime/run";
import { runMethodEpisode } from "../../evals/episode";
import { startSim, type SimProcess } from "../helpers/processes";
import { startSimProcess } from "../../robots/sim/process";
import { executed, scratchDir } from "../helpers/episode";

const sims: SimProcess[] = [];
afterAll(async () => {
  await closePooledSessions();
  await Promise.all(sims.map((s) => s.stop()));
});
async function sim(scenario: string) {
  const started = await startSim(["--scenario", scenario, "--speed", "max"]);
  sims.push(started);
  return started;
}

describe("truthful outcomes", () => {
  it("stops an instruction with an unknown verb as not understood, naming the words, before acting", async () => {
    const simulator = await sim("integration_tea_to_trash");
    // "dispose of" is read since issue 15; "recycle" has no reading.
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: "Find the bottle_of_tea and recycle it in the trash_can.",
      thread: "recycle",
      dataDir: scratchDir(),
    });
    expect(episode.state.status).toBe("gave_up");
    expect(episode.state.statusReason).toMatch(
      /^the instruction is not understood: "recycle it in the trash_can"; "recycle": no action I can read; I know objects: /,
    );
    expect(episode.state.counters.steps).toBe(0);
    expect(episode.truth.success).toBe(false);
  });

  it("finds an object moved into a place already searched, by giving every place its turn", async () => {
    // The mobile robot starts at the sink (searched at once); the tea leaves the refrigerator for the sink as soon as
    // the robot heads there, so every first look misses it.
    const dir = scratchDir();
    const scenario = join(dir, "tea_moved_to_searched_sink.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        name: "tea_moved_to_searched_sink",
        family: "integration",
        instruction: "Find the bottle_of_tea and throw it into the trash_can.",
        placements: { bottle_of_tea: "refrigerator", milk: "refrigerator", apple: "table", bread: "drawer_top" },
        mobileAt: "in_front_of_sink",
        perturbations: [{ afterSkill: 1, move: { object: "bottle_of_tea", to: "sink" } }],
        goal: ["in(bottle_of_tea, trash_can)"],
      }),
    );
    const simulator = await sim(scenario);
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: "Find the bottle_of_tea and throw it into the trash_can.",
      thread: "moved",
      dataDir: dir,
    });
    const subgoals = episode.trace.filter((t) => t.node === "planner").map((t) => t.update.plan?.subgoal ?? "");
    expect(subgoals.filter((g) => g.startsWith("look again"))).toEqual([
      "look again into the sink for the bottle_of_tea",
    ]);
    expect(episode.state.status).toBe("succeeded");
    expect(episode.truth.success).toBe(true);
    expect(executed(episode).map((x) => x.call)).toContain("arm.release_to(bottle_of_tea, trash_can)");
  });
});

describe("RePLan: a plan step with no target", () => {
  it("never reaches the robot: an instruction with no target is refused before any step, saying what is missing", async () => {
    // Since issue 15 the reader refuses the instruction itself; the verifier's refusal of such a step is tested on its
    // own (test/models/truthful.test.ts).
    const simulator = await startSimProcess("tabletop", ["--scenario", "block", "--speed", "max"]);
    sims.push(simulator);
    const episode = await runMethodEpisode({
      mode: "replan",
      url: simulator.url,
      goal: "place the red_cube on the",
      thread: "no-target",
      dataDir: scratchDir(),
      maxSteps: 20,
    });
    expect(episode.trace.some((t) => t.node === "plan_verifier")).toBe(false);
    expect(episode.state.counters.motions).toBe(0);
    expect(episode.state.status).toBe("gave_up");
    expect(episode.state.statusReason).toMatch(
      /the instruction is not understood: "place the red_cube on the"; "place the red_cube on the": no goal I can read in it: .*I know objects: yellow_cube, red_cube; places: crate, floor/,
    );
  });
});
