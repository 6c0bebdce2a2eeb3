/**
 * The blocks world's front camera (a ray-cast RGB-D view of the basket, as the other worlds' cameras) and its detector:
 * each block with its box, the colour of its own pixels, and where it is — in the gripper, on another block, on the
 * basket floor — worked out from the block's depth pixels, the other blocks' and the gripper as the arm knows it
 * (robots/sim/locate.ts), never from where the world keeps the blocks.
 */
import { RayCamera, encodeDepthPng, encodeRgbPng, lookAt, type CameraPose, type Frame } from "../camera";
import { detectObjects, detectionsHeader, type DetectorNoise } from "../detector";
import { entityClouds, heldBy, locateCloud, type Hand } from "../locate";
import type { Mujoco, MjModel, MjData } from "../mujoco";
import { Rng } from "../../random";
import { colorName } from "../palm/perception";
import type { DetectionsMessage as BaseDetections, PlacedDetection, Stamp } from "../../msgs/detections";

export type BlocksDetections = BaseDetections & { detections: (PlacedDetection & { color: string })[] };

export function blocksCameraPose(): CameraPose {
  return lookAt([0, -0.42, 0.4], [0, 0, 0.02]);
}

export interface BlocksView {
  /** The gripper as the arm knows it: its grasp point, and whether its fingers stopped on a block. */
  hand(): Hand;
  stamp(): Stamp;
}

export class BlocksCamera {
  private camera: RayCamera;
  private rng: Rng;
  private noise: DetectorNoise;
  private geomToLabel: Int32Array;
  private basketGeoms: Uint8Array;

  constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly labels: string[],
    opts: { seed?: number; noise?: Partial<DetectorNoise>; width?: number; height?: number },
  ) {
    this.rng = new Rng(opts.seed ?? 0);
    this.noise = { missRate: opts.noise?.missRate ?? 0, mislabelRate: opts.noise?.mislabelRate ?? 0 };
    const index = new Map(labels.map((l, i) => [l, i]));
    const ng = model.ngeom as number;
    this.geomToLabel = new Int32Array(ng).fill(-1);
    this.basketGeoms = new Uint8Array(ng);
    for (let g = 0; g < ng; g++) {
      const name = ((mj.mj_id2name(model, mj.mjtObj.mjOBJ_GEOM.value, g) as string | null) ?? "").split("__")[0];
      this.geomToLabel[g] = index.get(name) ?? -1;
      if (name === "basket") this.basketGeoms[g] = 1;
    }
    this.camera = new RayCamera(mj, opts.width ?? 320, opts.height ?? 240, 60);
  }

  dispose(): void {
    this.camera.dispose();
  }

  renderFrame(): Frame {
    this.mj.mj_forward(this.model, this.data);
    return this.camera.render(this.model, this.data, blocksCameraPose(), -1);
  }

  detect(frame: Frame, view: BlocksView): BlocksDetections {
    const raw = detectObjects(frame, this.geomToLabel, this.labels, this.labels, this.noise, this.rng);
    const labelCount = this.labels.length;
    const sum = new Float64Array(3 * labelCount),
      cnt = new Int32Array(labelCount);
    let basketPx = 0;
    for (let i = 0; i < frame.geom.length; i++) {
      const geom = frame.geom[i];
      if (geom < 0) continue;
      if (this.basketGeoms[geom]) basketPx++;
      const entity = this.geomToLabel[geom];
      if (entity < 0) continue;
      cnt[entity]++;
      for (let k = 0; k < 3; k++) sum[3 * entity + k] += frame.rgb[3 * i + k];
    }
    const clouds = entityClouds(frame, blocksCameraPose(), this.camera.fovDeg, this.geomToLabel, labelCount);
    const held = heldBy(
      [view.hand()],
      raw.map((d) => clouds[d.entity]),
    );
    const detections = raw.map((detection, k) => {
      const entity = detection.entity;
      // Resting on another block: on what its pixels show under it (as seen in this frame, under whatever name).
      const supports = raw.filter((o) => o.entity !== entity).map((o) => ({ name: o.label, cloud: clouds[o.entity] }));
      const location = locateCloud(clouds[entity], {
        heldBy: held[k],
        supports,
        fallback: { relation: "in", place: "basket" },
      });
      return {
        label: detection.label,
        score: detection.score,
        box: detection.box,
        location,
        color: colorName(
          sum[3 * entity] / cnt[entity],
          sum[3 * entity + 1] / cnt[entity],
          sum[3 * entity + 2] / cnt[entity],
        ),
      };
    });
    const places =
      basketPx >= 50 ? [{ name: "basket", state: "open" as const, pixels: basketPx, insidePixels: basketPx }] : [];
    return { ...detectionsHeader("arm", "front_camera", frame, view.stamp()), detections, places };
  }

  async render(
    view: BlocksView,
  ): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: BlocksDetections }> {
    const frame = this.renderFrame();
    const detections = this.detect(frame, view);
    const [image, depth] = await Promise.all([encodeRgbPng(frame), encodeDepthPng(frame)]);
    return { camera: "front", frame, image, depth, detections };
  }
}
