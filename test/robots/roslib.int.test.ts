/** Conformance with a client nobody here wrote: roslib (the rosbridge client robotics web apps use) drives our simulator. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Action, Ros, Service, Topic } from "roslib";
import sharp from "sharp";
import { startSim, type SimProcess } from "../helpers/processes";

let sim: SimProcess;
let ros: Ros;

beforeAll(async () => {
  sim = await startSim(["--speed", "5"]);
  ros = new Ros({ url: sim.url });
  await new Promise<void>((resolve, reject) => {
    ros.once("connection", () => resolve());
    ros.once("error", reject);
  });
});
afterAll(async () => {
  ros?.close();
  await sim?.stop();
});

describe("roslib against the kitchen simulator", () => {
  it("calls the manifest service", async () => {
    const svc = new Service<Record<string, never>, { robots: { id: string; skills: { action: string }[] }[] }>({
      ros,
      name: "/robograph/manifest",
      serviceType: "robograph_msgs/srv/Manifest",
    });
    const res = await new Promise<{ robots: { id: string; skills: { action: string }[] }[] }>((resolve, reject) =>
      svc.callService({}, resolve, reject),
    );
    expect(res.robots.map((r) => r.id)).toEqual(["mobile", "arm"]);
    expect(res.robots[1].skills.map((s) => s.action)).toContain("/arm/pick_from");
  });

  it("subscribes to a camera and decodes a non-blank PNG", async () => {
    const topic = new Topic<{ format: string; data: string }>({
      ros,
      name: "/mobile/camera/image/compressed",
      messageType: "sensor_msgs/msg/CompressedImage",
    });
    const msg = await new Promise<{ format: string; data: string }>((resolve) => topic.subscribe(resolve));
    topic.unsubscribe();
    expect(msg.format).toBe("png");
    const { data, info } = await sharp(Buffer.from(msg.data, "base64")).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([320, 240]);
    const stats = await sharp(Buffer.from(msg.data, "base64")).stats();
    // Not blank: the channels vary across the image.
    expect(Math.max(...stats.channels.map((c) => c.stdev))).toBeGreaterThan(10);
    expect(data.length).toBe(320 * 240 * 3);
  });

  it("sends an action goal and receives feedback and a result", async () => {
    const goTo = new Action<
      { navigation_point: string },
      { phase: string; progress: number },
      { success: boolean; message: string }
    >({
      ros,
      name: "/mobile/go_to",
      actionType: "robograph_msgs/action/GoTo",
    });
    const feedback: { phase: string }[] = [];
    const result = await new Promise<{ success: boolean; message: string }>((resolve, reject) => {
      goTo.sendGoal({ navigation_point: "in_front_of_oven" }, resolve, (f) => feedback.push(f), reject);
    });
    expect(result).toMatchObject({ success: true, message: "mobile is at in_front_of_oven" });
    expect(feedback.length).toBeGreaterThan(0);
    expect(feedback.at(-1)?.phase).toBe("arrived");
  });

  it("cancels a goal", async () => {
    const goTo = new Action<{ navigation_point: string }, { phase: string }, unknown>({
      ros,
      name: "/mobile/go_to",
      actionType: "robograph_msgs/action/GoTo",
    });
    let id: string | undefined;
    const failure = await new Promise<string>((resolve, reject) => {
      id = goTo.sendGoal(
        { navigation_point: "in_front_of_sink" },
        () => reject(new Error("the goal finished instead of being canceled")),
        () => id && goTo.cancelGoal(id),
        resolve,
      );
    });
    expect(failure).toMatch(/canceled/);
    ros.removeAllListeners(id!);
  });
});
