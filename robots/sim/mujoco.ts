/** Loads MuJoCo's official WASM build once per process. */
import loadMujoco from "@mujoco/mujoco";

// The WASM typings are generated and loose; the simulator code keeps its own narrow view of what it uses.
export type Mujoco = any;
export type MjModel = any;
export type MjData = any;

let instance: Promise<Mujoco> | undefined;

export function mujoco(): Promise<Mujoco> {
  instance ??= loadMujoco();
  return instance;
}
