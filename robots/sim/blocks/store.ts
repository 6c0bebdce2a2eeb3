/**
 * The episode store: every recorded episode as `<dir>/<id>.json` (several instances may share a directory: ids carry
 * the instance's name), and the list of those recorded since the last reset, which `/arm/episodes` serves.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Episode } from "../../msgs/runSkills";

const ID = /^[A-Za-z0-9_.-]+$/;

export class EpisodeStore {
  private recent: Episode[] = [];
  private counter = 0;

  constructor(
    readonly dir: string,
    readonly instance: string,
  ) {
    if (!ID.test(instance)) throw new Error(`instance name ${JSON.stringify(instance)} must be letters, digits, _ . -`);
    mkdirSync(dir, { recursive: true });
  }

  /** A fresh id, unique across instances sharing the directory (and across restarts: existing files are skipped). */
  nextId(): string {
    let id: string;
    do id = `${this.instance}-${String(++this.counter).padStart(5, "0")}`;
    while (existsSync(join(this.dir, `${id}.json`)));
    return id;
  }

  save(ep: Episode): void {
    writeFileSync(join(this.dir, `${ep.id}.json`), JSON.stringify(ep));
    this.recent.push(ep);
  }

  /** Recorded since the last reset, from index `since`. */
  since(since = 0, limit = 200): Episode[] {
    return this.recent.slice(since, since + limit);
  }

  get length(): number {
    return this.recent.length;
  }

  /** By id: from memory, else from disk; throws naming the missing id. */
  get(id: string): Episode {
    const mem = this.recent.find((e) => e.id === id);
    if (mem) return mem;
    if (!ID.test(id)) throw new Error(`bad episode id ${JSON.stringify(id)}`);
    const path = join(this.dir, `${id}.json`);
    if (!existsSync(path)) throw new Error(`no episode ${id} in ${this.dir}`);
    return JSON.parse(readFileSync(path, "utf8")) as Episode;
  }

  clearHistory(): void {
    this.recent = [];
  }
}
