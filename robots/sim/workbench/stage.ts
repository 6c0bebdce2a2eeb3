/**
 * One workbench episode's physics: the compiled scene, its MjData, the parts indexed by name (the tabletop's indexer),
 * the spring-grasp state, and the geometric queries the controllers, the event monitor and the goal check share
 * (lowest points, contacts, the drawer's frame). A reset builds a new Stage, so nothing of an episode outlives it —
 * not a flattened loaf, not a drawer left open, not a collision mask.
 */
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { indexScene, type SceneParts, type Thing } from "../palm/bodies";
import { TICK, stepWorld, type Mechanics, type WorldState } from "../palm/controllers";
import { jointFraction, pointPosition, type JointRef } from "../palm/rewards";
import { buildDetectorIndex, type DetectorIndex } from "./perception";
import { FINGER, OBJECT_PROPS, type ObjectKind, type ObjectProps, type WorkbenchScene } from "./scenes";

export { TICK };

export interface Snapshot {
  qpos: Float64Array;
  fingers: number;
  shapes: [number, number][];
}

/** Physical facts of the drawer handle (a thing the palm can hold that is not a free object). */
const HANDLE_PROPS: ObjectProps = {
  origin: 0,
  width: 0.03,
  halfHeight: 0.008,
  maxGrip: 60,
  tippable: false,
  avoid: false,
  crushable: false,
};

export class Stage {
  readonly parts: SceneParts;
  readonly st: WorldState;
  readonly mech: Mechanics;
  readonly scratch: MjData;
  readonly geomBody: Int32Array;
  /** Geoms of each body (by body id). */
  readonly bodyGeoms = new Map<number, number[]>();
  readonly palmGeoms: number[];
  readonly fingers: [number, number];
  readonly tableGeom: number;
  readonly beadBodies: number[];
  /** Per thing index: its physical facts and kind ("handle" for a handle). */
  readonly props: (ObjectProps & { kind: ObjectKind | "handle" })[];
  readonly detector: DetectorIndex;
  /** Collision masks as authored (a held body's mask is narrowed while held, then restored from here). */
  private readonly conaffinity0: Int32Array;
  private readonly geomName: string[];
  /** Bodies whose collision with the palm is off (held, or released but not yet clear of the fingers). */
  readonly excluded = new Set<number>();
  fingerOpening = FINGER.open;
  private readonly palmDofs: number[];
  private readonly geomThing: Int32Array;
  /** The geom of each crushable thing (its shape is part of a snapshot). */
  private readonly crushable: number[];
  readonly isPalmGeom: Uint8Array;

  constructor(
    readonly mj: Mujoco,
    readonly model: MjModel,
    readonly data: MjData,
    readonly scene: WorkbenchScene,
  ) {
    this.parts = indexScene(mj, model, scene);
    this.scratch = new mj.MjData(model);
    this.st = { held: -1, prev: [0, 0, 0], holdQuat: [1, 0, 0, 0], released: [] };
    this.mech = {
      mj,
      model,
      palmBody: this.parts.palmBody,
      things: this.parts.things,
      locks: this.parts.locks,
      points: this.parts.points,
    };
    this.geomBody = model.geom_bodyid as Int32Array;
    const ng = model.ngeom as number;
    this.geomName = [];
    for (let g = 0; g < ng; g++) {
      this.geomName.push((mj.mj_id2name(model, mj.mjtObj.mjOBJ_GEOM.value, g) as string | null) ?? "");
      const body = this.geomBody[g];
      if (!this.bodyGeoms.has(body)) this.bodyGeoms.set(body, []);
      this.bodyGeoms.get(body)!.push(g);
    }
    const id = (type: string, name: string) => {
      const i = mj.mj_name2id(model, mj.mjtObj[type].value, name) as number;
      if (i < 0) throw new Error(`workbench scene ${scene.name}: no ${type} ${name}`);
      return i;
    };
    this.palmGeoms = this.bodyGeoms.get(this.parts.palmBody) ?? [];
    this.fingers = [id("mjOBJ_GEOM", "palm__finger_l"), id("mjOBJ_GEOM", "palm__finger_r")];
    this.tableGeom = id("mjOBJ_GEOM", "table");
    this.palmDofs = ["palm_x", "palm_y", "palm_z"].map((j) => (model.jnt_dofadr as Int32Array)[id("mjOBJ_JOINT", j)]);
    this.beadBodies = scene.beads.map((b) => id("mjOBJ_BODY", b));
    this.props = this.parts.things.map((thing) => {
      if (thing.kind === "handle") return { ...HANDLE_PROPS, kind: "handle" as const };
      const kind = scene.things.find((x) => x.name === thing.name)!.kind;
      return { ...OBJECT_PROPS[kind], kind };
    });
    this.geomThing = new Int32Array(ng).fill(-1);
    this.parts.things.forEach((thing, i) => {
      if (thing.free) for (const g of this.bodyGeoms.get(thing.body) ?? []) this.geomThing[g] = i;
      else if (thing.point.kind === "geom") this.geomThing[thing.point.id] = i;
    });
    this.isPalmGeom = new Uint8Array(ng);
    for (const g of this.palmGeoms) this.isPalmGeom[g] = 1;
    this.crushable = this.parts.things.flatMap((thing, i) =>
      this.props[i].crushable ? [(this.bodyGeoms.get(thing.body) ?? [])[0]] : [],
    );
    this.conaffinity0 = Int32Array.from(model.geom_conaffinity as Int32Array);
    const entities = [
      ...scene.objects,
      ...scene.beads,
      ...scene.places.map((p) => p.name),
      ...scene.joints.map((j) => j.handle),
      "palm",
    ];
    const labels = entities.map((e) => (scene.beads.includes(e) ? "bead" : e));
    const inside = new Set([...scene.containers.flatMap((c) => c.interior), ...scene.surfaces.map((s) => s.site)]);
    this.detector = buildDetectorIndex(
      mj,
      model,
      entities,
      labels,
      scene.places.map((p) => p.name),
      inside,
    );
  }

  dispose(): void {
    this.scratch.delete();
    this.data.delete();
    this.model.delete();
  }

  /** Physics steps per control tick. */
  get substeps(): number {
    return Math.round(TICK / (this.model.opt.timestep as number));
  }

  step(log: Parameters<typeof stepWorld>[4]): void {
    stepWorld(this.mech, this.data, this.st, [], log);
  }

  // ---- names ---------------------------------------------------------------------------------------------------

  thing(name: string): Thing | undefined {
    const i = this.parts.thingIndex.get(name);
    return i === undefined ? undefined : this.parts.things[i];
  }
  thingIndex(name: string): number | undefined {
    return this.parts.thingIndex.get(name);
  }
  heldName(): string | null {
    return this.st.held >= 0 ? this.parts.things[this.st.held].name : null;
  }
  geomLabel(geom: number): string {
    return this.geomName[geom].split("__")[0];
  }
  /** A palm geom in words ("left finger", "wrist", "palm"). */
  palmPart(geom: number): string {
    const part = this.geomName[geom].split("__")[1] ?? "palm";
    return part === "finger_l" ? "left finger" : part === "finger_r" ? "right finger" : part;
  }
  /** The thing a geom belongs to (a free object's geoms, or the handle geom itself), or -1. */
  thingOfGeom(geom: number): number {
    return this.geomThing[geom];
  }

  // ---- positions and geometry ----------------------------------------------------------------------------------

  point(name: string): number[] | undefined {
    const ref = this.parts.points.get(name);
    return ref && pointPosition(this.data, ref);
  }
  palm(): number[] {
    return pointPosition(this.data, { kind: "body", id: this.parts.palmBody });
  }
  palmVelocity(): number[] {
    const qvel = this.data.qvel as Float64Array;
    return this.palmDofs.map((d) => qvel[d]);
  }
  thingPosition(i: number): number[] {
    return pointPosition(this.data, this.parts.things[i].point);
  }
  /** World linear velocity of a free thing (free joints keep it in the world frame). */
  velocity(i: number): number[] {
    const thing = this.parts.things[i];
    if (!thing.free) return [0, 0, 0];
    const qvel = this.data.qvel as Float64Array;
    return [qvel[thing.dof], qvel[thing.dof + 1], qvel[thing.dof + 2]];
  }
  /** Tilt from upright of a body, radians (its z axis against the world's). */
  tilt(body: number): number {
    const zz = (this.data.xmat as Float64Array)[9 * body + 8];
    return Math.acos(Math.max(-1, Math.min(1, zz)));
  }

  /** Lowest (sign -1) or highest (sign +1) world z of a geom, from its pose, type and size. */
  geomExtreme(geom: number, sign: -1 | 1): number {
    const z = (this.data.geom_xpos as Float64Array)[3 * geom + 2];
    const rot = (this.data.geom_xmat as Float64Array).subarray(9 * geom, 9 * geom + 9);
    const size = (this.model.geom_size as Float64Array).subarray(3 * geom, 3 * geom + 3);
    const type = (this.model.geom_type as Int32Array)[geom];
    const geomTypes = this.mj.mjtGeom;
    let halfHeight: number;
    if (type === geomTypes.mjGEOM_SPHERE.value) halfHeight = size[0];
    else if (type === geomTypes.mjGEOM_BOX.value)
      halfHeight = Math.abs(rot[6]) * size[0] + Math.abs(rot[7]) * size[1] + Math.abs(rot[8]) * size[2];
    else if (type === geomTypes.mjGEOM_CYLINDER.value)
      halfHeight = Math.abs(rot[8]) * size[1] + size[0] * Math.sqrt(Math.max(0, 1 - rot[8] * rot[8]));
    else if (type === geomTypes.mjGEOM_CAPSULE.value) halfHeight = Math.abs(rot[8]) * size[1] + size[0];
    else if (type === geomTypes.mjGEOM_ELLIPSOID.value)
      halfHeight = Math.hypot(rot[6] * size[0], rot[7] * size[1], rot[8] * size[2]);
    else halfHeight = 0; // planes: the table top itself
    return z + sign * halfHeight;
  }
  bodyExtreme(body: number, sign: -1 | 1): number {
    let best = sign < 0 ? Infinity : -Infinity;
    for (const g of this.bodyGeoms.get(body) ?? []) {
      const extreme = this.geomExtreme(g, sign);
      best = sign < 0 ? Math.min(best, extreme) : Math.max(best, extreme);
    }
    return best;
  }
  bottom(i: number): number {
    return this.bodyExtreme(this.parts.things[i].body, -1);
  }
  top(i: number): number {
    return this.bodyExtreme(this.parts.things[i].body, 1);
  }
  palmLowest(): { z: number; geom: number } {
    let z = Infinity,
      geom = -1;
    for (const g of this.palmGeoms) {
      const extreme = this.geomExtreme(g, -1);
      if (extreme < z) {
        z = extreme;
        geom = g;
      }
    }
    return { z, geom };
  }
  /** Horizontal footprint of a body's main geom (a box): x and y ranges in the world. */
  footprint(i: number): { x: [number, number]; y: [number, number]; top: number } {
    const thing = this.parts.things[i];
    const geom =
      (this.bodyGeoms.get(thing.body) ?? []).find((k) => this.geomName[k] === thing.name) ??
      this.bodyGeoms.get(thing.body)![0];
    const centre = (this.data.geom_xpos as Float64Array).subarray(3 * geom, 3 * geom + 3);
    const rot = (this.data.geom_xmat as Float64Array).subarray(9 * geom, 9 * geom + 9);
    const size = (this.model.geom_size as Float64Array).subarray(3 * geom, 3 * geom + 3);
    const hx = Math.abs(rot[0]) * size[0] + Math.abs(rot[1]) * size[1] + Math.abs(rot[2]) * size[2];
    const hy = Math.abs(rot[3]) * size[0] + Math.abs(rot[4]) * size[1] + Math.abs(rot[5]) * size[2];
    return { x: [centre[0] - hx, centre[0] + hx], y: [centre[1] - hy, centre[1] + hy], top: this.geomExtreme(geom, 1) };
  }
  /** How far a thing reaches from its grasp point (for "the fingers are clear of it"). */
  reach(i: number): number {
    const thing = this.parts.things[i];
    const gp = this.model.geom_pos as Float64Array,
      rb = this.model.geom_rbound as Float64Array;
    let radius = 0;
    for (const g of this.bodyGeoms.get(thing.body) ?? [])
      radius = Math.max(radius, Math.hypot(gp[3 * g], gp[3 * g + 1], gp[3 * g + 2]) + rb[g]);
    return thing.free ? radius : 0.03;
  }
  /** What is straight below a point (excluding one body): the height of the surface and its label. */
  below(origin: number[], excludeBody: number): { z: number; label: string } {
    const gid = new this.mj.IntBuffer(1);
    try {
      const distance = this.mj.mj_ray(
        this.model,
        this.data,
        origin,
        [0, 0, -1],
        [1, 1, 1, 1, 1, 1],
        1,
        excludeBody,
        gid,
        null,
      ) as number;
      const geom = (gid.GetView() as Int32Array)[0];
      return distance < 0 ? { z: 0, label: "table" } : { z: origin[2] - distance, label: this.geomLabel(geom) };
    } finally {
      gid.delete();
    }
  }

  /** Geom pairs in contact now (one read of MuJoCo's contact list; the vector and its items are freed). */
  contacts(): [number, number][] {
    const count = this.data.ncon as number;
    if (count === 0) return [];
    const vec = this.data.contact;
    const out: [number, number][] = [];
    try {
      for (let i = 0; i < count; i++) {
        const contact = vec.get(i);
        if (!contact) continue;
        out.push([contact.geom1, contact.geom2]);
        contact.delete();
      }
    } finally {
      vec.delete();
    }
    return out;
  }

  // ---- snapshots (the recorder renders key frames after the fact) -----------------------------------------------

  /** What a frame shows of this instant: the pose of everything, the finger gap, the shapes of crushable things. */
  snapshot(): Snapshot {
    const size = this.model.geom_size as Float64Array,
      pos = this.model.geom_pos as Float64Array;
    return {
      qpos: Float64Array.from(this.data.qpos as Float64Array),
      fingers: this.fingerOpening,
      shapes: this.crushable.map((g) => [size[3 * g + 2], pos[3 * g + 2]]),
    };
  }

  /** Runs `fn` on the scratch data posed as in `snap` (and the model shaped as then), then puts the model back. */
  withSnapshot<T>(snap: Snapshot, fn: (data: MjData) => T): T {
    const now = this.snapshot();
    const apply = (snapshot: Snapshot) => {
      this.setFingers(snapshot.fingers);
      const size = this.model.geom_size as Float64Array,
        pos = this.model.geom_pos as Float64Array;
      this.crushable.forEach(
        (g, k) => ((size[3 * g + 2] = snapshot.shapes[k][0]), (pos[3 * g + 2] = snapshot.shapes[k][1])),
      );
    };
    apply(snap);
    try {
      (this.scratch.qpos as Float64Array).set(snap.qpos);
      this.mj.mj_kinematics(this.model, this.scratch);
      return fn(this.scratch);
    } finally {
      apply(now);
    }
  }

  // ---- mechanics the controllers drive ------------------------------------------------------------------------

  /** Sets the finger gap (visual and collision geometry of the palm; the held body is never pushed by it). */
  setFingers(opening: number): void {
    this.fingerOpening = opening;
    const gp = this.model.geom_pos as Float64Array;
    const x = opening / 2 + FINGER.half;
    gp[3 * this.fingers[0]] = -x;
    gp[3 * this.fingers[1]] = x;
  }

  /** Turns the palm's collisions with a body off (held) or back on. */
  exclude(body: number, on: boolean): void {
    const ca = this.model.geom_conaffinity as Int32Array;
    for (const g of this.bodyGeoms.get(body) ?? []) ca[g] = on ? this.conaffinity0[g] & ~2 : this.conaffinity0[g];
    if (on) this.excluded.add(body);
    else this.excluded.delete(body);
  }

  /** Flattens a crushable thing to `ratio` of its height, keeping its bottom where it is; returns old and new heights. */
  crush(i: number, ratio: number): { from: number; to: number } {
    const thing = this.parts.things[i];
    const geom = (this.bodyGeoms.get(thing.body) ?? [])[0];
    const size = this.model.geom_size as Float64Array,
      pos = this.model.geom_pos as Float64Array;
    const halfHeight = size[3 * geom + 2];
    const bottom = pos[3 * geom + 2] - halfHeight;
    const nh = halfHeight * ratio;
    size[3 * geom + 2] = nh;
    pos[3 * geom + 2] = bottom + nh;
    return { from: 2 * halfHeight, to: 2 * nh };
  }

  joint(name: string): JointRef | undefined {
    return this.parts.joints.get(name);
  }
  jointFraction(name: string): number {
    return jointFraction(this.data, this.parts.joints.get(name)!);
  }

  /** Where a joint's handle is at each of `steps + 1` fractions from `from` to `to` (kinematics on a scratch copy). */
  handlePath(joint: string, from: number, to: number, steps: number): number[][] {
    const j = this.parts.joints.get(joint)!;
    const spec = this.scene.joints.find((x) => x.name === joint)!;
    const handle = this.parts.points.get(spec.handle)!;
    (this.scratch.qpos as Float64Array).set(this.data.qpos as Float64Array);
    const out: number[][] = [];
    for (let k = 0; k <= steps; k++) {
      const fr = from + ((to - from) * k) / steps;
      (this.scratch.qpos as Float64Array)[j.qpos] = j.closed + fr * (j.open - j.closed);
      this.mj.mj_kinematics(this.model, this.scratch);
      out.push(pointPosition(this.scratch, handle));
    }
    return out;
  }

  /** A point in a body's frame (e.g. a thing in the drawer's frame). */
  toBodyFrame(body: number, point: number[]): number[] {
    const x = (this.data.xpos as Float64Array).subarray(3 * body, 3 * body + 3);
    const rot = (this.data.xmat as Float64Array).subarray(9 * body, 9 * body + 9);
    const offset = [point[0] - x[0], point[1] - x[1], point[2] - x[2]];
    return [
      rot[0] * offset[0] + rot[3] * offset[1] + rot[6] * offset[2],
      rot[1] * offset[0] + rot[4] * offset[1] + rot[7] * offset[2],
      rot[2] * offset[0] + rot[5] * offset[1] + rot[8] * offset[2],
    ];
  }
  bodyId(name: string): number {
    return this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_BODY.value, name) as number;
  }
}
