/**
 * A throwaway Postgres cluster on loopback: Debian's `postgresql` binaries, `initdb` in a temp directory, a free port,
 * trust authentication for loopback only. Postgres refuses to run as root, so as root it runs as the `postgres` user.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { freePort } from "../../robots/sim/process";
import { join } from "node:path";

export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

/** The directory with initdb and pg_ctl, or undefined when Postgres is not installed. */
export function postgresBin(): string | undefined {
  // Debian keeps the server binaries out of PATH, per major version.
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const debian = versions
    .map((v) => join(root, v, "bin"))
    .find((d) => existsSync(join(d, "pg_ctl")) && existsSync(join(d, "initdb")));
  if (debian) return debian;
  const onPath = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" }).stdout.trim();
  return onPath && existsSync(onPath.replace(/pg_ctl$/, "initdb")) ? onPath.replace(/\/pg_ctl$/, "") : undefined;
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin)
    throw new Error(
      "Postgres is not installed: apt-get install postgresql (Debian), or run .ci/run, which installs it",
    );
  const asRoot = process.getuid?.() === 0;
  const user = "postgres";
  const dir = mkdtempSync(join(tmpdir(), "robograph-pg-"));
  const data = join(dir, "data");
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : cmd, asRoot ? ["-u", user, "--", join(bin, cmd), ...args] : args, {
      stdio: "pipe",
      encoding: "utf8",
    });
  run("initdb", ["-D", data, "-U", "robograph", "-A", "trust", "--no-sync"]);
  const port = await freePort();
  run("pg_ctl", [
    "-D",
    data,
    "-l",
    join(dir, "log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "start",
  ]);
  return {
    url: `postgres://robograph@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
