/**
 * Starting the reference ROS stack (ros/kit/start.sh, startRos) when a port it was handed is taken meanwhile — the
 * suite starts several stacks at once, each on ports found free a moment earlier. The kit says the port is taken and
 * leaves no ROS process of its own behind; startRos starts the stack again on other ports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../robots/sim/process";
import { ROOT } from "../../helpers/processes";
import { ROS_WS, requireRosOrSkip, startRos } from "../../helpers/ros";

const available = requireRosOrSkip();
const holders: ChildProcess[] = [];

afterEach(() => {
  for (const holder of holders.splice(0)) holder.kill("SIGKILL");
});

/**
 * Takes `port` in another process. By default the way a process that just bound it would: bound, not yet listening —
 * a connection to it is refused, so the kit's check finds it free and rosbridge's own bind then fails (the race
 * itself, made certain). With `listening`, as a server that holds it.
 */
async function holdPort(port: number, { listening = false } = {}): Promise<void> {
  const listen = listening ? "s.listen()\n" : "";
  const holder = spawn(
    "python3",
    [
      "-c",
      `import socket, time\ns = socket.socket()\ns.bind(("127.0.0.1", ${port}))\n${listen}print("bound", flush=True)\ntime.sleep(600)`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  holders.push(holder);
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on("data", (d) => String(d).includes("bound") && resolve());
    holder.on("exit", (code) => reject(new Error(`the port holder exited with ${code}`)));
  });
}

/** Processes whose environment names this master: what the kit started for it (roscore, rosmaster, rosout, rosapi …). */
function rosProcessesOf(masterPort: number): number[] {
  const uri = `ROS_MASTER_URI=http://127.0.0.1:${masterPort}`;
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(uri);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

function runKit(bridge: number, master: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, "ros", "kit", "start.sh"), [ROS_WS, String(bridge), String(master)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe.runIf(available)("the ROS stack's start when a port is taken", () => {
  // Either port bound by another process after the kit's check: rosbridge's (the kit stops the master and rosapi it
  // started) or the master's (roscore's bind fails, as seen in a suite run); the master's with a listener on it,
  // caught by the check (roscore would wait on it for ever).
  it.each([
    { port: "bridge", listening: false },
    { port: "master", listening: false },
    { port: "master", listening: true },
  ] as const)(
    "ros/kit/start.sh exits 3 on a taken $port port (listening: $listening), saying so, and leaves no ROS process",
    async (taken) => {
      const ports = { bridge: await freePort(), master: await freePort() };
      await holdPort(ports[taken.port], { listening: taken.listening });
      const { code, out } = await runKit(ports.bridge, ports.master);
      expect(code, out).toBe(3);
      expect(out).toContain(`port ${ports[taken.port]} on 127.0.0.1 is taken`);
      expect(rosProcessesOf(ports.master)).toEqual([]);
    },
  );

  it("startRos handed a port taken meanwhile starts the stack on another one, which answers", async () => {
    const [bridge, master] = [await freePort(), await freePort()];
    await holdPort(bridge);
    const stack = await startRos({ ports: { bridge, master } });
    try {
      expect(new URL(stack.url).port).not.toBe(String(bridge));
      expect(stack.ros("rosnode", ["list"])).toContain("/rosapi");
    } finally {
      await stack.stop();
    }
  });
});
