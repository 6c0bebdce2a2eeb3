/**
 * VLM-PC's graph against the obstacle-course simulator as a process, offline (symbolic reasoner), asserted from the
 * trace: indoor_1 as the paper tells it — in under the couch, the dead end, back out, around, over the cushion, to the
 * toy — and what the ablations lose: without the history the robot repeats the skill that got it stuck.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runMethodEpisode, type EpisodeRun } from "../../../evals/episode";
import { COURSE_GOAL } from "../../../evals/datasets";
import { closePooledSessions } from "../../../runtime/run";
import type { VlmpcStateType } from "../../../graphs/vlmpc/state";
import { scratchDir } from "../../helpers/episode";
import { SharedSims } from "../../helpers/sharedSims";

// One course process for the file, reset to each test's course (as the experiment runner does between episodes).
const sims = new SharedSims();
afterEach(() => sims.release());
afterAll(async () => {
  await closePooledSessions();
  await sims.stop();
});

async function episode(
  course: string,
  variant: string,
  extra: { historyWindow?: number } = {},
): Promise<EpisodeRun<VlmpcStateType>> {
  const sim = await sims.take("course", course, ["--speed", "max"]);
  return runMethodEpisode({
    mode: "vlmpc",
    url: sim.url,
    goal: COURSE_GOAL,
    thread: `${course}-${variant}`,
    dataDir: scratchDir(),
    variant,
    maxSteps: 200,
    settings: extra,
  });
}

const skills = (run: EpisodeRun<VlmpcStateType>) =>
  run.state.steps
    .filter((r) => r.result)
    .map((r) => ({ skill: r.result!.skill, stalled: r.result!.stalled, moved: r.result!.moved }));

describe("VLM-PC on indoor_1", () => {
  it("crawls under the couch, finds the dead end, backs out, goes around, climbs the cushion and reaches the toy", async () => {
    const run = await episode("indoor_1", "full");
    const sequence = skills(run);
    const firstCrawl = sequence.findIndex((x) => x.skill === "crawl");
    const deadEnd = sequence.findIndex((x, i) => i > firstCrawl && x.skill === "crawl" && x.stalled);
    const backOut = sequence.findIndex((x, i) => i > deadEnd && x.skill === "backward" && x.moved < 0);
    const around = sequence.findIndex((x, i) => i > backOut && (x.skill === "turn_left" || x.skill === "turn_right"));
    const climb = sequence.findIndex((x, i) => i > around && x.skill === "climb" && !x.stalled);
    expect(firstCrawl, JSON.stringify(sequence)).toBeGreaterThanOrEqual(0);
    expect(deadEnd, "the crawl stalls at the wall behind the couch").toBeGreaterThan(firstCrawl);
    expect(backOut, "then it backs out").toBeGreaterThan(deadEnd);
    expect(around, "and turns to go around").toBeGreaterThan(backOut);
    expect(climb, "and climbs the cushion").toBeGreaterThan(around);
    // After the dead end it does not crawl under the couch again: the history says that failed.
    expect(sequence.slice(backOut).some((x) => x.skill === "crawl")).toBe(false);
    expect(run.state.status).toBe("succeeded");
    expect(run.truth.success).toBe(true);
    expect((run.truth as unknown as { reachedAt: number }).reachedAt).toBeLessThanOrEqual(100);
    // The whole history reaches each planning call: the last call carried one image per earlier step and the view.
    const last = run.state.steps.at(-1)!;
    expect(last.prompt.images).toBe(run.state.steps.length);
  });

  it("without the history it cannot tell the crawl got stuck, repeats it and runs out of time", async () => {
    const run = await episode("indoor_1", "no-history");
    const sequence = skills(run);
    const stalledCrawls = sequence.filter((x) => x.skill === "crawl" && x.stalled).length;
    expect(stalledCrawls).toBeGreaterThanOrEqual(3);
    expect(run.truth.success).toBe(false);
    expect(run.state.status).toBe("budget_exhausted");
    expect(run.state.statusReason).toMatch(/skill time/);
    // No earlier frame is sent: one image per call.
    expect(new Set(run.state.steps.map((r) => r.prompt.images))).toEqual(new Set([1]));
  });

  it("with a window of 4 steps the prompt stays bounded and older steps are summarized", async () => {
    const run = await episode("indoor_1", "full", { historyWindow: 4 });
    expect(Math.max(...run.state.steps.map((r) => r.prompt.images))).toBe(5);
    expect(run.truth.success).toBe(true);
  });
});

describe("VLM-PC on a generated room (tuning range)", () => {
  // generated_5: a wall across the room whose opening is off to the left, out of the first views; the toy behind it.
  it("facing the wall with the toy unseen, it turns to look where its frames have not shown and finds the way through", async () => {
    const run = await episode("generated_5", "full");
    const said = run.state.steps.map((r) => r.answer?.comparison ?? "");
    expect(
      said.some((c) => /turn to look there first/.test(c)),
      said.join("\n"),
    ).toBe(true);
    expect(run.truth.success).toBe(true);
  });
});
