/** Starts a simulator as its own process (`robots/sim/main.ts`, what `robograph serve-sim` runs) on a free loopback port, and stops it. */
import { createServer } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { programArgs } from "../programs";

const here = dirname(fileURLToPath(import.meta.url));

export interface SimProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  /** Sends `signal` (SIGTERM by default), escalates to SIGKILL after 10 s, resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A simulator started here ends with its starter: if that process dies without stopping it (kill -9 leaves it no
 * time), the simulator exits once no client has been connected for this long. A caller that wants another process to
 * re-attach (a queue worker's lease) passes its own `--orphan-timeout`.
 */
export const ORPHAN_SECONDS = 10;

const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of running) c.kill("SIGKILL");
});

/**
 * `ownProcessGroup`: the simulator does not get the terminal's Ctrl-C along with the agent, so the agent's emergency
 * stop can still cancel the robot's goal over the bridge before the agent stops the simulator itself.
 */
export async function startSimProcess(
  world: string,
  args: string[] = [],
  timeoutMs = 30_000,
  opts: { ownProcessGroup?: boolean } = {},
): Promise<SimProcess> {
  // node itself runs the simulator (tsx as a loader, or a precompiled build; never the tsx CLI, which would fork it):
  // a signal reaches it.
  const orphan = args.includes("--orphan-timeout") ? [] : ["--orphan-timeout", String(ORPHAN_SECONDS)];
  const child = spawn(
    process.execPath,
    programArgs("robots/sim/main.ts", [world, "--port", "0", "--quiet", ...orphan, ...args]),
    {
      cwd: join(here, "..", ".."),
      stdio: ["ignore", "pipe", "pipe"],
      detached: !!opts.ownProcessGroup,
    },
  );
  running.add(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`simulator did not start within ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /^listening (ws:\/\/\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      running.delete(child);
      return code;
    },
  };
}

/** A TCP port free on loopback now (for a process that cannot be told to pick one itself). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
