/**
 * Content-addressed artifact store for frames and other bulky outputs. State and checkpoints hold only the
 * reference (`sha256:<hex>.png`), so a checkpoint stays small however many frames an episode takes.
 */
import { createHash } from "node:crypto";
import { mkdirSync, existsSync, writeFileSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";

export class ArtifactStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Stores bytes (once per content) and returns their reference. */
  put(bytes: Buffer, ext = "png"): string {
    const ref = `sha256:${createHash("sha256").update(bytes).digest("hex")}.${ext}`;
    const path = this.path(ref);
    if (!existsSync(path)) {
      // Write then rename, so a crash never leaves a half-written artifact under its final name.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    }
    return ref;
  }

  get(ref: string): Buffer {
    return readFileSync(this.path(ref));
  }

  path(ref: string): string {
    const match = /^sha256:([0-9a-f]{64})\.(\w+)$/.exec(ref);
    if (!match) throw new Error(`not an artifact reference: ${ref}`);
    return join(this.dir, `${match[1]}.${match[2]}`);
  }
}
