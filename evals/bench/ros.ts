/**
 * Through the reference ROS 1 rosbridge_server (ros/kit): the no-op skill's round trip as an actionlib goal, from our
 * client and from roslib's ActionClient, beside ours on our own bridge; and 320x240 camera frames per second, one
 * real kitchen frame published and received in turn, through the reference bridge and through ours, and at 640x480 as a
 * standard robot sends it (raw rgb8, JPEG) with what reading it into a PNG costs the agent. Skipped, saying
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
import sharp from "sharp";
import { pngOf, rawRgbImage, type ImageMessage } from "../../robots/msgs/images";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(count: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await once();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const startedAt = performance.now();
    await once();
    out.push(performance.now() - startedAt);
  }
  return out;
}

/** A real kitchen frame at a size, as each kind of camera message carries it. */
async function kitchenFrames(width: number, height: number) {
  const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash"), width, height });
  const out = await world.renderCamera("mobile");
  await world.close();
  const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "" };
  const rgb = Buffer.from(out.frame.rgb.buffer, out.frame.rgb.byteOffset, out.frame.rgb.byteLength);
  return {
    png: { header, format: "png", data: out.image.toString("base64") } as ImageMessage,
    jpeg: {
      header,
      format: "jpeg",
      data: (
        await sharp(rgb, { raw: { width, height, channels: 3 } })
          .jpeg({ quality: 90 })
          .toBuffer()
      ).toString("base64"),
    } as ImageMessage,
    raw: rawRgbImage(header, width, height, rgb) as ImageMessage,
  };
}

/**
 * Frames per second of one camera message published and received in turn between two clients on `url` (what the
 * bridge can carry; the agent decodes only the frames it looks at, timed apart).
 */
async function framesPerSecond(
  url: string,
  dialect: "ros1" | "ros2",
  count: number,
  frame: ImageMessage,
  type: string,
): Promise<number> {
  const pub = await BridgeClient.connect(url);
  const sub = await BridgeClient.connect(url);
  pub.dialect = sub.dialect = dialect;
  const topic = `/bench/camera/${type.endsWith("/Image") ? "image_raw" : "image/compressed"}`;
  pub.advertise(topic, type);
  let waiting: ((seq: number) => void) | undefined;
  sub.subscribe<{ header: { frame_id: string } }>(topic, type, (m) => waiting?.(Number(m.header.frame_id)));
  const message = (i: number) => ({ ...frame, header: { stamp: { sec: 0, nanosec: 0 }, frame_id: String(i) } });
  const send = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`frame ${i} did not arrive through ${url}`)), 10_000);
      // ROS 1 connects publisher and subscriber a moment after advertising: the first frame is sent until it arrives.
      const again = setInterval(() => pub.publish(topic, message(i)), 500);
      waiting = (seq) => {
        if (seq !== i) return;
        clearTimeout(timer);
        clearInterval(again);
        resolve();
      };
      pub.publish(topic, message(i));
    });
  try {
    await send(-1);
    const startedAt = performance.now();
    for (let i = 0; i < count; i++) await send(i);
    return count / ((performance.now() - startedAt) / 1000);
  } finally {
    await pub.close();
    await sub.close();
  }
}

/** Milliseconds to read one frame into the PNG the agent keeps (median of fresh messages: decoding is cached per message). */
async function decodeMs(frame: ImageMessage, count: number): Promise<number> {
  return median(await timed(count, () => pngOf({ ...frame, header: { ...frame.header } }, "/bench")));
}

export async function rosBenchmarks(quick: boolean): Promise<Figure[]> {
  const missing = rosMissing();
  if (missing) {
    console.log(`(ROS 1 figures skipped: ${missing})`);
    return [];
  }
  const count = quick ? 100 : 500;
  const figures: Figure[] = [];
  const ros = await startRos();
  const onRos = await startSimProcess("kitchen", ["--ros", ros.url, "--speed", "max"], 60_000);
  const ours = await startSimProcess("kitchen", ["--speed", "max"]);
  try {
    const client = await BridgeClient.connect(ros.url);
    client.dialect = "ros1";
    let k = 0;
    const viaRos = median(
      await timed(
        count,
        () => sendActionlibGoal(client, PING_ACTION, ROS1_PING_TYPE, {}, { goalId: `bench-${k++}` }).result,
      ),
    );
    const rosConnection = new Ros({ url: ros.url });
    await new Promise<void>((resolve, reject) => {
      rosConnection.once("connection", () => resolve());
      rosConnection.once("error", reject);
    });
    const ac = new ActionClient({
      ros: rosConnection,
      serverName: PING_ACTION,
      actionName: "robograph_msgs/PingAction",
    });
    const roslibOnce = () =>
      new Promise<void>((resolve) => {
        const goal = new Goal({ actionClient: ac, goalMessage: {} });
        goal.on("result", () => resolve());
        goal.send();
      });
    const viaRoslib = median(await timed(count, roslibOnce));
    rosConnection.close();
    await client.close();
    const own = await BridgeClient.connect(ours.url);
    const onOurs = median(await timed(count, () => own.sendGoal(PING_ACTION, PING_TYPE, {}).result));
    await own.close();
    figures.push({
      name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), our client: median",
      value: viaRos,
      unit: "ms",
    });
    figures.push({
      name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), roslib: median",
      value: viaRoslib,
      unit: "ms",
    });
    figures.push({
      name: "no-op skill round trip, our bridge (action ops), our client: median",
      value: onOurs,
      unit: "ms",
    });
    figures.push({
      name: "reference rosbridge (actionlib) / our bridge, our client",
      value: viaRos / onOurs,
      unit: "x",
    });
    figures.push({
      name: "our client / roslib, both through the reference rosbridge",
      value: viaRos / viaRoslib,
      unit: "x",
      target: "<= 1.2x",
      ok: viaRos / viaRoslib <= 1.2,
    });
    const frames = quick ? 50 : 200;
    const small = await kitchenFrames(320, 240);
    const fpsRos = await framesPerSecond(ros.url, "ros1", frames, small.png, "sensor_msgs/msg/CompressedImage");
    const fpsOurs = await framesPerSecond(ours.url, "ros2", frames, small.png, "sensor_msgs/msg/CompressedImage");
    figures.push({
      name: "camera frames/s at 320x240 PNG, reference ROS 1 rosbridge",
      value: fpsRos,
      unit: "fps",
      target: ">= 30 fps",
      ok: fpsRos >= 30,
    });
    figures.push({ name: "camera frames/s at 320x240 PNG, our bridge", value: fpsOurs, unit: "fps" });
    figures.push({ name: "frames/s: reference rosbridge / our bridge", value: fpsRos / fpsOurs, unit: "x" });
    // What a standard robot sends: a 640x480 camera, raw rgb8 (1.2 MB a frame as JSON) or JPEG (image_transport's default).
    const vga = await kitchenFrames(640, 480);
    const fpsRaw = await framesPerSecond(ros.url, "ros1", Math.ceil(frames / 4), vga.raw, "sensor_msgs/msg/Image");
    const fpsJpeg = await framesPerSecond(ros.url, "ros1", frames, vga.jpeg, "sensor_msgs/msg/CompressedImage");
    const fpsPngVga = await framesPerSecond(ros.url, "ros1", frames, vga.png, "sensor_msgs/msg/CompressedImage");
    figures.push({
      name: "camera frames/s at 640x480 raw rgb8 Image, reference ROS 1 rosbridge",
      value: fpsRaw,
      unit: "fps",
      target: ">= 5 fps (the agent reads raw frames throttled to 10/s)",
      ok: fpsRaw >= 5,
    });
    figures.push({
      name: "camera frames/s at 640x480 JPEG CompressedImage, reference ROS 1 rosbridge",
      value: fpsJpeg,
      unit: "fps",
      target: ">= 30 fps",
      ok: fpsJpeg >= 30,
    });
    figures.push({
      name: "camera frames/s at 640x480 PNG CompressedImage, reference ROS 1 rosbridge",
      value: fpsPngVga,
      unit: "fps",
    });
    figures.push({ name: "frames/s at 640x480: JPEG / raw rgb8", value: fpsJpeg / fpsRaw, unit: "x" });
    const reads = quick ? 20 : 60;
    figures.push({
      name: "reading a 640x480 raw rgb8 frame into the PNG the agent keeps: median",
      value: await decodeMs(vga.raw, reads),
      unit: "ms",
    });
    figures.push({
      name: "reading a 640x480 JPEG frame into the PNG the agent keeps: median",
      value: await decodeMs(vga.jpeg, reads),
      unit: "ms",
    });
  } finally {
    await ours.stop();
    await onRos.stop();
    await ros.stop();
  }
  return figures;
}
