/**
 * What a rosbridge deployment offers a third-party client, through roslib's own methods against a simulator process:
 * rosapi's discovery services in rosapi_msgs' shapes, allowlists like rosbridge's topics_glob / services_glob /
 * actions_glob (`--allow-*` on `npm run sim`), and the evaluator services closed to clients not on this machine.
 */
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Action, Ros, Service, Topic } from "roslib";
import { BridgeClient } from "../../robots/bridge/client";
import { globToRegExp } from "../../robots/bridge/allowlist";
import { startSim, type SimProcess } from "../helpers/processes";

async function connect(url: string): Promise<Ros> {
  const ros = new Ros({ url });
  await new Promise<void>((resolve, reject) => {
    ros.once("connection", () => resolve());
    ros.once("error", reject);
  });
  return ros;
}
/** roslib's callback style as a promise: resolves with the answer, rejects with the failure. */
const call = <T>(fn: (ok: (v: T) => void, fail: (e: unknown) => void) => void) =>
  new Promise<T>((resolve, reject) => fn(resolve, reject));

describe("rosapi through roslib", () => {
  let sim: SimProcess;
  let ros: Ros;
  beforeAll(async () => {
    sim = await startSim(["--speed", "max"]);
    ros = await connect(sim.url);
  });
  afterAll(async () => {
    ros?.close();
    await sim?.stop();
  });

  it("getTopics, getTopicType, getTopicsForType", async () => {
    const { topics, types } = await call<{ topics: string[]; types: string[] }>((ok, fail) => ros.getTopics(ok, fail));
    expect(topics).toContain("/mobile/camera/image/compressed");
    expect(topics).toContain("/arm/detections");
    expect(types[topics.indexOf("/arm/detections")]).toBe("robograph_msgs/msg/Detections");
    expect(await call<string>((ok, fail) => ros.getTopicType("/mobile/camera/image/compressed", ok, fail))).toBe(
      "sensor_msgs/msg/CompressedImage",
    );
    // rosapi answers an unknown topic with an empty type, not a failure.
    expect(await call<string>((ok, fail) => ros.getTopicType("/no/such/topic", ok, fail))).toBe("");
    const images = await call<string[]>((ok, fail) =>
      ros.getTopicsForType("sensor_msgs/msg/CompressedImage", ok, fail),
    );
    expect(images).toEqual([
      "/arm/camera/depth/compressed",
      "/arm/camera/image/compressed",
      "/mobile/camera/depth/compressed",
      "/mobile/camera/image/compressed",
    ]);
  });

  it("getServices, getServiceType, getServicesForType", async () => {
    const services = await call<string[]>((ok, fail) => ros.getServices(ok, fail));
    expect(services).toEqual(
      expect.arrayContaining([
        "/robograph/manifest",
        "/robograph/goal_status",
        "/robograph/stop",
        "/rosapi/topics",
        "/rosapi/services",
        "/rosapi/nodes",
      ]),
    );
    expect(await call<string>((ok, fail) => ros.getServiceType("/robograph/stop", ok, fail))).toBe(
      "std_srvs/srv/Trigger",
    );
    expect(await call<string>((ok, fail) => ros.getServiceType("/rosapi/topic_type", ok, fail))).toBe(
      "rosapi_msgs/srv/TopicType",
    );
    expect(await call<string[]>((ok, fail) => ros.getServicesForType("rosapi_msgs/srv/Topics", ok, fail))).toEqual([
      "/rosapi/topics",
    ]);
  });

  it("getActionServers, getNodes, getNodeDetails", async () => {
    const actions = await call<string[]>((ok, fail) => ros.getActionServers(ok, fail));
    expect(actions).toEqual(expect.arrayContaining(["/mobile/go_to", "/arm/pick_from", "/robograph/ping"]));
    expect(await call<string[]>((ok, fail) => ros.getNodes(ok, fail))).toEqual([
      "/arm",
      "/mobile",
      "/rosapi",
      "/rosbridge_websocket",
    ]);
    const arm = await call<{ publishing: string[]; services: string[]; subscribing: string[] }>((ok, fail) =>
      ros.getNodeDetails("/arm", ok, fail),
    );
    expect(arm.publishing).toEqual(["/arm/camera/depth/compressed", "/arm/camera/image/compressed", "/arm/detections"]);
    expect(arm.subscribing).toEqual([]);
  });
});

describe("allowlists (--allow-topics, --allow-services, --allow-actions)", () => {
  let sim: SimProcess;
  let ros: Ros;
  beforeAll(async () => {
    sim = await startSim([
      "--speed",
      "max",
      "--allow-topics",
      "/mobile/*",
      "--allow-services",
      "/rosapi/*,/robograph/manifest",
      "--allow-actions",
      "/mobile/go_*",
    ]);
    ros = await connect(sim.url);
  });
  afterAll(async () => {
    ros?.close();
    await sim?.stop();
  });

  it("match as rosbridge's fnmatch globs do", () => {
    expect(globToRegExp("/mobile/*").test("/mobile/camera/image/compressed")).toBe(true);
    expect(globToRegExp("/mobile/*").test("/arm/detections")).toBe(false);
    expect(globToRegExp("/arm/[!p]*").test("/arm/open")).toBe(true);
    expect(globToRegExp("/arm/[!p]*").test("/arm/pick_from")).toBe(false);
    expect(globToRegExp("/a?m/x.y").test("/arm/x.y")).toBe(true);
    expect(globToRegExp("/a?m/x.y").test("/arm/xzy")).toBe(false);
  });

  it("rosapi lists only what they allow", async () => {
    const { topics } = await call<{ topics: string[] }>((ok, fail) => ros.getTopics(ok, fail));
    expect(topics.length).toBeGreaterThan(0);
    expect(topics.every((t) => t.startsWith("/mobile/"))).toBe(true);
    expect(await call<string[]>((ok, fail) => ros.getServices(ok, fail))).toEqual([
      "/robograph/manifest",
      ...[
        "action_servers",
        "node_details",
        "nodes",
        "service_type",
        "services",
        "services_for_type",
        "topic_type",
        "topics",
        "topics_for_type",
      ].map((n) => `/rosapi/${n}`),
    ]);
    expect(await call<string[]>((ok, fail) => ros.getActionServers(ok, fail))).toEqual(["/mobile/go_to"]);
    expect(await call<string>((ok, fail) => ros.getTopicType("/arm/detections", ok, fail))).toBe("");
  });

  it("lets a client reach only what they allow: topics, services, actions", async () => {
    const manifest = new Service({ ros, name: "/robograph/manifest", serviceType: "robograph_msgs/srv/Manifest" });
    expect(await call((ok, fail) => manifest.callService({}, ok, fail))).toHaveProperty("robots");
    const evaluator = new Service({ ros, name: "/evaluator/check", serviceType: "robograph_msgs/srv/EvaluatorCheck" });
    await expect(call((ok, fail) => evaluator.callService({}, ok, fail))).rejects.toMatch(
      /service \/evaluator\/check is not allowed by this bridge's services allowlist/,
    );
    const stop = new Service({ ros, name: "/robograph/stop", serviceType: "std_srvs/srv/Trigger" });
    await expect(call((ok, fail) => stop.callService({}, ok, fail))).rejects.toMatch(/not allowed/);

    const pick = new Action({ ros, name: "/arm/pick_from", actionType: "robograph_msgs/action/PickFrom" });
    await expect(
      call((ok, fail) => pick.sendGoal({ object: "apple", place: "table" }, ok, undefined, fail)),
    ).rejects.toMatch(/action \/arm\/pick_from is not allowed by this bridge's actions allowlist/);
    const goTo = new Action({ ros, name: "/mobile/go_to", actionType: "robograph_msgs/action/GoTo" });
    expect(
      await call((ok, fail) => goTo.sendGoal({ navigation_point: "in_front_of_sink" }, ok, undefined, fail)),
    ).toMatchObject({ success: true });

    // A topic outside the list: refused with a status error naming it, and nothing arrives.
    const arm = new Topic({ ros, name: "/arm/detections", messageType: "robograph_msgs/msg/Detections" });
    const got: unknown[] = [];
    arm.subscribe((m) => got.push(m));
    const mobile = new Topic({ ros, name: "/mobile/detections", messageType: "robograph_msgs/msg/Detections" });
    await new Promise((resolve) => mobile.subscribe(resolve));
    arm.unsubscribe();
    mobile.unsubscribe();
    expect(got).toEqual([]);
    // The refusal came back as a status error with the subscription's id (roslib routes those by id, not to "status").
    const raw = await BridgeClient.connect(sim.url);
    try {
      const status = new Promise<{ msg: string }>((resolve) => raw.on("status", resolve));
      raw.sendMessage({ op: "subscribe", topic: "/arm/detections" });
      expect((await status).msg).toMatch(/topic \/arm\/detections is not allowed by this bridge's topics allowlist/);
    } finally {
      await raw.close();
    }
  });
});

describe("the evaluator services off loopback", () => {
  // An address of this machine that is not loopback: a client connecting to it is seen as coming from elsewhere.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

  it.skipIf(!external)(
    "are closed to a client not on loopback, unless its call carries the evaluator key",
    async () => {
      const token = "evaluator-test-token";
      const sims: SimProcess[] = [];
      try {
        // Bound to that address alone (a token is required off loopback), and once more with an evaluator key.
        const open = await startSim(["--speed", "max", "--host", external!, "--token", token]);
        sims.push(open);
        const remote = await BridgeClient.connect(open.url, { token });
        try {
          await expect(remote.callService("/evaluator/check")).rejects.toThrow(/answer clients on this machine only/);
          // The rest of the bridge serves it as usual.
          expect(await remote.callService("/robograph/manifest")).toHaveProperty("robots");
        } finally {
          await remote.close();
        }
        const keyed = await startSim([
          "--speed",
          "max",
          "--host",
          external!,
          "--token",
          token,
          "--evaluator-key",
          "k3y",
        ]);
        sims.push(keyed);
        const scorer = await BridgeClient.connect(keyed.url, { token });
        try {
          await expect(scorer.callService("/evaluator/check", {})).rejects.toThrow(/did not carry the evaluator key/);
          expect(await scorer.callService("/evaluator/check", { key: "k3y" })).toHaveProperty("success");
        } finally {
          await scorer.close();
        }
      } finally {
        await Promise.all(sims.map((s) => s.stop()));
      }
    },
  );
});
