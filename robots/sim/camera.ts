/**
 * A pinhole camera made of rays: one `mj_multiRay` per frame over the MuJoCo model (there is no OpenGL here).
 * Each pixel yields the geom it hits, its distance and the surface normal, so one pass gives an RGB image,
 * a depth image and a segmentation — the detector is built on the last.
 */
import sharp from "sharp";
import type { DoubleBuffer, IntBuffer } from "@mujoco/mujoco";
import type { Mujoco, MjModel, MjData } from "./mujoco";

export type Vec3 = [number, number, number];

export interface CameraPose {
  position: Vec3;
  /** Unit vector the optical axis points along. */
  forward: Vec3;
  /** Unit vector that is "up" in the image (need not be exactly orthogonal to forward). */
  up: Vec3;
}

export interface Frame {
  width: number;
  height: number;
  /** RGB, 3 bytes per pixel, row-major from the top-left. */
  rgb: Uint8Array;
  /** Metres along the ray; 0 where nothing was hit. */
  depth: Float32Array;
  /** Geom id hit by each pixel, -1 for none. */
  geom: Int32Array;
  /** The camera's horizontal field of view, degrees (square pixels, principal point at the image's centre). */
  fovDeg: number;
}

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (first: Vec3, second: Vec3): Vec3 => [
  first[1] * second[2] - first[2] * second[1],
  first[2] * second[0] - first[0] * second[2],
  first[0] * second[1] - first[1] * second[0],
];
const norm = (vector: Vec3): Vec3 => {
  const length = Math.hypot(vector[0], vector[1], vector[2]) || 1;
  return [vector[0] / length, vector[1] / length, vector[2] / length];
};

/** A camera pose looking from `eye` at `target`, with world +z as up unless looking straight down. */
export function lookAt(eye: Vec3, target: Vec3, up: Vec3 = [0, 0, 1]): CameraPose {
  const forward = norm(sub(target, eye));
  const side = cross(forward, up);
  const safeUp: Vec3 = Math.hypot(...side) < 1e-6 ? [0, 1, 0] : up;
  return { position: eye, forward, up: safeUp };
}

const LIGHT = norm([0.3, -0.4, 1]);

/**
 * Math.hypot of three numbers, operation for operation as V8 computes it (src/builtins/math.tq: the largest magnitude
 * first, then a compensated sum of the squares scaled by it), so every result is the same double; inline, without the
 * builtin's call and argument handling, it costs a quarter (test/robots/sim/camera.test.ts holds the two equal).
 */
export function hypot3(x: number, y: number, z: number): number {
  if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z))
    return Math.abs(x) === Infinity || Math.abs(y) === Infinity || Math.abs(z) === Infinity ? Infinity : NaN;
  x = Math.abs(x);
  y = Math.abs(y);
  z = Math.abs(z);
  let max = x > y ? x : y;
  if (z > max) max = z;
  if (max === Infinity) return Infinity;
  if (max === 0) return 0;
  let sum = 0,
    compensation = 0;
  let scaled = x / max;
  let summand = scaled * scaled - compensation;
  let preliminary = sum + summand;
  compensation = preliminary - sum - summand;
  sum = preliminary;
  scaled = y / max;
  summand = scaled * scaled - compensation;
  preliminary = sum + summand;
  compensation = preliminary - sum - summand;
  sum = preliminary;
  scaled = z / max;
  summand = scaled * scaled - compensation;
  sum += summand;
  return Math.sqrt(sum) * max;
}

/** What each pixel's ray hit: the geom (-1 none, -2 not cast yet), its distance and the surface normal. */
interface Hits {
  geom: Int32Array;
  dist: Float64Array;
  normal: Float64Array;
}

/** A filled pixel's depth and its normal: the samples' summed normal, normalised. */
function setMean(
  dist: Float64Array,
  normal: Float64Array,
  i: number,
  depth: number,
  nx: number,
  ny: number,
  nz: number,
) {
  const nl = hypot3(nx, ny, nz) || 1;
  dist[i] = depth;
  normal[3 * i] = nx / nl;
  normal[3 * i + 1] = ny / nl;
  normal[3 * i + 2] = nz / nl;
}

export class RayCamera {
  readonly n: number;
  /** Right, up and forward of the frame being rendered (aim), in world coordinates. */
  private axes = new Float64Array(9);
  private outputs = new Map<number, { geom: IntBuffer; dist: DoubleBuffer; normal: DoubleBuffer }>();
  /** Per-ray camera-frame coordinates: right, up, forward components of each pixel's unit direction. */
  private local: Float64Array;
  private batch: Int32Array;
  private batchDirs: Float64Array;
  private dist: Float64Array;
  private normal: Float64Array;
  /** Rays cast for the last frame (for benchmarks). */
  lastRayCount = 0;

  constructor(
    private readonly mj: Mujoco,
    readonly width = 320,
    readonly height = 240,
    /** Horizontal field of view, degrees. */
    readonly fovDeg = 70,
    /** MuJoCo geom groups this camera sees (robots' own geoms can sit in a group it skips). */
    readonly geomGroups: number[] = [1, 1, 1, 1, 1, 1],
  ) {
    this.n = width * height;
    this.local = new Float64Array(3 * this.n);
    const focal = width / 2 / Math.tan((fovDeg * Math.PI) / 360);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const right = x + 0.5 - width / 2;
        const up = height / 2 - (y + 0.5);
        const length = Math.hypot(right, up, focal);
        this.local[3 * i] = right / length;
        this.local[3 * i + 1] = up / length;
        this.local[3 * i + 2] = focal / length;
      }
    }
    this.batch = new Int32Array(this.n);
    this.batchDirs = new Float64Array(3 * this.n);
    this.dist = new Float64Array(this.n);
    this.normal = new Float64Array(3 * this.n);
  }

  /** WASM-side output buffers of exactly `count` rays, kept per size (the coarse pass always has the same size). */
  private buffers(count: number): { geom: IntBuffer; dist: DoubleBuffer; normal: DoubleBuffer } {
    let entry = this.outputs.get(count);
    if (!entry) {
      if (this.outputs.size > 8) this.disposeBuffers(this.n / 4);
      entry = {
        geom: new this.mj.IntBuffer(count),
        dist: new this.mj.DoubleBuffer(count),
        normal: new this.mj.DoubleBuffer(3 * count),
      };
      this.outputs.set(count, entry);
    }
    return entry;
  }

  private disposeBuffers(keep?: number): void {
    for (const [size, b] of this.outputs) {
      if (size === keep) continue;
      b.geom.delete();
      b.dist.delete();
      b.normal.delete();
      this.outputs.delete(size);
    }
  }

  /** Casts the rays of the first `count` pixels in `this.batch` and writes what each hit into `into`. */
  private cast(count: number, model: MjModel, data: MjData, pose: CameraPose, excludeBody: number, into: Hits): void {
    if (count === 0) return;
    const { geom, dist, normal } = into;
    const batch = this.batch;
    const local = this.local;
    const [rightX, rightY, rightZ, upX, upY, upZ, forwardX, forwardY, forwardZ] = this.axes;
    const vec = this.batchDirs.subarray(0, 3 * count);
    // Each batch pixel's ray in the world (only these: a frame casts about a third of its pixels).
    for (let k = 0; k < count; k++) {
      const i = batch[k];
      const alongRight = local[3 * i],
        alongUp = local[3 * i + 1],
        alongForward = local[3 * i + 2];
      vec[3 * k] = alongRight * rightX + alongUp * upX + alongForward * forwardX;
      vec[3 * k + 1] = alongRight * rightY + alongUp * upY + alongForward * forwardY;
      vec[3 * k + 2] = alongRight * rightZ + alongUp * upZ + alongForward * forwardZ;
    }
    // The output buffers must have exactly `count` entries.
    const out = this.buffers(count);
    this.mj.mj_multiRay(
      model,
      data,
      pose.position,
      vec,
      this.geomGroups,
      true,
      excludeBody,
      out.geom,
      out.dist,
      out.normal,
      count,
      50,
    );
    const hitGeoms = out.geom.GetView() as Int32Array;
    const hitDists = out.dist.GetView() as Float64Array;
    const nv = out.normal.GetView() as Float64Array;
    for (let k = 0; k < count; k++) {
      const i = batch[k];
      geom[i] = hitGeoms[k];
      dist[i] = hitDists[k];
      normal[3 * i] = nv[3 * k];
      normal[3 * i + 1] = nv[3 * k + 1];
      normal[3 * i + 2] = nv[3 * k + 2];
    }
  }

  /**
   * Renders the scene as it is in `data` (call mj_forward or mj_step first). `excludeBody` is not seen (-1: none).
   *
   * Rays are cast adaptively: first every other pixel of every other row; then a pixel whose sampled neighbours all
   * hit the same geom takes their average depth and normal, and only the rest — edges, where neighbours disagree —
   * get rays of their own. That casts about a third of the rays of a full pass. (A sliver under two pixels wide
   * lying wholly between samples can be missed; the detector ignores blobs that small anyway.)
   */
  render(model: MjModel, data: MjData, pose: CameraPose, excludeBody = -1): Frame {
    // Each pass is a method of its own: a frame runs each loop once, and one long function holding them all was
    // optimised on the first loop's stack (OSR) without feedback for the rest, then thrown back to the interpreter on
    // every frame.
    this.aim(pose);
    const geom = new Int32Array(this.n).fill(-2); // -2: not yet known
    // Distance and normal are this camera's own scratch, written for every pixel (cast or filled) before being read.
    const hits: Hits = { geom, dist: this.dist, normal: this.normal };
    this.cast(this.coarse(), model, data, pose, excludeBody, hits);
    const edges = this.fillBetween(hits);
    this.cast(edges, model, data, pose, excludeBody, hits);
    this.lastRayCount = this.n / 4 + edges;
    const { rgb, depth } = this.shade(model.geom_rgba as Float32Array, hits);
    return { width: this.width, height: this.height, rgb, depth, geom, fovDeg: this.fovDeg };
  }

  /** The camera's axes in the world for a camera at `pose`: right, up and forward, each a unit vector. */
  private aim(pose: CameraPose): void {
    const forward = norm(pose.forward);
    const right = norm(cross(forward, pose.up));
    const up = cross(right, forward);
    this.axes.set([...right, ...up, ...forward]);
  }

  /** The first pass's pixels (every other one of every other row) into the batch; how many. */
  private coarse(): number {
    const width = this.width,
      height = this.height,
      batch = this.batch;
    let count = 0;
    for (let y = 0; y < height; y += 2) for (let x = 0; x < width; x += 2) batch[count++] = y * width + x;
    return count;
  }

  /**
   * Each pixel between samples that all hit one geom takes their mean depth and normal; the others (edges) go into
   * the batch for rays of their own, in row-major order. Returns how many. The samples are the even pixels of the even
   * rows: a pixel between two of a row averages those two, one between two of a column those, and one in the middle of
   * four the four (a pixel on the last row or column, short of its far samples, is an edge).
   */
  private fillBetween(hits: Hits): number {
    const width = this.width,
      height = this.height,
      batch = this.batch;
    let count = 0;
    for (let y = 0; y < height; y++) {
      const row = y * width;
      if ((y & 1) === 0) {
        for (let x = 1; x < width; x += 2) {
          const i = row + x;
          if (x + 1 >= width || !this.blend2(hits, i, i - 1, i + 1)) batch[count++] = i;
        }
        continue;
      }
      const lastRow = y + 1 >= height;
      for (let x = 0; x < width; x++) {
        const i = row + x;
        const filled =
          (x & 1) === 0
            ? !lastRow && this.blend2(hits, i, i - width, i + width)
            : !lastRow &&
              x + 1 < width &&
              this.blend4(hits, i, i - width - 1, i - width + 1, i + width - 1, i + width + 1);
        if (!filled) batch[count++] = i;
      }
    }
    return count;
  }

  /** Pixel `i` from samples `first` and `second` when both hit the same geom (mean depth, normalised mean normal). */
  private blend2({ geom, dist, normal }: Hits, i: number, first: number, second: number): boolean {
    const sampled = geom[first];
    if (geom[second] !== sampled) return false;
    geom[i] = sampled;
    // The sums start at 0 and add in sample order, as the mean of any number of samples does: the same doubles.
    let dsum = 0,
      nx = 0,
      ny = 0,
      nz = 0;
    dsum += dist[first];
    nx += normal[3 * first];
    ny += normal[3 * first + 1];
    nz += normal[3 * first + 2];
    dsum += dist[second];
    nx += normal[3 * second];
    ny += normal[3 * second + 1];
    nz += normal[3 * second + 2];
    setMean(dist, normal, i, dsum / 2, nx, ny, nz);
    return true;
  }

  /**
   * Pixel `i` from the four samples around it when all hit the same geom. Written out as blend2 is: the same sums
   * through a shared helper and a typed array of four made a frame about 30 % slower.
   */
  private blend4(
    { geom, dist, normal }: Hits,
    i: number,
    upLeft: number,
    upRight: number,
    downLeft: number,
    downRight: number,
  ): boolean {
    const sampled = geom[upLeft];
    if (geom[upRight] !== sampled || geom[downLeft] !== sampled || geom[downRight] !== sampled) return false;
    geom[i] = sampled;
    let dsum = 0,
      nx = 0,
      ny = 0,
      nz = 0;
    dsum += dist[upLeft];
    nx += normal[3 * upLeft];
    ny += normal[3 * upLeft + 1];
    nz += normal[3 * upLeft + 2];
    dsum += dist[upRight];
    nx += normal[3 * upRight];
    ny += normal[3 * upRight + 1];
    nz += normal[3 * upRight + 2];
    dsum += dist[downLeft];
    nx += normal[3 * downLeft];
    ny += normal[3 * downLeft + 1];
    nz += normal[3 * downLeft + 2];
    dsum += dist[downRight];
    nx += normal[3 * downRight];
    ny += normal[3 * downRight + 1];
    nz += normal[3 * downRight + 2];
    setMean(dist, normal, i, dsum / 4, nx, ny, nz);
    return true;
  }

  /** The image and depth from what each ray hit: the geom's colour under one light, a grey gradient where none. */
  private shade(rgba: Float32Array, { geom, dist, normal }: Hits): { rgb: Uint8Array; depth: Float32Array } {
    const width = this.width,
      height = this.height;
    const pixels = this.n;
    const [lx, ly, lz] = LIGHT;
    const rgb = new Uint8Array(3 * pixels);
    const depth = new Float32Array(pixels);
    // Each geom's colour on the 0-255 scale, once a frame rather than once a pixel (the same products).
    const colour = new Float64Array((3 * rgba.length) / 4);
    for (let g = 0; g < rgba.length / 4; g++)
      for (let channel = 0; channel < 3; channel++) colour[3 * g + channel] = 255 * rgba[4 * g + channel];
    for (let y = 0, i = 0; y < height; y++) {
      // Background: a soft vertical gradient so "nothing hit" is never mistaken for a black object.
      const background = 200 + Math.round((40 * y) / height);
      const backgroundBlue = background + 10 > 255 ? 255 : background + 10;
      for (let x = 0; x < width; x++, i++) {
        const geomId = geom[i];
        if (geomId < 0) {
          rgb[3 * i] = background;
          rgb[3 * i + 1] = background;
          rgb[3 * i + 2] = backgroundBlue;
          continue;
        }
        depth[i] = dist[i];
        let lambert = normal[3 * i] * lx + normal[3 * i + 1] * ly + normal[3 * i + 2] * lz;
        if (lambert < 0) lambert = -lambert * 0.5; // back faces of thin panels still get some light
        const k = 0.45 + 0.55 * lambert;
        rgb[3 * i] = Math.min(255, Math.round(colour[3 * geomId] * k));
        rgb[3 * i + 1] = Math.min(255, Math.round(colour[3 * geomId + 1] * k));
        rgb[3 * i + 2] = Math.min(255, Math.round(colour[3 * geomId + 2] * k));
      }
    }
    return { rgb, depth };
  }

  dispose(): void {
    this.disposeBuffers();
  }
}

/** PNG of the RGB image. */
export function encodeRgbPng(frame: Frame): Promise<Buffer> {
  return sharp(Buffer.from(frame.rgb.buffer, frame.rgb.byteOffset, frame.rgb.byteLength), {
    raw: { width: frame.width, height: frame.height, channels: 3 },
  })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** The camera's focal length in pixels. */
export const focalPixels = (frame: Pick<Frame, "width" | "fovDeg">) =>
  frame.width / 2 / Math.tan((frame.fovDeg * Math.PI) / 360);

/**
 * Depth as ROS depth images give it: each pixel's distance along the optical axis (z), not along its own ray, in
 * metres; 0 where nothing was hit.
 */
export function zDepth(frame: Frame): Float32Array {
  const focal = focalPixels(frame);
  const z = new Float32Array(frame.depth.length);
  for (let i = 0; i < z.length; i++) {
    const x = (i % frame.width) + 0.5 - frame.width / 2,
      y = Math.floor(i / frame.width) + 0.5 - frame.height / 2;
    z[i] = (frame.depth[i] * focal) / Math.hypot(x, y, focal);
  }
  return z;
}

/** 16-bit greyscale PNG of the depth image (z, millimetres; 0 = no return), as ROS depth images use. */
export function encodeDepthPng(frame: Frame): Promise<Buffer> {
  const z = zDepth(frame);
  const mm = new Uint16Array(z.length);
  for (let i = 0; i < mm.length; i++) mm[i] = Math.min(65535, Math.round(z[i] * 1000));
  // sharp reads 16-bit raw pixels from a Uint16Array (a Buffer would be taken as 8-bit samples).
  return sharp(mm, { raw: { width: frame.width, height: frame.height, channels: 1 } })
    .toColourspace("grey16")
    .png({ compressionLevel: 1 })
    .toBuffer();
}
