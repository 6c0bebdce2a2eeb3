/**
 * Through the reference ROS 1 rosbridge_server (ros/kit): the no-op skill's round trip as an actionlib goal, from our
 * client and from roslib's ActionClient, beside ours on our own bridge; and 320x240 camera frames per second, one
 * real kitchen frame published and received in turn, through the reference bridge and through ours. Skipped, saying
 * why, where the ROS workspace is not built (npm run ros:setup).
 */
import { ActionClient, Goal, Ros } from "roslib";
import { BridgeClient } from "../../robots/bridge/client";
import { sendActionlibGoal } from "../../robots/bridge/ros1";
import { KitchenWorld, loadScenario } from "../../robots/sim/kitchen";
import { startSimProcess } from "../../robots/sim/process";
import { rosMissing, startRos } from "../../robots/sim/rosStack";
import { PING_ACTION, PING_TYPE } from "../../robots/sim/serve";
import { ROS1_PING_TYPE } from "../../robots/sim/ros";
import type { Figure } from "./agent";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(n: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await once();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await once();
    out.push(performance.now() - t);
  }
  return out;
}

/** Frames per second of one real 320x240 frame published and received in turn between two clients on `url`. */
async function framesPerSecond(url: string, dialect: "ros1" | "ros2", n: number): Promise<number> {
  const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash") });
  const frame = await world.renderCamera("mobile");
  await world.close();
  const pub = await BridgeClient.connect(url);
  const sub = await BridgeClient.connect(url);
  pub.dialect = sub.dialect = dialect;
  const topic = "/bench/camera/image/compressed";
  pub.advertise(topic, "sensor_msgs/msg/CompressedImage");
  let waiting: ((seq: number) => void) | undefined;
  sub.subscribe<{ header: { frame_id: string } }>(topic, "sensor_msgs/msg/CompressedImage", (m) => waiting?.(Number(m.header.frame_id)));
  const data = frame.image.toString("base64");
  const send = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`frame ${i} did not arrive through ${url}`)), 10_000);
      // ROS 1 connects publisher and subscriber a moment after advertising: the first frame is sent until it arrives.
      const again = setInterval(() => pub.publish(topic, { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: String(i) }, format: "png", data }), 500);
      waiting = (seq) => {
        if (seq !== i) return;
        clearTimeout(timer);
        clearInterval(again);
        resolve();
      };
      pub.publish(topic, { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: String(i) }, format: "png", data });
    });
  try {
    await send(-1);
    const t = performance.now();
    for (let i = 0; i < n; i++) await send(i);
    return n / ((performance.now() - t) / 1000);
  } finally {
    await pub.close();
    await sub.close();
  }
}

export async function rosBenchmarks(quick: boolean): Promise<Figure[]> {
  const missing = rosMissing();
  if (missing) {
    console.log(`(ROS 1 figures skipped: ${missing})`);
    return [];
  }
  const n = quick ? 100 : 500;
  const figures: Figure[] = [];
  const ros = await startRos();
  const onRos = await startSimProcess("kitchen", ["--ros", ros.url, "--speed", "max"], 60_000);
  const ours = await startSimProcess("kitchen", ["--speed", "max"]);
  try {
    const client = await BridgeClient.connect(ros.url);
    client.dialect = "ros1";
    let k = 0;
    const viaRos = median(await timed(n, () => sendActionlibGoal(client, PING_ACTION, ROS1_PING_TYPE, {}, { goalId: `bench-${k++}` }).result));
    const r = new Ros({ url: ros.url });
    await new Promise<void>((resolve, reject) => {
      r.once("connection", () => resolve());
      r.once("error", reject);
    });
    const ac = new ActionClient({ ros: r, serverName: PING_ACTION, actionName: "robograph_msgs/PingAction" });
    const roslibOnce = () =>
      new Promise<void>((resolve) => {
        const g = new Goal({ actionClient: ac, goalMessage: {} });
        g.on("result", () => resolve());
        g.send();
      });
    const viaRoslib = median(await timed(n, roslibOnce));
    r.close();
    await client.close();
    const own = await BridgeClient.connect(ours.url);
    const onOurs = median(await timed(n, () => own.sendGoal(PING_ACTION, PING_TYPE, {}).result));
    await own.close();
    figures.push({ name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), our client: median", value: viaRos, unit: "ms" });
    figures.push({ name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), roslib: median", value: viaRoslib, unit: "ms" });
    figures.push({ name: "no-op skill round trip, our bridge (action ops), our client: median", value: onOurs, unit: "ms" });
    figures.push({ name: "reference rosbridge (actionlib) / our bridge, our client", value: viaRos / onOurs, unit: "x" });
    figures.push({ name: "our client / roslib, both through the reference rosbridge", value: viaRos / viaRoslib, unit: "x", target: "<= 1.2x", ok: viaRos / viaRoslib <= 1.2 });
    const frames = quick ? 50 : 200;
    const fpsRos = await framesPerSecond(ros.url, "ros1", frames);
    const fpsOurs = await framesPerSecond(ours.url, "ros2", frames);
    figures.push({ name: "camera frames/s at 320x240 PNG, reference ROS 1 rosbridge", value: fpsRos, unit: "fps", target: ">= 30 fps", ok: fpsRos >= 30 });
    figures.push({ name: "camera frames/s at 320x240 PNG, our bridge", value: fpsOurs, unit: "fps" });
    figures.push({ name: "frames/s: reference rosbridge / our bridge", value: fpsRos / fpsOurs, unit: "x" });
  } finally {
    await ours.stop();
    await onRos.stop();
    await ros.stop();
  }
  return figures;
}
