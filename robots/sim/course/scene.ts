/**
 * MJCF of an obstacle course: the ground, the course's things (each a static body of primitive geoms, built here from a
 * few parameters), the red chew toy and the dog. The dog is a kinematic free body (never stepped): the controllers set
 * its pose and ask MuJoCo's collision detection whether its active posture's geoms touch anything.
 *
 * Geom groups: 0 things the dog can stand on or hit, 1 the toy (seen, never stood on), 3 the dog's own geoms.
 * Collision bits: things are contype 1 / conaffinity 1; the dog's geoms are contype 2 (so they never touch each
 * other); all compile with conaffinity 1 (MuJoCo ORs it into the body's broad-phase filter) and the controllers
 * keep it 1 only on the active posture's geoms.
 */

export type Vec3 = [number, number, number];

export const LABELS = [
  "couch",
  "cushion",
  "stool",
  "bush",
  "bamboo",
  "log",
  "curb",
  "hill",
  "plank",
  "bench",
  "stairs",
  "wall",
  "toy",
] as const;
export type Label = (typeof LABELS)[number];

/** One primitive of a thing, in the thing's own frame (x: its depth, y: its length, z: up from the ground). */
export interface Part {
  type: "box" | "cylinder" | "ellipsoid" | "sphere";
  /** MuJoCo sizes: box half-extents, cylinder [radius, half-height], ellipsoid radii, sphere [radius]. */
  size: number[];
  pos: Vec3;
  /** Extra rotation of the part, radians (x, y, z Euler as MJCF). */
  euler?: Vec3;
  rgba: string;
}

/** One thing on the course: what the detector calls it, where it stands and its parts. */
export interface Thing {
  label: Exclude<Label, "toy">;
  x: number;
  y: number;
  /** Heading of the thing's local +x, degrees. */
  yaw: number;
  parts: Part[];
  /** Rounded or slippery: a climb onto it succeeds only with probability SLIP_SUCCESS (see controllers.ts). */
  slippery?: boolean;
}

// ---- the dog ---------------------------------------------------------------------------------------------------------

/**
 * The body in its own frame: origin on the ground under the middle of the back, +x forward. The torso (with the legs
 * beneath it) spans the hips (x = -0.3) to x = 0.15; the head, narrower, sticks out 0.15 m further and carries the
 * camera at its front, about 0.6 m ahead of the hips.
 */
export const BODY = {
  hipsX: -0.3,
  shouldersX: 0.15,
  noseX: 0.3,
  /** The camera's lens, just inside the front of the head (so it never starts a ray inside what the head touches). */
  cameraX: 0.27,
  halfWidth: 0.125,
  headHalfWidth: 0.06,
} as const;

export type Posture = "stand" | "crawl" | "climb";

/**
 * Heights of each posture above the ground the dog stands on: its torso and head boxes span [bottom, top]. The bottom
 * is also how high a foot steps: standing and crawling step over 4 cm, climbing lifts the legs to the climb height, so
 * anything lower than that is walked onto. Crawling keeps the head lower than the hips.
 */
export const POSTURES: Record<
  Posture,
  { torso: [number, number]; head: [number, number]; camera: number; step: number }
> = {
  stand: { torso: [0.04, 0.3], head: [0.16, 0.3], camera: 0.27, step: 0.04 },
  crawl: { torso: [0.04, 0.14], head: [0.04, 0.11], camera: 0.09, step: 0.04 },
  climb: { torso: [0.2, 0.32], head: [0.2, 0.32], camera: 0.29, step: 0.2 },
};
export const CRAWL_HEIGHT = POSTURES.crawl.torso[1];
export const CLIMB_HEIGHT = POSTURES.climb.step;
/** The head camera looks this many degrees below the horizon (it sees the ground from about 0.3 m ahead). */
export const CAMERA_PITCH_DEG = 20;
export const CAMERA_FOV_DEG = 60;

const fmt = (...n: number[]) => n.map((v) => +v.toFixed(4)).join(" ");

function dogXml(): string {
  const geoms: string[] = [];
  for (const [posture, p] of Object.entries(POSTURES)) {
    const torsoLen = BODY.shouldersX - BODY.hipsX;
    const headLen = BODY.noseX - BODY.shouldersX;
    const box = (part: string, x0: number, len: number, halfWidth: number, [z0, z1]: [number, number], rgba: string) =>
      `<geom name="dog_${posture}_${part}" type="box" pos="${fmt(x0 + len / 2, 0, (z0 + z1) / 2)}" size="${fmt(len / 2, halfWidth, (z1 - z0) / 2)}" rgba="${rgba}" group="3" contype="2" conaffinity="1"/>`;
    geoms.push(box("torso", BODY.hipsX, torsoLen, BODY.halfWidth, p.torso, "0.85 0.65 0.3 1"));
    geoms.push(box("head", BODY.shouldersX, headLen, BODY.headHalfWidth, p.head, "0.8 0.6 0.25 1"));
  }
  return `<body name="dog" pos="0 0 0"><freejoint name="dog"/>${geoms.join("")}</body>`;
}

// ---- things ----------------------------------------------------------------------------------------------------------

const FABRIC = "0.35 0.42 0.55 1";
const FABRIC_DARK = "0.28 0.33 0.45 1";
const WOOD = "0.55 0.38 0.22 1";
const BARK = "0.42 0.3 0.18 1";
const CONCRETE = "0.62 0.62 0.6 1";
const LEAF = "0.2 0.45 0.18 1";
const WALL = "0.9 0.88 0.84 1";

const boxPart = (x0: number, x1: number, y0: number, y1: number, z0: number, z1: number, rgba: string): Part => ({
  type: "box",
  size: [(x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2],
  pos: [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2],
  rgba,
});

interface At {
  x: number;
  y: number;
  /** Degrees; a thing's local +x is its depth (a couch's backrest is on its +x side). */
  yaw?: number;
}

/** A couch on four legs: open room of `clearance` beneath the seat, the backrest on its +x side. */
export function couch(at: At & { length: number; depth?: number; clearance?: number }): Thing {
  const depth = at.depth ?? 0.8,
    clearance = at.clearance ?? 0.22,
    halfLength = at.length / 2,
    x = depth / 2,
    leg = 0.05;
  const parts = [
    boxPart(-x, x, -halfLength, halfLength, clearance, 0.45, FABRIC),
    boxPart(x - 0.18, x, -halfLength, halfLength, 0.45, 0.85, FABRIC_DARK),
    boxPart(-x, x - 0.18, -halfLength, -halfLength + 0.14, 0.45, 0.62, FABRIC_DARK),
    boxPart(-x, x - 0.18, halfLength - 0.14, halfLength, 0.45, 0.62, FABRIC_DARK),
  ];
  // Legs at the four corners, inside the seat's outline.
  for (const [x0, x1] of [
    [-x, -x + leg],
    [x - leg, x],
  ])
    for (const [y0, y1] of [
      [-halfLength, -halfLength + leg],
      [halfLength - leg, halfLength],
    ])
      parts.push(boxPart(x0, x1, y0, y1, 0, clearance, WOOD));
  return { label: "couch", x: at.x, y: at.y, yaw: at.yaw ?? 0, parts };
}

/** A floor cushion: a soft block of `height` (low enough to climb, too high to step over). */
export function cushion(at: At & { length: number; depth: number; height?: number }): Thing {
  const height = at.height ?? 0.16;
  return {
    label: "cushion",
    x: at.x,
    y: at.y,
    yaw: at.yaw ?? 0,
    parts: [boxPart(-at.depth / 2, at.depth / 2, -at.length / 2, at.length / 2, 0, height, "0.78 0.45 0.5 1")],
  };
}

/** An upholstered stool: a solid drum with a seat on top. */
export function stool(at: At & { radius?: number }): Thing {
  const radius = at.radius ?? 0.19;
  return {
    label: "stool",
    x: at.x,
    y: at.y,
    yaw: 0,
    parts: [
      { type: "cylinder", size: [radius, 0.22], pos: [0, 0, 0.22], rgba: "0.3 0.3 0.32 1" },
      { type: "cylinder", size: [radius, 0.03], pos: [0, 0, 0.47], rgba: "0.7 0.2 0.15 1" },
    ],
  };
}

/** A bush: a leafy ellipsoid sitting on the ground. */
export function bush(at: At & { rx?: number; ry?: number; height?: number }): Thing {
  const height = at.height ?? 0.7,
    rx = at.rx ?? 0.35,
    ry = at.ry ?? rx;
  return {
    label: "bush",
    x: at.x,
    y: at.y,
    yaw: at.yaw ?? 0,
    parts: [{ type: "ellipsoid", size: [rx, ry, height / 2 + 0.05], pos: [0, 0, height / 2 - 0.05], rgba: LEAF }],
  };
}

/** A stand of bamboo: rows of thin tall stems, too close together for the body (gaps < 0.2 m). */
export function bamboo(at: At & { rows: number; columns: number; spacing?: number }): Thing {
  const spacing = at.spacing ?? 0.2;
  const parts: Part[] = [];
  for (let i = 0; i < at.rows; i++) {
    for (let j = 0; j < at.columns; j++) {
      // Staggered rows, with a fixed jitter (no randomness: the layout is the course's, not the seed's).
      const jx = ((i * 7 + j * 3) % 5) * 0.012 - 0.024;
      const x = i * spacing + jx - ((at.rows - 1) * spacing) / 2;
      const y = j * spacing + (i % 2 ? spacing / 2 : 0) - ((at.columns - 1) * spacing) / 2;
      parts.push({
        type: "cylinder",
        size: [0.028, 0.9],
        pos: [x, y, 0.9],
        rgba: (i + j) % 2 ? "0.55 0.65 0.25 1" : "0.45 0.58 0.2 1",
      });
    }
  }
  return { label: "bamboo", x: at.x, y: at.y, yaw: at.yaw ?? 0, parts };
}

/** A log lying across the way (along its local y). Rounded bark: slippery to climb. With `raisedTo`, it rests on two stumps with its underside that high. */
export function log(at: At & { length: number; radius?: number; raisedTo?: number; slippery?: boolean }): Thing {
  const radius = at.radius ?? 0.08,
    under = at.raisedTo ?? 0;
  const parts: Part[] = [
    {
      type: "cylinder",
      size: [radius, at.length / 2],
      pos: [0, 0, under + radius],
      euler: [Math.PI / 2, 0, 0],
      rgba: BARK,
    },
  ];
  if (under > 0)
    for (const sy of [-1, 1])
      parts.push({
        type: "cylinder",
        size: [0.1, under / 2],
        pos: [0, sy * (at.length / 2 - 0.1), under / 2],
        rgba: WOOD,
      });
  return { label: "log", x: at.x, y: at.y, yaw: at.yaw ?? 0, parts, slippery: at.slippery ?? true };
}

/** A concrete curb across the way. */
export function curb(at: At & { length: number; depth?: number; height?: number }): Thing {
  const depth = at.depth ?? 0.3,
    height = at.height ?? 0.12;
  return {
    label: "curb",
    x: at.x,
    y: at.y,
    yaw: at.yaw ?? 0,
    parts: [boxPart(-depth / 2, depth / 2, -at.length / 2, at.length / 2, 0, height, CONCRETE)],
  };
}

/**
 * A dirt hill: the cap of a large ellipsoid buried in the ground, `height` at its crest and `halfDepth` from its foot to
 * its crest along x (slopes up to about 37°, gentle enough to walk).
 */
export function hill(at: At & { height: number; halfDepth: number; halfLength: number }): Thing {
  // Choose the ellipsoid's vertical radius 4× the crest height; solve for the horizontal radii that meet the ground at the given foot.
  const radiusZ = 4 * at.height,
    zc = at.height - radiusZ;
  const k = Math.sqrt(1 - (zc / radiusZ) ** 2);
  return {
    label: "hill",
    x: at.x,
    y: at.y,
    yaw: at.yaw ?? 0,
    parts: [
      {
        type: "ellipsoid",
        size: [at.halfDepth / k, at.halfLength / k, radiusZ],
        pos: [0, 0, zc],
        rgba: "0.5 0.4 0.28 1",
      },
    ],
  };
}

/** A thick wooden plank lying across the way. */
export function plank(at: At & { length: number; depth?: number; height?: number }): Thing {
  const depth = at.depth ?? 0.25,
    height = at.height ?? 0.1;
  return {
    label: "plank",
    x: at.x,
    y: at.y,
    yaw: at.yaw ?? 0,
    parts: [boxPart(-depth / 2, depth / 2, -at.length / 2, at.length / 2, 0, height, "0.72 0.55 0.33 1")],
  };
}

/** A garden bench: seat boards with an apron below them on both long sides, leaving `clearance` beneath. */
export function bench(at: At & { length: number; depth?: number; clearance?: number }): Thing {
  const halfDepth = (at.depth ?? 0.45) / 2,
    halfLength = at.length / 2,
    clearance = at.clearance ?? 0.22,
    leg = 0.06;
  const parts = [
    boxPart(-halfDepth, halfDepth, -halfLength, halfLength, 0.36, 0.42, WOOD),
    boxPart(-halfDepth, -halfDepth + 0.03, -halfLength, halfLength, clearance, 0.36, WOOD),
    boxPart(halfDepth - 0.03, halfDepth, -halfLength, halfLength, clearance, 0.36, WOOD),
  ];
  for (const [x0, x1] of [
    [-halfDepth, -halfDepth + leg],
    [halfDepth - leg, halfDepth],
  ])
    for (const [y0, y1] of [
      [-halfLength, -halfLength + leg],
      [halfLength - leg, halfLength],
    ])
      parts.push(boxPart(x0, x1, y0, y1, 0, 0.36, "0.25 0.25 0.25 1"));
  return { label: "bench", x: at.x, y: at.y, yaw: at.yaw ?? 0, parts };
}

/** A flight of `steps` steps going up along local +x from x = 0, each `rise` high and `run` deep, then a landing. */
export function stairs(at: At & { width: number; steps: number; rise?: number; run?: number; landing: number }): Thing {
  const rise = at.rise ?? 0.12,
    run = at.run ?? 0.35,
    halfWidth = at.width / 2;
  const end = at.steps * run + at.landing;
  const parts: Part[] = [];
  for (let i = 0; i < at.steps; i++)
    parts.push(boxPart(i * run, end, -halfWidth, halfWidth, 0, (i + 1) * rise, i % 2 ? CONCRETE : "0.7 0.7 0.68 1"));
  return { label: "stairs", x: at.x, y: at.y, yaw: at.yaw ?? 0, parts };
}

/** A wall segment from (x0, y0) to (x1, y1), axis-aligned or not. */
export function wall(x0: number, y0: number, x1: number, y1: number, height = 0.8, thickness = 0.1): Thing {
  const len = Math.hypot(x1 - x0, y1 - y0);
  const yaw = (Math.atan2(y1 - y0, x1 - x0) * 180) / Math.PI - 90;
  return {
    label: "wall",
    x: (x0 + x1) / 2,
    y: (y0 + y1) / 2,
    yaw,
    parts: [boxPart(-thickness / 2, thickness / 2, -len / 2, len / 2, 0, height, WALL)],
  };
}

/** Four walls around [x0, x1] × [y0, y1] (inner faces on those lines). */
export function room(x0: number, x1: number, y0: number, y1: number): Thing[] {
  const halfThick = 0.05;
  return [
    wall(x0 - halfThick, y0 - 2 * halfThick, x0 - halfThick, y1 + 2 * halfThick),
    wall(x1 + halfThick, y0 - 2 * halfThick, x1 + halfThick, y1 + 2 * halfThick),
    wall(x0, y0 - halfThick, x1, y0 - halfThick),
    wall(x0, y1 + halfThick, x1, y1 + halfThick),
  ];
}

/** A hedge of bushes along a line from (x0, y0) to (x1, y1): bushes elongated along it and overlapping, so nothing gets through. */
export function hedge(x0: number, y0: number, x1: number, y1: number, radius = 0.3): Thing[] {
  const len = Math.hypot(x1 - x0, y1 - y0);
  const count = Math.max(1, Math.ceil(len / (3 * radius)));
  const yaw = (Math.atan2(y1 - y0, x1 - x0) * 180) / Math.PI;
  // Each bush spans its segment of the line and reaches `radius` beyond it (so the hedge ends `radius` beyond its end
  // points).
  return Array.from({ length: count }, (_, i) =>
    bush({
      x: x0 + ((x1 - x0) * (i + 0.5)) / count,
      y: y0 + ((y1 - y0) * (i + 0.5)) / count,
      yaw,
      rx: len / count / 2 + radius,
      ry: radius,
      height: 0.6 + ((i * 37) % 5) * 0.05,
    }),
  );
}

// ---- the whole model -------------------------------------------------------------------------------------------------

export interface SceneSpec {
  ground: "indoor" | "outdoor";
  things: Thing[];
  /** Where the toy stands; `z` is the height of what it stands on (a landing), 0 on the ground. */
  toy: { x: number; y: number; z?: number };
}

function partXml(part: Part, name: string): string {
  const euler = part.euler ? ` euler="${fmt(...part.euler)}"` : "";
  return `<geom name="${name}" type="${part.type}" size="${fmt(...part.size)}" pos="${fmt(...part.pos)}"${euler} rgba="${part.rgba}"/>`;
}

/** Body name of thing `i`: `thing<i>_<label>`. */
export const thingBody = (i: number, t: Thing) => `thing${i}_${t.label}`;

/** The toy: a red rubber chew toy standing on the ground, 0.14 m tall. */
export const TOY_HEIGHT = 0.14;

export function courseXml(spec: SceneSpec): string {
  const things = spec.things
    .map((thing, i) => {
      const name = thingBody(i, thing);
      return `<body name="${name}" pos="${fmt(thing.x, thing.y, 0)}" euler="0 0 ${fmt((thing.yaw * Math.PI) / 180)}">${thing.parts.map((p, k) => partXml(p, `${name}_${k}`)).join("")}</body>`;
    })
    .join("\n    ");
  const floor = spec.ground === "indoor" ? "0.76 0.66 0.52 1" : "0.42 0.55 0.3 1";
  return `<mujoco model="robograph_course">
  <compiler angle="radian"/>
  <option timestep="0.01"/>
  <default><geom contype="1" conaffinity="1" group="0"/></default>
  <worldbody>
    <geom name="ground" type="plane" size="20 20 0.1" rgba="${floor}"/>
    ${things}
    <body name="toy" pos="${fmt(spec.toy.x, spec.toy.y, spec.toy.z ?? 0)}">
      <geom name="toy_body" type="cylinder" size="0.045 0.05" pos="0 0 0.05" rgba="0.85 0.08 0.08 1" group="1" contype="0" conaffinity="0"/>
      <geom name="toy_top" type="sphere" size="0.035" pos="0 0 0.105" rgba="0.9 0.12 0.1 1" group="1" contype="0" conaffinity="0"/>
    </body>
    ${dogXml()}
  </worldbody>
</mujoco>`;
}
