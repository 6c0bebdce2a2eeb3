/**
 * A palm scene's parts as model handles, looked up once by name in the compiled MJCF: the palm, the things it
 * can grasp (free objects and door handles), the named points and joints reward terms refer to, and the locks.
 */
import type { Mujoco, MjModel } from "../mujoco";
import type { JointRef, Point } from "./rewards";
import type { SceneSpec } from "./scene";

export interface Thing {
  name: string;
  kind: "object" | "handle";
  body: number;
  point: Point;
  free: boolean;
  /** qvel address of a free joint. */
  dof: number;
  /** Largest principal inertia (orientation hold gains). */
  inertia: number;
  mass: number;
  /** Height of the body origin when resting upright on the floor. */
  restHeight: number;
}

export interface Lock {
  name: string;
  place: string;
  joint: JointRef;
  lever?: { joint: JointRef; threshold: number };
  sensor?: { surface: SceneSpec["surfaces"][number]; minMass: number };
}

export interface SceneParts {
  palmBody: number;
  /** qpos addresses of the palm's x, y, z slides. */
  palmQpos: number[];
  things: Thing[];
  thingIndex: Map<string, number>;
  /** Every name a term may use as a point, in the order they are listed to clients. */
  points: Map<string, Point>;
  joints: Map<string, JointRef>;
  locks: Lock[];
}

/** What the indexer reads of a scene (any palm world's SceneSpec: tabletop, blocks, workbench). */
export type IndexableScene = Pick<SceneSpec, "objects" | "joints" | "surfaces" | "locks"> & {
  name: string;
  containers: { name: string }[];
  fixtures: { name: string }[];
  targets: { name: string }[];
};

export function indexScene(mj: Mujoco, model: MjModel, scene: IndexableScene): SceneParts {
  const id = (type: string, name: string) => mj.mj_name2id(model, mj.mjtObj[type].value, name) as number;
  const must = (type: string, name: string) => {
    const i = id(type, name);
    if (i < 0) throw new Error(`scene ${scene.name}: no ${type} ${name}`);
    return i;
  };
  const things: Thing[] = [];
  const thingIndex = new Map<string, number>();
  const points = new Map<string, Point>();
  const joints = new Map<string, JointRef>();
  const addThing = (thing: Thing) => {
    thingIndex.set(thing.name, things.length);
    things.push(thing);
    points.set(thing.name, thing.point);
  };
  const palmBody = must("mjOBJ_BODY", "palm");
  points.set("palm", { kind: "body", id: palmBody });
  const jntQpos = model.jnt_qposadr as Int32Array,
    jntDof = model.jnt_dofadr as Int32Array,
    range = model.jnt_range as Float64Array;
  const palmQpos = ["palm_x", "palm_y", "palm_z"].map((j) => jntQpos[must("mjOBJ_JOINT", j)]);
  const bodyMass = model.body_mass as Float64Array,
    bodyInertia = model.body_inertia as Float64Array;
  const geomBody = model.geom_bodyid as Int32Array;
  for (const o of scene.objects) {
    const bodyId = must("mjOBJ_BODY", o);
    const j = must("mjOBJ_JOINT", o);
    // Lowest point of the body's geoms below its origin (geoms are authored upright: boxes, cylinders, spheres).
    let bottom = 0;
    for (let g = 0; g < (model.ngeom as number); g++) {
      if (geomBody[g] !== bodyId) continue;
      const type = (model.geom_type as Int32Array)[g];
      const size = (model.geom_size as Float64Array).subarray(3 * g, 3 * g + 3);
      const half =
        type === mj.mjtGeom.mjGEOM_BOX.value ? size[2] : type === mj.mjtGeom.mjGEOM_SPHERE.value ? size[0] : size[1];
      bottom = Math.max(bottom, half - (model.geom_pos as Float64Array)[3 * g + 2]);
    }
    addThing({
      name: o,
      kind: "object",
      body: bodyId,
      point: { kind: "body", id: bodyId },
      free: true,
      dof: jntDof[j],
      inertia: Math.max(bodyInertia[3 * bodyId], bodyInertia[3 * bodyId + 1], bodyInertia[3 * bodyId + 2]),
      mass: bodyMass[bodyId],
      restHeight: bottom,
    });
  }
  for (const j of scene.joints) {
    const geomId = must("mjOBJ_GEOM", j.handle);
    addThing({
      name: j.handle,
      kind: "handle",
      body: geomBody[geomId],
      point: { kind: "geom", id: geomId },
      free: false,
      dof: -1,
      inertia: 0,
      mass: bodyMass[geomBody[geomId]],
      restHeight: 0,
    });
    const ji = must("mjOBJ_JOINT", j.name);
    joints.set(j.name, { qpos: jntQpos[ji], dof: jntDof[ji], closed: range[2 * ji], open: range[2 * ji + 1] });
  }
  for (const c of scene.containers) points.set(c.name, { kind: "site", id: must("mjOBJ_SITE", c.name) });
  for (const s of scene.surfaces) points.set(s.name, { kind: "site", id: must("mjOBJ_SITE", s.site) });
  for (const fx of scene.fixtures) points.set(fx.name, { kind: "site", id: must("mjOBJ_SITE", fx.name) });
  for (const t of scene.targets) points.set(t.name, { kind: "site", id: must("mjOBJ_SITE", t.name) });
  const locks = scene.locks.map((lock) => {
    const owner = scene.joints.find((j) => j.name === lock.joint)!;
    return {
      name: lock.joint,
      place: owner.object,
      joint: joints.get(lock.joint)!,
      lever: lock.lever ? { joint: joints.get(lock.lever.joint)!, threshold: lock.lever.threshold } : undefined,
      sensor: lock.sensor
        ? { surface: scene.surfaces.find((s) => s.name === lock.sensor!.surface)!, minMass: lock.sensor.minMass }
        : undefined,
    };
  });
  return { palmBody, palmQpos, things, thingIndex, points, joints, locks };
}
