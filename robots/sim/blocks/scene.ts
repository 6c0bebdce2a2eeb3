/**
 * MJCF of Game On's block-stacking domain: a basket with a red, a green and a blue cube (free bodies under MuJoCo:
 * they fall, slide, topple and stack) and a floating two-finger gripper on three slide joints. The gripper's geoms
 * never collide: grasping is the tabletop's force-limited virtual spring (tabletop/controllers.ts), engaged when the
 * closing fingers reach a block between them; what moves blocks is that spring and contact physics.
 *
 * Layouts are seeded: the blocks' places and yaws, the gripper's start and its finger opening.
 */
import { BLOCK_SIZE, COLORS, FINGER_MAX, type Color } from "../../msgs/blocks";
import { box, attributeNumbers, palmActuators, RGBA } from "../palm/scene";
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
/** left ⊗ right (w, x, y, z). */
const mul = (left: number[], right: number[]): [number, number, number, number] => [
  left[0] * right[0] - left[1] * right[1] - left[2] * right[2] - left[3] * right[3],
  left[0] * right[1] + left[1] * right[0] + left[2] * right[3] - left[3] * right[2],
  left[0] * right[2] - left[1] * right[3] + left[2] * right[0] + left[3] * right[1],
  left[0] * right[3] + left[1] * right[2] - left[2] * right[1] + left[3] * right[0],
];

/**
 * A seeded layout: blocks apart from each other and from the walls, the gripper somewhere above them; then, for a
 * start other than the floor, blocks moved from there (the floor's draws come first, so a floor layout is the same
 * whatever other starts exist).
 */
export function layoutFor(seed: number, start: Start = "floor"): BlocksLayout {
  const rng = new Rng(seed * 7919 + 17);
  const uniform = (a: number, b: number) => a + (b - a) * rng.next();
  const placed: { x: number; y: number }[] = [];
  const blocks = {} as BlocksLayout["blocks"];
  const half = BLOCK_SIZE / 2;
  for (const c of COLORS) {
    let position = { x: 0, y: 0 };
    for (let tries = 0; tries < 200; tries++) {
      position = { x: uniform(-0.1, 0.1), y: uniform(-0.1, 0.1) };
      if (placed.every((q) => Math.hypot(position.x - q.x, position.y - q.y) > 0.07)) break;
    }
    placed.push(position);
    blocks[c] = { ...position, z: half + 0.0005, quat: yawQuat(uniform(-Math.PI / 4, Math.PI / 4)) };
  }
  const layout: BlocksLayout = {
    seed,
    start,
    blocks,
    tcp: [uniform(-0.08, 0.08), uniform(-0.08, 0.08), uniform(0.12, 0.2)],
    opening: rng.next(),
  };
  if (start === "floor") return layout;
  // Which blocks: drawn in order (a permutation of the three).
  const order = [...COLORS];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const [first, second, third] = order;
  if (start === "stacked") {
    // first on second (a few millimetres off centre, turned a little), and in one layout of three third on first as
    // well.
    const on = (top: Color, under: Color) => {
      const base = blocks[under];
      blocks[top] = {
        x: base.x + uniform(-0.004, 0.004),
        y: base.y + uniform(-0.004, 0.004),
        z: base.z + BLOCK_SIZE + 0.001,
        quat: mul(base.quat, yawQuat(uniform(-0.2, 0.2))),
      };
    };
    on(first, second);
    if (rng.next() < 1 / 3) on(third, first);
  } else if (start === "leaning") {
    // first tilted against second's side, its lower edge on the floor: second turned square to the line between them,
    // first turned about the horizontal axis across that line so that its upper edge rests on second's near face.
    const base = blocks[second];
    const dir = Math.atan2(-base.y, -base.x) + uniform(-0.6, 0.6); // toward the basket's middle, so first stays inside it
    const tilt = uniform(0.55, 0.7);
    const ux = Math.cos(dir),
      uy = Math.sin(dir);
    // In the vertical plane along the line (second's centre at 0, the near face at -half): the floor corner at
    // floorCorner, the upper corner on the face; the centre half a diagonal from the floor corner.
    const floorCorner = -half - BLOCK_SIZE * Math.cos(tilt);
    const along = floorCorner + half * (Math.cos(tilt) - Math.sin(tilt));
    const up = half * (Math.sin(tilt) + Math.cos(tilt));
    base.quat = yawQuat(dir);
    const tiltQuat: [number, number, number, number] = [
      Math.cos(tilt / 2),
      -uy * Math.sin(tilt / 2),
      ux * Math.sin(tilt / 2),
      0,
    ];
    // The leaning block on the far side of second from the middle would fall out of the basket: it leans from the middle's side.
    blocks[first] = {
      x: base.x - along * ux,
      y: base.y - along * uy,
      z: up + 0.0005,
      quat: mul(tiltQuat, yawQuat(dir + Math.PI)),
    };
  } else {
    // first between the fingers, its centre at the grasp point.
    blocks[first] = { x: layout.tcp[0], y: layout.tcp[1], z: layout.tcp[2], quat: yawQuat(0) };
    layout.held = first;
    layout.opening = BLOCK_SIZE / FINGER_MAX;
  }
  return layout;
}

const RGB: Record<Color, string> = { red: RGBA.red, green: RGBA.green, blue: RGBA.blue };

export function blocksXml(layout: BlocksLayout): string {
  const half = BLOCK_SIZE / 2;
  const cubes = COLORS.map((color) => {
    const block = layout.blocks[color];
    return `<body name="${blockName(color)}" pos="${attributeNumbers(block.x, block.y, block.z)}" quat="${attributeNumbers(...block.quat)}"><freejoint name="${blockName(color)}"/>${box(blockName(color), [0, 0, 0], [half, half, half], RGB[color], 'mass="0.2"')}</body>`;
  }).join("\n    ");
  const innerHalf = BASKET_HALF,
    wallHeight = WALL_H,
    wallThick = WALL_T;
  const basket = [
    box("basket__floor", [0, 0, -0.01], [innerHalf + wallThick, innerHalf + wallThick, 0.01], RGBA.dark),
    box(
      "basket__wall_left",
      [-innerHalf - wallThick / 2, 0, wallHeight / 2],
      [wallThick / 2, innerHalf + wallThick, wallHeight / 2],
      RGBA.stone,
    ),
    box(
      "basket__wall_right",
      [innerHalf + wallThick / 2, 0, wallHeight / 2],
      [wallThick / 2, innerHalf + wallThick, wallHeight / 2],
      RGBA.stone,
    ),
    box(
      "basket__wall_back",
      [0, innerHalf + wallThick / 2, wallHeight / 2],
      [innerHalf, wallThick / 2, wallHeight / 2],
      RGBA.stone,
    ),
    box(
      "basket__wall_front",
      [0, -innerHalf - wallThick / 2, wallHeight / 4],
      [innerHalf, wallThick / 2, wallHeight / 4],
      RGBA.stone,
    ),
  ].join("\n    ");
  const fingerOffset = (layout.opening * FINGER_MAX) / 2;
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
      ${box("palm__finger_l", [-fingerOffset - 0.004, 0, 0.005], [0.004, 0.01, 0.02], RGBA.handle, 'mass="0.01" contype="0" conaffinity="0"')}
      ${box("palm__finger_r", [fingerOffset + 0.004, 0, 0.005], [0.004, 0.01, 0.02], RGBA.handle, 'mass="0.01" contype="0" conaffinity="0"')}
    </body>
  </worldbody>
  ${palmActuators(1500, 60)}
</mujoco>`;
}
