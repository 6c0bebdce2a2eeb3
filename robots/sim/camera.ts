/**
 * A pinhole camera made of rays: one `mj_multiRay` per frame over the MuJoCo model (there is no OpenGL here).
 * Each pixel yields the geom it hits, its distance and the surface normal, so one pass gives an RGB image,
 * a depth image and a segmentation — the detector is built on the last.
 */
import sharp from "sharp";
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
const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const norm = (a: Vec3): Vec3 => {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};

/** A camera pose looking from `eye` at `target`, with world +z as up unless looking straight down. */
export function lookAt(eye: Vec3, target: Vec3, up: Vec3 = [0, 0, 1]): CameraPose {
  const forward = norm(sub(target, eye));
  const side = cross(forward, up);
  const safeUp: Vec3 = Math.hypot(...side) < 1e-6 ? [0, 1, 0] : up;
  return { position: eye, forward, up: safeUp };
}

const LIGHT = norm([0.3, -0.4, 1]);

export class RayCamera {
  readonly n: number;
  private dirs: Float64Array;
  private outputs = new Map<number, { geom: any; dist: any; normal: any }>();
  /** Per-ray camera-frame coordinates: right, up, forward components of each pixel's unit direction. */
  private local: Float64Array;
  private batch: Int32Array;
  private batchDirs: Float64Array;
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
    this.dirs = new Float64Array(3 * this.n);
    this.local = new Float64Array(3 * this.n);
    const f = width / 2 / Math.tan((fovDeg * Math.PI) / 360);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const r = x + 0.5 - width / 2;
        const u = height / 2 - (y + 0.5);
        const l = Math.hypot(r, u, f);
        this.local[3 * i] = r / l;
        this.local[3 * i + 1] = u / l;
        this.local[3 * i + 2] = f / l;
      }
    }
    this.batch = new Int32Array(this.n);
    this.batchDirs = new Float64Array(3 * this.n);
  }

  /** WASM-side output buffers of exactly `count` rays, kept per size (the coarse pass always has the same size). */
  private buffers(count: number): { geom: any; dist: any; normal: any } {
    let b = this.outputs.get(count);
    if (!b) {
      if (this.outputs.size > 8) this.disposeBuffers(this.n / 4);
      b = {
        geom: new this.mj.IntBuffer(count),
        dist: new this.mj.DoubleBuffer(count),
        normal: new this.mj.DoubleBuffer(3 * count),
      };
      this.outputs.set(count, b);
    }
    return b;
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

  /**
   * Renders the scene as it is in `data` (call mj_forward or mj_step first). `excludeBody` is not seen (-1: none).
   *
   * Rays are cast adaptively: first every other pixel of every other row; then a pixel whose sampled neighbours all
   * hit the same geom takes their average depth and normal, and only the rest — edges, where neighbours disagree —
   * get rays of their own. That casts about a third of the rays of a full pass. (A sliver under two pixels wide
   * lying wholly between samples can be missed; the detector ignores blobs that small anyway.)
   */
  render(model: MjModel, data: MjData, pose: CameraPose, excludeBody = -1): Frame {
    const f = norm(pose.forward);
    const r = norm(cross(f, pose.up));
    const u = cross(r, f);
    const L = this.local;
    const D = this.dirs;
    for (let i = 0; i < this.n; i++) {
      const a = L[3 * i],
        b = L[3 * i + 1],
        c = L[3 * i + 2];
      D[3 * i] = a * r[0] + b * u[0] + c * f[0];
      D[3 * i + 1] = a * r[1] + b * u[1] + c * f[1];
      D[3 * i + 2] = a * r[2] + b * u[2] + c * f[2];
    }
    const W = this.width,
      H = this.height;
    const geom = new Int32Array(this.n).fill(-2); // -2: not yet known
    const dist = new Float64Array(this.n);
    const normal = new Float64Array(3 * this.n);
    const batch = this.batch;

    const cast = (count: number) => {
      if (count === 0) return;
      const vec = this.batchDirs.subarray(0, 3 * count);
      for (let k = 0; k < count; k++) {
        const i = batch[k];
        vec[3 * k] = D[3 * i];
        vec[3 * k + 1] = D[3 * i + 1];
        vec[3 * k + 2] = D[3 * i + 2];
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
      const g = out.geom.GetView() as Int32Array;
      const d = out.dist.GetView() as Float64Array;
      const nv = out.normal.GetView() as Float64Array;
      for (let k = 0; k < count; k++) {
        const i = batch[k];
        geom[i] = g[k];
        dist[i] = d[k];
        normal[3 * i] = nv[3 * k];
        normal[3 * i + 1] = nv[3 * k + 1];
        normal[3 * i + 2] = nv[3 * k + 2];
      }
    };

    let count = 0;
    for (let y = 0; y < H; y += 2) for (let x = 0; x < W; x += 2) batch[count++] = y * W + x;
    cast(count);

    count = 0;
    const nb = [0, 0, 0, 0];
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (geom[i] !== -2) continue;
        let m = 0;
        const ox = x & 1,
          oy = y & 1;
        if (ox && !oy) {
          nb[0] = i - 1;
          nb[1] = i + 1;
          m = x + 1 < W ? 2 : 0;
        } else if (!ox && oy) {
          nb[0] = i - W;
          nb[1] = i + W;
          m = y + 1 < H ? 2 : 0;
        } else {
          nb[0] = i - W - 1;
          nb[1] = i - W + 1;
          nb[2] = i + W - 1;
          nb[3] = i + W + 1;
          m = x + 1 < W && y + 1 < H ? 4 : 0;
        }
        let same = m > 0;
        for (let k = 1; k < m && same; k++) same = geom[nb[k]] === geom[nb[0]];
        if (!same) {
          batch[count++] = i;
          continue;
        }
        geom[i] = geom[nb[0]];
        let dsum = 0,
          nx = 0,
          ny = 0,
          nz = 0;
        for (let k = 0; k < m; k++) {
          dsum += dist[nb[k]];
          nx += normal[3 * nb[k]];
          ny += normal[3 * nb[k] + 1];
          nz += normal[3 * nb[k] + 2];
        }
        const nl = Math.hypot(nx, ny, nz) || 1;
        dist[i] = dsum / m;
        normal[3 * i] = nx / nl;
        normal[3 * i + 1] = ny / nl;
        normal[3 * i + 2] = nz / nl;
      }
    }
    cast(count);
    this.lastRayCount = this.n / 4 + count;

    const rgba = model.geom_rgba as Float32Array;
    const rgb = new Uint8Array(3 * this.n);
    const depth = new Float32Array(this.n);
    for (let i = 0; i < this.n; i++) {
      const g = geom[i];
      if (g < 0) {
        // Background: a soft vertical gradient so "nothing hit" is never mistaken for a black object.
        const shade = 200 + Math.round((40 * Math.floor(i / W)) / H);
        rgb[3 * i] = shade;
        rgb[3 * i + 1] = shade;
        rgb[3 * i + 2] = shade + 10 > 255 ? 255 : shade + 10;
        continue;
      }
      depth[i] = dist[i];
      let lambert = normal[3 * i] * LIGHT[0] + normal[3 * i + 1] * LIGHT[1] + normal[3 * i + 2] * LIGHT[2];
      if (lambert < 0) lambert = -lambert * 0.5; // back faces of thin panels still get some light
      const k = 0.45 + 0.55 * lambert;
      rgb[3 * i] = Math.min(255, Math.round(255 * rgba[4 * g] * k));
      rgb[3 * i + 1] = Math.min(255, Math.round(255 * rgba[4 * g + 1] * k));
      rgb[3 * i + 2] = Math.min(255, Math.round(255 * rgba[4 * g + 2] * k));
    }
    return { width: W, height: H, rgb, depth, geom, fovDeg: this.fovDeg };
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
  const f = focalPixels(frame);
  const z = new Float32Array(frame.depth.length);
  for (let i = 0; i < z.length; i++) {
    const x = (i % frame.width) + 0.5 - frame.width / 2,
      y = Math.floor(i / frame.width) + 0.5 - frame.height / 2;
    z[i] = (frame.depth[i] * f) / Math.hypot(x, y, f);
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
