/**
 * The bench's camera rows: a frame that never arrives ends its row with no resend left running (the crash of issue
 * 64: a resend after the clients closed threw `not connected` from a timer), and, on the reference ROS 1 stack, the
 * rospy camera (ros/kit/camera_publisher.py) reaches our client and roslib with its own stamps and a frame the agent
 * can read. Counts and shapes only: speed is the bench's to print.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import sharp from "sharp";
import { BridgeServer } from "../../../robots/bridge/server";
import { BridgeClient } from "../../../robots/bridge/client";
import { pngOf, type ImageMessage } from "../../../robots/msgs/images";
import { CAMERA_PUBLISHER, framesPerSecond, readCamera } from "../../../evals/bench/ros";
import { requireRosOrSkip, startRos, type RosStack } from "../../helpers/ros";

describe("a camera frame that does not arrive", () => {
  let server: BridgeServer;
  beforeAll(async () => {
    // A bridge whose allowlist leaves the bench's camera topic out: every publish is refused, nothing arrives.
    server = await new BridgeServer({ port: 0, allow: { topics: ["/robot/*"] } }).start();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("fails its row and stops resending once the clients close", async () => {
    const publish = vi.spyOn(BridgeClient.prototype, "publish");
    const frame: ImageMessage = { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, format: "png", data: "" };
    await expect(
      framesPerSecond(server.url, "ros2", 3, frame, "sensor_msgs/msg/CompressedImage", {
        arrivalTimeoutMs: 400,
        resendMs: 50,
      }),
    ).rejects.toThrow(/frame -1 did not arrive through .* within 0.4 s/);
    const sent = publish.mock.calls.length;
    expect(sent).toBeGreaterThan(1); // it did resend while waiting
    await new Promise((r) => setTimeout(r, 300));
    expect(publish.mock.calls.length).toBe(sent);
    publish.mockRestore();
  });
});

const available = requireRosOrSkip();

describe.skipIf(!available)("the rospy camera through the reference rosbridge", () => {
  let ros: RosStack;
  beforeAll(async () => {
    ros = await startRos();
  });
  afterAll(async () => {
    await ros?.stop();
  });

  for (const [encoding, type, topic] of [
    ["jpeg", "sensor_msgs/msg/CompressedImage", "/bench/camera/image_raw/compressed"],
    ["raw", "sensor_msgs/msg/Image", "/bench/camera/image_raw"],
  ] as const) {
    it(`reaches our client and roslib as ${type} with fresh stamps and a readable 640x480 frame`, async () => {
      const node = await ros.node(CAMERA_PUBLISHER, [encoding, topic, "20"], 60_000);
      try {
        const { ours, roslib } = await readCamera(ros.url, topic, type, 2, 1);
        for (const r of [ours, roslib]) {
          expect(r.frames).toBeGreaterThan(0);
          expect(r.agesMs).toHaveLength(r.frames);
          // Stamped by the camera on this machine's clock before it was sent: never from the future.
          expect(Math.min(...r.agesMs)).toBeGreaterThanOrEqual(0);
        }
        const client = await BridgeClient.connect(ros.url);
        client.dialect = "ros1";
        try {
          const frame = await new Promise<ImageMessage>((resolve) => {
            const off = client.subscribe<ImageMessage>(topic, type, (m) => (off(), resolve(m)));
          });
          const meta = await sharp(await pngOf(frame, topic)).metadata();
          expect([meta.format, meta.width, meta.height]).toEqual(["png", 640, 480]);
        } finally {
          await client.close();
        }
      } finally {
        node.kill("SIGINT");
      }
    });
  }
});
