/** Camera messages as robots publish them, read into PNG frames and depth in metres (robots/msgs/images.ts). */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { encodeDepthPng, focalPixels } from "../../robots/sim/camera";
import {
  backProject,
  depthOf,
  ImageDecodeError,
  imageSize,
  MAX_FRAME_SIDE,
  pinholeInfo,
  pngOf,
  rawDepthImage,
  type RawImage,
} from "../../robots/msgs/images";

const header = { stamp: { sec: 1, nanosec: 2 }, frame_id: "camera" };
const raw = (encoding: string, width: number, height: number, bytes: number[], step?: number): RawImage => ({
  header,
  width,
  height,
  encoding,
  is_bigendian: 0,
  step: step ?? bytes.length / height,
  data: Buffer.from(bytes).toString("base64"),
});

/** The RGB of each pixel of a PNG. */
async function pixels(png: Buffer): Promise<number[][]> {
  const { data, info } = await sharp(png)
    .removeAlpha()
    .toColourspace("srgb")
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out: number[][] = [];
  for (let i = 0; i < info.width * info.height; i++)
    out.push([...data.subarray(i * info.channels, i * info.channels + 3)]);
  return out;
}

describe("camera messages", () => {
  it("reads rgb8, bgr8, rgba8, bgra8 and mono8 frames into the right colours", async () => {
    // Two pixels: red, then blue.
    expect(await pixels(await pngOf(raw("rgb8", 2, 1, [255, 0, 0, 0, 0, 255]), "/cam"))).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    expect(await pixels(await pngOf(raw("bgr8", 2, 1, [0, 0, 255, 255, 0, 0]), "/cam"))).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    expect(await pixels(await pngOf(raw("rgba8", 2, 1, [255, 0, 0, 255, 0, 0, 255, 255]), "/cam"))).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    expect(await pixels(await pngOf(raw("bgra8", 2, 1, [0, 0, 255, 255, 255, 0, 0, 255]), "/cam"))).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    expect(await pixels(await pngOf(raw("mono8", 2, 1, [10, 200]), "/cam"))).toEqual([
      [10, 10, 10],
      [200, 200, 200],
    ]);
  });

  it("drops the padding a row's step adds, and says what is wrong with a frame it cannot read", async () => {
    // 1x2 rgb8 with rows padded to 4 bytes: green above white.
    expect(await pixels(await pngOf(raw("rgb8", 1, 2, [0, 255, 0, 9, 255, 255, 255, 9], 4), "/cam"))).toEqual([
      [0, 255, 0],
      [255, 255, 255],
    ]);
    await expect(pngOf(raw("yuv422", 2, 1, [1, 2, 3, 4]), "/base/camera/image_raw")).rejects.toThrow(
      /\/base\/camera\/image_raw: image encoding "yuv422" is not one the agent reads/,
    );
    await expect(pngOf(raw("16UC1", 1, 1, [1, 2]), "/cam")).rejects.toThrow(
      /a depth encoding: give this topic as the camera's depth/,
    );
    await expect(pngOf({ ...raw("rgb8", 2, 2, [1, 2, 3]), step: 6 }, "/cam")).rejects.toThrow(ImageDecodeError);
    await expect(
      pngOf({ header, format: "jpeg", data: Buffer.from("not a jpeg").toString("base64") }, "/cam/compressed"),
    ).rejects.toThrow(/\/cam\/compressed: CompressedImage format "jpeg" is neither JPEG nor PNG/);
  });

  it("reads JPEG and PNG CompressedImages, keeps a PNG byte for byte, and caps a large frame", async () => {
    const png = await sharp({ create: { width: 4, height: 2, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .png()
      .toBuffer();
    const jpeg = await sharp(png).jpeg({ quality: 95 }).toBuffer();
    expect(await pngOf({ header, format: "png", data: png.toString("base64") }, "/c")).toEqual(png);
    const fromJpeg = await pngOf({ header, format: "jpeg", data: jpeg.toString("base64") }, "/c");
    expect(imageSize({ header, format: "png", data: fromJpeg.toString("base64") })).toEqual({ width: 4, height: 2 });
    for (const p of await pixels(fromJpeg)) expect(p[2]).toBeGreaterThan(240);
    expect(imageSize({ header, format: "jpeg", data: jpeg.toString("base64") })).toEqual({ width: 4, height: 2 });
    const big = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: "white" } })
      .jpeg()
      .toBuffer();
    const capped = await sharp(await pngOf({ header, format: "jpeg", data: big.toString("base64") }, "/c")).metadata();
    expect([capped.width, capped.height]).toEqual([MAX_FRAME_SIDE, MAX_FRAME_SIDE / 2]);
  });

  it("reads depth as metres from 16UC1 (either byte order), 32FC1, a 16-bit PNG and compressedDepth, and back-projects it", async () => {
    const mm = rawDepthImage(header, 2, 1, [1.5, 0]);
    expect(Array.from((await depthOf(mm, "/d")).metres)).toEqual([1.5, 0]);
    const be = Buffer.alloc(4);
    be.writeUInt16BE(2500, 0);
    expect((await depthOf({ ...raw("16UC1", 2, 1, [...be]), is_bigendian: 1 }, "/d")).metres[0]).toBeCloseTo(2.5);
    const floats = Buffer.alloc(8);
    floats.writeFloatLE(0.75, 0);
    floats.writeFloatLE(Number.NaN, 4);
    expect(Array.from((await depthOf(raw("32FC1", 2, 1, [...floats]), "/d")).metres)).toEqual([0.75, 0]);
    const png16 = await sharp(new Uint16Array([1200, 3400]), { raw: { width: 2, height: 1, channels: 1 } })
      .toColourspace("grey16")
      .png()
      .toBuffer();
    expect(
      Array.from((await depthOf({ header, format: "png", data: png16.toString("base64") }, "/d")).metres).map((x) =>
        Math.round(x * 1000),
      ),
    ).toEqual([1200, 3400]);
    const cd = Buffer.concat([Buffer.alloc(12), png16]);
    expect(
      (await depthOf({ header, format: "16UC1; compressedDepth png", data: cd.toString("base64") }, "/d")).metres[1],
    ).toBeCloseTo(3.4);
    await expect(depthOf(raw("rgb8", 1, 1, [1, 2, 3]), "/base/depth")).rejects.toThrow(
      /\/base\/depth: depth encoding "rgb8"/,
    );
    // A point 2 m ahead at the image's right edge of a 90° camera lies 2 m to the right.
    const depth = await depthOf(rawDepthImage(header, 100, 1, new Array(100).fill(2)), "/d");
    const info = pinholeInfo(header, 100, 1, 50);
    const point = backProject(depth, info, 99.5, 0)!;
    expect(point.z).toBeCloseTo(2);
    expect(point.x).toBeCloseTo(2, 1);
    expect(backProject(depth, { ...info, K: new Array(9).fill(0) }, 1, 0)).toBeUndefined();
  });

  it("reads a simulator's depth PNG as ROS depth: millimetres along the optical axis, where the camera saw them", async () => {
    // Three pixels of a 90° camera, each ray 2 m long: the middle one points straight ahead.
    const frame = {
      width: 3,
      height: 1,
      fovDeg: 90,
      rgb: new Uint8Array(9),
      depth: new Float32Array([2, 2, 2]),
      geom: new Int32Array(3),
    };
    const depth = await depthOf(
      { header, format: "png", data: (await encodeDepthPng(frame)).toString("base64") },
      "/d",
    );
    const focal = focalPixels(frame);
    expect(Array.from(depth.metres)).toEqual(
      [1, 0, 1].map((x) => Math.round((2000 * focal) / Math.hypot(x, 0, focal)) / 1000).map(Math.fround),
    );
    // Back-projected, the pixels' points lie 2 m from the camera again.
    const info = pinholeInfo(header, 3, 1, focal);
    for (const u of [0, 1, 2]) {
      const point = backProject(depth, info, u, 0)!;
      expect(Math.hypot(point.x, point.y, point.z)).toBeCloseTo(2, 2);
    }
  });
});
