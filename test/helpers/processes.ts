/** Starts project commands as real child processes on loopback with a free port, and always stops them. */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
const TSX = join(dirname(require.resolve("tsx/package.json")), "dist", "cli.mjs");

export interface SimProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of running) c.kill("SIGKILL");
});

/** `robograph serve-sim kitchen …` on a free port; resolves once it prints its listening line. */
export async function startSim(args: string[] = [], timeoutMs = 30_000): Promise<SimProcess> {
  const child = spawn(process.execPath, [TSX, join(ROOT, "cli", "robograph.ts"), "serve-sim", "kitchen", "--port", "0", "--quiet", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`simulator did not start in ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /^listening (ws:\/\/\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited with ${code}: ${err}`));
    });
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
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
