/**
 * A simulated world as a ROS 1 robot behind the reference rosbridge_server: it connects to the bridge as a client,
 * the way a robot's ROS nodes sit behind it, and offers
 * - each camera as `sensor_msgs/CompressedImage` (colour and 16-bit depth PNG) and `robograph_msgs/Detections`,
 *   latched, published again after every skill;
 * - each skill as a ROS 1 action over actionlib's five topics (`<action>/goal|cancel|status|feedback|result`), its
 *   goal typed by `robograph_msgs/<Skill>.action` (ros/robograph_msgs, generated from the manifests). A goal id it
 *   has seen is never run again: its result is published again instead (how an agent resumed after a crash learns
 *   how the goal ended);
 * - its manifests through standard ROS means: the `/robograph/manifest` service (robograph_msgs/Json) and the
 *   parameter `/robograph/manifest` (set through rosapi, so `rosparam get` shows them);
 * - the evaluator's checks as services (`/evaluator/check`, `/evaluator/events`, robograph_msgs/Json), for scoring
 *   only: with an evaluator key they answer only calls that carry it;
 * - held simulated time, as Gazebo's (`/simulator/pause_physics`, `/simulator/unpause_physics`, std_srvs/Empty).
 *
 * `standard`: as a robot that speaks only messages ROS ships, beside our actions for what has no standard message —
 * no manifest (robograph connect drafts one), each camera as raw `sensor_msgs/Image` (rgb8) with its depth (16UC1,
 * millimetres along the optical axis) and `sensor_msgs/CameraInfo`, and a skill that takes a named pose (the base's
 * go_to) as `move_base_msgs/MoveBase`: a PoseStamped goal, mapped back to the navigation point it stands for, with
 * move_base's feedback (where the base is) and its empty result (the status text says how it ended).
 */
import { BridgeClient } from "../bridge/client";
import { ActionlibStatus, actionTypes, JSON_SERVICE_TYPE } from "../bridge/ros1";
import {
  argumentsValidator,
  MANIFEST_SERVICE,
  type ManifestResponse,
  type RobotManifest,
  type SkillSpec,
} from "../manifests/schema";
import type { z } from "zod";
import {
  goalToCheck,
  PAUSE_SERVICE,
  PING_ACTION,
  UNPAUSE_SERVICE,
  type NamedPoseSkill,
  type SimulatedWorld,
} from "./serve";
import { focalPixels, zDepth } from "./camera";
import { pinholeInfo, rawDepthImage, rawRgbImage } from "../msgs/images";
import { z as zod } from "zod";

export const ROS1_PING_TYPE = "robograph_msgs/Ping";

/** A skill's ROS 1 action type: `robograph_msgs/action/GoTo` → `robograph_msgs/GoTo`. */
export const ros1ActionType = (actionType: string) => actionType.replace("/action/", "/");

/** The manifests as a ROS 1 robot offers them: every skill an actionlib action of its ROS 1 type. */
export function ros1Manifests(manifests: RobotManifest[]): RobotManifest[] {
  return manifests.map((manifest) => ({
    ...manifest,
    skills: manifest.skills.map((skill): SkillSpec => ({
      ...skill,
      transport: "actionlib",
      actionType: ros1ActionType(skill.actionType),
    })),
  }));
}

interface Goal {
  id: string;
  status: number;
  text: string;
  ended?: number;
  /** The world's time when it ended. */
  stamp?: { sec: number; nanosec: number };
  result?: Record<string, unknown>;
  abort?: AbortController;
}

/** Ended goals remembered per action, so one sent again (after a crash) is answered, not run again. */
const REMEMBERED_GOALS = 1000;

/** How long an ended goal stays in the status list (actionlib's status_list_timeout is 5 s). */
const ENDED_SHOWN_MS = 5000;

export interface RosRobot {
  url: string;
  publishCameras(): Promise<void>;
  close(): Promise<void>;
}

/** Serves `world` on the ROS 1 rosbridge at `url`; resolves once its topics, services and actions are advertised. */
/** The standard topics of a camera whose compressed colour topic is `<ns>/image/compressed` (image_transport's names). */
export function standardCameraTopics(image: string): { image: string; depth: string; info: string } {
  const ns = image.replace(/\/image(\/compressed)?$/, "").replace(/\/compressed$/, "");
  return { image: `${ns}/image_raw`, depth: `${ns}/depth/image_raw`, info: `${ns}/camera_info` };
}

/** move_base's action and goal, as a standard robot offers it. */
export const MOVE_BASE_TYPE = "move_base_msgs/MoveBase";
const Xyz = zod.object({ x: zod.number(), y: zod.number(), z: zod.number() });
const MoveBaseGoal = zod.object({
  target_pose: zod.object({
    header: zod.object({ frame_id: zod.string() }).loose(),
    pose: zod.object({ position: Xyz, orientation: Xyz.extend({ w: zod.number() }) }),
  }),
});
/** How near a goal pose must be to a named one to stand for it: a navigation point is a place, not a spot. */
const POSE_TOLERANCE = { metres: 0.2, radians: 0.35 };

const yawOf = (quat: { x: number; y: number; z: number; w: number }) =>
  Math.atan2(2 * (quat.w * quat.z + quat.x * quat.y), 1 - 2 * (quat.y * quat.y + quat.z * quat.z));
const angleBetween = (a: number, b: number) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

/** The name a goal pose stands for, or why it stands for none. */
function namedPoseOf(
  poseSkill: NamedPoseSkill,
  goal: zod.infer<typeof MoveBaseGoal>,
): { name: string } | { error: string } {
  const { header, pose } = goal.target_pose;
  if (header.frame_id.replace(/^\//, "") !== poseSkill.frame)
    return {
      error: `goal pose in frame ${JSON.stringify(header.frame_id)}: this base navigates in ${poseSkill.frame}`,
    };
  const yaw = yawOf(pose.orientation);
  const near = Object.entries(poseSkill.poses)
    .map(([name, namedPose]) => ({
      name,
      d: Math.hypot(namedPose.x - pose.position.x, namedPose.y - pose.position.y),
      a: angleBetween(namedPose.yaw, yaw),
    }))
    .sort((a, b) => a.d - b.d)[0];
  if (near && near.d <= POSE_TOLERANCE.metres && near.a <= POSE_TOLERANCE.radians) return { name: near.name };
  const list = Object.entries(poseSkill.poses)
    .map(([n, p]) => `${n} (${p.x.toFixed(2)}, ${p.y.toFixed(2)}, yaw ${p.yaw.toFixed(2)})`)
    .join(", ");
  return {
    error: `no navigation point within ${POSE_TOLERANCE.metres} m and ${POSE_TOLERANCE.radians} rad of (${pose.position.x.toFixed(2)}, ${pose.position.y.toFixed(2)}, yaw ${yaw.toFixed(2)}): this base drives only to its navigation points: ${list}`,
  };
}

export async function serveWorldOnRos(
  world: SimulatedWorld,
  url: string,
  opts: {
    evaluatorKey?: string;
    token?: string;
    log?: (line: string) => void;
    plain?: boolean;
    standard?: boolean;
  } = {},
): Promise<RosRobot> {
  const client = await BridgeClient.connect(url, { token: opts.token });
  client.dialect = "ros1";
  const manifests = ros1Manifests(world.manifests);
  const manifest = (): ManifestResponse => ({ robots: manifests, world: world.description });
  const standard = !!opts.standard;
  const poseSkills = standard ? (world.namedPoseSkills?.() ?? []) : [];

  // A plain ROS robot offers no manifest: robograph connect and a manifest file are the way in.
  if (!opts.plain && !standard) client.advertiseService(MANIFEST_SERVICE, JSON_SERVICE_TYPE, () => manifest());
  const guard = (args: unknown) => {
    if (opts.evaluatorKey && (args as { key?: unknown })?.key !== opts.evaluatorKey)
      throw new Error("the evaluator services are for scoring only; this call did not carry the evaluator key");
  };
  client.advertiseService(
    "/evaluator/check",
    JSON_SERVICE_TYPE,
    (args) => (guard(args), world.evaluate(goalToCheck(args, world))),
  );
  client.advertiseService("/evaluator/events", JSON_SERVICE_TYPE, (args) => {
    guard(args);
    const since = Number((args as { since?: unknown })?.since ?? 0);
    return { events: world.events.since(Number.isFinite(since) && since > 0 ? since : 0), total: world.events.length };
  });
  if (world.clock) {
    client.advertiseService(PAUSE_SERVICE, "std_srvs/Empty", () => (world.clock?.pause(), {}));
    client.advertiseService(UNPAUSE_SERVICE, "std_srvs/Empty", () => (world.clock?.unpause(), {}));
  }

  // Cameras: latched, so an agent that subscribes late gets the newest frame.
  const cameras = world.manifests.flatMap((manifest) =>
    manifest.cameras.map((c) => ({ robot: manifest.id, ...c, ...(standard ? standardCameraTopics(c.image) : {}) })),
  );
  for (const c of cameras) {
    const type = standard ? "sensor_msgs/Image" : "sensor_msgs/CompressedImage";
    client.advertise(c.image, type, { latch: true });
    if (c.depth) client.advertise(c.depth, type, { latch: true });
    if (c.info) client.advertise(c.info, "sensor_msgs/CameraInfo", { latch: true });
    if (c.detections) client.advertise(c.detections, "robograph_msgs/Detections", { latch: true });
  }
  let rendering: Promise<void> = Promise.resolve();
  /** Each camera topic's newest stamp (seconds), named in every result so the agent waits for those frames. */
  const stamps: Record<string, number> = {};
  const publishCameras = (): Promise<void> => {
    rendering = rendering
      .then(async () => {
        for (const c of cameras) {
          const out = await world.renderCamera(c.robot);
          const header = out.detections.header;
          if (standard) {
            const frame = out.frame;
            if (!frame)
              throw new Error(`world ${world.name} renders no raw frames: it cannot publish sensor_msgs/Image`);
            client.publish(
              c.image,
              rawRgbImage(
                header,
                frame.width,
                frame.height,
                Buffer.from(frame.rgb.buffer, frame.rgb.byteOffset, frame.rgb.byteLength),
              ),
            );
            if (c.depth) client.publish(c.depth, rawDepthImage(header, frame.width, frame.height, zDepth(frame)));
            if (c.info) client.publish(c.info, pinholeInfo(header, frame.width, frame.height, focalPixels(frame)));
          } else {
            client.publish(c.image, { header, format: "png", data: out.image.toString("base64") });
            if (c.depth)
              client.publish(c.depth, {
                header,
                format: "png; 16UC1 depth in millimetres",
                data: out.depth.toString("base64"),
              });
          }
          if (c.detections) client.publish(c.detections, out.detections);
          for (const t of [c.image, c.depth, c.detections, c.info])
            if (t) stamps[t] = header.stamp.sec + header.stamp.nanosec / 1e9;
        }
      })
      .catch((err) => opts.log?.(`camera render failed: ${(err as Error).message}`));
    return rendering;
  };

  const timers: NodeJS.Timeout[] = [];
  const aborts = new Set<AbortController>();
  type Run = (
    args: Record<string, unknown>,
    goal: Goal,
  ) => Promise<{ status: "succeeded" | "aborted" | "canceled"; values: unknown }>;
  /** The newest frame's stamp (simulated time): a standard result is stamped with it, so frames taken after it are news. */
  const lastFrameStamp = () => {
    const seconds = Math.max(0, ...Object.values(stamps));
    const sec = Math.floor(seconds);
    return { sec, nanosec: Math.round((seconds - sec) * 1e9) };
  };
  /**
   * Serves one actionlib action. Our actions' results carry success, message, values_json and frames_json (the
   * frames to wait for); a standard action's (`standard`) is its own message — move_base's is empty — and its end is
   * said by the status and its text, its header stamped in the world's time like the frames.
   */
  const serveAction = (
    action: string,
    actionType: string,
    run: Run,
    schema?: z.ZodType<Record<string, unknown>>,
    standardResult = false,
  ) => {
    const types = actionTypes(actionType);
    const goals = new Map<string, Goal>();
    client.advertise(`${action}/status`, types.status);
    client.advertise(`${action}/feedback`, types.feedback);
    client.advertise(`${action}/result`, types.result);
    const now = () => {
      const ms = Date.now();
      return { sec: Math.floor(ms / 1000), nanosec: (ms % 1000) * 1e6 };
    };
    const goalStatus = (g: Goal) => ({ goal_id: { stamp: now(), id: g.id }, status: g.status, text: g.text });
    const publishStatus = () => {
      const shown = [...goals.values()].filter((g) => g.ended === undefined || Date.now() - g.ended < ENDED_SHOWN_MS);
      if (client.connected)
        client.publish(`${action}/status`, {
          header: { stamp: now(), frame_id: "" },
          status_list: shown.map(goalStatus),
        });
    };
    const publishResult = (goal: Goal) => {
      if (client.connected)
        client.publish(`${action}/result`, {
          header: { stamp: standardResult ? goal.stamp! : now(), frame_id: "" },
          status: goalStatus(goal),
          result: goal.result,
        });
    };
    const end = (goal: Goal, status: number, text: string, values: unknown) => {
      goal.status = status;
      goal.text = text;
      goal.ended = Date.now();
      goal.stamp = lastFrameStamp();
      goal.result = standardResult
        ? {}
        : {
            success: status === ActionlibStatus.SUCCEEDED,
            message: text,
            values_json: JSON.stringify(values ?? {}),
            frames_json: JSON.stringify(stamps),
          };
      publishResult(goal);
      publishStatus();
      // Ended goals are remembered (a goal id is never run twice) up to a bound, oldest forgotten first.
      const ended = [...goals.values()].filter((x) => x.ended !== undefined);
      for (const old of ended.slice(0, Math.max(0, ended.length - REMEMBERED_GOALS))) goals.delete(old.id);
    };
    client.subscribe<{ goal_id: { id: string }; goal: unknown }>(`${action}/goal`, types.goal, (request) => {
      const id = request.goal_id?.id;
      if (!id) return;
      const seen = goals.get(id);
      if (seen) {
        // The same goal again (sent twice while ROS connected, or by an agent resumed after a crash): never run twice.
        if (seen.result) publishResult(seen);
        return;
      }
      const goal: Goal = { id, status: ActionlibStatus.ACTIVE, text: "" };
      goals.set(id, goal);
      const parsed = schema ? schema.safeParse(request.goal ?? {}) : ({ success: true, data: {} } as const);
      if (!parsed.success) {
        end(
          goal,
          ActionlibStatus.REJECTED,
          `invalid goal: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ")}`,
          {},
        );
        return;
      }
      goal.abort = new AbortController();
      aborts.add(goal.abort);
      publishStatus();
      run(parsed.data, goal)
        .then(
          (out) => {
            const message =
              typeof (out.values as { message?: unknown })?.message === "string"
                ? (out.values as { message: string }).message
                : "";
            end(
              goal,
              out.status === "succeeded"
                ? ActionlibStatus.SUCCEEDED
                : out.status === "canceled"
                  ? ActionlibStatus.PREEMPTED
                  : ActionlibStatus.ABORTED,
              message,
              out.values,
            );
          },
          (err) => end(goal, ActionlibStatus.ABORTED, (err as Error).message, {}),
        )
        .finally(() => goal.abort && aborts.delete(goal.abort));
    });
    client.subscribe<{ id: string }>(`${action}/cancel`, types.cancel, (request) => {
      // actionlib: an empty id cancels every goal.
      for (const g of goals.values())
        if (g.ended === undefined && (!request.id || request.id === g.id)) g.abort?.abort();
    });
    timers.push(setInterval(publishStatus, 500));
  };

  for (const m of world.manifests) {
    for (const skill of m.skills) {
      const asPose = poseSkills.find((p) => p.robot === m.id && p.skill === skill.name);
      if (asPose) {
        serveMoveBase(m.id, skill.action, asPose);
        continue;
      }
      serveAction(
        skill.action,
        ros1ActionType(skill.actionType),
        async (args, goal) => {
          const out = await world.runSkill(m.id, skill.name, args, {
            goalId: goal.id,
            signal: goal.abort!.signal,
            feedback: (values) =>
              client.connected &&
              client.publish(`${skill.action}/feedback`, {
                header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" },
                status: { goal_id: { id: goal.id }, status: ActionlibStatus.ACTIVE, text: "" },
                feedback: { json: JSON.stringify(values ?? {}) },
              }),
          });
          // Fresh frames go out before the result, so an agent that saw the result sees the new state.
          await publishCameras();
          return out;
        },
        world.argumentsSchema?.(m.id, skill.name) ?? argumentsValidator(skill.parameters),
      );
    }
  }
  /** A named-pose skill as move_base: `/<robot>/move_base`, a PoseStamped goal mapped back to the name it stands for. */
  function serveMoveBase(robot: string, skillAction: string, poseSkill: NamedPoseSkill) {
    const action = skillAction.replace(/[^/]+$/, "move_base");
    const feedback = (id: string) => {
      const base = poseSkill.basePose();
      const pose = {
        position: { x: base.x, y: base.y, z: 0 },
        orientation: { x: 0, y: 0, z: Math.sin(base.yaw / 2), w: Math.cos(base.yaw / 2) },
      };
      if (client.connected)
        client.publish(`${action}/feedback`, {
          header: { stamp: lastFrameStamp(), frame_id: "" },
          status: { goal_id: { id }, status: ActionlibStatus.ACTIVE, text: "" },
          feedback: { base_position: { header: { stamp: lastFrameStamp(), frame_id: poseSkill.frame }, pose } },
        });
    };
    serveAction(
      action,
      MOVE_BASE_TYPE,
      async (args, goal) => {
        const named = namedPoseOf(poseSkill, MoveBaseGoal.parse(args));
        if ("error" in named) return { status: "aborted", values: { message: named.error } };
        const out = await world.runSkill(
          robot,
          poseSkill.skill,
          { [poseSkill.argument]: named.name },
          { goalId: goal.id, signal: goal.abort!.signal, feedback: () => feedback(goal.id) },
        );
        await publishCameras();
        return out;
      },
      MoveBaseGoal as unknown as z.ZodType<Record<string, unknown>>,
      true,
    );
  }

  // The no-op action, for round-trip latency through the reference bridge.
  serveAction(PING_ACTION, ROS1_PING_TYPE, async (_a, g) => ({ status: "succeeded", values: { goal_id: g.id } }));

  // The manifests as a parameter too, for `rosparam get /robograph/manifest` (rosapi's set_param takes JSON).
  if (!opts.plain && !standard)
    await client.callService("/rosapi/set_param", {
      name: MANIFEST_SERVICE,
      value: JSON.stringify(JSON.stringify(manifest())),
    });
  await publishCameras();
  return {
    url,
    publishCameras,
    async close() {
      for (const t of timers) clearInterval(t);
      for (const a of aborts) a.abort();
      await rendering;
      await client.close();
      await world.close();
    },
  };
}
