/**
 * The closed loop does not repeat itself (graphs/clea/loops.ts): the same rejection of the same action twice sends
 * every camera to look for what is in question before the planner runs again, and a third rejection for that reason
 * lets the planner's choice stand (the robot's result decides); the same failure twice gets the same look, and the
 * action is not sent a third time. The kitchen simulator as its own process over the bridge; "models" that misbehave
 * answer over HTTP through the real @langchain/openai client, everything else answered by the offline reasoner.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closePooledSessions } from "../../../runtime/run";
import { runMethodEpisode } from "../../../evals/episode";
import { startSim, type SimProcess } from "../../helpers/processes";
import {
  contextOf,
  reasonerAnswer as reason,
  localModelEndpoint,
  type RequestContext as Ctx,
} from "../../helpers/openaiServer";
import { executed, scratchDir } from "../../helpers/episode";

const sims: SimProcess[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
  process.env = { ...savedEnv };
  await closePooledSessions();
  await Promise.all(sims.splice(0).map((s) => s.stop()));
});

const endpoint = localModelEndpoint();
const useFake = () => endpoint.use();

async function kitchen(spec: object, extra: string[] = []) {
  const file = join(scratchDir(), "scenario.json");
  writeFileSync(file, JSON.stringify(spec));
  const started = await startSim(["--scenario", file, "--speed", "max", ...extra]);
  sims.push(started);
  return started;
}

const TEA_ON_TABLE = {
  name: "tea_on_table",
  family: "manipulation",
  instruction: "Throw the bottle_of_tea, which is on the table, into the trash_can.",
  placements: { bottle_of_tea: "table", apple: "table", milk: "refrigerator" },
  goal: ["in(bottle_of_tea, trash_can)"],
};
const PICK_TEA = { robot: "arm", skill: "pick_from", args: { object: "bottle_of_tea", place: "table" } };

describe("a critic–planner loop is broken", () => {
  it("a critic that keeps seeing the table without the tea: rejected twice, a look for it, then the planner's choice stands and the run succeeds", async () => {
    useFake();
    const asked: Ctx[] = [];
    // The critic's camera misses the tea on the table, every time, for the same reason.
    endpoint.fake.respond = async (req) => {
      const ctx = contextOf(req);
      asked.push(ctx);
      const action = ctx.action as typeof PICK_TEA | undefined;
      if (ctx.task === "critique" && JSON.stringify(action) === JSON.stringify(PICK_TEA)) {
        return {
          arguments: JSON.stringify({
            verdict: "outdated",
            feedback: "the bottle_of_tea is not on the table any more: the image shows the table without it",
          }),
        };
      }
      return { arguments: await reason(ctx) };
    };
    const simulator = await kitchen(TEA_ON_TABLE);
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: TEA_ON_TABLE.instruction,
      thread: "critic-loop",
      dataDir: scratchDir(),
      backend: "openai",
    });
    expect(episode.state.status).toBe("succeeded");
    expect(episode.truth.success).toBe(true);
    // Asked three times about the pick, never a fourth; the second rejection sent both cameras to look for the tea.
    const critiques = asked.filter(
      (c) => c.task === "critique" && JSON.stringify(c.action) === JSON.stringify(PICK_TEA),
    );
    expect(critiques).toHaveLength(3);
    const focused = asked.filter((c) => c.task === "perceive" && c.lookFor);
    expect(focused.map((c) => c.robot).sort()).toEqual(["arm", "mobile"]);
    expect(focused[0].lookFor).toMatchObject({ objects: ["bottle_of_tea"], places: ["table"] });
    // The look came between the second and the third critique, and no plan was made in between the look and its cause.
    const order = asked
      .map((request) =>
        request.task === "perceive" && request.lookFor
          ? "look"
          : request.task === "critique" && JSON.stringify(request.action) === JSON.stringify(PICK_TEA)
            ? "critique"
            : "",
      )
      .filter(Boolean);
    expect(order).toEqual(["critique", "critique", "look", "look", "critique"]);
    expect(episode.state.loops.map((l) => l.how)).toEqual(["looked", "overruled"]);
    expect(executed(episode).map((x) => x.call)).toEqual([
      "arm.pick_from(bottle_of_tea, table)",
      "arm.release_to(bottle_of_tea, trash_can)",
    ]);
    // The verdicts given all count; the run's summary names the loop.
    expect(episode.state.verdicts.outdated).toBe(3);
  }, 120_000);

  it("the same failure twice: a look for what is in question, and the action is not sent a third time", async () => {
    useFake();
    // A planner sure the tea is on the table; it is not (it is nowhere), so the arm's pick fails the same way.
    const stubborn = {
      subgoal: "take the tea",
      rationale: "it must be on the table",
      steps: [PICK_TEA],
      done: false,
      giveUp: null,
      lookFor: null,
    };
    const asked: Ctx[] = [];
    endpoint.fake.respond = async (req) => {
      const ctx = contextOf(req);
      asked.push(ctx);
      return { arguments: ctx.task === "plan" ? JSON.stringify(stubborn) : await reason(ctx) };
    };
    const simulator = await kitchen({
      ...TEA_ON_TABLE,
      name: "tea_nowhere",
      placements: { apple: "table", milk: "refrigerator" },
    });
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: TEA_ON_TABLE.instruction,
      thread: "failure-loop",
      dataDir: scratchDir(),
      backend: "openai",
      variant: "no-critic",
    });
    expect(episode.state.status).toBe("failed");
    expect(episode.state.statusReason).toBe(
      'arm/pick_from {"object":"bottle_of_tea","place":"table"} failed twice for the same reason (there is no bottle_of_tea on the table); the look after changed nothing the planner used, so it is not tried a third time',
    );
    // Before: a third pick, which failed the same way and ended the run.
    expect(episode.state.counters.steps).toBe(2);
    expect(asked.filter((c) => c.task === "perceive" && c.lookFor).length).toBe(2);
    expect(episode.state.loops.map((l) => l.how)).toEqual(["looked", "refused"]);
  }, 120_000);
});

describe("a gripper's unsensed report against a look", () => {
  it("a look that does not show the tea where the arm put it sends the cameras to look for it at once, and the belief keeps it", async () => {
    useFake();
    const asked: Ctx[] = [];
    // Grippers without grasp sensing; the arm's camera misses the tea in the drawer unless asked about it.
    endpoint.fake.respond = async (req) => {
      const ctx = contextOf(req) as Ctx & {
        detections?: { detections: { label: string; location: { place: string } }[] };
      };
      asked.push(ctx);
      if (ctx.task === "perceive" && ctx.robot === "arm" && !ctx.lookFor && ctx.detections) {
        ctx.detections = {
          ...ctx.detections,
          detections: ctx.detections.detections.filter(
            (d) => !(d.label === "bottle_of_tea" && d.location.place === "drawer_top"),
          ),
        };
      }
      return { arguments: await reason(ctx) };
    };
    const simulator = await kitchen(
      {
        ...TEA_ON_TABLE,
        name: "tea_to_drawer",
        mobileAt: "in_front_of_sink",
        instruction: "Put the bottle_of_tea, which is on the table, into drawer_top.",
        goal: ["in(bottle_of_tea, drawer_top)"],
      },
      ["--grasp-sensing", "off"],
    );
    const episode = await runMethodEpisode({
      url: simulator.url,
      goal: "Put the bottle_of_tea, which is on the table, into drawer_top.",
      thread: "unsensed",
      dataDir: scratchDir(),
      backend: "openai",
    });
    expect(episode.state.status).toBe("succeeded");
    expect(episode.truth.success).toBe(true);
    // The arm's report was unsensed; the look after it missed the tea; the very next look was asked about it.
    const release = episode.state.history.find((h) => h.kind === "action" && h.call.skill === "release_to");
    expect(release).toMatchObject({ ok: true, unsensed: true });
    const focused = asked.filter((c) => c.task === "perceive" && c.lookFor);
    expect(focused.length).toBeGreaterThan(0);
    expect(focused[0].lookFor).toMatchObject({ objects: ["bottle_of_tea"], places: ["drawer_top"] });
    expect(String((focused[0].lookFor as { why: string }).why)).toMatch(
      /^a look disagrees with what a gripper reported: the bottle_of_tea in the drawer_top/,
    );
    // No skill between the release and the end: no search went looking for it.
    expect(executed(episode).map((x) => x.call)).toEqual([
      "arm.open(drawer_top)",
      "arm.pick_from(bottle_of_tea, table)",
      "arm.release_to(bottle_of_tea, drawer_top)",
    ]);
    expect(episode.state.belief?.objects.find((o) => o.name === "bottle_of_tea")).toMatchObject({
      place: "drawer_top",
      source: "seen",
    });
  }, 120_000);
});
