/**
 * `robograph serve-sim <world>`: a simulator as its own process, serving the rosbridge v2 protocol. Also runnable on
 * its own (`tsx robots/sim/main.ts <world> …`), which is how `./process.ts` starts one without going through the CLI.
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { parseGlobs } from "../bridge/allowlist";
import { world, WORLDS } from "./worlds";

const scenariosOf = (name: string) => world(name).scenarios().join(", ");

export const SERVE_SIM_HELP = `usage: robograph serve-sim ${WORLDS.map((w) => w.name).join("|")} [options]      (npm run sim -- tabletop [options])

Starts a simulated world that serves the rosbridge v2 protocol over WebSocket, and prints
"listening ws://HOST:PORT" on one line once it accepts connections. Stops cleanly on SIGINT/SIGTERM.

options:
  --scenario NAME        scenario to load; kitchen (default integration_tea_to_trash): one of
                         ${scenariosOf("kitchen")};
                         tabletop (RePLan's scenes; default cabinet_barred): one of
                         ${scenariosOf("tabletop")};
                         course (VLM-PC's obstacle courses; default indoor_1): one of
                         ${scenariosOf("course")}; or generated_<seed> (a generated course);
                         workbench (the behaviour critics' scenes; default apple_plate): one of
                         ${scenariosOf("workbench")}
                         blocks (Game On's three blocks in a basket) has no scenarios: --seed picks the first layout
  --episodes DIR         blocks only: where recorded episodes are stored (default: a directory under the temp dir)
  --instance NAME        blocks only: the name in this instance's episode ids (default i<pid>)
  --start S              blocks only: how every layout starts — floor (default), stacked, leaning or held
  --port N               TCP port (default 9090; 0 picks a free one)
  --host ADDR            address to bind (default 127.0.0.1; any other address needs --token)
  --token T              require clients to present T (as ?token=T or "Authorization: Bearer T");
                         also read from ROBOGRAPH_BRIDGE_TOKEN
  --seed N               seed of the detector's noise (default 0); workbench: also of the scene's layout
  --miss-rate P          probability a visible object is not detected (default 0)
  --mislabel-rate P      probability a detection carries a wrong label (default 0)
  --speed X              simulated seconds per wall second (default 10, blocks: max; "max" for as fast as possible)
  --width N --height N   camera resolution (default 320x240; course 160x120)
  --grasp-sensing on|off kitchen only: whether grippers sense a grasp (default on); off: a grasp on nothing and a
                         release of nothing still report success, as on grippers without force feedback
  --evaluator-key K      require K in the args of /evaluator/* calls (also ROBOGRAPH_EVALUATOR_KEY); without it they
                         answer clients on this machine only
  --allow-topics GLOBS   comma-separated globs of the topics clients may subscribe to, advertise and publish on
                         (rosbridge's topics_glob: * matches any characters, / included); default: all
  --allow-services GLOBS the services clients may call (rosbridge's services_glob; include /rosapi/* to keep
                         discovery, /robograph/* for the agent's manifest and goal status); default: all
  --allow-actions GLOBS  the actions clients may send goals to (rosbridge's actions_glob); default: all
  --ros URL              kitchen only: do not serve a bridge; attach the world as a ROS 1 robot to the reference
                         rosbridge_server at URL (ws://HOST:PORT, with rosapi beside it and ros/robograph_msgs built
                         into its workspace): cameras as sensor_msgs topics, skills as actionlib actions, manifests
                         as the /robograph/manifest service and parameter. Prints "listening URL" once advertised
  --plain                with --ros: offer no /robograph/manifest, as a plain ROS robot (robograph connect drafts its
                         manifests; the agent reads them with --manifest FILE)
  --standard             with --ros: as a robot that speaks the messages ROS ships (implies --plain): the base's go_to
                         as move_base_msgs/MoveBase (a PoseStamped in map, mapped to the nearest navigation point),
                         every camera as raw sensor_msgs/Image (<ns>/image_raw, rgb8), depth (<ns>/depth/image_raw,
                         16UC1 mm) and CameraInfo (<ns>/camera_info); the arms' skills stay our actions
  --quiet                do not log client connections
  --orphan-timeout S     exit once the process that started this one is gone and no client has been connected for
                         S seconds (a worker killed mid-episode leaves its simulator for another worker to re-attach
                         to; nobody coming back, it does not run forever). Default: never (started by the agent,
                         the eval runner or MCP: 10 s, robots/sim/process.ts)
`;

export async function serveSim(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      scenario: { type: "string" },
      port: { type: "string", default: "9090" },
      host: { type: "string", default: "127.0.0.1" },
      token: { type: "string" },
      seed: { type: "string", default: "0" },
      "miss-rate": { type: "string", default: "0" },
      "mislabel-rate": { type: "string", default: "0" },
      speed: { type: "string", default: "10" },
      width: { type: "string" },
      height: { type: "string" },
      "evaluator-key": { type: "string" },
      quiet: { type: "boolean", default: false },
      "orphan-timeout": { type: "string" },
      "grasp-sensing": { type: "string", default: "on" },
      episodes: { type: "string" },
      instance: { type: "string" },
      start: { type: "string" },
      "allow-topics": { type: "string" },
      "allow-services": { type: "string" },
      "allow-actions": { type: "string" },
      ros: { type: "string" },
      plain: { type: "boolean", default: false },
      standard: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(SERVE_SIM_HELP);
    return;
  }
  const selected = world(positionals[0] ?? "kitchen");
  const num = (name: string, text: string, min = 0, max = Infinity) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || value > max)
      throw new Error(`--${name} must be a number in [${min}, ${max}], got ${JSON.stringify(text)}`);
    return value;
  };
  const onOff = (name: string, text: string) => {
    if (text !== "on" && text !== "off") throw new Error(`--${name} must be on or off, got ${JSON.stringify(text)}`);
    return text === "on";
  };
  const log = values.quiet ? undefined : (line: string) => process.stderr.write(`[sim] ${line}\n`);
  const common = {
    host: values.host,
    port: num("port", values.port!, 0, 65535),
    token: values.token ?? process.env.ROBOGRAPH_BRIDGE_TOKEN,
    seed: num("seed", values.seed!),
    noise: {
      missRate: num("miss-rate", values["miss-rate"]!, 0, 1),
      mislabelRate: num("mislabel-rate", values["mislabel-rate"]!, 0, 1),
    },
    speed: values.speed === "max" ? Infinity : num("speed", values.speed!, 0.01),
    width: num("width", values.width ?? String(selected.size.width), 16, 4096),
    height: num("height", values.height ?? String(selected.size.height), 16, 4096),
    evaluatorKey: values["evaluator-key"] ?? process.env.ROBOGRAPH_EVALUATOR_KEY,
    allow: {
      topics: parseGlobs(values["allow-topics"]),
      services: parseGlobs(values["allow-services"]),
      actions: parseGlobs(values["allow-actions"]),
    },
    log,
  };
  if (values.start !== undefined && selected.name !== "blocks")
    throw new Error(`--start is for the blocks world, not ${selected.name}`);
  if ((values.plain || values.standard) && !values.ros)
    throw new Error("--plain and --standard are ways to be a ROS 1 robot: give --ros URL too");
  const own = {
    scenario: values.scenario,
    graspSensing: onOff("grasp-sensing", values["grasp-sensing"]!),
    episodes: values.episodes,
    instance: values.instance,
    start: values.start,
    speedGiven: argv.some((a) => a === "--speed" || a.startsWith("--speed=")),
    plain: values.plain,
    standard: values.standard,
  };
  if (values.ros) {
    if (!selected.ros)
      throw new Error(
        `--ros: only ${WORLDS.filter((x) => x.ros)
          .map((x) => x.name)
          .join(", ")} run as a ROS 1 robot so far (their skills have ROS message types), not ${selected.name}`,
      );
    const robot = await selected.ros(values.ros, common, own);
    process.stdout.write(`listening ${robot.url}\n`);
    onStop(log, () => robot.close());
    return;
  }
  const served = await selected.serve(common, own);
  process.stdout.write(`listening ${served.server.url}\n`);
  onStop(log, () => served.close());
  if (values["orphan-timeout"] !== undefined)
    exitWhenOrphaned(
      num("orphan-timeout", values["orphan-timeout"], 1),
      () => served.server.clientCount,
      log,
      () => served.close(),
    );
}

/**
 * Exits once the parent is gone and nobody has been connected for `seconds`. process.ppid is fixed at start, so the
 * parent's liveness is asked of the kernel (signal 0) each second.
 */
function exitWhenOrphaned(
  seconds: number,
  clients: () => number,
  log: ((line: string) => void) | undefined,
  close: () => Promise<void>,
): void {
  const parent = process.ppid;
  let idleSince: number | null = null;
  const timer = setInterval(() => {
    let alive = true;
    try {
      process.kill(parent, 0);
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === "EPERM";
    }
    if (alive) return;
    if (clients() > 0) {
      idleSince = null;
      return;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince < seconds * 1000) return;
    clearInterval(timer);
    log?.(`parent ${parent} gone and no client for ${seconds} s: shutting down`);
    void close().finally(() => process.exit(0));
  }, 1000);
  timer.unref();
}

/** Closes cleanly on SIGINT/SIGTERM, then exits. */
function onStop(log: ((line: string) => void) | undefined, close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    log?.(`${sig}: shutting down`);
    await close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveSim(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`serve-sim: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
