/** The kitchen simulator as its own process, driven only through our bridge client and skill calls. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../../robots/bridge/client";
import { callSkill, discoverRobots } from "../../../tools/skills";
import type { RobotManifest } from "../../../robots/manifests/schema";
import { startSim, type SimProcess } from "../../helpers/processes";

let sim: SimProcess;
let client: BridgeClient;
let manifests: RobotManifest[];

beforeAll(async () => {
  sim = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
  client = await BridgeClient.connect(sim.url);
  manifests = (await discoverRobots(client)).robots;
});
afterAll(async () => {
  await client?.close();
  // SIGTERM is a clean shutdown: exit code 0.
  expect(await sim?.stop("SIGTERM")).toBe(0);
});

const run = (robot: string, skill: string, args: Record<string, string>) =>
  callSkill(client, manifests, robot, skill, args);

describe("kitchen simulator over the bridge", () => {
  it("serves both robots' manifests and the world's vocabulary", async () => {
    const discovered = await discoverRobots(client);
    expect(discovered.robots.map((r) => r.id)).toEqual(["mobile", "arm"]);
    expect(discovered.robots[0].skills.map((s) => s.name)).toEqual([
      "go_to",
      "open",
      "close",
      "pick_from",
      "release_to",
    ]);
    expect(discovered.robots[1].skills.map((s) => s.name)).toEqual(["open", "close", "pick_from", "release_to"]);
    expect(discovered.world?.navigationPoints).toContain("in_front_of_refrigerator");
    expect(discovered.world?.places.find((p) => p.name === "refrigerator")).toMatchObject({
      kind: "container",
      openable: true,
    });
  });

  it("runs every skill of both robots, failing for physical reasons with the reason", async () => {
    // The mobile robot is at the table; the refrigerator is elsewhere.
    let result = await run("mobile", "open", { target: "refrigerator" });
    expect(result).toMatchObject({ ok: false, status: "aborted" });
    expect(result.error).toMatch(/not at in_front_of_refrigerator/);

    result = await run("mobile", "go_to", { navigation_point: "in_front_of_refrigerator" });
    expect(result.ok).toBe(true);
    expect(result.feedback.length).toBeGreaterThan(0);
    expect(result.goalId).toMatch(/^mobile\/go_to:/);

    result = await run("mobile", "pick_from", { object: "bottle_of_tea", place: "refrigerator" });
    expect(result.error).toMatch(/cannot pick from the refrigerator: it is closed/);

    expect((await run("mobile", "open", { target: "refrigerator" })).ok).toBe(true);
    expect((await run("mobile", "open", { target: "refrigerator" })).error).toMatch(/already open/);
    expect((await run("mobile", "pick_from", { object: "apple", place: "refrigerator" })).error).toMatch(
      /there is no apple in the refrigerator/,
    );
    expect((await run("mobile", "pick_from", { object: "bottle_of_tea", place: "refrigerator" })).ok).toBe(true);
    expect((await run("mobile", "pick_from", { object: "milk", place: "refrigerator" })).error).toMatch(
      /already holding the bottle_of_tea/,
    );
    // The mobile robot opens with its other arm while holding something.
    expect((await run("mobile", "close", { target: "refrigerator" })).ok).toBe(true);
    expect((await run("mobile", "close", { target: "refrigerator" })).error).toMatch(/already closed/);

    expect((await run("mobile", "release_to", { object: "bottle_of_tea", place: "trash_can" })).error).toMatch(
      /cannot get to the trash_can/,
    );
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_table" })).ok).toBe(true);
    expect((await run("mobile", "release_to", { object: "milk", place: "table" })).error).toMatch(
      /holding the bottle_of_tea, not the milk/,
    );
    expect((await run("mobile", "release_to", { object: "bottle_of_tea", place: "table" })).ok).toBe(true);

    // The arm: reach, a free hand for drawers, the drawers, the garbage can.
    expect((await run("arm", "open", { target: "refrigerator" })).error).toMatch(/out of the arm's reach/);
    expect((await run("arm", "pick_from", { object: "bread", place: "drawer_top" })).error).toMatch(
      /drawer_top: it is closed/,
    );
    expect((await run("arm", "pick_from", { object: "bottle_of_tea", place: "table" })).ok).toBe(true);
    expect((await run("arm", "open", { target: "drawer_top" })).error).toMatch(/needs its hand free/);
    expect((await run("arm", "release_to", { object: "bottle_of_tea", place: "sink" })).error).toMatch(
      /out of the arm's reach/,
    );
    expect((await run("arm", "release_to", { object: "bottle_of_tea", place: "trash_can" })).ok).toBe(true);
    expect((await run("arm", "open", { target: "drawer_top" })).ok).toBe(true);
    expect((await run("arm", "pick_from", { object: "bread", place: "drawer_top" })).ok).toBe(true);
    expect((await run("arm", "release_to", { object: "bread", place: "table" })).ok).toBe(true);
    expect((await run("arm", "close", { target: "drawer_top" })).ok).toBe(true);

    const check = await client.callService<{ success: boolean; state: Record<string, string> }>("/evaluator/check");
    expect(check.success).toBe(true);
    expect(check.state).toMatchObject({
      bottle_of_tea: "trash_can",
      bread: "table",
      drawer_top: "closed",
      refrigerator: "closed",
    });
  });

  it("refuses a full place", async () => {
    // The oven holds one thing: fill it with the apple, then try the bread.
    expect((await run("arm", "pick_from", { object: "apple", place: "table" })).ok).toBe(true);
    expect((await run("arm", "release_to", { object: "apple", place: "table" })).ok).toBe(true);
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_oven" })).ok).toBe(true);
    expect((await run("mobile", "open", { target: "oven" })).ok).toBe(true);
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_table" })).ok).toBe(true);
    expect((await run("mobile", "pick_from", { object: "apple", place: "table" })).ok).toBe(true);
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_oven" })).ok).toBe(true);
    expect((await run("mobile", "release_to", { object: "apple", place: "oven" })).ok).toBe(true);
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_table" })).ok).toBe(true);
    expect((await run("mobile", "pick_from", { object: "bread", place: "table" })).ok).toBe(true);
    expect((await run("mobile", "go_to", { navigation_point: "in_front_of_oven" })).ok).toBe(true);
    const full = await run("mobile", "release_to", { object: "bread", place: "oven" });
    expect(full.error).toMatch(/the oven is full/);
  });

  it("keeps an event log of skill outcomes, touches and state changes", async () => {
    const { events } = await client.callService<{ events: { kind: string; robot?: string; detail?: string }[] }>(
      "/evaluator/events",
      { since: 0 },
    );
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of [
      "skill_started",
      "skill_succeeded",
      "skill_failed",
      "picked",
      "released",
      "opened",
      "closed",
      "contact",
    ])
      expect(kinds).toContain(k);
    const failed = events.filter((e) => e.kind === "skill_failed");
    expect(failed.some((e) => /it is closed/.test(e.detail ?? ""))).toBe(true);
  });

  it("publishes camera frames and detections for each robot", async () => {
    const img = await client.nextMessage<{ format: string; data: string; header: unknown }>(
      "/arm/camera/image/compressed",
    );
    expect(img.format).toBe("png");
    expect(Buffer.from(img.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    // The mobile robot stands at the open oven with the apple inside.
    const det = await client.nextMessage<{
      detections: { label: string; location: { relation: string; place: string } }[];
    }>("/mobile/detections");
    expect(det.detections).toContainEqual(
      expect.objectContaining({ label: "apple", location: { relation: "in", place: "oven" } }),
    );
    // Without noise, every detection agrees with the true state.
    const { state } = await client.callService<{ state: Record<string, string> }>("/evaluator/check");
    for (const d of det.detections)
      expect(state[d.label]).toBe(
        d.location.relation === "held_by" ? `held_by(${d.location.place})` : d.location.place,
      );
  });
});

describe("scheduled perturbations", () => {
  it("moves an object after the scheduled skill, which the next look shows", async () => {
    const simulator = await startSim(["--scenario", "manipulation_tea_moved_to_sink", "--speed", "max"]);
    const connection = await BridgeClient.connect(simulator.url);
    try {
      const robots = (await discoverRobots(connection)).robots;
      await callSkill(connection, robots, "mobile", "go_to", { navigation_point: "in_front_of_refrigerator" });
      const seen: string[][] = [];
      connection.subscribe<{ detections: { label: string }[] }>("/mobile/detections", undefined, (message) =>
        seen.push(message.detections.map((x) => x.label)),
      );
      expect((await callSkill(connection, robots, "mobile", "open", { target: "refrigerator" })).ok).toBe(true);
      // The tea was moved to the sink after the first skill: the open refrigerator shows only the milk.
      await expect.poll(() => seen.at(-1)).toEqual(["milk"]);
      const result = await callSkill(connection, robots, "mobile", "pick_from", {
        object: "bottle_of_tea",
        place: "refrigerator",
      });
      expect(result.error).toMatch(/there is no bottle_of_tea in the refrigerator/);
      const { events } = await connection.callService<{ events: { kind: string; detail?: string }[] }>(
        "/evaluator/events",
      );
      expect(events.find((e) => e.kind === "perturbation")?.detail).toBe("moved bottle_of_tea to sink");
    } finally {
      await connection.close();
      await simulator.stop();
    }
  });
});

describe("grippers without grasp sensing", () => {
  it("report success for a grasp on nothing and a release of nothing; the event log and the true state tell", async () => {
    const simulator = await startSim([
      "--scenario",
      "integration_tea_to_trash",
      "--speed",
      "max",
      "--grasp-sensing",
      "off",
    ]);
    const connection = await BridgeClient.connect(simulator.url);
    try {
      const robots = (await discoverRobots(connection)).robots;
      // The apple is on the table; the bread is not.
      const grasp = await callSkill(connection, robots, "arm", "pick_from", { object: "bread", place: "table" });
      // The robot says what it did with its hand, never what is in it (it cannot know).
      expect(grasp).toMatchObject({
        ok: true,
        message: "arm closed its hand at the table; without grasp sensing it cannot tell whether anything is in it",
      });
      const release = await callSkill(connection, robots, "arm", "release_to", { object: "bread", place: "trash_can" });
      expect(release).toMatchObject({
        ok: true,
        message:
          "arm opened its hand in the trash_can; without grasp sensing it cannot tell whether anything was in it",
      });
      const { events } = await connection.callService<{ events: { kind: string; detail?: string }[] }>(
        "/evaluator/events",
      );
      expect(events.filter((e) => e.kind === "picked").at(-1)?.detail).toBe(
        "gripper closed on nothing (no bread there)",
      );
      expect(events.filter((e) => e.kind === "released").at(-1)?.detail).toBe("opened an empty hand (no bread in it)");
      const { state } = await connection.callService<{ state: Record<string, string> }>("/evaluator/check");
      expect(state.bread).toBe("drawer_top");
      // A closed door is still felt: that failure is reported.
      expect(
        (await callSkill(connection, robots, "arm", "pick_from", { object: "bread", place: "drawer_top" })).error,
      ).toMatch(/it is closed/);
    } finally {
      await connection.close();
      await simulator.stop();
    }
  });

  it("open a hand they closed before a skill that needs it open, and never name what was in it", async () => {
    const simulator = await startSim([
      "--scenario",
      "integration_tea_to_trash",
      "--speed",
      "max",
      "--grasp-sensing",
      "off",
    ]);
    const connection = await BridgeClient.connect(simulator.url);
    try {
      const robots = (await discoverRobots(connection)).robots;
      const state = async () =>
        (await connection.callService<{ state: Record<string, string> }>("/evaluator/check")).state;
      // The apple is on the table: picked, then picked again — the hand opens over the table first and takes it again.
      const first = await callSkill(connection, robots, "arm", "pick_from", { object: "apple", place: "table" });
      const again = await callSkill(connection, robots, "arm", "pick_from", { object: "apple", place: "table" });
      for (const r of [first, again])
        expect(r).toMatchObject({
          ok: true,
          message: "arm closed its hand at the table; without grasp sensing it cannot tell whether anything is in it",
        });
      expect((await state()).apple).toBe("held_by(arm)");
      const { events } = await connection.callService<{ events: { kind: string; detail?: string }[] }>(
        "/evaluator/events",
      );
      expect(
        events.some(
          (event) =>
            event.kind === "released" &&
            event.detail === "opened its hand before the skill: the apple fell onto the table",
        ),
      ).toBe(true);
      // A drawer needs the arm's one hand: it opens at the handle, and what was in it falls to the floor.
      const open = await callSkill(connection, robots, "arm", "open", { target: "drawer_top" });
      expect(open).toMatchObject({ ok: true, message: "the drawer_top is open" });
      expect((await state()).apple).toBeUndefined();
      for (const r of [first, again, open]) expect(JSON.stringify(r)).not.toMatch(/apple/);
    } finally {
      await connection.close();
      await simulator.stop();
    }
  });
});
