/**
 * Whether a robot is still there, from the signs of life it gives whether or not a skill runs: every actionlib action
 * server publishes its status at a steady rate (5 Hz by default; our ROS simulators 2 Hz), and a robot behind our own
 * bridge is its socket (the simulator serves the bridge itself, so the socket closes when it dies). Frames are no such
 * sign: our simulators publish one only when the scene changes. After a crash the ROS 1 master still lists the dead
 * node's topics and services, so rosapi cannot tell either.
 */
import type { BridgeClient } from "../robots/bridge/client";
import { actionTypes } from "../robots/bridge/ros1";
import type { RobotManifest } from "../robots/manifests/schema";

/**
 * The default liveness window (the manifest's `livenessSec`): twice the longest gap measured between our kitchen
 * simulator's status messages (1.0 s at --speed max during a run on two busy cores; nominal 0.5 s), ten of actionlib's.
 */
export const LIVENESS_SEC = 2;
/** The default time a camera that publishes at a rate may go quiet before its frame is stale (a camera's `staleSec`). */
export const STALE_FRAME_SEC = 5;

/** A robot's liveness window in milliseconds. */
export const livenessMs = (robot: Pick<RobotManifest, "livenessSec"> | undefined) =>
  (robot?.livenessSec ?? LIVENESS_SEC) * 1000;

export interface RobotSigns {
  lost: boolean;
  /** How long since its last sign of life (ms). */
  silentMs: number;
  /** What was, or would be, silent: `its actions' status`, `the bridge's socket`. */
  sign: string;
}

/** The signs of life of every robot on one bridge, followed from the moment it is made. */
export class RobotLiveness {
  /** Each robot's last status message (Date.now()), for robots whose actions are actionlib's. */
  private readonly heard = new Map<string, number>();
  private readonly since = Date.now();

  constructor(
    private readonly client: BridgeClient,
    private readonly robots: RobotManifest[],
  ) {
    for (const robot of robots)
      for (const skill of robot.skills.filter((k) => k.transport === "actionlib"))
        client.subscribe(`${skill.action}/status`, actionTypes(skill.actionType).status, () =>
          this.heard.set(robot.id, Date.now()),
        );
  }

  /**
   * Whether `robot` is lost: the bridge's socket closed for longer than its window (or for good), or — for a robot with
   * actionlib actions — none of their status topics has said anything for its window.
   */
  of(robot: string): RobotSigns {
    const manifest = this.robots.find((r) => r.id === robot);
    const window = livenessMs(manifest);
    const now = Date.now();
    if (!this.client.connected) {
      const silentMs = now - (this.client.disconnectedSince ?? this.since);
      return {
        lost: this.client.closed || silentMs > window,
        silentMs,
        sign: `the bridge's socket (${this.client.url})`,
      };
    }
    if (!manifest?.skills.some((k) => k.transport === "actionlib"))
      return { lost: false, silentMs: 0, sign: `the bridge's socket (${this.client.url})` };
    const silentMs = now - (this.heard.get(robot) ?? this.since);
    return { lost: silentMs > window, silentMs, sign: "its actions' status" };
  }
}
