/**
 * MJCF of Game On's block-stacking domain: a basket with a red, a green and a blue cube (free bodies under MuJoCo:
 * they fall, slide, topple and stack) and a floating two-finger gripper on three slide joints. The gripper's geoms
 * never collide: grasping is the tabletop's force-limited virtual spring (tabletop/controllers.ts), engaged when the
 * closing fingers reach a block between them; what moves blocks is that spring and contact physics.
 *
 * Layouts are seeded: the blocks' places and yaws, the gripper's start and its finger opening.
 */
import { BLOCK_SIZE, COLORS, FINGER_MAX, type Color } from "../../msgs/blocks";
import { box, f, palmActuators, RGBA } from "../palm/scene";
import { Rng } from "../../random";

/** Inner half-width of the basket, metres; its floor's top is z = 0. */
export const BASKET_HALF = 0.16;
const WALL_H = 0.06;
const WALL_T = 0.01;
/** Where the TCP may go (the gripper's reach over the basket). */
export const WORKSPACE = { min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.3] };

export const blockName = (c: Color) => `${c}_block`;

/**
 * How a layout starts: every block on the basket floor; one block resting on another (sometimes all three in a
 * tower); one block leaning against another's side; or one block already in the gripper.
 */
export const STARTS = ["floor", "stacked", "leaning", "held"] as const;
export type Start = (typeof STARTS)[number];

export interface BlocksLayout {
  seed: number;
  start: Start;
  /** Each block's centre and orientation (w, x, y, z); on the floor, z is half a block and the turn a yaw. */
  blocks: Record<Color, { x: number; y: number; z: number; quat: [number, number, number, number] }>;
  tcp: [number, number, number];
  /** Finger opening fraction at the start. */
  opening: number;
  /** The block the fingers hold at the start ("held" layouts). */
  held?: Color;
}

const yawQuat = (yaw: number): [number, number, number, number] => [Math.cos(yaw / 2), 0, 0, Math.sin(yaw / 2)];
/** q ⊗ r (w, x, y, z). */
const mul = (q: number[], r: number[]): [number, number, number, number] => [
  q[0] * r[0] - q[1] * r[1] - q[2] * r[2] - q[3] * r[3],
  q[0] * r[1] + q[1] * r[0] + q[2] * r[3] - q[3] * r[2],
  q[0] * r[2] - q[1] * r[3] + q[2] * r[0] + q[3] * r[1],
  q[0] * r[3] + q[1] * r[2] - q[2] * r[1] + q[3] * r[0],
];

/**
 * A seeded layout: blocks apart from each other and from the walls, the gripper somewhere above them; then, for a
 * start other than the floor, blocks moved from there (the floor's draws come first, so a floor layout is the same
 * whatever other starts exist).
 */
export function layoutFor(seed: number, start: Start = "floor"): BlocksLayout {
  const rng = new Rng(seed * 7919 + 17);
  const u = (a: number, b: number) => a + (b - a) * rng.next();
  const placed: { x: number; y: number }[] = [];
  const blocks = {} as BlocksLayout["blocks"];
  const h = BLOCK_SIZE / 2;
  for (const c of COLORS) {
    let p = { x: 0, y: 0 };
    for (let tries = 0; tries < 200; tries++) {
      p = { x: u(-0.1, 0.1), y: u(-0.1, 0.1) };
      if (placed.every((q) => Math.hypot(p.x - q.x, p.y - q.y) > 0.07)) break;
    }
    placed.push(p);
    blocks[c] = { ...p, z: h + 0.0005, quat: yawQuat(u(-Math.PI / 4, Math.PI / 4)) };
  }
  const layout: BlocksLayout = {
    seed,
    start,
    blocks,
    tcp: [u(-0.08, 0.08), u(-0.08, 0.08), u(0.12, 0.2)],
    opening: rng.next(),
  };
  if (start === "floor") return layout;
  // Which blocks: drawn in order (a permutation of the three).
  const order = [...COLORS];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const [a, b, c] = order;
  if (start === "stacked") {
    // a on b (a few millimetres off centre, turned a little), and in one layout of three c on a as well.
    const on = (top: Color, under: Color) => {
      const base = blocks[under];
      blocks[top] = {
        x: base.x + u(-0.004, 0.004),
        y: base.y + u(-0.004, 0.004),
        z: base.z + BLOCK_SIZE + 0.001,
        quat: mul(base.quat, yawQuat(u(-0.2, 0.2))),
      };
    };
    on(a, b);
    if (rng.next() < 1 / 3) on(c, a);
  } else if (start === "leaning") {
    // a tilted against b's side, its lower edge on the floor: b turned square to the line between them, a turned
    // about the horizontal axis across that line so that its upper edge rests on b's near face.
    const base = blocks[b];
    const dir = Math.atan2(-base.y, -base.x) + u(-0.6, 0.6); // toward the basket's middle, so a stays inside it
    const tilt = u(0.55, 0.7);
    const ux = Math.cos(dir),
      uy = Math.sin(dir);
    // In the vertical plane along the line (b's centre at 0, the near face at -h): the floor corner at p, the upper
    // corner on the face; the centre half a diagonal from the floor corner.
    const p = -h - BLOCK_SIZE * Math.cos(tilt);
    const along = p + h * (Math.cos(tilt) - Math.sin(tilt));
    const up = h * (Math.sin(tilt) + Math.cos(tilt));
    base.quat = yawQuat(dir);
    const tiltQuat: [number, number, number, number] = [
      Math.cos(tilt / 2),
      -uy * Math.sin(tilt / 2),
      ux * Math.sin(tilt / 2),
      0,
    ];
    // The leaning block on the far side of b from the middle would fall out of the basket: it leans from the middle's side.
    blocks[a] = {
      x: base.x - along * ux,
      y: base.y - along * uy,
      z: up + 0.0005,
      quat: mul(tiltQuat, yawQuat(dir + Math.PI)),
    };
  } else {
    // a between the fingers, its centre at the grasp point.
    blocks[a] = { x: layout.tcp[0], y: layout.tcp[1], z: layout.tcp[2], quat: yawQuat(0) };
    layout.held = a;
    layout.opening = BLOCK_SIZE / FINGER_MAX;
  }
  return layout;
}

const RGB: Record<Color, string> = { red: RGBA.red, green: RGBA.green, blue: RGBA.blue };

export function blocksXml(layout: BlocksLayout): string {
  const h = BLOCK_SIZE / 2;
  const cubes = COLORS.map((c) => {
    const b = layout.blocks[c];
    return `<body name="${blockName(c)}" pos="${f(b.x, b.y, b.z)}" quat="${f(...b.quat)}"><freejoint name="${blockName(c)}"/>${box(blockName(c), [0, 0, 0], [h, h, h], RGB[c], 'mass="0.2"')}</body>`;
  }).join("\n    ");
  const W = BASKET_HALF,
    H = WALL_H,
    T = WALL_T;
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
