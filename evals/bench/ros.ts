/**
 * Through the reference ROS 1 rosbridge_server (ros/kit):
 * - skills: the no-op skill's round trip as an actionlib goal, from our client and from roslib's ActionClient, beside
 *   ours on our own bridge;
 * - camera: what a robot's camera costs the agent — a rospy node (ros/kit/camera_publisher.py) publishing a 640x480
 *   kitchen frame as `sensor_msgs/Image` rgb8 and as `CompressedImage` JPEG at its own rate, received through the
 *   reference rosbridge by our client and by roslib (frames/s and each frame's age on arrival); then what our simulators
 *   pay under `--ros`, where a WebSocket client *publishes* each frame into rosbridge (one frame published and received
 *   in turn); and what reading a frame into the PNG the agent keeps costs.
 * Each group of rows that cannot be measured is reported with why and the others still run. Skipped, saying why, where
 * the ROS workspace is not built (npm run ros:setup).
 */
import { ActionClient, Goal, Ros, Topic } from "roslib";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import { BridgeClient } from "../../robots/bridge/client";
import { sendActionlibGoal } from "../../robots/bridge/ros1";
import { KitchenWorld, loadScenario } from "../../robots/sim/kitchen";
import { startSimProcess } from "../../robots/sim/process";
import { rosMissing, startRos, type RosStack } from "../../robots/sim/rosStack";
import { PING_ACTION, PING_TYPE } from "../../robots/sim/serve";
import { ROS1_PING_TYPE } from "../../robots/sim/ros";
import type { Figure } from "./agent";
import sharp from "sharp";
import { pngOf, rawRgbImage, type ImageMessage } from "../../robots/msgs/images";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The rospy camera the camera rows receive from. */
export const CAMERA_PUBLISHER = join(ROOT, "ros", "kit", "camera_publisher.py");

/** Where figures go, and rows that could not be measured with why. */
export interface BenchSink {
  report(figure: Figure): void;
  unmeasured(rows: string, why: string): void;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs: number[], fraction: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(fraction * xs.length))];

/** `promise`, or a rejection saying what did not happen in `ms`. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

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

/** A real kitchen frame at a size, as each kind of camera message carries it, and its raw rgb8 pixels. */
async function kitchenFrames(width: number, height: number) {
  const world = await KitchenWorld.create({ scenario: loadScenario("integration_tea_to_trash"), width, height });
  const out = await world.renderCamera("mobile");
  await world.close();
  const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "" };
  const rgb = Buffer.from(out.frame.rgb.buffer, out.frame.rgb.byteOffset, out.frame.rgb.byteLength);
  return {
    rgb,
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

export interface FramesPerSecondOptions {
  /** How long one frame may take to arrive before the row is given up (default 10 s). */
  arrivalTimeoutMs?: number;
  /** ROS 1 connects publisher and subscriber a moment after advertising: a frame is resent this often until it arrives. */
  resendMs?: number;
}

/**
 * Frames per second of one camera message published and received in turn between two WebSocket clients on `url` —
 * how our simulators' cameras reach an agent under `--ros` (the agent decodes only the frames it looks at, timed
 * apart). Rejects, having stopped resending and closed both clients, when a frame does not arrive in time.
 */
export async function framesPerSecond(
  url: string,
  dialect: "ros1" | "ros2",
  count: number,
  frame: ImageMessage,
  type: string,
  options: FramesPerSecondOptions = {},
): Promise<number> {
  const arrivalTimeoutMs = options.arrivalTimeoutMs ?? 10_000;
  const resendMs = options.resendMs ?? 500;
  const pub = await BridgeClient.connect(url);
  const sub = await BridgeClient.connect(url).catch(async (err) => {
    await pub.close();
    throw err;
  });
  pub.dialect = sub.dialect = dialect;
  const topic = `/bench/camera/${type.endsWith("/Image") ? "image_raw" : "image/compressed"}`;
  let waiting: ((seq: number) => void) | undefined;
  const message = (i: number) => ({ ...frame, header: { stamp: { sec: 0, nanosec: 0 }, frame_id: String(i) } });
  const send = (i: number) =>
    new Promise<void>((resolve, reject) => {
      // Every way out clears both timers: a resend left running after the clients close throws from a timer.
      const settle = (err?: Error) => {
        clearTimeout(timer);
        clearInterval(again);
        waiting = undefined;
        if (err) reject(err);
        else resolve();
      };
      const publish = () => {
        try {
          pub.publish(topic, message(i));
        } catch (err) {
          settle(err as Error);
        }
      };
      const timer = setTimeout(
        () => settle(new Error(`frame ${i} did not arrive through ${url} within ${arrivalTimeoutMs / 1000} s`)),
        arrivalTimeoutMs,
      );
      const again = setInterval(publish, resendMs);
      waiting = (seq) => seq === i && settle();
      publish();
    });
  try {
    pub.advertise(topic, type);
    sub.subscribe<{ header: { frame_id: string } }>(topic, type, (m) => waiting?.(Number(m.header.frame_id)));
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

/** What one client received from a camera over a window that starts at its first frame. */
export interface CameraReading {
  frames: number;
  seconds: number;
  /** Each frame's age on arrival: now minus its header stamp (one clock: the camera runs on this machine). */
  agesMs: number[];
}

type OnStamp = (stampMs: number) => void;
/** Subscribes, calling back with each frame's header stamp in ms; returns the unsubscribe. */
type CameraSubscriber = (onStamp: OnStamp) => () => void;

const wallMs = () => performance.timeOrigin + performance.now();

/** Counts the frames a subscriber receives for `seconds` after its first one (which may take `firstFrameMs`). */
export function receiveFrames(subscribe: CameraSubscriber, seconds: number, firstFrameMs = 15_000) {
  return new Promise<CameraReading>((resolve, reject) => {
    const agesMs: number[] = [];
    let startedAt: number | undefined;
    let window: NodeJS.Timeout | undefined;
    const noFrame = setTimeout(() => {
      off();
      reject(new Error(`no frame arrived within ${firstFrameMs / 1000} s`));
    }, firstFrameMs);
    const off = subscribe((stampMs) => {
      const now = wallMs();
      if (startedAt !== undefined) {
        agesMs.push(now - stampMs);
        return;
      }
      startedAt = now;
      clearTimeout(noFrame);
      window = setTimeout(() => {
        off();
        resolve({ frames: agesMs.length, seconds: (wallMs() - startedAt!) / 1000, agesMs });
      }, seconds * 1000);
    });
    void window;
  });
}

/**
 * Both clients subscribe keeping only the newest frame at the bridge (rosbridge's queue_length 1, as the agent's
 * session subscribes a raw camera): a frame the client cannot take yet is dropped there, not queued, so a frame's age
 * on arrival says how fresh the view is rather than how long the run has been backing up.
 */
const QUEUE_LENGTH = 1;

/** Our client (robots/bridge) subscribed as the agent's session subscribes a camera, in ROS 1's dialect. */
export async function ourCameraClient(url: string, topic: string, type: string) {
  const client = await BridgeClient.connect(url);
  client.dialect = "ros1";
  const subscribe: CameraSubscriber = (onStamp) =>
    client.subscribe<{ header: { stamp: { sec: number; nanosec: number } } }>(
      topic,
      type,
      (frame) => onStamp(frame.header.stamp.sec * 1000 + frame.header.stamp.nanosec / 1e6),
      { queueLength: QUEUE_LENGTH },
    );
  return { subscribe, close: () => client.close() };
}

/** roslib's Topic on its own connection, for the same topic. */
export async function roslibCameraClient(url: string, topic: string, type: string) {
  const ros = new Ros({ url });
  await new Promise<void>((resolve, reject) => {
    ros.once("connection", () => resolve());
    ros.once("error", reject);
  });
  const subscribe: CameraSubscriber = (onStamp) => {
    const camera = new Topic<{ header: { stamp: { secs: number; nsecs: number } } }>({
      ros,
      name: topic,
      messageType: type.replace("/msg/", "/"),
      queue_length: QUEUE_LENGTH,
    });
    camera.subscribe((frame) => onStamp(frame.header.stamp.secs * 1000 + frame.header.stamp.nsecs / 1e6));
    return () => camera.unsubscribe();
  };
  return {
    subscribe,
    close: async () => {
      ros.close();
    },
  };
}

/** Our client's and roslib's readings of one camera, in alternating windows so drift in the machine's load is shared. */
export async function readCamera(
  url: string,
  topic: string,
  type: string,
  seconds: number,
  rounds = 2,
): Promise<{ ours: CameraReading; roslib: CameraReading }> {
  const ours = await ourCameraClient(url, topic, type);
  const theirs = await roslibCameraClient(url, topic, type).catch(async (err) => {
    await ours.close();
    throw err;
  });
  const sum = (into: CameraReading, part: CameraReading) => {
    into.frames += part.frames;
    into.seconds += part.seconds;
    into.agesMs.push(...part.agesMs);
  };
  const out = { ours: { frames: 0, seconds: 0, agesMs: [] }, roslib: { frames: 0, seconds: 0, agesMs: [] } };
  try {
    for (let round = 0; round < rounds; round++) {
      sum(out.ours, await receiveFrames(ours.subscribe, seconds / rounds));
      sum(out.roslib, await receiveFrames(theirs.subscribe, seconds / rounds));
    }
  } finally {
    await ours.close();
    await theirs.close();
  }
  return out;
}

/** Starts the rospy camera; stopping it waits for it to exit. */
async function startCamera(ros: RosStack, encoding: "raw" | "jpeg", topic: string, hz: number, frameFile: string) {
  const node: ChildProcess = await ros.node(CAMERA_PUBLISHER, [encoding, topic, String(hz), frameFile], 60_000);
  return {
    stop: async () => {
      if (node.exitCode !== null || node.signalCode !== null) return;
      const exited = new Promise((resolve) => node.once("exit", resolve));
      node.kill("SIGINT");
      await within(5000, exited, "camera node did not exit").catch(() => node.kill("SIGKILL"));
    },
  };
}

/** The camera a robot runs (30 Hz) and one faster than the stack carries, so the second measures the stack. */
export const CAMERA_HZ = 30;
export const FLOOD_HZ = 250;

/** How our simulators' cameras reach the agent under --ros: a WebSocket client publishing each frame as JSON. */
const WS_PUBLISHER = "a WebSocket client publishing into the reference ROS 1 rosbridge (our simulators under --ros)";

const CAMERAS = [
  { encoding: "raw", label: "raw rgb8 Image", type: "sensor_msgs/msg/Image", topic: "/bench/camera/image_raw" },
  {
    encoding: "jpeg",
    label: "JPEG CompressedImage",
    type: "sensor_msgs/msg/CompressedImage",
    topic: "/bench/camera/image_raw/compressed",
  },
] as const;

/** The rospy camera rows for one encoding: at a camera's rate (frames/s, ages) and flooded (what the stack carries). */
async function rospyCameraRows(
  ros: RosStack,
  camera: (typeof CAMERAS)[number],
  frameFile: string,
  seconds: number,
  sink: BenchSink,
): Promise<void> {
  const at = (hz: number, who: string) => `rospy ${camera.label} 640x480 at ${hz} Hz -> reference rosbridge -> ${who}`;
  for (const hz of [CAMERA_HZ, FLOOD_HZ]) {
    const cam = await startCamera(ros, camera.encoding, camera.topic, hz, frameFile);
    let reading: { ours: CameraReading; roslib: CameraReading };
    try {
      reading = await readCamera(ros.url, camera.topic, camera.type, seconds);
    } finally {
      await cam.stop();
    }
    const fps = {
      ours: reading.ours.frames / reading.ours.seconds,
      roslib: reading.roslib.frames / reading.roslib.seconds,
    };
    if (hz === CAMERA_HZ) {
      const keepsUp = 0.9 * CAMERA_HZ;
      sink.report({
        name: `${at(hz, "our client")}: frames/s`,
        value: fps.ours,
        unit: "fps",
        target: `>= ${keepsUp} fps (every frame of the camera, 10 % slack)`,
        ok: fps.ours >= keepsUp,
      });
      sink.report({ name: `${at(hz, "roslib")}: frames/s`, value: fps.roslib, unit: "fps" });
      for (const [who, r] of [
        ["our client", reading.ours],
        ["roslib", reading.roslib],
      ] as const) {
        if (!r.agesMs.length) continue;
        sink.report({ name: `${at(hz, who)}: frame age on arrival, median`, value: median(r.agesMs), unit: "ms" });
        sink.report({ name: `${at(hz, who)}: frame age on arrival, p95`, value: quantile(r.agesMs, 0.95), unit: "ms" });
      }
    } else {
      sink.report({ name: `${at(hz, "our client")}: frames/s (what the stack carries)`, value: fps.ours, unit: "fps" });
      sink.report({ name: `${at(hz, "roslib")}: frames/s (what the stack carries)`, value: fps.roslib, unit: "fps" });
      const ratio = fps.ours / fps.roslib;
      sink.report({
        name: `our client / roslib, rospy ${camera.label} at ${hz} Hz: frames/s`,
        value: ratio,
        unit: "x",
        target: ">= 0.9x",
        ok: ratio >= 0.9,
      });
    }
  }
}

/** Which groups of ROS rows to run. */
export interface RosParts {
  skills: boolean;
  camera: boolean;
}

/** Runs `rows`, reporting why instead of throwing when they cannot be measured. */
async function group(sink: BenchSink, rows: string, run: () => Promise<void>): Promise<void> {
  process.stdout.write(`  (${rows} ...)\n`);
  try {
    await run();
  } catch (err) {
    sink.unmeasured(rows, (err as Error).message);
  }
}

export async function rosBenchmarks(
  quick: boolean,
  sink: BenchSink,
  parts: RosParts = { skills: true, camera: true },
): Promise<void> {
  const missing = rosMissing();
  if (missing) {
    sink.unmeasured("ROS 1 rows", `skipped: ${missing}`);
    return;
  }
  const count = quick ? 100 : 500;
  const ros = await startRos();
  const work = mkdtempSync(join(tmpdir(), "robograph-bench-ros-"));
  try {
    if (parts.skills) await group(sink, "no-op skill round trips through the reference rosbridge", () => skillRows());
    if (parts.camera) {
      // Shared two-core machines: what else ran while the camera rows measured is part of reading them.
      console.log(`  (machine load, 1-min average: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`);
      const vga = await kitchenFrames(640, 480);
      const frameFile = join(work, "kitchen-640x480.rgb");
      writeFileSync(frameFile, vga.rgb);
      const seconds = quick ? 4 : 10;
      for (const camera of CAMERAS)
        await group(sink, `rospy camera rows (${camera.label})`, () =>
          rospyCameraRows(ros, camera, frameFile, seconds, sink),
        );
      await group(sink, "WebSocket-publisher camera rows at 320x240 (our simulators under --ros)", () =>
        smallPublisherRows(),
      );
      const publisher = (label: string, frame: ImageMessage, type: string, count: number, target?: number) =>
        group(sink, `WebSocket-publisher camera row at 640x480 ${label}`, async () => {
          const fps = await framesPerSecond(ros.url, "ros1", count, frame, type);
          sink.report({
            name: `camera frames/s at 640x480 ${label}, ${WS_PUBLISHER}`,
            value: fps,
            unit: "fps",
            ...(target ? { target: `>= ${target} fps`, ok: fps >= target } : {}),
          });
        });
      const frames = quick ? 50 : 200;
      // The agent reads raw frames throttled to 10/s: 5 published a second is enough for it.
      await publisher("raw rgb8 Image", vga.raw, "sensor_msgs/msg/Image", Math.ceil(frames / 4), 5);
      await publisher("JPEG CompressedImage", vga.jpeg, "sensor_msgs/msg/CompressedImage", frames, 30);
      await publisher("PNG CompressedImage", vga.png, "sensor_msgs/msg/CompressedImage", frames);
      await group(sink, "frame reading rows", async () => {
        const reads = quick ? 20 : 60;
        sink.report({
          name: "reading a 640x480 raw rgb8 frame into the PNG the agent keeps: median",
          value: await decodeMs(vga.raw, reads),
          unit: "ms",
        });
        sink.report({
          name: "reading a 640x480 JPEG frame into the PNG the agent keeps: median",
          value: await decodeMs(vga.jpeg, reads),
          unit: "ms",
        });
      });
    }
  } finally {
    await ros.stop();
    rmSync(work, { recursive: true, force: true });
  }

  async function skillRows(): Promise<void> {
    const onRos = await startSimProcess("kitchen", ["--ros", ros.url, "--speed", "max"], 120_000);
    const ours = await startSimProcess("kitchen", ["--speed", "max"], 120_000).catch(async (err) => {
      await onRos.stop();
      throw err;
    });
    try {
      const client = await BridgeClient.connect(ros.url);
      client.dialect = "ros1";
      let k = 0;
      let viaRos: number;
      try {
        viaRos = median(
          await timed(
            count,
            () =>
              sendActionlibGoal(client, PING_ACTION, ROS1_PING_TYPE, {}, { goalId: `bench-${k++}`, timeoutMs: 10_000 })
                .result,
          ),
        );
      } finally {
        await client.close();
      }
      const rosConnection = new Ros({ url: ros.url });
      await new Promise<void>((resolve, reject) => {
        rosConnection.once("connection", () => resolve());
        rosConnection.once("error", reject);
      });
      let viaRoslib: number;
      try {
        const ac = new ActionClient({
          ros: rosConnection,
          serverName: PING_ACTION,
          actionName: "robograph_msgs/PingAction",
        });
        const roslibOnce = () =>
          within(
            10_000,
            new Promise<void>((resolve) => {
              const goal = new Goal({ actionClient: ac, goalMessage: {} });
              goal.on("result", () => resolve());
              goal.send();
            }),
            "roslib's no-op goal got no result",
          );
        viaRoslib = median(await timed(count, roslibOnce));
      } finally {
        rosConnection.close();
      }
      const own = await BridgeClient.connect(ours.url);
      let onOurs: number;
      try {
        onOurs = median(
          await timed(count, () => own.sendGoal(PING_ACTION, PING_TYPE, {}, { timeoutMs: 10_000 }).result),
        );
      } finally {
        await own.close();
      }
      sink.report({
        name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), our client: median",
        value: viaRos,
        unit: "ms",
      });
      sink.report({
        name: "no-op skill round trip, reference ROS 1 rosbridge (actionlib), roslib: median",
        value: viaRoslib,
        unit: "ms",
      });
      sink.report({
        name: "no-op skill round trip, our bridge (action ops), our client: median",
        value: onOurs,
        unit: "ms",
      });
      sink.report({
        name: "reference rosbridge (actionlib) / our bridge, our client",
        value: viaRos / onOurs,
        unit: "x",
      });
      sink.report({
        name: "our client / roslib, both through the reference rosbridge",
        value: viaRos / viaRoslib,
        unit: "x",
        target: "<= 1.2x",
        ok: viaRos / viaRoslib <= 1.2,
      });
    } finally {
      await ours.stop();
      await onRos.stop();
    }
  }

  /** What our simulators pay under --ros at their own 320x240 PNG, beside the same through our bridge. */
  async function smallPublisherRows(): Promise<void> {
    const frames = quick ? 50 : 200;
    const ours = await startSimProcess("kitchen", ["--speed", "max"], 120_000);
    try {
      const small = await kitchenFrames(320, 240);
      const fpsRos = await framesPerSecond(ros.url, "ros1", frames, small.png, "sensor_msgs/msg/CompressedImage");
      const fpsOurs = await framesPerSecond(ours.url, "ros2", frames, small.png, "sensor_msgs/msg/CompressedImage");
      sink.report({
        name: `camera frames/s at 320x240 PNG, ${WS_PUBLISHER}`,
        value: fpsRos,
        unit: "fps",
        target: ">= 30 fps",
        ok: fpsRos >= 30,
      });
      sink.report({
        name: "camera frames/s at 320x240 PNG, published through our bridge",
        value: fpsOurs,
        unit: "fps",
      });
      sink.report({
        name: "frames/s published: reference rosbridge / our bridge",
        value: fpsRos / fpsOurs,
        unit: "x",
      });
    } finally {
      await ours.stop();
    }
  }
}
