/**
 * Generated tabletop scenes for RePLan: drawn from the hand-made scenes' parts — cabinets of one or two doors, a bar
 * across a cabinet's handles, a lever lock, a weight-sensor lock, a kettle standing in a door's swing, a crate of a
 * colour, cubes of colours, a second cabinet — laid out along the table inside the palm's workspace, with a goal
 * sentence drawn from templates and one to three obstacles the plain plan does not foresee, composed (a bar and a
 * lock, a kettle and a bar, a colour to read and a cube already on the crate…). A scene is a pure function of its
 * seed, named `generated_<seed>` (tuning and scored ranges: ../generated.ts).
 *
 * What the generator did is the truth a run is scored by and the solvability check plans from: `obstacles` lists each
 * obstacle it placed and `solution` the motions that clear them and reach the goal, written from the true layout.
 * Whether the scene can be done is not decided here: solve.ts runs the solution through the world's own MPC.
 *
 * Decoys: a lever or a weight plate also stands beside a cabinet where it locks nothing. A mechanism is built, placed
 * and described the same way whether it locks a door or not — only `locks` (never served) and the solution differ —
 * so what the world description lists says nothing about what is locked: over the generated scenes about half the
 * levers, and about half the plates, lock nothing. Decoys are drawn from a stream of their own and left out where the
 * table has no room, so a scene with none is the scene it was before decoys existed (but for the few whose decoy
 * left no room for a cube, drawn again).
 */
import { Rng, shuffle } from "../../random";
import { generatedName } from "../generated";
import { RGBA, type DoorSpec, type LockSpec, type SceneSpec } from "../palm/scene";
import { moveAway, openDoor, place, pullLever, type MotionInput } from "./motions";
import { BOARD, CRATE, CUBE_Z, barXml, cabinet, crateXml, cube, kettleXml, leverXml, plateXml, wrap } from "./scenes";

export type GoalKind = "place_inside" | "find" | "open" | "match_colour" | "place_on";
export const GOAL_KINDS: readonly GoalKind[] = ["place_inside", "find", "open", "match_colour", "place_on"];

/** What the generator put between the plain plan and the goal. */
export type Obstacle =
  | "closed door"
  | "bar across the handles"
  | "lever lock"
  | "weight-sensor lock"
  | "kettle in the door's swing"
  | "cube already on the crate"
  | "colour to read"
  | "another cabinet to search first";

export interface GeneratedTabletop {
  spec: SceneSpec;
  kind: GoalKind;
  obstacles: Obstacle[];
  /** Mechanisms that stand beside a cabinet and lock nothing (not obstacles; never served as such). */
  decoys: Decoy[];
  /** Motions from the true layout that clear every obstacle and reach the goal (the solvability check's; never served). */
  solution: MotionInput[];
  /** One line on the scene, for reports. */
  summary: string;
}

/** A mechanism that locks nothing: a lever, or a weight plate. */
export type Decoy = "lever" | "weight plate";

/**
 * How often a scene without a lever lock gets a decoy lever, and one without a weight-sensor lock a decoy plate (when
 * it has a cabinet to stand beside). Chosen so that, over generated scenes, a listed lever locks a door about as often
 * as not, and so does a listed plate (test/honesty/tabletop.int.test.ts counts them).
 */
const DECOY_LEVER = 0.45;
const DECOY_PLATE = 0.3;
/** The slot a mechanism takes in the row along the table. */
const MECHANISM_WIDTH = { lever: 0.1, plate: 0.12 } as const;

const COLOURS = ["red", "yellow", "blue", "green"] as const;
type Colour = (typeof COLOURS)[number];
const CUBE_RGBA: Record<Colour, string> = { red: RGBA.red, yellow: RGBA.yellow, blue: RGBA.blue, green: RGBA.green };
const CABINETS = [
  { name: "wooden_cabinet", rgba: RGBA.wood },
  { name: "stone_cabinet", rgba: RGBA.stone },
  { name: "white_cabinet", rgba: RGBA.white },
] as const;

/** The cabinets' fronts all stand on this line; the robot and its camera are on the −y side. */
const FRONT_Y = 0.05;
/** Half the table width the layout may use (the camera sees it all; the palm reaches ±0.6). */
const HALF_SPAN = 0.5;
const GAP = 0.08;

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const display = (name: string) => name.replace(/_/g, " ");

interface Cab {
  name: string;
  rgba: string;
  width: number;
  depth: number;
  height: number;
  doors: DoorSpec[];
  cx: number;
  hooks: boolean;
}

/** A door's hinge on the floor plan and its width: the quarter disc it sweeps when it opens. */
function swings(cab: Cab): { hx: number; hy: number; r: number; s: number }[] {
  const doorWidth = cab.width / cab.doors.length;
  return cab.doors.map((door) => {
    const sign = door.side === "left" ? 1 : -1;
    return { hx: cab.cx - sign * (cab.width / 2), hy: FRONT_Y - 0.012, r: doorWidth, s: sign };
  });
}

/** Whether a round footprint at `point` of radius `rad` is in some door's sweep (with a margin). */
function inSwing(point: [number, number], rad: number, cabs: Cab[]): boolean {
  return cabs.some((cab) =>
    swings(cab).some(
      ({ hx, hy, r: reach, s: sign }) =>
        point[1] < hy + rad &&
        Math.hypot(point[0] - hx, point[1] - hy) < reach + rad + 0.03 &&
        (point[0] - hx) * sign > -rad - 0.03,
    ),
  );
}

function drawCabinet(rng: Rng, name: string, rgba: string, hooks: boolean): Omit<Cab, "cx"> {
  const width = r3(0.28 + 0.08 * rng.next());
  const double = width >= 0.31 && rng.next() < 0.6;
  const side = rng.next() < 0.7 ? "left" : "right";
  const doors: DoorSpec[] = double
    ? [
        {
          joint: `${name}_left_door`,
          handle: `${name}_left_handle`,
          side: "left",
          description: `left door of the ${display(name)}`,
        },
        {
          joint: `${name}_right_door`,
          handle: `${name}_right_handle`,
          side: "right",
          description: `right door of the ${display(name)}`,
        },
      ]
    : [
        {
          joint: `${name}_door`,
          handle: `${name}_handle`,
          side,
          description: `door of the ${display(name)}, hinged on its ${side} side`,
        },
      ];
  return { name, rgba, width, depth: r3(0.25 + 0.05 * rng.next()), height: r3(0.3 + 0.05 * rng.next()), doors, hooks };
}

/** Where a cube inside a cabinet sits: behind the door that opens first (the left one of two). */
const insideSpot = (cab: Cab): [number, number, number] => [
  r3(cab.doors.length > 1 ? cab.cx - cab.width / 4 + 0.02 : cab.cx),
  r3(FRONT_Y + cab.depth / 2),
  BOARD + CUBE_Z,
];

/** One try at a scene; undefined when the draw does not fit the table (the caller draws again). Decoys come from `decoyRng`. */
function draw(rng: Rng, seed: number, decoyRng: Rng): GeneratedTabletop | undefined {
  const kind = rng.pick(GOAL_KINDS);
  const colours = shuffle(rng, COLOURS);
  const obstacles: Obstacle[] = [];
  const cabNames = shuffle(rng, CABINETS);
  const xml: string[] = [];
  const objects: string[] = [];
  const solution: MotionInput[] = [];
  const floor: { at: [number, number]; rad: number }[] = [];
  const locks: LockSpec[] = [];
  const fixtures: SceneSpec["fixtures"] = [];
  const surfaces: SceneSpec["surfaces"] = [];
  let instruction: string;
  let goal: string[];
  let targets: SceneSpec["targets"] = [];

  // The row along the table, left to right: cabinets, a lever or a plate beside a cabinet (the goal's when it locks
  // it; any cabinet when it is a decoy), the crate.
  // A mechanism's slot knows nothing of whether it locks: that is `lock`'s, and only `locks` and the solution read it.
  type Mech = { kind: "lever" | "plate"; width: number; beside: string };
  type Slot = { kind: "cabinet"; cab: Omit<Cab, "cx">; goal: boolean } | { kind: "crate"; width: number } | Mech;
  const row: Slot[] = [];
  const cabinetGoal = kind === "place_inside" || kind === "find" || kind === "open";
  let lock: "lever" | "sensor" | undefined;
  const extras = new Set<Obstacle>();
  if (cabinetGoal) {
    const pool: Obstacle[] =
      kind === "open"
        ? ["bar across the handles", "kettle in the door's swing"]
        : ["bar across the handles", "lever lock", "kettle in the door's swing"];
    const count = kind === "open" ? (rng.next() < 0.5 ? 0 : 1) : [0, 1, 1, 2][Math.floor(rng.next() * 4)];
    for (const o of shuffle(rng, pool).slice(0, count)) extras.add(o);
    lock = kind === "open" ? (rng.next() < 0.6 ? "sensor" : "lever") : extras.has("lever lock") ? "lever" : undefined;
    const drawn = drawCabinet(rng, cabNames[0].name, cabNames[0].rgba, extras.has("bar across the handles"));
    const goalSlots: Slot[] = [{ kind: "cabinet", cab: drawn, goal: true }];
    if (lock)
      goalSlots[rng.next() < 0.5 ? "push" : "unshift"]({
        kind: lock === "lever" ? "lever" : "plate",
        width: lock === "lever" ? MECHANISM_WIDTH.lever : MECHANISM_WIDTH.plate,
        beside: drawn.name,
      });
    row.push(...goalSlots);
    if (kind !== "open" && rng.next() < (kind === "find" ? 0.6 : 0.3))
      row[rng.next() < 0.5 ? "push" : "unshift"]({
        kind: "cabinet",
        cab: drawCabinet(rng, cabNames[1].name, cabNames[1].rgba, false),
        goal: false,
      });
  } else {
    row.push({ kind: "crate", width: 0.1 });
    if (rng.next() < 0.4)
      row[rng.next() < 0.5 ? "push" : "unshift"]({
        kind: "cabinet",
        cab: drawCabinet(rng, cabNames[0].name, cabNames[0].rgba, false),
        goal: false,
      });
  }
  const widthOf = (s: Slot) => (s.kind === "cabinet" ? s.cab.width + (s.cab.hooks ? 0.1 : 0) : s.width);
  let total = row.reduce((a, s) => a + widthOf(s), 0) + GAP * (row.length - 1);
  if (total > 2 * HALF_SPAN) return undefined;
  // Decoys, beside a cabinet drawn among those in the row, on a side with no mechanism yet (a scene has at most one
  // lever and one plate, so one side is always free); one the table has no room for is left out.
  const decoys: Decoy[] = [];
  const cabSlots = row.filter((s): s is Extract<Slot, { kind: "cabinet" }> => s.kind === "cabinet");
  if (cabSlots.length) {
    const wanted: ("lever" | "plate")[] = [];
    if (lock !== "lever" && decoyRng.next() < DECOY_LEVER) wanted.push("lever");
    if (lock !== "sensor" && decoyRng.next() < DECOY_PLATE) wanted.push("plate");
    for (const mk of wanted) {
      const cabSlot = cabSlots[Math.floor(decoyRng.next() * cabSlots.length)];
      const i = row.indexOf(cabSlot);
      const isMech = (s: Slot | undefined) => s?.kind === "lever" || s?.kind === "plate";
      const left = decoyRng.next() < 0.5 ? !isMech(row[i - 1]) : isMech(row[i + 1]);
      if (total + MECHANISM_WIDTH[mk] + GAP > 2 * HALF_SPAN) continue;
      row.splice(left ? i : i + 1, 0, { kind: mk, width: MECHANISM_WIDTH[mk], beside: cabSlot.cab.name });
      total += MECHANISM_WIDTH[mk] + GAP;
      decoys.push(mk === "lever" ? "lever" : "weight plate");
    }
  }
  let x = -total / 2 + (rng.next() * 2 - 1) * Math.min(0.1, HALF_SPAN - total / 2);
  const cabs: Cab[] = [];
  let goalCab: Cab | undefined;
  /** Where each lever or plate stands, in the row's order. */
  const mechs: (Mech & { at: [number, number] })[] = [];
  let crateAt: [number, number] | undefined;
  for (const s of row) {
    const slotWidth = widthOf(s);
    const cx = r3(x + slotWidth / 2);
    x += slotWidth + GAP;
    if (s.kind === "cabinet") {
      const cab: Cab = { ...s.cab, cx };
      cabs.push(cab);
      if (s.goal) goalCab = cab;
    } else if (s.kind === "crate") crateAt = [cx, 0.12];
    else mechs.push({ ...s, at: [cx, s.kind === "lever" ? 0.15 : 0.05] });
  }
  // The containers are listed in a drawn order, so the first one a search opens is not always the right one.
  if (cabs.length > 1 && rng.next() < 0.5) cabs.reverse();
  const built = cabs.map((cab) => {
    const out = cabinet({
      name: cab.name,
      center: [cab.cx, FRONT_Y + cab.depth / 2],
      width: cab.width,
      depth: cab.depth,
      height: cab.height,
      rgba: cab.rgba,
      doors: cab.doors,
      hooks: cab.hooks ? { barZ: +(cab.height * 0.55).toFixed(3) } : undefined,
    });
    xml.push(out.xml);
    return { cab: cab, ...out };
  });
  // Every door's hinge, in the containers' order (a lever's joint joins them below).
  const joints: SceneSpec["joints"] = built.flatMap((x) =>
    x.cab.doors.map((d) => ({ name: d.joint, object: x.cab.name, handle: d.handle, description: d.description })),
  );

  /** A free spot on the floor in front of everything, clear of every door's sweep and of what is there already. */
  const floorSpot = (
    rad: number,
    fits: (p: [number, number]) => boolean = () => true,
  ): [number, number] | undefined => {
    for (let i = 0; i < 200; i++) {
      const spot: [number, number] = [r3(-0.4 + 0.8 * rng.next()), r3(-0.27 + 0.15 * rng.next())];
      if (inSwing(spot, rad, cabs) || !fits(spot)) continue;
      if (floor.some((q) => Math.hypot(q.at[0] - spot[0], q.at[1] - spot[1]) < q.rad + rad + 0.05)) continue;
      if (mechs.some((m) => Math.abs(spot[0] - m.at[0]) < 0.08 + rad && spot[1] > -0.08)) continue;
      floor.push({ at: spot, rad });
      return spot;
    }
    return undefined;
  };
  /**
   * A lever or a plate into the scene: built and described the same way whether it locks a door or not (what locks
   * is `locks`, which is never served), so a decoy and a lock give the same world description.
   */
  const putMechanism = (mech: Mech & { at: [number, number] }) => {
    if (mech.kind === "lever") {
      xml.push(leverXml(mech.at));
      fixtures.push({ name: "lever", description: `a lever beside the ${display(mech.beside)}` });
      joints.push({
        name: "lever",
        object: "lever",
        handle: "lever_handle",
        description: `a lever beside the ${display(mech.beside)}; pulling it towards the robot raises its fraction`,
      });
    } else {
      xml.push(plateXml(mech.at));
      surfaces.push({ name: "weight_sensor", site: "weight_sensor", half: [0.05, 0.05], top: 0.01, capacity: 1 });
    }
  };
  const putCube = (colour: Colour, at: [number, number, number]) => {
    const name = `${colour}_cube`;
    xml.push(cube(name, at, CUBE_RGBA[colour]));
    objects.push(name);
    return name;
  };

  if (cabinetGoal) {
    const cab = goalCab!;
    const builtCab = built.find((x) => x.cab === cab)!;
    const door = cab.doors[0];
    // What stands in the way, cleared first in the true plan: the kettle, then the bar, then the lock.
    if (extras.has("kettle in the door's swing")) {
      const sw = swings(cab)[0];
      const at: [number, number] = [r3(sw.hx + sw.s * 0.8 * sw.r), r3(FRONT_Y - Math.max(0.16, 0.5 * sw.r))];
      // The kettle must not stand in another door's sweep or off the table's used width.
      if (Math.abs(at[0]) > 0.5 || cabs.some((c) => c !== cab && inSwing(at, 0.09, [c]))) return undefined;
      xml.push(kettleXml(at));
      objects.push("kettle");
      floor.push({ at, rad: 0.09 });
      obstacles.push("kettle in the door's swing");
      solution.push(moveAway("kettle", door.handle, 0.4));
    }
    if (extras.has("bar across the handles")) {
      xml.push(barXml([cab.cx, builtCab.frontY - 0.057, builtCab.handleZ + 0.001], r3(cab.width / 2 + 0.045)));
      objects.push("red_bar");
      obstacles.push("bar across the handles");
      solution.push(moveAway("red_bar", door.handle, 0.35));
    }
    // Opening the door is the goal of an open task, not something in its way.
    if (kind !== "open") obstacles.unshift("closed door");
    let keyColour: Colour | undefined;
    for (const m of mechs) putMechanism(m);
    if (lock === "lever") {
      locks.push({ joint: door.joint, lever: { joint: "lever", threshold: 0.8 } });
      obstacles.push("lever lock");
      solution.push(pullLever("lever_handle", "lever"));
    } else if (lock === "sensor") {
      locks.push({ joint: door.joint, sensor: { surface: "weight_sensor", minMass: 0.05 } });
      keyColour = colours[0];
      const at = floorSpot(0.04);
      if (!at) return undefined;
      const key = putCube(keyColour, [at[0], at[1], CUBE_Z]);
      obstacles.push("weight-sensor lock");
      solution.push(place(key, "weight_sensor"));
    }
    solution.push(openDoor(door.handle, door.joint));
    const gname = display(cab.name);
    if (kind === "open") {
      goal = [`open(${cab.name})`];
      const key = display(`${keyColour}_cube`);
      instruction =
        lock === "sensor"
          ? rng.pick([
              `open the ${gname}. Its lock releases when the ${key} is on the weight sensor.`,
              `open the ${gname}; putting the ${key} on the weight sensor unlocks it.`,
              `open the ${gname}. The weight sensor lock can be unlocked by putting the ${key} on it.`,
            ])
          : rng.pick([`open the ${gname}`, `open the ${gname}, please`]);
    } else {
      const colour = colours.find((c) => c !== keyColour)!;
      const spot = insideSpot(cab);
      if (kind === "place_inside") {
        // On the side the door opens towards: an open door stands between its hinge side and the way in.
        const sw = swings(cab)[0];
        const at = floorSpot(0.04, (p) => (p[0] - sw.hx) * sw.s > 0.05);
        if (!at) return undefined;
        const cubeName = putCube(colour, [at[0], at[1], CUBE_Z]);
        xml.push(`<site name="target_position" pos="${spot[0]} ${spot[1]} ${spot[2]}" size="0.01" rgba="0 0 0 0"/>`);
        targets = [{ name: "target_position", place: cab.name }];
        goal = [`inside(${cubeName}, ${cab.name})`];
        solution.push(place(cubeName, "target_position"));
        instruction = rng.pick([
          `put the ${display(cubeName)} inside the ${gname}`,
          `move the ${display(cubeName)} into the ${gname}`,
          `place the ${display(cubeName)} in the ${gname}`,
          `move the ${display(cubeName)} to the target position inside the ${gname}`,
        ]);
      } else {
        const cubeName = putCube(colour, spot);
        goal = [`in_view(${cubeName})`];
        if (cabs.indexOf(cab) > 0) obstacles.push("another cabinet to search first");
        instruction = rng.pick([
          `find the ${display(cubeName)}`,
          `locate the ${display(cubeName)}`,
          `look for the ${display(cubeName)}`,
        ]);
      }
      // A cube of another colour on the floor, to tell apart.
      if (rng.next() < 0.5) {
        const at = floorSpot(0.04);
        if (at)
          putCube(
            colours.find((c2) => c2 !== colour && c2 !== keyColour)!,
            [at[0], at[1], CUBE_Z],
          );
      }
    }
  } else {
    for (const m of mechs) putMechanism(m);
    // The crate's colour is to be read (match_colour), or the cube to move is named (place_on); a cube of another
    // colour already on the crate, which holds one thing, is in the way (always for place_on, half the time otherwise).
    const [crateColour, ...others] = colours;
    xml.push(crateXml(crateAt!, CUBE_RGBA[crateColour]));
    surfaces.push({ ...CRATE, site: "crate" });
    const mover = kind === "match_colour" ? crateColour : others[0];
    if (kind === "match_colour") obstacles.push("colour to read");
    const blocked = kind === "place_on" || rng.next() < 0.5;
    const onCrate = others.find((c) => c !== mover)!;
    const floorColours =
      kind === "match_colour"
        ? [mover, ...others.filter((c) => c !== onCrate).slice(0, 1 + Math.floor(rng.next() * 2))]
        : [mover, ...(rng.next() < 0.5 ? [others[2]] : [])];
    let blocker: string | undefined;
    if (blocked) {
      blocker = putCube(onCrate, [crateAt![0], crateAt![1], CRATE.top + CUBE_Z]);
      obstacles.push("cube already on the crate");
      solution.push(moveAway(blocker, "crate", 0.2));
    }
    for (const c of shuffle(rng, floorColours)) {
      const at = floorSpot(0.04);
      if (!at) return undefined;
      putCube(c, [at[0], at[1], CUBE_Z]);
    }
    const cubeName = `${mover}_cube`;
    goal = [`on(${cubeName}, crate)`];
    solution.push(place(cubeName, "crate", 8));
    instruction =
      kind === "match_colour"
        ? rng.pick([
            "place the cube with the same colour as the crate on the crate",
            "put the cube that matches the crate's colour on the crate",
            "put the cube of the same colour on the crate",
          ])
        : rng.pick([`place the ${display(cubeName)} on the crate`, `put the ${display(cubeName)} onto the crate`]);
  }
  // One to three obstacles composed.
  if (obstacles.length < 1 || obstacles.length > 3) return undefined;
  const name = generatedName(seed);
  const spec: SceneSpec = {
    name,
    instruction,
    xml: wrap(name, xml.join("\n    ")),
    objects,
    containers: built.map((x) => x.spec),
    surfaces,
    fixtures,
    joints,
    targets,
    locks,
    initialJoints: {},
    goal,
  };
  const summary = `${kind.replace(/_/g, " ")}: ${obstacles.join(" + ") || "no obstacle"} (${cabs.map((c) => `${c.name} ${c.doors.length} door(s)`).join(", ") || "no cabinet"})${decoys.length ? `; decoy ${decoys.join(" and ")} locking nothing` : ""}`;
  return { spec, kind, obstacles, decoys, solution, summary };
}

export function generateTabletop(seed: number): GeneratedTabletop {
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`a generated scene's seed is a whole number >= 0, got ${seed}`);
  const rng = new Rng(seed * 2654435761 + 97531);
  // The decoys' own stream: a scene that draws none is the scene it was before decoys existed.
  const decoyRng = new Rng(Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2d) ^ 0x0dec0de);
  for (let i = 0; i < 50; i++) {
    const drawn = draw(rng, seed, decoyRng);
    if (drawn) return drawn;
  }
  throw new Error(`generated_${seed}: no tabletop layout fits after 50 draws`);
}
