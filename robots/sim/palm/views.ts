/**
 * Typed views of an MjData's arrays, made once per MjData instead of at every access. Each `data.xpos` through the
 * WASM bindings builds a new view (about a microsecond), and the MPC's rollouts read a dozen of them per physics step:
 * a tenth of the simulator's time went there. A view is valid for its MjData's life, unless the WASM heap grows
 * (every view's buffer is then detached and empty), so a lookup checks that and makes them again.
 */
import type { MjData, MjModel } from "../mujoco";

export interface DataViews {
  qpos: Float64Array;
  qvel: Float64Array;
  act: Float64Array;
  ctrl: Float64Array;
  qacc_warmstart: Float64Array;
  xfrc_applied: Float64Array;
  qfrc_applied: Float64Array;
  xpos: Float64Array;
  xquat: Float64Array;
  xmat: Float64Array;
  xipos: Float64Array;
  ximat: Float64Array;
  geom_xpos: Float64Array;
  site_xpos: Float64Array;
}

/** What a rollout copies from the real state to start from it (the rest follows from these by mj_forward). */
export const STATE_FIELDS = ["qpos", "qvel", "act", "ctrl", "qacc_warmstart", "xfrc_applied", "qfrc_applied"] as const;
const FIELDS: (keyof DataViews)[] = [
  ...STATE_FIELDS,
  "xpos",
  "xquat",
  "xmat",
  "xipos",
  "ximat",
  "geom_xpos",
  "site_xpos",
];

const made = new WeakMap<MjData, DataViews>();

/** The views of `data`'s arrays (writes go to the simulation, as through `data.qpos` itself). */
export function views(data: MjData): DataViews {
  const cached = made.get(data);
  // qpos is never empty (every scene has the palm's slide joints), so an empty one means a detached heap.
  if (cached !== undefined && cached.qpos.length !== 0) return cached;
  const fresh = {} as DataViews;
  for (const f of FIELDS) fresh[f] = data[f] as Float64Array;
  made.set(data, fresh);
  return fresh;
}

export interface ModelViews {
  /** Physics step, seconds. */
  timestep: number;
  body_inertia: Float64Array;
}

const modelMade = new WeakMap<MjModel, ModelViews>();

/** The model's step and the arrays the mechanics read at every step (the model does not change once compiled). */
export function modelViews(model: MjModel): ModelViews {
  const cached = modelMade.get(model);
  if (cached !== undefined && cached.body_inertia.length !== 0) return cached;
  const fresh = { timestep: model.opt.timestep as number, body_inertia: model.body_inertia as Float64Array };
  modelMade.set(model, fresh);
  return fresh;
}
