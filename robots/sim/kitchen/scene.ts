/**
 * MJCF of the kitchen. Furniture is static; doors are hinges and drawers are slides, each driven by a position
 * actuator, so they move under MuJoCo's dynamics. Objects and the robots' grippers and base are mocap bodies
 * (kinematic): a held object follows the gripper. Geom group 3 holds the robots' own parts.
 */
import { OBJECTS, ARM_BASE, type ObjectSpec } from "./layout";

const fmt = (...n: number[]) => n.map((v) => +v.toFixed(4)).join(" ");
const box = (name: string, pos: number[], size: number[], rgba: string, extra = "") =>
  `<geom name="${name}" type="box" pos="${fmt(...pos)}" size="${fmt(...size)}" rgba="${rgba}" ${extra}/>`;

const WOOD = "0.72 0.55 0.38 1";
const WHITE = "0.9 0.9 0.92 1";
const STEEL = "0.6 0.62 0.66 1";
const DARK = "0.25 0.25 0.28 1";
const HANDLE = "0.15 0.15 0.15 1";

function objectGeom(spec: ObjectSpec): string {
  const shape = spec.shape;
  const rgba = spec.rgba.join(" ");
  const common = `name="${spec.name}" rgba="${rgba}" contype="0" conaffinity="0"`;
  if (shape.type === "box") return `<geom ${common} type="box" size="${fmt(...shape.size)}"/>`;
  if (shape.type === "cylinder")
    return `<geom ${common} type="cylinder" size="${fmt(shape.radius, shape.halfHeight)}"/>`;
  return `<geom ${common} type="sphere" size="${fmt(shape.radius)}"/>`;
}

export function kitchenXml(): string {
  const objects = OBJECTS.map(
    (o, i) => `<body name="obj_${o.name}" mocap="true" pos="${fmt(3 + 0.3 * i, 3, 0.1)}">${objectGeom(o)}</body>`,
  ).join("\n");
  return `<mujoco model="robograph_kitchen">
  <compiler angle="radian"/>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <default><geom contype="1" conaffinity="1" friction="1 0.005 0.0001"/></default>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="3 3 0.1" rgba="0.82 0.8 0.76 1"/>
    <geom name="wall_north" type="box" pos="0 2.6 1.2" size="3 0.05 1.2" rgba="0.93 0.92 0.88 1"/>
    <geom name="wall_west" type="box" pos="-2.6 0 1.2" size="0.05 3 1.2" rgba="0.93 0.92 0.88 1"/>
    <geom name="wall_east" type="box" pos="2.6 0 1.2" size="0.05 3 1.2" rgba="0.93 0.92 0.88 1"/>

    <body name="table" pos="0 0 0">
      ${box("table_top", [0, 0, 0.725], [0.6, 0.4, 0.025], WOOD)}
      ${[
        [-0.55, -0.35],
        [0.55, -0.35],
        [-0.55, 0.35],
        [0.55, 0.35],
      ]
        .map(([x, y], i) => box(`table_leg${i}`, [x, y, 0.35], [0.025, 0.025, 0.35], WOOD))
        .join("")}
    </body>

    <body name="refrigerator" pos="-1.9 1.0 0">
      ${box("refrigerator_back", [-0.285, 0, 0.85], [0.015, 0.35, 0.85], WHITE)}
      ${box("refrigerator_left", [0, -0.335, 0.85], [0.3, 0.015, 0.85], WHITE)}
      ${box("refrigerator_right", [0, 0.335, 0.85], [0.3, 0.015, 0.85], WHITE)}
      ${box("refrigerator_roof", [0, 0, 1.685], [0.3, 0.35, 0.015], WHITE)}
      ${box("refrigerator_floor", [0, 0, 0.05], [0.3, 0.35, 0.05], WHITE)}
      ${box("refrigerator_shelf", [0, 0, 0.89], [0.28, 0.32, 0.01], "0.8 0.85 0.9 1")}
      <body name="refrigerator_door" pos="0.315 -0.35 0">
        <joint name="refrigerator_hinge" type="hinge" axis="0 0 1" range="-1.7 0" damping="2" armature="0.05"/>
        ${box("refrigerator_door", [0.015, 0.35, 0.86], [0.015, 0.35, 0.83], "0.85 0.87 0.9 1", 'mass="4"')}
        ${box("refrigerator_handle", [0.05, 0.62, 1.0], [0.015, 0.015, 0.2], HANDLE, 'mass="0.1"')}
      </body>
    </body>

    <body name="oven" pos="-0.6 2.0 0">
      ${box("oven_base", [0, 0, 0.25], [0.4, 0.3, 0.25], WOOD)}
      ${box("oven_floor", [0, 0, 0.505], [0.3, 0.3, 0.005], DARK)}
      ${box("oven_back", [0, 0.285, 0.73], [0.3, 0.015, 0.23], DARK)}
      ${box("oven_left", [-0.285, 0, 0.73], [0.015, 0.3, 0.23], DARK)}
      ${box("oven_right", [0.285, 0, 0.73], [0.015, 0.3, 0.23], DARK)}
      ${box("oven_roof", [0, 0, 0.95], [0.3, 0.3, 0.015], DARK)}
      <body name="oven_door" pos="0 -0.315 0.51">
        <joint name="oven_hinge" type="hinge" axis="1 0 0" range="0 1.6" damping="2" armature="0.05"/>
        ${box("oven_door", [0, -0.01, 0.215], [0.29, 0.01, 0.215], "0.3 0.3 0.32 1", 'mass="3"')}
        ${box("oven_handle", [0, -0.05, 0.38], [0.2, 0.012, 0.012], STEEL, 'mass="0.1"')}
      </body>
    </body>

    <body name="sink" pos="1.9 1.0 0">
      ${box("sink_cabinet", [0, 0, 0.35], [0.32, 0.36, 0.35], WOOD)}
      ${box("sink_bottom", [0, 0, 0.71], [0.26, 0.3, 0.01], STEEL)}
      ${box("sink_wall_back", [0.27, 0, 0.8], [0.01, 0.31, 0.1], STEEL)}
      ${box("sink_wall_front", [-0.27, 0, 0.8], [0.01, 0.31, 0.1], STEEL)}
      ${box("sink_wall_left", [0, -0.31, 0.8], [0.27, 0.01, 0.1], STEEL)}
      ${box("sink_wall_right", [0, 0.31, 0.8], [0.27, 0.01, 0.1], STEEL)}
    </body>

    <body name="trash_can" pos="0.8 -1.55 0">
      ${box("trash_can_bottom", [0, 0, 0.01], [0.18, 0.18, 0.01], "0.3 0.45 0.3 1")}
      ${box("trash_can_wall_n", [0, 0.17, 0.25], [0.18, 0.01, 0.25], "0.3 0.45 0.3 1")}
      ${box("trash_can_wall_s", [0, -0.17, 0.25], [0.18, 0.01, 0.25], "0.3 0.45 0.3 1")}
      ${box("trash_can_wall_e", [0.17, 0, 0.25], [0.01, 0.18, 0.25], "0.3 0.45 0.3 1")}
      ${box("trash_can_wall_w", [-0.17, 0, 0.25], [0.01, 0.18, 0.25], "0.3 0.45 0.3 1")}
    </body>

    <body name="drawer_cabinet" pos="-0.7 -1.5 0">
      ${box("drawer_cabinet_left", [-0.3, 0, 0.4], [0.015, 0.25, 0.4], WOOD)}
      ${box("drawer_cabinet_right", [0.3, 0, 0.4], [0.015, 0.25, 0.4], WOOD)}
      ${box("drawer_cabinet_back", [0, -0.24, 0.4], [0.3, 0.015, 0.4], WOOD)}
      ${box("drawer_cabinet_top", [0, 0, 0.81], [0.315, 0.25, 0.015], WOOD)}
      ${box("drawer_cabinet_plinth", [0, 0, 0.05], [0.3, 0.25, 0.05], WOOD)}
      ${drawer("drawer_top", 0.55)}
      ${drawer("drawer_middle", 0.3)}
    </body>

    <body name="arm" pos="${fmt(ARM_BASE[0], ARM_BASE[1], 0)}">
      <geom name="arm_pedestal" type="cylinder" pos="0 0 0.4" size="0.08 0.4" rgba="0.35 0.35 0.4 1" group="3"/>
      <geom name="arm_shoulder" type="sphere" pos="0 0 ${fmt(ARM_BASE[2])}" size="0.09" rgba="0.2 0.3 0.6 1" group="3"/>
    </body>
    <body name="arm_gripper" mocap="true" pos="0 -0.62 1.15">
      <geom name="arm_gripper" type="sphere" size="0.035" rgba="0.2 0.3 0.6 1" group="3" contype="0" conaffinity="0"/>
    </body>

    <body name="mobile" mocap="true" pos="0 1.0 0">
      <geom name="mobile_base" type="cylinder" pos="0 0 0.15" size="0.25 0.15" rgba="0.3 0.3 0.35 1" group="3" contype="0" conaffinity="0"/>
      <geom name="mobile_torso" type="box" pos="0 0 0.75" size="0.1 0.16 0.45" rgba="0.85 0.55 0.2 1" group="3" contype="0" conaffinity="0"/>
      <geom name="mobile_head" type="box" pos="0.05 0 1.35" size="0.08 0.1 0.08" rgba="0.2 0.2 0.22 1" group="3" contype="0" conaffinity="0"/>
    </body>
    <body name="mobile_gripper" mocap="true" pos="0 0.7 1.0">
      <geom name="mobile_gripper" type="sphere" size="0.035" rgba="0.85 0.55 0.2 1" group="3" contype="0" conaffinity="0"/>
    </body>

    ${objects}
  </worldbody>
  <actuator>
    <position name="refrigerator_hinge" joint="refrigerator_hinge" kp="60" ctrlrange="-1.7 0"/>
    <position name="oven_hinge" joint="oven_hinge" kp="60" ctrlrange="0 1.6"/>
    <position name="drawer_top_slide" joint="drawer_top_slide" kp="400" ctrlrange="0 0.5"/>
    <position name="drawer_middle_slide" joint="drawer_middle_slide" kp="400" ctrlrange="0 0.5"/>
  </actuator>
</mujoco>`;
}

function drawer(name: string, z: number): string {
  return `<body name="${name}" pos="0 0.01 ${z}">
        <joint name="${name}_slide" type="slide" axis="0 1 0" range="0 0.5" damping="20" armature="0.5"/>
        ${box(`${name}_bottom`, [0, 0, 0.005], [0.27, 0.22, 0.005], "0.8 0.7 0.55 1", 'mass="1"')}
        ${box(`${name}_left`, [-0.27, 0, 0.07], [0.005, 0.22, 0.07], "0.8 0.7 0.55 1", 'mass="0.2"')}
        ${box(`${name}_right`, [0.27, 0, 0.07], [0.005, 0.22, 0.07], "0.8 0.7 0.55 1", 'mass="0.2"')}
        ${box(`${name}_back`, [0, -0.22, 0.07], [0.27, 0.005, 0.07], "0.8 0.7 0.55 1", 'mass="0.2"')}
        ${box(`${name}_front`, [0, 0.235, 0.11], [0.3, 0.012, 0.115], WOOD, 'mass="0.5"')}
        ${box(`${name}_handle`, [0, 0.265, 0.13], [0.09, 0.012, 0.012], HANDLE, 'mass="0.05"')}
      </body>`;
}
