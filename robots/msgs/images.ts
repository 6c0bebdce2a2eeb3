/**
 * Camera messages as robots publish them (`sensor_msgs/Image`, `sensor_msgs/CompressedImage`, `sensor_msgs/CameraInfo`),
 * read into what the agent keeps and a model is shown — a PNG — and depth into metres. Both ends import this module:
 * a simulator that speaks standard messages writes them with it, the agent reads them with it.
 *
 * Colour: raw rgb8, bgr8, rgba8, bgra8, mono8 (and 8UC1/8UC3/8UC4, OpenCV's names for mono8, bgr8, bgra8); compressed
 * JPEG or PNG. Depth: raw 16UC1 (millimetres; either byte order) or 32FC1 (metres); compressed as a 16-bit PNG
 * (ours) or image_transport's compressedDepth (a 12-byte header, then a 16-bit PNG). Anything else is a clear error
 * naming the encoding and the topic. Decoding is done once per message and only when someone looks.
 */
import sharp, { type Sharp } from "sharp";

export interface Stamp {
  sec: number;
  nanosec: number;
}

/** `sensor_msgs/Image`: `data` is base64 of the raw bytes (as rosbridge sends `uint8[]`), `step` bytes per row. */
export interface RawImage {
  header: { stamp: Stamp; frame_id: string };
  height: number;
  width: number;
  encoding: string;
  is_bigendian?: number | boolean;
  step: number;
  data: string;
}

/** `sensor_msgs/CompressedImage`: `format` says jpeg or png (and for depth what it holds). */
export interface CompressedImage {
  header: { stamp: Stamp; frame_id: string };
  format: string;
  data: string;
}

export type ImageMessage = RawImage | CompressedImage;

/** `sensor_msgs/CameraInfo`'s part the agent uses: size and the intrinsic matrix K (row-major 3×3). */
export interface CameraInfo {
  header?: { stamp: Stamp; frame_id: string };
  width: number;
  height: number;
  K?: number[];
  k?: number[];
}

export class ImageDecodeError extends Error {
  override name = "ImageDecodeError";
}

/** How large a frame the agent keeps: a longer side is scaled down (a 4K camera would fill the artifact store). */
export const MAX_FRAME_SIDE = 1280;

const isRaw = (message: ImageMessage): message is RawImage =>
  typeof (message as RawImage).encoding === "string" && typeof (message as RawImage).width === "number";

/** Width and height of a PNG or JPEG, from its first bytes; undefined when it is neither. */
export function encodedSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47)
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  for (let i = 2; i + 9 < bytes.length;) {
    if (bytes[i] !== 0xff) break;
    const marker = bytes[i + 1];
    if (marker >= 0xc0 && marker <= 0xc3)
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return undefined;
}

/** A message's frame size without decoding it (raw: its fields; compressed: its header bytes). */
export function imageSize(message: ImageMessage): { width: number; height: number } | undefined {
  if (isRaw(message))
    return message.width > 0 && message.height > 0 ? { width: message.width, height: message.height } : undefined;
  return typeof message.data === "string"
    ? encodedSize(Buffer.from(message.data.slice(0, 65_536), "base64"))
    : undefined;
}

/** Colour encodings: channels in the message, and the order that makes them RGB(A). */
const COLOUR: Record<string, { channels: 1 | 3 | 4; swap: boolean }> = {
  rgb8: { channels: 3, swap: false },
  bgr8: { channels: 3, swap: true },
  rgba8: { channels: 4, swap: false },
  bgra8: { channels: 4, swap: true },
  mono8: { channels: 1, swap: false },
  "8uc1": { channels: 1, swap: false },
  "8uc3": { channels: 3, swap: true },
  "8uc4": { channels: 4, swap: true },
};
const DEPTH_ENCODINGS = new Set(["16uc1", "mono16", "32fc1"]);

/** The bytes of a raw image's rows without the padding `step` may add at each row's end. */
function rows(image: RawImage, bytesPerPixel: number, topic: string): Buffer {
  const data = Buffer.from(image.data, "base64");
  const row = image.width * bytesPerPixel;
  const step = image.step || row;
  if (step < row || data.length < step * (image.height - 1) + row) {
    throw new ImageDecodeError(
      `${topic}: a ${image.width}x${image.height} ${image.encoding} image needs ${step * image.height} bytes (step ${step}); the message has ${data.length}`,
    );
  }
  if (step === row) return data.subarray(0, row * image.height);
  const out = Buffer.alloc(row * image.height);
  for (let y = 0; y < image.height; y++) data.copy(out, y * row, y * step, y * step + row);
  return out;
}

const capped = (img: Sharp, width: number, height: number) =>
  Math.max(width, height) > MAX_FRAME_SIDE ? img.resize(MAX_FRAME_SIDE, MAX_FRAME_SIDE, { fit: "inside" }) : img;

async function decodeColour(message: ImageMessage, topic: string): Promise<Buffer> {
  if (!isRaw(message)) {
    if (typeof message.data !== "string" || !message.data)
      throw new ImageDecodeError(`${topic}: a CompressedImage with no data`);
    const bytes = Buffer.from(message.data, "base64");
    const size = encodedSize(bytes);
    if (!size)
      throw new ImageDecodeError(
        `${topic}: CompressedImage format ${JSON.stringify(message.format)} is neither JPEG nor PNG data`,
      );
    // A PNG of a size we keep is kept byte for byte: the same view gives the same artifact (and the same model cache key).
    if (bytes.readUInt32BE(0) === 0x89504e47 && Math.max(size.width, size.height) <= MAX_FRAME_SIDE) return bytes;
    return capped(sharp(bytes), size.width, size.height).png({ compressionLevel: 1 }).toBuffer();
  }
  const enc = message.encoding.toLowerCase();
  const colour = COLOUR[enc];
  if (!colour) {
    const why = DEPTH_ENCODINGS.has(enc)
      ? " (a depth encoding: give this topic as the camera's depth)"
      : ` (known: ${Object.keys(COLOUR)
          .filter((k) => !k.startsWith("8uc"))
          .join(", ")})`;
    throw new ImageDecodeError(
      `${topic}: image encoding ${JSON.stringify(message.encoding)} is not one the agent reads${why}`,
    );
  }
  const px = rows(message, colour.channels, topic);
  if (colour.swap) {
    for (let i = 0; i < px.length; i += colour.channels) {
      const first = px[i];
      px[i] = px[i + 2];
      px[i + 2] = first;
    }
  }
  return capped(
    sharp(px, { raw: { width: message.width, height: message.height, channels: colour.channels } }),
    message.width,
    message.height,
  )
    .png({ compressionLevel: 1 })
    .toBuffer();
}

const decoded = new WeakMap<object, Promise<Buffer>>();

/**
 * A colour frame as PNG bytes, whatever the robot sent (see the header). Decoded once per message; throws
 * ImageDecodeError naming the topic and what it could not read.
 */
export function pngOf(message: ImageMessage, topic: string): Promise<Buffer> {
  let pending = decoded.get(message);
  if (!pending) {
    pending = decodeColour(message, topic);
    decoded.set(message, pending);
  }
  return pending;
}

/** A depth frame in metres (0: no return), row by row. */
export interface DepthImage {
  width: number;
  height: number;
  metres: Float32Array;
}

/** A 16-bit greyscale PNG's millimetres. */
async function pngMillimetres(png: Buffer, topic: string): Promise<DepthImage> {
  const { data, info } = await sharp(png)
    .toColourspace("grey16")
    .raw({ depth: "ushort" })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1)
    throw new ImageDecodeError(`${topic}: a depth PNG has one channel; this one has ${info.channels}`);
  const mm = new Uint16Array(data.buffer, data.byteOffset, info.width * info.height);
  return { width: info.width, height: info.height, metres: Float32Array.from(mm, (v) => v / 1000) };
}

/** A depth frame in metres, whatever the robot sent: raw 16UC1/32FC1, our 16-bit PNG, or image_transport's compressedDepth. */
export async function depthOf(message: ImageMessage, topic: string): Promise<DepthImage> {
  if (!isRaw(message)) {
    let bytes = Buffer.from(message.data ?? "", "base64");
    // compressed_depth_image_transport: a 12-byte header (format and two quantisation floats) before the PNG.
    if (/compressedDepth/i.test(message.format)) {
      if (!/16UC1/i.test(message.format))
        throw new ImageDecodeError(
          `${topic}: compressedDepth ${JSON.stringify(message.format)}: only 16UC1 (millimetres) is read`,
        );
      bytes = bytes.subarray(12);
    }
    if (!(bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47))
      throw new ImageDecodeError(
        `${topic}: a compressed depth image is read as a 16-bit PNG; format ${JSON.stringify(message.format)} is not one`,
      );
    return pngMillimetres(bytes, topic);
  }
  const enc = message.encoding.toLowerCase();
  const big = message.is_bigendian === true || message.is_bigendian === 1;
  if (enc === "16uc1" || enc === "mono16") {
    const px = rows(message, 2, topic);
    const metres = new Float32Array(message.width * message.height);
    for (let i = 0; i < metres.length; i++) metres[i] = (big ? px.readUInt16BE(2 * i) : px.readUInt16LE(2 * i)) / 1000;
    return { width: message.width, height: message.height, metres };
  }
  if (enc === "32fc1") {
    const px = rows(message, 4, topic);
    const metres = new Float32Array(message.width * message.height);
    for (let i = 0; i < metres.length; i++) {
      const value = big ? px.readFloatBE(4 * i) : px.readFloatLE(4 * i);
      metres[i] = Number.isFinite(value) && value > 0 ? value : 0;
    }
    return { width: message.width, height: message.height, metres };
  }
  throw new ImageDecodeError(
    `${topic}: depth encoding ${JSON.stringify(message.encoding)} is not one the agent reads (16UC1 in millimetres, 32FC1 in metres)`,
  );
}

/** The intrinsic matrix of a CameraInfo (ROS 1 names it K, ROS 2 k), or undefined when it is all zeros (uncalibrated). */
export function intrinsics(info: CameraInfo): { fx: number; fy: number; cx: number; cy: number } | undefined {
  const matrix = info.K ?? info.k;
  if (!matrix || matrix.length !== 9 || !(matrix[0] > 0 && matrix[4] > 0)) return undefined;
  return { fx: matrix[0], fy: matrix[4], cx: matrix[2], cy: matrix[5] };
}

/**
 * The point a depth pixel saw, in the camera's optical frame (x right, y down, z forward; metres), or undefined where
 * the depth has no return. The depth image may be of another size than the CameraInfo: pixels are scaled to it.
 */
export function backProject(
  depth: DepthImage,
  info: CameraInfo,
  column: number,
  row: number,
): { x: number; y: number; z: number } | undefined {
  const k = intrinsics(info);
  if (!k) return undefined;
  const px = Math.min(depth.width - 1, Math.max(0, Math.round(column)));
  const py = Math.min(depth.height - 1, Math.max(0, Math.round(row)));
  const z = depth.metres[py * depth.width + px];
  if (!(z > 0)) return undefined;
  const sx = info.width > 0 ? depth.width / info.width : 1,
    sy = info.height > 0 ? depth.height / info.height : 1;
  return { x: ((px - k.cx * sx) * z) / (k.fx * sx), y: ((py - k.cy * sy) * z) / (k.fy * sy), z };
}

/** A raw `sensor_msgs/Image` of RGB pixels (what a simulator speaking standard messages publishes). */
export function rawRgbImage(header: RawImage["header"], width: number, height: number, rgb: Buffer): RawImage {
  return { header, height, width, encoding: "rgb8", is_bigendian: 0, step: width * 3, data: rgb.toString("base64") };
}

/** A raw 16UC1 depth image in millimetres (little-endian). */
export function rawDepthImage(
  header: RawImage["header"],
  width: number,
  height: number,
  metres: ArrayLike<number>,
): RawImage {
  const bytes = Buffer.alloc(width * height * 2);
  for (let i = 0; i < width * height; i++) bytes.writeUInt16LE(Math.min(65535, Math.round(metres[i] * 1000)), 2 * i);
  return { header, height, width, encoding: "16UC1", is_bigendian: 0, step: width * 2, data: bytes.toString("base64") };
}

/** A pinhole camera's CameraInfo (no distortion), its focal length in pixels. */
export function pinholeInfo(
  header: RawImage["header"],
  width: number,
  height: number,
  focalPx: number,
): CameraInfo & Record<string, unknown> {
  const cx = width / 2 - 0.5,
    cy = height / 2 - 0.5;
  return {
    header,
    height,
    width,
    distortion_model: "plumb_bob",
    D: [0, 0, 0, 0, 0],
    K: [focalPx, 0, cx, 0, focalPx, cy, 0, 0, 1],
    R: [1, 0, 0, 0, 1, 0, 0, 0, 1],
    P: [focalPx, 0, cx, 0, 0, focalPx, cy, 0, 0, 0, 1, 0],
    binning_x: 0,
    binning_y: 0,
    roi: { x_offset: 0, y_offset: 0, height: 0, width: 0, do_rectify: false },
  };
}
