/**
 * `npm run soak`: the bridge under hostile clients while a working one runs skills (not part of `npm test`).
 *
 * A kitchen simulator process on loopback; four raw clients send a seeded mix of malformed and hostile frames — bad
 * JSON, wrong types, unknown ops, 11 MB strings, 200,000-deep nesting, binary frames, bad and unfinished fragments,
 * garbage goals, huge names and ids, and one client that never reads what it is sent — while a fifth client runs a
 * sequence of kitchen skills. Prints frames sent, errors answered, the fifth's skills completed and their latency
 * (against the same skills before the attack), and the server's RSS at start, peak and end (once the server, idle,
 * has given back its garbage — within 60 s — with the reading 1 s after the attack beside it).
 * Targets: every skill completes; RSS at the end within 20% of the start. Bounded in frames and in time.
 *
 *   npm run soak [-- --frames 10000 --seed 1 --max-seconds 300]
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import { BridgeClient } from "../../robots/bridge/client";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { callSkill, discoverRobots } from "../../tools/skills";
import { KeyedDraw } from "../../models/symbolic/noise";

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The simulator's own process: tsx's launcher runs the script as its child. Linux /proc; undefined elsewhere. */
function serverPid(sim: SimProcess): number | undefined {
  const parent = sim.child.pid;
  try {
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = readFileSync(`/proc/${d}/stat`, "utf8");
        if (Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]) === parent) return Number(d);
      } catch {
        // the process went away while listing
      }
    }
    return parent;
  } catch {
    return undefined;
  }
}

function rssMB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
  } catch {
    return NaN;
  }
}

/** One hostile frame, chosen by a seeded draw: the kinds of input the bridge must answer and survive. */
function hostileFrame(draw: () => number, i: number): string | Buffer {
  const pick = <T>(xs: T[]) => xs[Math.floor(draw() * xs.length)];
  const huge = () => "h".repeat(MB + Math.floor(draw() * MB));
  // The expensive kinds are rarer so the run stays bounded in time and traffic.
  if (i % 400 === 7)
    return JSON.stringify({ op: "publish", id: `big${i}`, topic: "/x", msg: { data: "x".repeat(11 * MB) } });
  if (i % 250 === 3) return "[".repeat(200_000) + "]".repeat(200_000);
  if (i % 150 === 5)
    return JSON.stringify({
      op: pick(["advertise", "subscribe", "call_service"]),
      id: `n${i}`,
      topic: `/${huge()}`,
      service: `/${huge()}`,
      type: "std_msgs/msg/String",
    });
  if (i % 150 === 11)
    return JSON.stringify({
      op: "send_action_goal",
      id: huge(),
      action: "/robograph/ping",
      action_type: "robograph_msgs/action/Ping",
      args: {},
    });
  if (i % 100 === 13)
    return JSON.stringify({ op: "fragment", id: `uf${i % 1000}`, data: "f".repeat(MB), num: 0, total: 3 });
  const kinds: (() => string | Buffer)[] = [
    () => `{not json ${i}`,
    () => "\u0000\u0001garbage",
    () => JSON.stringify({ op: "teleport", id: `t${i}` }),
    () => JSON.stringify({ op: 42, id: `w${i}` }),
    () => JSON.stringify({ op: "subscribe", id: `s${i}`, topic: 7 }),
    () => JSON.stringify({ op: "call_service", id: `c${i}`, service: "/robograph/nothing", args: { a: [1, 2, 3] } }),
    () => JSON.stringify({ op: "call_service", id: `m${i}`, service: "/robograph/manifest" }),
    () =>
      JSON.stringify({ op: "publish", id: `p${i}`, topic: "/mobile/camera/image/compressed", msg: { data: "fake" } }),
    () =>
      JSON.stringify({
        op: "send_action_goal",
        id: `g${i}`,
        action: "/mobile/fly",
        action_type: "x/action/Fly",
        args: {},
      }),
    () =>
      JSON.stringify({
        op: "send_action_goal",
        id: `a${i}`,
        action: "/arm/pick_from",
        action_type: "robograph_msgs/action/PickFrom",
        args: { object: "anvil", place: [] },
      }),
    () => JSON.stringify({ op: "cancel_action_goal", id: `nothing${i}`, action: "/mobile/go_to" }),
    () => JSON.stringify({ op: "fragment", id: `bf${i}`, data: "x", num: 5, total: 2 }),
    () => JSON.stringify({ op: "fragment", id: "changing", data: "x", num: 0, total: 2 + (i % 3) }),
    () => JSON.stringify({ op: "advertise", id: `adv${i}`, topic: `/spam/${i % 500}`, type: "std_msgs/msg/String" }),
    () => JSON.stringify({ op: "subscribe", id: `sub${i}`, topic: `/spam/${i % 500}`, throttle_rate: -1 }),
    () => JSON.stringify(Array.from({ length: 50 }, () => ({ op: "status" }))),
    () => Buffer.from([0x82, 0xa1, 0x6f, 0x70]),
    () => JSON.stringify({ op: "set_level", level: "info" }),
  ];
  return pick(kinds)();
}

interface HostileTally {
  sent: number;
  answered: number;
  disconnects: number;
}

/** One hostile client: sends its share of frames as fast as its socket drains; reconnects if the server cuts it off. */
async function hostile(
  url: string,
  index: number,
  frames: number,
  seed: number,
  reads: boolean,
  deadline: number,
): Promise<HostileTally> {
  const rng = new KeyedDraw(`soak|${seed}|${index}`);
  const draw = () => rng.next();
  const tally: HostileTally = { sent: 0, answered: 0, disconnects: 0 };
  let ws: WebSocket | undefined;
  let done = false;
  const connect = async () => {
    const socket = new WebSocket(url, { maxPayload: 64 * MB });
    socket.on("error", () => {});
    if (reads) socket.on("message", () => tally.answered++);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    // The client that never reads: what the server sends it piles up until the server cuts it off.
    if (!reads) (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    socket.once("close", () => {
      if (!done) tally.disconnects++;
    });
    return socket;
  };
  for (let i = 0; i < frames && Date.now() < deadline; i++) {
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      try {
        ws = await connect();
      } catch {
        await sleep(100);
        i--;
        continue;
      }
    }
    ws.send(hostileFrame(draw, i));
    tally.sent++;
    // Keep at most a few megabytes in flight: the server paces a client it has paused, and so do we.
    while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > 4 * MB && Date.now() < deadline) await sleep(5);
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  // Answers still on their way (a paused client's backlog is served late) count: wait until they stop coming.
  for (
    let quiet = 0, seen = tally.answered;
    reads && quiet < 10 && Date.now() < deadline;
    quiet = tally.answered === seen ? quiet + 1 : 0, seen = tally.answered
  )
    await sleep(100);
  done = true;
  ws?.terminate();
  return tally;
}

/** The working client's skills: each one the kitchen accepts whatever the cycle before it left. */
const CYCLE: [string, string, Record<string, string>][] = [
  ["mobile", "go_to", { navigation_point: "in_front_of_refrigerator" }],
  ["mobile", "open", { target: "refrigerator" }],
  ["mobile", "close", { target: "refrigerator" }],
  ["mobile", "go_to", { navigation_point: "in_front_of_table" }],
  ["arm", "pick_from", { object: "apple", place: "table" }],
  ["arm", "release_to", { object: "apple", place: "table" }],
  ["arm", "open", { target: "drawer_top" }],
  ["arm", "close", { target: "drawer_top" }],
];

export async function soak(options: { frames: number; seed: number; maxSeconds: number }): Promise<number> {
  const started = Date.now();
  const deadline = started + options.maxSeconds * 1000;
  const sim = await startSimProcess("kitchen", [
    "--scenario",
    "integration_tea_to_trash",
    "--speed",
    "10",
    "--seed",
    String(options.seed),
  ]);
  const pid = serverPid(sim);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 50);
  try {
    const worker = await BridgeClient.connect(sim.url);
    const { robots } = await discoverRobots(worker);
    const runCycle = async (latencies: number[], failures: string[], until: () => boolean) => {
      do {
        for (const [robot, skill, args] of CYCLE) {
          const t0 = performance.now();
          const result = await callSkill(worker, robots, robot, skill, args);
          latencies.push((performance.now() - t0) / 1000);
          if (!result.ok) failures.push(`${robot}.${skill}: ${result.error}`);
        }
      } while (until() && Date.now() < deadline);
    };
    // Quiet: the same skills once before the attack, for comparison, and the RSS after them.
    const quiet: number[] = [];
    await runCycle(quiet, [], () => false);
    await sleep(1000);
    const start = rssMB(pid);
    peak = start;
    console.log(`kitchen simulator pid ${pid ?? "?"} on ${sim.url}; RSS at start ${start.toFixed(0)} MB`);

    let attacking = true;
    const perClient = Math.ceil(options.frames / 4);
    const attack = Promise.all(
      [0, 1, 2, 3].map((i) => hostile(sim.url, i, perClient, options.seed, i !== 3, deadline)),
    ).finally(() => (attacking = false));
    const latencies: number[] = [];
    const failures: string[] = [];
    await runCycle(latencies, failures, () => attacking);
    const tallies = await attack;
    worker.close();
    // Garbage is not retained memory: V8 gives its heap back only once the process has been idle for a while (~10 s,
    // varying). So the end is read once RSS has held within the target for 3 s, or after 60 s idle, whichever first.
    await sleep(1000);
    const afterAttack = rssMB(pid);
    let end = afterAttack;
    let idle = 1;
    for (let within = 0; idle < 60 && within < 3; idle++) {
      await sleep(1000);
      end = rssMB(pid);
      within = end <= start * 1.2 ? within + 1 : 0;
    }
    clearInterval(sampler);

    const sent = tallies.reduce((n, t) => n + t.sent, 0);
    const answered = tallies.reduce((n, t) => n + t.answered, 0);
    const cut = tallies[3].disconnects;
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    const worst = sorted.at(-1) ?? NaN;
    const growth = (end - start) / start;
    console.log(`hostile frames sent            ${sent} by 4 clients (${tallies.map((t) => t.sent).join(" + ")})`);
    console.log(
      `errors answered                ${answered} (to the 3 clients that read; the 4th never reads and was cut off ${cut} times)`,
    );
    console.log(
      `working client's skills        ${latencies.length - failures.length}/${latencies.length} completed${failures.length ? `; failed: ${failures.slice(0, 3).join("; ")}` : ""}`,
    );
    console.log(
      `skill latency                  median ${median.toFixed(2)} s, worst ${worst.toFixed(2)} s under attack (quiet: median ${[...quiet].sort((a, b) => a - b)[Math.floor(quiet.length / 2)].toFixed(2)} s, worst ${Math.max(...quiet).toFixed(2)} s)`,
    );
    console.log(
      `server RSS                     start ${start.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, end ${end.toFixed(0)} MB after ${idle} s idle (${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(0)}%; ${afterAttack.toFixed(0)} MB 1 s after the attack)`,
    );
    console.log(`wall time                      ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const ok = failures.length === 0 && latencies.length > 0 && (Number.isNaN(growth) || growth <= 0.2);
    console.log(ok ? "targets met: every skill completed, RSS at the end within 20% of the start" : "TARGETS MISSED");
    return ok ? 0 : 1;
  } finally {
    clearInterval(sampler);
    await sim.stop();
  }
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!);
if (isMain) {
  const { values: flags } = parseArgs({
    options: {
      frames: { type: "string", default: "10000" },
      seed: { type: "string", default: "1" },
      "max-seconds": { type: "string", default: "300" },
    },
  });
  soak({ frames: Number(flags.frames), seed: Number(flags.seed), maxSeconds: Number(flags["max-seconds"]) }).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
