/**
 * MJCF of RePLan's tabletop scenes (paper §4.1): cabinets with hinged doors, a microwave, a lever, a crate and a
 * weight sensor on a floor plane, plus a floating palm. Everything is dynamic MuJoCo: doors are hinges, objects are
 * free bodies, the palm is three slide joints driven by position actuators. The palm never collides — grasping is a
 * virtual spring applied by the world (see controllers.ts) — so what moves things is physics, not scripted teleports.
 *
 * Naming convention, which the world relies on: a geom named `label__part` belongs to the thing `label`; a geom named
 * exactly after a thing (a handle, a cube) is that thing. Sites carry the named points of containers and surfaces.
 */

import {
  box,
  attributeNumbers,
  palmActuators,
  RGBA,
  DOOR_OPEN,
  type ContainerSpec,
  type DoorSpec,
  type SceneSpec,
  type SurfaceSpec,
  type Vec3,
} from "../palm/scene";

export type { SceneSpec } from "../palm/scene";

export const SCENE_NAMES = [
  "cabinet_open",
  "cabinet_closed",
  "cabinet_barred",
  "kitchen",
  "lever",
  "color",
  "block",
  "sensor",
] as const;
export type SceneName = (typeof SCENE_NAMES)[number];

/**
 * Hidden-state twins of the two locked scenes: the same world — the same MJCF, the same instruction, the same things
 * described the same way — with its mechanism locking nothing (a decoy lever, a decoy weight plate). An agent cannot
 * tell a scene from its twin until something it can observe differs (the door opens); test/honesty/tabletop.int.test.ts
 * checks that. Not among RePLan's tasks: no dataset scores them.
 */
export const TWIN_SCENE_NAMES = ["lever_decoy", "sensor_decoy"] as const;
export type TwinSceneName = (typeof TWIN_SCENE_NAMES)[number];
export type HandMadeScene = SceneName | TwinSceneName;

const WALL_THICK = 0.015; // wall thickness
export const BOARD = 0.012; // interior floor board thickness

export interface CabinetOpts {
  name: string;
  center: [number, number];
  width: number;
  depth: number;
  height: number;
  rgba: string;
  doors: DoorSpec[];
  hooks?: { barZ: number };
}

/**
 * An open-front box (front face towards −y, where the camera and palm are) with doors hinged on its outer edges that
 * swing out towards the robot. Returns the XML and the container's interior.
 */
export function cabinet(opts: CabinetOpts): { xml: string; spec: ContainerSpec; handleZ: number; frontY: number } {
  const { name, width: width, depth: depth, height: height, rgba } = opts;
  const [cx, cy] = opts.center;
  const frontY = cy - depth / 2;
  const handleZ = +(height * 0.55).toFixed(3);
  const parts = [
    box(
      `${name}__left_wall`,
      [-width / 2 + WALL_THICK / 2, depth / 2, height / 2],
      [WALL_THICK / 2, depth / 2, height / 2],
      rgba,
    ),
    box(
      `${name}__right_wall`,
      [width / 2 - WALL_THICK / 2, depth / 2, height / 2],
      [WALL_THICK / 2, depth / 2, height / 2],
      rgba,
    ),
    box(
      `${name}__back`,
      [0, depth - WALL_THICK / 2, height / 2],
      [width / 2 - WALL_THICK, WALL_THICK / 2, height / 2],
      rgba,
    ),
    box(`${name}__top`, [0, depth / 2, height - WALL_THICK / 2], [width / 2, depth / 2, WALL_THICK / 2], rgba),
    box(
      `${name}__shelf`,
      [0, (depth - WALL_THICK) / 2, BOARD / 2],
      [width / 2 - WALL_THICK, (depth - WALL_THICK) / 2, BOARD / 2],
      rgba,
    ),
  ];
  const doorW = width / opts.doors.length;
  const doors = opts.doors.map((door) => {
    const sign = door.side === "left" ? 1 : -1; // the door extends from its hinge towards +x (left) or −x (right)
    const hx = -sign * (width / 2);
    // Axis sign makes a positive angle swing the free edge out towards −y for both sides.
    return `<body name="${name}__${door.joint}" pos="${attributeNumbers(hx, -0.012, 0)}">
        <joint name="${door.joint}" type="hinge" axis="0 0 ${-sign}" range="0 ${DOOR_OPEN}" damping="0.3" frictionloss="0.15" armature="0.01"/>
        ${box(`${name}__${door.joint}_panel`, [(sign * doorW) / 2, 0, (height + 0.01) / 2], [doorW / 2 - 0.002, 0.01, (height - 0.018) / 2], rgba, 'mass="0.5"')}
        ${box(door.handle, [sign * (doorW - 0.03), -0.021, handleZ], [0.008, 0.012, 0.035], RGBA.handle, 'mass="0.05"')}
      </body>`;
  });
  const hooks = opts.hooks
    ? [-1, 1].map((sign) => {
        const x = sign * (width / 2 + 0.0325);
        const z = opts.hooks!.barZ;
        return (
          box(
            `${name}__hook_${sign < 0 ? "left" : "right"}_support`,
            [x, -0.04, z - 0.0175],
            [0.0175, 0.04, 0.005],
            RGBA.dark,
          ) +
          box(
            `${name}__hook_${sign < 0 ? "left" : "right"}_lip`,
            [x, -0.075, z - 0.001],
            [0.0175, 0.005, 0.021],
            RGBA.dark,
          ) +
          box(
            `${name}__hook_${sign < 0 ? "left" : "right"}_post`,
            [x, -0.003, z - 0.001],
            [0.0175, 0.003, 0.021],
            RGBA.dark,
          )
        );
      })
    : [];
  const xml = `<body name="${name}" pos="${attributeNumbers(cx, frontY, 0)}">
      <site name="${name}" pos="${attributeNumbers(0, 0, height / 2)}" size="0.01" rgba="0 0 0 0"/>
      ${parts.join("\n      ")}
      ${hooks.join("\n      ")}
      ${doors.join("\n      ")}
    </body>`;
  return {
    xml,
    handleZ,
    frontY,
    spec: {
      name,
      doors: opts.doors,
      min: [cx - width / 2 + WALL_THICK, frontY, BOARD],
      max: [cx + width / 2 - WALL_THICK, frontY + depth - WALL_THICK, height - WALL_THICK],
      interior: [`${name}__shelf`],
    },
  };
}

export function cube(name: string, pos: Vec3, rgba: string): string {
  return `<body name="${name}" pos="${attributeNumbers(...pos)}"><freejoint name="${name}"/>${box(name, [0, 0, 0], [0.025, 0.025, 0.025], rgba, 'mass="0.1"')}</body>`;
}

export const CUBE_Z = 0.025;

function palmXml(): string {
  return `<body name="palm" pos="0 0 0" gravcomp="1">
      <joint name="palm_x" type="slide" axis="1 0 0"/>
      <joint name="palm_y" type="slide" axis="0 1 0"/>
      <joint name="palm_z" type="slide" axis="0 0 1"/>
      <geom name="palm" type="sphere" size="0.022" mass="1" rgba="0.95 0.78 0.62 1" contype="0" conaffinity="0" group="3"/>
    </body>`;
}

export function wrap(name: string, body: string): string {
  return `<mujoco model="tabletop_${name}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.002" gravity="0 0 -9.81" integrator="implicitfast" cone="elliptic" noslip_iterations="3"/>
  <default><geom friction="1 0.005 0.0001" condim="3"/></default>
  <worldbody>
    <light pos="0 -0.5 2" dir="0 0.2 -1"/>
    <geom name="floor" type="plane" size="2 2 0.1" rgba="${RGBA.floor}"/>
    ${body}
    ${palmXml()}
  </worldbody>
  ${palmActuators(1500, 60)}
</mujoco>`;
}

function woodenCabinetScene(name: "cabinet_open" | "cabinet_closed" | "cabinet_barred"): SceneSpec {
  const barred = name === "cabinet_barred";
  const cab = cabinet({
    name: "wooden_cabinet",
    center: [0, 0.2],
    width: 0.36,
    depth: 0.3,
    height: 0.35,
    rgba: RGBA.wood,
    doors: [
      { joint: "left_door", handle: "left_door_handle", side: "left", description: "left door of the wooden cabinet" },
      {
        joint: "right_door",
        handle: "right_door_handle",
        side: "right",
        description: "right door of the wooden cabinet",
      },
    ],
    hooks: barred ? { barZ: +(0.35 * 0.55).toFixed(3) } : undefined,
  });
  const barZ = cab.handleZ;
  const bar = barred ? barXml([0, cab.frontY - 0.057, barZ + 0.001]) : "";
  const target = `<site name="target_position" pos="${attributeNumbers(-0.05, 0.2, BOARD + CUBE_Z)}" size="0.01" rgba="0 0 0 0"/>`;
  return {
    name,
    instruction: "move the yellow_cube to target_position inside the wooden_cabinet",
    xml: wrap(name, [cab.xml, cube("yellow_cube", [-0.06, -0.25, CUBE_Z], RGBA.yellow), bar, target].join("\n    ")),
    objects: barred ? ["yellow_cube", "red_bar"] : ["yellow_cube"],
    containers: [cab.spec],
    surfaces: [],
    fixtures: [],
    joints: cab.spec.doors.map((door) => ({
      name: door.joint,
      object: "wooden_cabinet",
      handle: door.handle,
      description: door.description,
    })),
    targets: [{ name: "target_position", place: "wooden_cabinet" }],
    locks: [],
    initialJoints: name === "cabinet_open" ? { left_door: 1.4, right_door: 1.4 } : {},
    goal: ["inside(yellow_cube, wooden_cabinet)"],
  };
}

/**
 * A kettle standing in a door's swing: a wide heavy base (low, so the door pushes it near the floor and cannot tip it)
 * with a narrower body above. It is too heavy and grippy for the palm's force to shove.
 */
export function kettleXml(at: [number, number]): string {
  return `<body name="kettle" pos="${attributeNumbers(at[0], at[1], 0.1)}"><freejoint name="kettle"/>
      <geom name="kettle__base" type="cylinder" pos="0 0 -0.075" size="0.09 0.025" rgba="${RGBA.kettle}" mass="2.6" friction="3 0.005 0.0001"/>
      <geom name="kettle" type="cylinder" pos="0 0 0.02" size="0.06 0.07" rgba="${RGBA.kettle}" mass="0.4"/>
      <geom name="kettle__lid" type="sphere" pos="0 0 0.09" size="0.03" rgba="${RGBA.kettle}" mass="0.02"/>
    </body>`;
}

/** A red bar resting across a cabinet's hooks (cabinet({hooks})) in front of its handles, `half` long each way. */
export function barXml(at: [number, number, number], half = 0.225): string {
  return `<body name="red_bar" pos="${attributeNumbers(...at)}"><freejoint name="red_bar"/>${box("red_bar", [0, 0, 0], [half, 0.009, 0.0115], RGBA.red, 'mass="0.3"')}</body>`;
}

/** A floor lever, pulled towards the robot; its own friction keeps it where it is left. */
export function leverXml(at: [number, number]): string {
  return `<body name="lever__mount" pos="${attributeNumbers(at[0], at[1], 0)}">
      <site name="lever" pos="0 0 0.05" size="0.01" rgba="0 0 0 0"/>
      ${box("lever__base", [0, 0, 0.025], [0.04, 0.04, 0.025], RGBA.dark, 'contype="0" conaffinity="0"')}
      <body name="lever__arm" pos="0 0 0.05">
        <joint name="lever" type="hinge" axis="1 0 0" range="0 1.1" damping="0.1" frictionloss="0.35" armature="0.01"/>
        <geom name="lever__arm" type="capsule" fromto="0 0 0 0 0 0.18" size="0.01" rgba="${RGBA.dark}" mass="0.2" contype="0" conaffinity="0"/>
        <geom name="lever_handle" type="sphere" pos="0 0 0.2" size="0.02" rgba="${RGBA.handle}" mass="0.05" contype="0" conaffinity="0"/>
      </body>
    </body>`;
}

/** A weight sensor: a plate on the floor. */
export function plateXml(at: [number, number]): string {
  return `<body name="weight_sensor" pos="${attributeNumbers(at[0], at[1], 0)}">
      <site name="weight_sensor" pos="0 0 0.01" size="0.01" rgba="0 0 0 0"/>
      ${box("weight_sensor__plate", [0, 0, 0.005], [0.05, 0.05, 0.005], RGBA.dark)}
    </body>`;
}

function kitchenScene(): SceneSpec {
  const cab = cabinet({
    name: "cabinet",
    center: [-0.3, 0.2],
    width: 0.36,
    depth: 0.3,
    height: 0.35,
    rgba: RGBA.wood,
    doors: [
      {
        joint: "cabinet_left_door",
        handle: "cabinet_left_handle",
        side: "left",
        description: "left door of the cabinet",
      },
      {
        joint: "cabinet_right_door",
        handle: "cabinet_right_handle",
        side: "right",
        description: "right door of the cabinet",
      },
    ],
  });
  const mw = cabinet({
    name: "microwave",
    center: [0.25, 0.2],
    width: 0.32,
    depth: 0.25,
    height: 0.2,
    rgba: RGBA.white,
    doors: [
      {
        joint: "microwave_door",
        handle: "microwave_handle",
        side: "left",
        description: "door of the microwave, hinged on its left side",
      },
    ],
  });
  // The kettle stands in the microwave door's swing.
  const kettle = kettleXml([0.35, -0.07]);
  const apple = `<body name="green_apple" pos="0.25 0.2 ${BOARD + 0.035}"><freejoint name="green_apple"/><geom name="green_apple" type="sphere" size="0.035" rgba="${RGBA.green}" mass="0.15"/></body>`;
  return {
    name: "kitchen",
    instruction: "find the green_apple",
    xml: wrap("kitchen", [cab.xml, mw.xml, kettle, apple].join("\n    ")),
    objects: ["kettle", "green_apple"],
    containers: [cab.spec, mw.spec],
    surfaces: [],
    fixtures: [],
    joints: [
      ...cab.spec.doors.map((door) => ({
        name: door.joint,
        object: "cabinet",
        handle: door.handle,
        description: door.description,
      })),
      {
        name: "microwave_door",
        object: "microwave",
        handle: "microwave_handle",
        description: "door of the microwave, hinged on its left side",
      },
    ],
    targets: [],
    locks: [],
    initialJoints: {},
    goal: ["in_view(green_apple)"],
  };
}

function lockedCabinet(name: string, joint: string, handle: string, rgba: string, description: string) {
  return cabinet({
    name,
    center: [-0.14, 0.2],
    width: 0.3,
    depth: 0.28,
    height: 0.3,
    rgba,
    doors: [{ joint, handle, side: "left", description }],
  });
}

function leverScene(name: "lever" | "lever_decoy"): SceneSpec {
  const cab = lockedCabinet(
    "cabinet",
    "cabinet_door",
    "cabinet_handle",
    RGBA.wood,
    "door of the cabinet, hinged on its left side",
  );
  const lever = leverXml([0.22, 0.15]);
  return {
    name,
    instruction: "find the blue_cube",
    xml: wrap("lever", [cab.xml, lever, cube("blue_cube", [-0.14, 0.2, BOARD + CUBE_Z], RGBA.blue)].join("\n    ")),
    objects: ["blue_cube"],
    containers: [cab.spec],
    surfaces: [],
    fixtures: [{ name: "lever", description: "a lever beside the cabinet" }],
    joints: [
      {
        name: "cabinet_door",
        object: "cabinet",
        handle: "cabinet_handle",
        description: "door of the cabinet, hinged on its left side",
      },
      {
        name: "lever",
        object: "lever",
        handle: "lever_handle",
        description: "a lever beside the cabinet; pulling it towards the robot raises its fraction",
      },
    ],
    targets: [],
    // The twin's lever locks nothing: all else, the XML's model name included, is the locked scene's.
    locks: name === "lever" ? [{ joint: "cabinet_door", lever: { joint: "lever", threshold: 0.8 } }] : [],
    initialJoints: {},
    goal: ["in_view(blue_cube)"],
  };
}

export const CRATE_TOP = 0.01;

export function crateXml(pos: [number, number], rgba: string = RGBA.red): string {
  // The rim is over half a cube high, so a cube resting inside cannot be shoved out sideways by another.
  const half = 0.045,
    rim = 0.006,
    rimH = 0.03;
  const zc = CRATE_TOP + rimH / 2;
  return `<body name="crate" pos="${attributeNumbers(pos[0], pos[1], 0)}">
      <site name="crate" pos="${attributeNumbers(0, 0, CRATE_TOP)}" size="0.01" rgba="0 0 0 0"/>
      ${box("crate__floor", [0, 0, CRATE_TOP / 2], [half, half, CRATE_TOP / 2], rgba)}
      ${box("crate__rim_n", [0, half - rim / 2, zc], [half, rim / 2, rimH / 2], rgba)}
      ${box("crate__rim_s", [0, -half + rim / 2, zc], [half, rim / 2, rimH / 2], rgba)}
      ${box("crate__rim_e", [half - rim / 2, 0, zc], [rim / 2, half - rim, rimH / 2], rgba)}
      ${box("crate__rim_w", [-half + rim / 2, 0, zc], [rim / 2, half - rim, rimH / 2], rgba)}
    </body>`;
}

export const CRATE: SurfaceSpec = { name: "crate", site: "crate", half: [0.039, 0.039], top: CRATE_TOP, capacity: 1 };
const CRATE_POS: [number, number] = [0, 0.12];

function colorScene(name: "color" | "block"): SceneSpec {
  const block = name === "block";
  const cubes = block
    ? [
        cube("yellow_cube", [CRATE_POS[0], CRATE_POS[1], CRATE_TOP + CUBE_Z], RGBA.yellow),
        cube("red_cube", [-0.15, -0.15, CUBE_Z], RGBA.red),
      ]
    : [cube("red_cube", [-0.15, -0.15, CUBE_Z], RGBA.red), cube("yellow_cube", [0.15, -0.15, CUBE_Z], RGBA.yellow)];
  return {
    name,
    instruction: block
      ? "place the red cube on the crate"
      : "place the cube with the same color as the crate on the crate",
    xml: wrap(name, [crateXml(CRATE_POS), ...cubes].join("\n    ")),
    objects: block ? ["yellow_cube", "red_cube"] : ["red_cube", "yellow_cube"],
    containers: [],
    surfaces: [{ ...CRATE, site: "crate" }],
    fixtures: [],
    joints: [],
    targets: [],
    locks: [],
    initialJoints: {},
    goal: ["on(red_cube, crate)"],
  };
}

function sensorScene(name: "sensor" | "sensor_decoy"): SceneSpec {
  const cab = lockedCabinet(
    "stone_cabinet",
    "stone_cabinet_door",
    "stone_cabinet_handle",
    RGBA.stone,
    "door of the stone cabinet, hinged on its left side",
  );
  const plate = plateXml([0.22, 0.05]);
  return {
    name,
    // The twin keeps the instruction too: what a person says before the task is no less an input than what the robot
    // sees, and twins differ only in what is hidden (here, the note about the lock is simply wrong).
    instruction: "open the stone_cabinet. The weight sensor lock can be unlocked by putting the red_cube on it.",
    xml: wrap("sensor", [cab.xml, plate, cube("red_cube", [0.22, -0.22, CUBE_Z], RGBA.red)].join("\n    ")),
    objects: ["red_cube"],
    containers: [cab.spec],
    surfaces: [{ name: "weight_sensor", site: "weight_sensor", half: [0.05, 0.05], top: 0.01, capacity: 1 }],
    fixtures: [],
    joints: [
      {
        name: "stone_cabinet_door",
        object: "stone_cabinet",
        handle: "stone_cabinet_handle",
        description: "door of the stone cabinet, hinged on its left side",
      },
    ],
    targets: [],
    locks:
      name === "sensor" ? [{ joint: "stone_cabinet_door", sensor: { surface: "weight_sensor", minMass: 0.05 } }] : [],
    initialJoints: {},
    goal: ["open(stone_cabinet)"],
  };
}

export function buildScene(name: HandMadeScene): SceneSpec {
  switch (name) {
    case "cabinet_open":
    case "cabinet_closed":
    case "cabinet_barred":
      return woodenCabinetScene(name);
    case "kitchen":
      return kitchenScene();
    case "lever":
    case "lever_decoy":
      return leverScene(name);
    case "color":
    case "block":
      return colorScene(name);
    case "sensor":
    case "sensor_decoy":
      return sensorScene(name);
  }
}

export function isSceneName(name: string): name is SceneName {
  return (SCENE_NAMES as readonly string[]).includes(name);
}

/** One of RePLan's eight scenes or one of their twins. */
export function isHandMadeScene(name: string): name is HandMadeScene {
  return isSceneName(name) || (TWIN_SCENE_NAMES as readonly string[]).includes(name);
}
