/** Bad input never takes the simulator's bridge down, and never disturbs another client that is mid-task. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { BridgeClient } from "../../../robots/bridge/client";
import { GoalStatus } from "../../../robots/bridge/protocol";
import { callSkill, discoverRobots } from "../../../tools/skills";
import { startSim, type SimProcess } from "../../helpers/processes";

let sim: SimProcess;
beforeAll(async () => {
  // Slow enough that a drive across the kitchen is still running while the bad input arrives.
  sim = await startSim(["--speed", "2"]);
});
afterAll(async () => {
  await sim?.stop();
});

/** A message the bridge sent: every one has its op; status messages say why in `msg`. */
type Inbound = { op: string; id?: string; msg: string; [field: string]: unknown };

async function raw(url: string) {
  const ws = new WebSocket(url, { maxPayload: 100 * 1024 * 1024 });
  const inbox: Inbound[] = [];
  ws.on("message", (d) => inbox.push(JSON.parse(d.toString())));
  await new Promise((resolve, j) => {
    ws.once("open", resolve);
    ws.once("error", j);
  });
  const next = async (pred: (m: Inbound) => boolean) => {
    await expect.poll(() => inbox.find(pred), { timeout: 10_000 }).toBeTruthy();
    return inbox.splice(inbox.findIndex(pred), 1)[0];
  };
  return { ws, inbox, next };
}

describe("bad input over the bridge", () => {
  it("answers each bad message with an error while another client's goal runs to success", async () => {
    const worker = await BridgeClient.connect(sim.url);
    const manifests = (await discoverRobots(worker)).robots;
    const feedback: unknown[] = [];
    const working = callSkill(
      worker,
      manifests,
      "mobile",
      "go_to",
      { navigation_point: "in_front_of_sink" },
      { onFeedback: (f) => feedback.push(f) },
    );

    const bad = await raw(sim.url);
    bad.ws.send("{not json");
    expect((await bad.next((m) => m.op === "status")).msg).toMatch(/invalid JSON/);

    bad.ws.send(JSON.stringify({ op: "teleport", id: "t1" }));
    expect(await bad.next((m) => m.op === "status")).toMatchObject({
      level: "error",
      id: "t1",
      msg: 'unknown op "teleport"',
    });

    bad.ws.send(JSON.stringify({ op: "subscribe", id: "s1" }));
    expect((await bad.next((m) => m.id === "s1")).msg).toMatch(/invalid subscribe message: topic/);

    bad.ws.send(JSON.stringify({ op: "publish", id: "big1", topic: "/x", msg: { data: "x".repeat(10_500_000) } }));
    expect((await bad.next((m) => m.id === "big1")).msg).toMatch(/exceeds the 10000000-byte limit/);

    bad.ws.send(
      JSON.stringify({
        op: "send_action_goal",
        id: "g1",
        action: "/mobile/fly",
        action_type: "x/action/Fly",
        args: {},
      }),
    );
    expect((await bad.next((m) => m.op === "status" && m.id === "g1")).msg).toMatch(
      /action \/mobile\/fly does not exist/,
    );
    expect(await bad.next((m) => m.op === "action_result" && m.id === "g1")).toMatchObject({
      result: false,
      status: GoalStatus.ABORTED,
    });

    bad.ws.send(
      JSON.stringify({
        op: "send_action_goal",
        id: "g2",
        action: "/arm/pick_from",
        action_type: "robograph_msgs/action/PickFrom",
        args: { object: "anvil", place: "table" },
      }),
    );
    expect((await bad.next((m) => m.op === "status" && m.id === "g2")).msg).toMatch(
      /invalid arguments for \/arm\/pick_from: object: Invalid option/,
    );

    bad.ws.send(JSON.stringify({ op: "call_service", id: "c1", service: "/robograph/nothing" }));
    expect(await bad.next((m) => m.id === "c1")).toMatchObject({ op: "service_response", result: false });

    // A client that leaves mid-action: its goal still ends, and is on record.
    const leaver = await raw(sim.url);
    leaver.ws.send(
      JSON.stringify({
        op: "send_action_goal",
        id: "leaver-goal",
        action: "/arm/open",
        action_type: "robograph_msgs/action/Open",
        args: { target: "drawer_top" },
        feedback: true,
      }),
    );
    await leaver.next((m) => m.op === "action_feedback");
    leaver.ws.terminate();

    // The worker's goal was running all along and succeeds, with feedback on the way.
    const outcome = await working;
    expect(outcome).toMatchObject({ ok: true, status: "succeeded" });
    expect(feedback.length).toBeGreaterThan(1);

    // The bad client is still served.
    bad.ws.send(JSON.stringify({ op: "call_service", id: "c2", service: "/robograph/manifest" }));
    expect(await bad.next((m) => m.id === "c2")).toMatchObject({ result: true });
    await expect
      .poll(
        () => worker.callService<{ known: boolean; status?: number }>("/robograph/goal_status", { id: "leaver-goal" }),
        { timeout: 15_000 },
      )
      .toMatchObject({ known: true, status: GoalStatus.SUCCEEDED });
    bad.ws.close();
    await worker.close();
  });

  it("validates skill arguments in the client before sending anything", async () => {
    const client = await BridgeClient.connect(sim.url);
    const manifests = (await discoverRobots(client)).robots;
    const sent: string[] = [];
    // sendRaw is private: reached around its type to watch what goes out.
    const exposed = client as unknown as { sendRaw: (message: { op: string }) => void };
    const orig = exposed.sendRaw.bind(client);
    exposed.sendRaw = (message: { op: string }) => {
      sent.push(message.op);
      orig(message);
    };
    await expect(
      callSkill(client, manifests, "arm", "go_to", { navigation_point: "in_front_of_sink" }),
    ).rejects.toThrow(/robot arm has no skill go_to/);
    await expect(callSkill(client, manifests, "mobile", "pick_from", { object: "apple" })).rejects.toThrow(
      /invalid arguments for mobile.pick_from: place/,
    );
    await expect(callSkill(client, manifests, "mobile", "open", { target: "refrigerator", force: 9 })).rejects.toThrow(
      /Unrecognized key/,
    );
    expect(sent).toEqual([]);
    await client.close();
  });
});
