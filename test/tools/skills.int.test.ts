/** Skill tools built from the manifests a bridge serves, run against the kitchen served in-process on loopback. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { serveKitchen } from "../../robots/sim/kitchen";
import { callSkill, discoverRobots, skillTools, toolName, type SkillResult } from "../../tools/skills";
import type { RobotManifest } from "../../robots/manifests";

let served: Awaited<ReturnType<typeof serveKitchen>>;
let client: BridgeClient;
let manifests: RobotManifest[];
let goalsSeen = 0;

beforeAll(async () => {
  served = await serveKitchen({ scenario: "integration_apple_to_oven", port: 0, speed: Infinity });
  client = await BridgeClient.connect(served.server.url);
  manifests = (await discoverRobots(client)).robots;
});
afterAll(async () => {
  await client?.close();
  await served?.close();
});

describe("skill tools", () => {
  it("makes one tool per robot skill, with the manifest's schema", () => {
    const tools = skillTools(client, manifests);
    expect(tools.map((t) => t.name)).toEqual([
      "mobile__go_to",
      "mobile__open",
      "mobile__close",
      "mobile__pick_from",
      "mobile__release_to",
      "arm__open",
      "arm__close",
      "arm__pick_from",
      "arm__release_to",
    ]);
    expect(tools[0].description).toMatch(/^\[mobile\] Drive the base/);
  });

  it("runs a skill from a model's tool call and returns a typed result as the artifact", async () => {
    const tools = skillTools(client, manifests);
    const open = tools.find((t) => t.name === toolName("arm", "open"))!;
    const msg = await open.invoke({ type: "tool_call", id: "call_1", name: open.name, args: { target: "drawer_top" } });
    const result = msg.artifact as SkillResult;
    expect(result).toMatchObject({
      ok: true,
      robot: "arm",
      skill: "open",
      status: "succeeded",
      message: "the drawer_top is open",
    });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.feedback.length).toBeGreaterThan(0);
    expect(JSON.parse(msg.content as string).goalId).toBe(result.goalId);
    goalsSeen = served.world.events.since().filter((e) => e.kind === "skill_started").length;
  });

  it("refuses a tool call with invalid arguments without sending a goal", async () => {
    const tools = skillTools(client, manifests);
    const pick = tools.find((t) => t.name === "arm__pick_from")!;
    await expect(
      pick.invoke({ type: "tool_call", id: "call_2", name: pick.name, args: { object: "apple", place: "moon" } }),
    ).rejects.toThrow(/place/);
    expect(served.world.events.since().filter((e) => e.kind === "skill_started").length).toBe(goalsSeen);
  });

  it("reports a robot's failure as a result, not an exception", async () => {
    const result = await callSkill(client, manifests, "arm", "pick_from", { object: "apple", place: "drawer_middle" });
    expect(result).toMatchObject({
      ok: false,
      status: "aborted",
      error: "cannot pick from the drawer_middle: it is closed",
    });
  });

  it("uses the caller's goal id, so a goal can be recorded before it is sent", async () => {
    const result = await callSkill(
      client,
      manifests,
      "arm",
      "pick_from",
      { object: "apple", place: "drawer_top" },
      { goalId: "episode-1/step-3" },
    );
    expect(result).toMatchObject({ ok: true, goalId: "episode-1/step-3" });
    expect(await client.callService("/robograph/goal_status", { id: "episode-1/step-3" })).toMatchObject({
      known: true,
      status: 4,
    });
  });

  it("turns a timeout and a dropped connection into results", async () => {
    const slow = await callSkill(
      client,
      manifests,
      "arm",
      "release_to",
      { object: "apple", place: "table" },
      { timeoutMs: 1 },
    );
    expect(slow).toMatchObject({ ok: false, status: "timeout" });
    const c2 = await BridgeClient.connect(served.server.url, { reconnect: false });
    const pending = callSkill(c2, manifests, "mobile", "go_to", { navigation_point: "in_front_of_sink" });
    setTimeout(() => void c2.close(), 5);
    const dropped = await pending;
    expect(dropped).toMatchObject({ ok: false, status: "disconnected" });
    expect(dropped.error).toMatch(/while goal .* was running/);
  });
});
