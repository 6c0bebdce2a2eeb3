/**
 * MJCF of Game On's block-stacking domain: a basket with a red, a green and a blue cube (free bodies under MuJoCo:
 * they fall, slide, topple and stack) and a floating two-finger gripper on three slide joints. The gripper's geoms
 * never collide: grasping is the tabletop's force-limited virtual spring (tabletop/controllers.ts), engaged when the
 * closing fingers reach a block between them; what moves blocks is that spring and contact physics.
 *
 * Layouts are seeded: the blocks' places and yaws, the gripper's start and its finger opening.
 */
import { BLOCK_SIZE, COLORS, FINGER_MAX, type Color } from "../../msgs/blocks";
import { box, f, palmActuators, RGBA } from "../tabletop/scenes";
import { Rng } from "../random";

/** Inner half-width of the basket, metres; its floor's top is z = 0. */
export const BASKET_HALF = 0.16;
const WALL_H = 0.06;
const WALL_T = 0.01;
/** Where the TCP may go (the gripper's reach over the basket). */
export const WORKSPACE = { min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.3] };

export const blockName = (c: Color) => `${c}_block`;

export interface BlocksLayout {
  seed: number;
  /** Each block's centre x, y and yaw (radians); they start resting on the basket floor. */
  blocks: Record<Color, { x: number; y: number; yaw: number }>;
  tcp: [number, number, number];
  /** Finger opening fraction at the start. */
  opening: number;
}

/** A seeded layout: blocks apart from each other and from the walls, the gripper somewhere above them. */
export function layoutFor(seed: number): BlocksLayout {
  const rng = new Rng(seed * 7919 + 17);
  const u = (a: number, b: number) => a + (b - a) * rng.next();
  const placed: { x: number; y: number }[] = [];
  const blocks = {} as BlocksLayout["blocks"];
  for (const c of COLORS) {
    let p = { x: 0, y: 0 };
    for (let tries = 0; tries < 200; tries++) {
      p = { x: u(-0.1, 0.1), y: u(-0.1, 0.1) };
      if (placed.every((q) => Math.hypot(p.x - q.x, p.y - q.y) > 0.07)) break;
    }
    placed.push(p);
    blocks[c] = { ...p, yaw: u(-Math.PI / 4, Math.PI / 4) };
  }
  return { seed, blocks, tcp: [u(-0.08, 0.08), u(-0.08, 0.08), u(0.12, 0.2)], opening: rng.next() };
}

const RGB: Record<Color, string> = { red: RGBA.red, green: RGBA.green, blue: RGBA.blue };

export function blocksXml(layout: BlocksLayout): string {
  const h = BLOCK_SIZE / 2;
  const cubes = COLORS.map((c) => {
    const b = layout.blocks[c];
    const q = [Math.cos(b.yaw / 2), 0, 0, Math.sin(b.yaw / 2)];
    return `<body name="${blockName(c)}" pos="${f(b.x, b.y, h + 0.0005)}" quat="${f(...q)}"><freejoint name="${blockName(c)}"/>${box(blockName(c), [0, 0, 0], [h, h, h], RGB[c], 'mass="0.2"')}</body>`;
  }).join("\n    ");
  const W = BASKET_HALF, H = WALL_H, T = WALL_T;
  const basket = [
    box("basket__floor", [0, 0, -0.01], [W + T, W + T, 0.01], RGBA.dark),
    box("basket__wall_left", [-W - T / 2, 0, H / 2], [T / 2, W + T, H / 2], RGBA.stone),
    box("basket__wall_right", [W + T / 2, 0, H / 2], [T / 2, W + T, H / 2], RGBA.stone),
    box("basket__wall_back", [0, W + T / 2, H / 2], [W, T / 2, H / 2], RGBA.stone),
    box("basket__wall_front", [0, -W - T / 2, H / 4], [W, T / 2, H / 4], RGBA.stone),
  ].join("\n    ");
  const o = (layout.opening * FINGER_MAX) / 2;
  return `<mujoco model="blocks">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.0025" gravity="0 0 -9.81" integrator="implicitfast"/>
  <default><geom friction="0.9 0.005 0.0001" condim="3"/></default>
  <worldbody>
    <light pos="0 -0.4 1.5" dir="0 0.3 -1"/>
    <geom name="table" type="plane" pos="0 0 -0.02" size="1 1 0.1" rgba="${RGBA.floor}"/>
    ${basket}
    ${cubes}
    <body name="palm" pos="0 0 0" gravcomp="1">
      <joint name="palm_x" type="slide" axis="1 0 0"/>
      <joint name="palm_y" type="slide" axis="0 1 0"/>
      <joint name="palm_z" type="slide" axis="0 0 1"/>
      <geom name="palm" type="sphere" size="0.006" mass="1" rgba="0.2 0.2 0.2 1" contype="0" conaffinity="0"/>
      ${box("palm__hand", [0, 0, 0.037], [0.05, 0.012, 0.012], RGBA.white, 'mass="0.01" contype="0" conaffinity="0"')}
      ${box("palm__finger_l", [-o - 0.004, 0, 0.005], [0.004, 0.01, 0.02], RGBA.handle, 'mass="0.01" contype="0" conaffinity="0"')}
      ${box("palm__finger_r", [o + 0.004, 0, 0.005], [0.004, 0.01, 0.02], RGBA.handle, 'mass="0.01" contype="0" conaffinity="0"')}
    </body>
  </worldbody>
  ${palmActuators(1500, 60)}
</mujoco>`;
}
