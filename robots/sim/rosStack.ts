/**
 * The reference ROS 1 stack for tests and benchmarks: roscore, the reference rosbridge_server and rosapi on free
 * loopback ports (ros/kit/start.sh), from the workspace `npm run ros:setup` built with ros/robograph_msgs. Without it
 * the ROS tests skip and say why; with ROBOGRAPH_REQUIRE_ROS set (CI) they fail instead.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./process";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const ROS_WS = process.env.ROBOGRAPH_ROS_WS ?? join(homedir(), ".cache", "robograph-ros-ws");

/** Why the ROS stack cannot run here, or undefined when it can. */
export function rosMissing(): string | undefined {
  if (!existsSync(join(ROS_WS, "devel", "setup.bash"))) return `no ROS workspace at ${ROS_WS} (npm run ros:setup)`;
  if (!existsSync(join(ROS_WS, "devel", "lib", "python3", "dist-packages", "robograph_msgs")))
    return `ros/robograph_msgs is not built in ${ROS_WS} (npm run ros:setup)`;
  return undefined;
}

export function requireRosOrSkip(): boolean {
  const missing = rosMissing();
  if (missing && process.env.ROBOGRAPH_REQUIRE_ROS)
    throw new Error(`ROBOGRAPH_REQUIRE_ROS is set but the ROS stack cannot run: ${missing}`);
  if (missing) process.stderr.write(`ROS tests skipped: ${missing}\n`);
  return !missing;
}

export interface RosStack {
  url: string;
  /** Runs a ROS command-line tool (rostopic, rosparam …) against this stack's master; returns its output. */
  ros(cmd: string, args: string[]): string;
  /**
   * Starts a ROS node written in Python (rospy) against this stack's master, as a robot's own process would run;
   * resolves once it prints `ready` (or rejects with what it printed). `stop` ends it with the stack.
   */
  node(script: string, args?: string[], timeoutMs?: number): Promise<ChildProcess>;
  stop(): Promise<void>;
}

export interface RosStackOptions {
  /**
   * A file whose first line is rosauth's 16-character secret: rosbridge then runs with `authenticate:=true` beside
   * rosauth's node (ros/kit/start.sh's ROSBRIDGE_AUTH_SECRET_FILE), and a client must authenticate first.
   */
  authSecretFile?: string;
  /** The ports to try first (rosbridge's WebSocket, the master's); free ones are picked when absent or taken. */
  ports?: { bridge: number; master: number };
}

/** ros/kit/start.sh's exit code when a port it was given is taken. */
const PORT_TAKEN = 3;
/** Starts tried before giving up, each on new free ports when the last one's were taken meanwhile. */
const START_ATTEMPTS = 4;

/** Runs ros/kit/start.sh on the given ports: its exit code and everything it printed. */
function runKit(
  ports: { bridge: number; master: number },
  authSecretFile?: string,
): Promise<{ code: number | null; out: string }> {
  // Authentication only when asked for, whatever this process's environment says.
  const { ROSBRIDGE_AUTH_SECRET_FILE: _inherited, ...kitEnv } = process.env;
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, "ros", "kit", "start.sh"), [ROS_WS, String(ports.bridge), String(ports.master)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: authSecretFile ? { ...kitEnv, ROSBRIDGE_AUTH_SECRET_FILE: authSecretFile } : kitEnv,
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (err) => resolve({ code: null, out: `${out}${err.message}` }));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

/**
 * Starts roscore + rosbridge_websocket + rosapi (+ rosauth's node when asked); `stop` ends them all (SIGINT, then
 * SIGKILL what is left).
 */
export async function startRos(options: RosStackOptions = {}): Promise<RosStack> {
  // A free port can be taken by another process before the stack binds it (the suite starts several stacks at
  // once): the kit then says so, having stopped what it started, and the stack starts again on other ports.
  let tried = options.ports;
  let started: { out: string; master: number } | undefined;
  for (let attempt = 1; !started; attempt++) {
    const ports = tried ?? { bridge: await freePort(), master: await freePort() };
    tried = undefined;
    const { code, out } = await runKit(ports, options.authSecretFile);
    if (code === 0) started = { out, master: ports.master };
    else if (code !== PORT_TAKEN || attempt >= START_ATTEMPTS)
      throw new Error(`ros/kit/start.sh exited with ${code}: ${out}`);
  }
  const { out, master } = started;
  const match = /ready (ws:\/\/\S+) pids (\d+(?: \d+)*)/.exec(out);
  if (!match) throw new Error(`ros/kit/start.sh did not say ready: ${out}`);
  const pids = match[2].split(" ").map(Number);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const env = {
    ...process.env,
    PATH: `/usr/bin:${process.env.PATH}`,
    ROS_MASTER_URI: `http://127.0.0.1:${master}`,
    ROS_HOSTNAME: "127.0.0.1",
    PYTHONUNBUFFERED: "1",
  };
  const setup = `source ${JSON.stringify(join(ROS_WS, "devel", "setup.bash"))}`;
  const nodes: ChildProcess[] = [];
  return {
    url: match[1],
    ros(cmd, args) {
      return execFileSync("bash", ["-c", `${setup} && ${cmd} ${args.map((a) => `'${a}'`).join(" ")}`], {
        encoding: "utf8",
        env,
        timeout: 30_000,
      });
    },
    node(script, args = [], timeoutMs = 30_000) {
      // Debian's rospy is built for Debian's python3.
      const child = spawn(
        "bash",
        ["-c", `${setup} && exec /usr/bin/python3 ${JSON.stringify(script)} ${args.map((a) => `'${a}'`).join(" ")}`],
        { env, stdio: ["ignore", "pipe", "pipe"] },
      );
      nodes.push(child);
      return new Promise((resolve, reject) => {
        let said = "";
        const timer = setTimeout(
          () => reject(new Error(`${script} did not say ready in ${timeoutMs} ms: ${said}`)),
          timeoutMs,
        );
        const hear = (chunk: Buffer) => {
          said += chunk;
          if (/^ready$/m.test(said)) {
            clearTimeout(timer);
            resolve(child);
          }
        };
        child.stdout.on("data", hear);
        child.stderr.on("data", (d) => (said += d));
        child.on("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`${script} exited with ${code}: ${said}`));
        });
      });
    },
    async stop() {
      for (const n of nodes) if (n.exitCode === null && n.signalCode === null) n.kill("SIGINT");
      for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGINT");
      for (let i = 0; i < 30 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
      // rosbridge under twisted can outlive SIGINT.
      for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
      for (const n of nodes) if (n.exitCode === null && n.signalCode === null) n.kill("SIGKILL");
    },
  };
}
