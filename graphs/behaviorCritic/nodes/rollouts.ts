/**
 * Recorded rollouts as the critic's nodes read them: from a benchmark's files or from the artifact store (rollouts the
 * live robot recorded), turned into what the prompt carries — each key frame's detections, compact — and the frames.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ArtifactStore } from "../../../memory/artifacts";
import type { SeenFrame } from "../schemas";
import type { Rollout, RolloutDetections } from "../../../robots/msgs/rollout";

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export function readRollout(ref: string, artifacts?: ArtifactStore): Rollout {
  if (ref.startsWith("sha256:")) {
    if (!artifacts) throw new Error(`rollout ${ref} is an artifact reference but no artifact store is open`);
    return JSON.parse(artifacts.get(ref).toString("utf8")) as Rollout;
  }
  if (!existsSync(ref)) throw new Error(`no recorded rollout at ${ref}`);
  return JSON.parse(readFileSync(ref, "utf8")) as Rollout;
}

/** A key frame's PNG: an artifact reference, a path relative to the rollout file, or base64. */
export function framePng(ref: string, image: string, artifacts?: ArtifactStore): Buffer {
  if (image.startsWith("sha256:")) return artifacts!.get(image);
  if (!ref.startsWith("sha256:") && /\.png$/i.test(image)) return readFileSync(join(dirname(ref), image));
  return Buffer.from(image, "base64");
}

/** One detections message as the prompt carries it. */
export function seenFrame(seconds: number, message: RolloutDetections): SeenFrame {
  return {
    t: round(seconds, 2),
    things: message.detections.map((x) => ({
      label: x.label,
      at: x.position.map((v) => round(v)) as [number, number, number],
      z: x.zRange.map((v) => round(v)) as [number, number],
      extent: [...x.xRange, ...x.yRange].map((v) => round(v)) as [number, number, number, number],
      box: [x.box.x, x.box.y, x.box.w, x.box.h],
      held: x.location.relation === "held_by",
      where: `${x.location.relation} ${x.location.place}`,
    })),
    open: message.places.filter((p) => p.state === "open" && p.name !== "table").map((p) => p.name),
  };
}

/** The key frames, evenly thinned to at most `max` (first and last kept). */
export function keyFrames(rollout: Rollout, max: number): Rollout["frames"] {
  if (rollout.frames.length <= max) return rollout.frames;
  const idx = new Set<number>();
  for (let i = 0; i < max; i++) idx.add(Math.round((i * (rollout.frames.length - 1)) / (max - 1)));
  return rollout.frames.filter((_, i) => idx.has(i));
}

/** The id a benchmark gives a rollout file (rollouts/<id>.json), or the reference itself. */
export const rolloutId = (ref: string) => (ref.startsWith("sha256:") ? ref : basename(ref).replace(/\.json$/, ""));
