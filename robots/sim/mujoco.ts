/** Loads MuJoCo's official WASM build once per process. */
import loadMujoco from "@mujoco/mujoco";

// The WASM typings are generated and loose; the simulator code keeps its own narrow view of what it uses.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated WASM typings do not fit how the simulator calls them (see above)
export type Mujoco = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated WASM typings do not fit how the simulator calls them (see above)
export type MjModel = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated WASM typings do not fit how the simulator calls them (see above)
export type MjData = any;

let instance: Promise<Mujoco> | undefined;

export function mujoco(): Promise<Mujoco> {
  instance ??= loadMujoco();
  return instance;
}
