/**
 * The palm's rollout recorder: while a program runs it keeps the detections every `period` simulated seconds (the
 * dense track) and a snapshot of the scene at each of those instants; afterwards it picks at most 30 key frames — the
 * first and the last, the frames nearest to the moments the controller gives (each primitive's end and start), then
 * the frames that cover the rest of the run most evenly — renders those from their snapshots at full size and encodes
 * them as PNG. Nothing the world's event monitor logged has a say in which frames are kept. (Keeping poses instead of pixels
 * renders 30 images per rollout instead of one every 0.1 s.)
 */
import { encodeRgbPng, type Frame } from "../camera";
import type { RolloutDetections, Rollout } from "../../msgs/rollout";

export const MAX_KEY_FRAMES = 30;
export const FRAME_PERIOD = 0.1;

interface Captured<S> {
  t: number;
  snapshot: S;
  detections: RolloutDetections;
}

/** A rollout with its key frames' PNGs beside it (`frames[k].image` is filled in by whoever stores or sends it). */
export interface RecordedRollout {
  rollout: Rollout;
  images: Buffer[];
}

export class Recorder<S> {
  private frames: Captured<S>[] = [];
  private next = 0;

  constructor(
    /** Physics time the program began. */
    readonly t0: number,
    readonly period = FRAME_PERIOD,
  ) {}

  /** Whether a frame is due at physics time `time`. */
  due(time: number): boolean {
    return time - this.t0 >= this.next - 1e-6;
  }

  capture(time: number, snapshot: S, detections: RolloutDetections): void {
    const rel = Math.round((time - this.t0) * 1000) / 1000;
    const last = this.frames[this.frames.length - 1];
    if (last && Math.abs(last.t - rel) < 1e-6) return;
    this.frames.push({ t: rel, snapshot, detections });
    this.next = Math.floor(rel / this.period + 1e-6) * this.period + this.period;
  }

  get count(): number {
    return this.frames.length;
  }

  /**
   * The rollout: the track is every captured instant's detections; key frames are chosen around `moments` (program-
   * relative times the controller knows, most important first), rendered from their snapshots by `render` and encoded.
   */
  async finish(
    meta: Omit<Rollout, "frames" | "track">,
    moments: number[],
    render: (snapshot: S) => Frame,
  ): Promise<RecordedRollout> {
    const times = this.frames.map((f) => f.t);
    const keys = selectKeyFrames(times, moments, MAX_KEY_FRAMES);
    const frames = keys.map((k) => render(this.frames[k].snapshot));
    const images = await Promise.all(frames.map((f) => encodeRgbPng(f)));
    const rollout: Rollout = {
      ...meta,
      frames: keys.map((k) => ({ t: this.frames[k].t, image: "", detections: this.frames[k].detections })),
      track: this.frames.map((f) => ({ t: f.t, detections: f.detections })),
    };
    this.frames = [];
    return { rollout, images };
  }
}

/**
 * Indices of at most `max` frames (ascending): the first and last, the nearest frame to each moment in the order
 * given (so the first-named win when there are too many), then greedily the frame farthest in time from every frame
 * chosen so far (ties: the earliest), which spreads the rest evenly.
 */
export function selectKeyFrames(times: number[], moments: number[], max = MAX_KEY_FRAMES): number[] {
  const frameCount = times.length;
  if (frameCount === 0) return [];
  const chosen = new Set<number>([0, frameCount - 1]);
  for (const t of moments) {
    if (chosen.size >= max) break;
    let best = 0;
    for (let k = 1; k < frameCount; k++) if (Math.abs(times[k] - t) < Math.abs(times[best] - t)) best = k;
    chosen.add(best);
  }
  const gap = new Float64Array(frameCount).fill(Infinity);
  const update = (pick: number) => {
    for (let k = 0; k < frameCount; k++) gap[k] = Math.min(gap[k], Math.abs(times[k] - times[pick]));
  };
  for (const c of chosen) update(c);
  while (chosen.size < Math.min(max, frameCount)) {
    let best = -1;
    for (let k = 0; k < frameCount; k++) if (!chosen.has(k) && (best < 0 || gap[k] > gap[best])) best = k;
    chosen.add(best);
    update(best);
  }
  return [...chosen].sort((a, b) => a - b);
}
