/**
 * `robograph mcp` (npm run mcp): the robots and the five methods as a Model Context Protocol server, for any MCP client
 * (desktop assistants, IDE agents, other agent frameworks). Built from what the bridge serves — every skill of every
 * robot manifest is a tool with the manifest's argument schema — plus `look` (a camera's newest frame as an image and its
 * detections), `emergency_stop`, one tool per method graph (each run is a `robograph run` child process with its own
 * thread, checkpoints and run record, its node-by-node lines sent as progress notifications) and `resume_run`.
 * Resources: the manifests, the world description and each run's record. Stdio by default; Streamable HTTP with --http.
 *
 * Skill calls go through the bridge (its allowlists apply); a skill whose manifest needs approval asks the client by
 * MCP elicitation, or is refused when the client cannot be asked. Bad input is a tool error (isError) with the reason,
 * never a crash of the server.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  isInitializeRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { cameraHealth, type Session } from "../runtime/session";
import { openRun, ROBOTS_ONLY } from "../runtime/run";
import { METHODS, methodOfGraph, type Method } from "../graphs";
import { dataDir } from "../memory/checkpointer";
import { startSimProcess, type SimProcess } from "../robots/sim/process";
import { world, WORLDS } from "../robots/sim/worlds";
import { campaignSettings, instancesHelp, runCampaignTask } from "./campaign";
import { defaultRunFlags, runTask, type RunFlags } from "./run";
import { ownSettings } from "../runtime/settings";
import { backProject, depthOf, imageSize, pngOf, type CameraInfo, type ImageMessage } from "../robots/msgs/images";
import type { RobotManifest } from "../robots/manifests/schema";
import {
  callSkill,
  findSkill,
  InvalidSkillArgumentsError,
  skillCatalog,
  UnknownSkillError,
  validateSkillArguments,
} from "../tools/skills";

export const MCP_HELP = `usage: robograph mcp [options]      (npm run mcp -- [options])

Serves the robots' skills and the five methods to MCP clients. On a robot (--bridge-url, and --manifest for one whose
bridge serves no manifest) every method tool runs on that robot: a robot of your own needs the tool's goal, and a
manifest file with a world block. Without --bridge-url it starts the named world's simulator (stopped on exit), runs
that world's methods on it, and starts a simulator of their own for the others.

options:
  --world W          ${WORLDS.map((w, i) => `${w.name}${i === 0 ? " (default)" : ""}`).join(" | ")}
  --scenario NAME    the simulator's scenario (default: the world's)
  --bridge-url URL   a running robot or simulator instead (its world is read from its manifests)
  --manifest FILE    the robots' manifests when the bridge serves none (a plain ROS robot)
  --http PORT        Streamable HTTP on PORT (path /mcp) instead of stdio; bound to 127.0.0.1 unless --token is given
  --token T          with --http: clients must send "Authorization: Bearer T"; binds every interface (or ROBOGRAPH_MCP_TOKEN)
  --approve R/S,...  skills that need human approval besides those whose manifest says so, e.g. arm/release_to (as
                     npm start's --approve): each call asks the client (MCP elicitation) before anything is sent
  --speed X          the simulator's speed, simulated seconds per wall second (default max)
  --data-dir DIR     checkpoints and artifacts (default ./data)      --runs-dir DIR  run records (default ./runs)

A desktop client's configuration (stdio):
  { "command": "npm", "args": ["run", "--silent", "mcp", "--prefix", "/path/to/robograph"] }
`;

/** The method graphs as tools (graphs/index.ts): which graph, which world it runs in, its variants. */
type MethodTool = Method;

/**
 * A server on a robot (--bridge-url) runs every method on it; one with a simulator of its own runs the methods of that
 * simulator's world on it and starts another simulator for the rest. The curriculum always starts simulators of its own.
 */
const runsHere = (m: MethodTool, ctx: McpContext) => !m.campaign && (ctx.onRobot || m.world === ctx.world);

const text = (message: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: message }],
  ...(isError ? { isError: true } : {}),
});
const fail = (t: string) => text(t, true);

export interface McpContext {
  session: Session;
  bridgeUrl: string;
  /** The world behind the bridge. */
  world: string;
  /** Started on a robot (--bridge-url), not a simulator of its own: every method runs on it. */
  onRobot: boolean;
  /** The robots' manifest file, for a robot whose bridge serves none (each run on it reads it too). */
  manifest?: string;
  dataDir: string;
  runsDir: string;
  /** Skills (robot/skill) that need approval besides those whose manifest says so. */
  needApproval: Set<string>;
  /** Skill calls in flight, stopped by emergency_stop. */
  inFlight: Set<AbortController>;
  /** Method and campaign runs in flight in this process, stopped by emergency_stop (each ends interrupted, resumable). */
  runs: Set<AbortController>;
  log(line: string): void;
}

function runInput(tool: MethodTool): Tool["inputSchema"] {
  const common = {
    variant: { type: "string", enum: [...tool.variants], description: "the full method or an ablation (default full)" },
    seed: {
      type: "integer",
      minimum: 0,
      description: "seed of the offline reasoner's noise and the detector's (default 0)",
    },
    noise: { type: "number", minimum: 0, maximum: 1, description: "the offline reasoner's noise level (default 0)" },
    // The curriculum's learner runs its own base skills: nothing in it asks for approval.
    ...(!tool.approvals
      ? {}
      : {
          auto_approve: {
            type: "boolean",
            description:
              "approve every skill that needs approval during the run without asking (default: the client is asked)",
          },
        }),
    model: {
      type: "string",
      enum: ["symbolic", "openai"],
      description:
        "the built-in offline reasoner, or the OpenAI-compatible endpoint the server's environment configures (default: openai when OPENAI_API_KEY is set)",
    },
    // Its own settings, as its configuration declares them (a campaign's budgets by its own names, below).
    ...Object.fromEntries(
      ownSettings(tool.configuration)
        .filter((setting) => !tool.campaign || !campaignSettings(tool.campaign).includes(setting.key))
        .map((setting) => [setting.argument, setting.schema]),
    ),
    ...(tool.startsFrom ? { program: { type: "object", description: tool.startsFrom } } : {}),
  };
  // A campaign starts its own simulators on a world of its own making: no goal, no scenario.
  if (tool.campaign) {
    const starts = world(tool.world).starts;
    return {
      type: "object",
      properties: {
        ...Object.fromEntries(
          tool.campaign.budgets.map((budget) => [
            budget.flag.replace(/-/g, "_"),
            {
              type: "integer",
              minimum: 1,
              description: `${budget.help} before the run ends (default ${budget.default})`,
            },
          ]),
        ),
        instances: { type: "integer", minimum: 1, description: instancesHelp(tool) },
        ...(starts
          ? {
              start: {
                type: "string",
                enum: [...starts],
                description: `how every layout starts: ${starts.join(", ")} (default ${starts[0]})`,
              },
            }
          : {}),
        ...common,
      },
      additionalProperties: false,
    };
  }
  return {
    type: "object",
    properties: {
      goal: { type: "string", minLength: 1, description: "the instruction (default: the scenario's)" },
      check: {
        type: "string",
        minLength: 1,
        description:
          'what the simulator checks at the end, as goal literals ("in(apple, sink); closed(oven)"); default the scenario\'s goal — a run given another goal without this is not checked (success null)',
      },
      scenario: {
        type: "string",
        minLength: 1,
        description: `the ${tool.world} scenario (default: the world's); only when the run starts its own simulator`,
      },
      ...common,
    },
    additionalProperties: false,
  };
}

export function listTools(ctx: McpContext): Tool[] {
  const skills: Tool[] = skillCatalog(ctx.session.robots).map((entry) => ({
    name: entry.name,
    title: entry.title,
    description: entry.description,
    inputSchema: entry.spec.parameters as Tool["inputSchema"],
  }));
  const cameras = ctx.session.robots.filter((r) => r.cameras.length).map((r) => r.id);
  return [
    ...skills,
    {
      name: "look",
      description: "A robot's newest camera frame (PNG) and what its detector reports in it.",
      inputSchema: {
        type: "object",
        properties: {
          robot: { type: "string", enum: cameras, description: `the robot (default ${cameras[0] ?? "none"})` },
        },
        additionalProperties: false,
      },
    },
    {
      name: "emergency_stop",
      description: "Cancels every skill and run this server has in flight; runs end interrupted and can be resumed.",
      inputSchema: { type: "object", properties: { reason: { type: "string" } }, additionalProperties: false },
    },
    ...METHODS.map((tool) => ({
      name: tool.tool,
      description: `${tool.about}. Runs one episode on a thread of its own (checkpointed), sends a progress notification per graph node, and returns the summary: status, the simulator's check, steps, replans, model calls, the run record's thread.${runsHere(tool, ctx) ? " Runs on this server's robots." : ` Starts its own ${tool.world} simulator.`}`,
      inputSchema: runInput(tool),
    })),
    {
      name: "resume_run",
      description: "Continues an interrupted run (emergency stop, model endpoint down) from its last checkpoint.",
      inputSchema: {
        type: "object",
        properties: { thread: { type: "string", minLength: 1 }, auto_approve: { type: "boolean" } },
        required: ["thread"],
        additionalProperties: false,
      },
    },
  ];
}

type Extra = {
  signal: AbortSignal;
  sendNotification: (n: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
  _meta?: { progressToken?: string | number };
};

/** One tool call: never throws — every failure is a tool error with its reason. */
export async function callTool(
  server: Server,
  ctx: McpContext,
  name: string,
  args: Record<string, unknown>,
  extra: Extra,
): Promise<CallToolResult> {
  try {
    const progress = (count: number, message: string) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        void extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: count, message },
          })
          .catch(() => {});
    };
    if (name === "look") return await look(ctx, args);
    if (name === "emergency_stop") return emergencyStopAll(ctx, String(args.reason ?? "emergency_stop tool"));
    const method = METHODS.find((m) => m.tool === name);
    if (method) return await runMethod(server, ctx, method, args, progress, extra.signal);
    if (name === "resume_run") return await resumeRun(server, ctx, args, progress, extra.signal);
    const [robot, skill] = name.split("__");
    if (!robot || !skill)
      return fail(
        `unknown tool ${name}; tools: ${listTools(ctx)
          .map((t) => t.name)
          .join(", ")}`,
      );
    return await runSkill(server, ctx, robot, skill, args, progress, extra.signal);
  } catch (err) {
    return fail(`${name}: ${(err as Error).message}`);
  }
}

async function runSkill(
  server: Server,
  ctx: McpContext,
  robot: string,
  skill: string,
  args: Record<string, unknown>,
  progress: (n: number, m: string) => void,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const manifests = ctx.session.robots;
  let spec;
  try {
    spec = findSkill(manifests, robot, skill);
    validateSkillArguments(robot, spec, args);
  } catch (err) {
    if (err instanceof UnknownSkillError || err instanceof InvalidSkillArgumentsError) return fail(err.message);
    throw err;
  }
  if (spec.requiresApproval || ctx.needApproval.has(`${robot}/${skill}`)) {
    const question = `Allow ${robot} to ${spec.display ?? skill} with ${JSON.stringify(args)}?`;
    if (!server.getClientCapabilities()?.elicitation)
      return fail(
        `${robot}.${skill} needs human approval and this client cannot be asked (it does not support elicitation): nothing was sent to the robot`,
      );
    const answer = await server.elicitInput({
      message: question,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", description: question } },
        required: ["approve"],
      },
    });
    if (answer.action !== "accept" || answer.content?.approve !== true)
      return fail(
        `${robot}.${skill} was not approved (${answer.action === "cancel" ? "the question was dismissed" : "declined"}): nothing was sent to the robot`,
      );
  }
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  ctx.inFlight.add(stop);
  let k = 0;
  try {
    const outcome = await callSkill(ctx.session.client, manifests, robot, skill, args, {
      signal: stop.signal,
      onFeedback: (f) => progress(++k, JSON.stringify(f)),
    });
    const summary = {
      ok: outcome.ok,
      status: outcome.status,
      message: outcome.message,
      ...(outcome.error ? { error: outcome.error } : {}),
      goalId: outcome.goalId,
      seconds: Math.round(outcome.durationMs / 100) / 10,
    };
    return {
      content: [{ type: "text", text: JSON.stringify(summary) }],
      structuredContent: summary,
      ...(outcome.ok ? {} : { isError: true }),
    };
  } finally {
    ctx.inFlight.delete(stop);
    signal.removeEventListener("abort", onAbort);
  }
}

async function look(ctx: McpContext, args: Record<string, unknown>): Promise<CallToolResult> {
  const cameras = ctx.session.robots.filter((r) => r.cameras.length);
  const robot = (args.robot as string | undefined) ?? cameras[0]?.id;
  const manifest = cameras.find((r) => r.id === robot);
  if (!robot || !manifest)
    return fail(
      `no camera on robot ${robot ?? "(none)"}; robots with cameras: ${cameras.map((r) => r.id).join(", ") || "none"}`,
    );
  const cam = manifest.cameras[0];
  await Promise.race([ctx.session.firstViews, new Promise((r) => setTimeout(r, 10_000))]);
  const view = ctx.session.views.get(robot);
  if (!view?.image) return fail(`${robot} has sent no camera frame on ${cam.image} yet`);
  // How old the frame is, and whether it is still what the robot sees (its robot lost, its camera gone quiet).
  const health = cameraHealth(ctx.session, robot);
  const png = await pngOf(view.image, cam.image);
  type Seen = {
    label: string;
    box?: { x: number; y: number; w: number; h: number };
    location?: { relation: string; place: string };
  };
  const dets = (view.detections as { detections?: Seen[] } | undefined)?.detections ?? [];
  const size = imageSize(view.image);
  // A lost robot sends no depth to wait for.
  const range = health.state === "lost" ? undefined : await depthReader(ctx, cam, size?.width ?? cam.width);
  const at = (column: number, row: number) => {
    const point = range?.(column, row);
    return point
      ? `${point.z.toFixed(2)} m ahead, ${Math.abs(point.x).toFixed(2)} m ${point.x >= 0 ? "right" : "left"}, ${Math.abs(point.y).toFixed(2)} m ${point.y >= 0 ? "below" : "above"}`
      : undefined;
  };
  const seen = dets.map((detection) => {
    const where = detection.box
      ? at(detection.box.x + detection.box.w / 2, detection.box.y + detection.box.h / 2)
      : undefined;
    return `${detection.label}${detection.location ? ` (${detection.location.relation} ${detection.location.place})` : ""}${where ? ` at ${where}` : ""}`;
  });
  const centre = size && !cam.detections ? at(size.width / 2, size.height / 2) : undefined;
  const said = cam.detections
    ? `${robot} sees: ${seen.join(", ") || "nothing it can name"}`
    : `${robot} has no object detector: the image is what it sees${centre ? ` (the image's centre is ${centre})` : ""}`;
  return {
    content: [
      { type: "image", data: png.toString("base64"), mimeType: "image/png" },
      {
        type: "text",
        text: health.state === "live" ? `${said} (${health.said})` : `${health.said}. It saw then: ${said}`,
      },
    ],
  };
}

/**
 * Where a pixel's depth puts what it saw, in the camera's optical frame — from one depth frame and the CameraInfo,
 * taken when someone looks (a depth stream is not followed the rest of the time). Undefined without both.
 */
async function depthReader(
  ctx: McpContext,
  cam: RobotManifest["cameras"][number],
  colourWidth: number,
): Promise<((u: number, v: number) => { x: number; y: number; z: number } | undefined) | undefined> {
  if (!cam.depth || !cam.info) return undefined;
  const client = ctx.session.client;
  try {
    const [depthMsg, info] = await Promise.all([
      client.nextMessage<ImageMessage>(cam.depth, cam.depthType ?? "sensor_msgs/msg/CompressedImage", 3000),
      client.nextMessage<CameraInfo>(cam.info, "sensor_msgs/msg/CameraInfo", 3000),
    ]);
    const depth = await depthOf(depthMsg, cam.depth);
    // Boxes are in the colour image's pixels; the intrinsics are for the CameraInfo's size.
    const scale = info.width > 0 ? colourWidth / info.width : 1;
    return (u, v) => backProject(depth, info, u / scale, v / scale);
  } catch (err) {
    ctx.log(`look: no depth (${(err as Error).message})`);
    return undefined;
  }
}

function emergencyStopAll(ctx: McpContext, reason: string): CallToolResult {
  const skills = ctx.inFlight.size,
    runs = ctx.runs.size;
  for (const call of ctx.inFlight) call.abort();
  // A run's nodes cancel the robot's goal in flight and end the run interrupted (resumable); a campaign's too.
  for (const methodRun of ctx.runs) methodRun.abort(new Error(`emergency stop: ${reason}`));
  ctx.log(`emergency stop (${reason}): ${skills} skill(s), ${runs} run(s)`);
  return text(
    `emergency stop (${reason}): canceled ${skills} skill call(s) and stopped ${runs} run(s)${runs ? "; resume a run with resume_run" : ""}`,
  );
}

interface RunRecord {
  tool: string;
  graph: string;
  thread: string;
  bridgeUrl?: string;
  manifest?: string;
  /** The method's own settings it was given (as flags): its resume runs with them too. */
  settings?: Record<string, string | boolean>;
}

const recordFile = (ctx: McpContext, thread: string) => join(ctx.runsDir, thread, "mcp.json");

async function runMethod(
  server: Server,
  ctx: McpContext,
  tool: MethodTool,
  args: Record<string, unknown>,
  progress: (n: number, m: string) => void,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const known = Object.keys(runInput(tool).properties ?? {});
  const bad = Object.keys(args).filter((k) => !known.includes(k));
  if (bad.length) return fail(`${tool.tool} takes no ${bad.join(", ")}; it takes ${known.join(", ")}`);
  if (args.variant !== undefined && !(tool.variants as readonly string[]).includes(String(args.variant)))
    return fail(`${tool.tool}: variant must be one of ${tool.variants.join(", ")}`);
  const thread = `${tool.graph}-${randomUUID().slice(0, 8)}`;
  const here = runsHere(tool, ctx);
  if (here && args.scenario !== undefined)
    return fail(
      `${tool.tool} runs on this server's ${ctx.world} world as it stands: a scenario is chosen when the server starts (--scenario)`,
    );
  mkdirSync(join(ctx.runsDir, thread), { recursive: true });
  const programFile = join(ctx.runsDir, thread, "program.json");
  if (args.program !== undefined) writeFileSync(programFile, JSON.stringify(args.program));
  // Each argument is the run's own option of the same name (the run checks its values and says what is wrong).
  const given: Record<string, string | boolean> = { graph: tool.graph, thread };
  for (const [key, value] of Object.entries(args)) {
    if (key === "program") given.program = programFile;
    else if (typeof value === "boolean") given[key.replace(/_/g, "-")] = value;
    else given[key.replace(/_/g, "-")] = String(value);
  }
  if (here) given["bridge-url"] = ctx.bridgeUrl;
  if (here && ctx.manifest) given.manifest = ctx.manifest;
  if (ctx.needApproval.size && tool.approvals) given.approve = [...ctx.needApproval].join(",");
  // What its resume must be given again: its own settings, and a campaign's budgets, simulators and start.
  const own = new Set([
    ...ownSettings(tool.configuration).map((setting) => setting.flag),
    ...(tool.campaign ? [...tool.campaign.budgets.map((budget) => budget.flag), "instances", "start"] : []),
  ]);
  const rec: RunRecord = {
    tool: tool.tool,
    graph: tool.graph,
    thread,
    ...(here ? { bridgeUrl: ctx.bridgeUrl } : {}),
    ...(here && ctx.manifest ? { manifest: ctx.manifest } : {}),
    settings: Object.fromEntries(Object.entries(given).filter(([flag]) => own.has(flag))),
  };
  writeFileSync(recordFile(ctx, thread), JSON.stringify(rec));
  if (tool.campaign) return campaignRun(ctx, rec, given, progress, signal);
  return taskRun(server, ctx, rec, given, progress, signal);
}

async function resumeRun(
  server: Server,
  ctx: McpContext,
  args: Record<string, unknown>,
  progress: (n: number, m: string) => void,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const thread = String(args.thread ?? "");
  if (!/^[A-Za-z0-9_.-]+$/.test(thread) || !existsSync(recordFile(ctx, thread)))
    return fail(`no run ${JSON.stringify(thread)} started by this server in ${ctx.runsDir}`);
  const rec = JSON.parse(readFileSync(recordFile(ctx, thread), "utf8")) as RunRecord;
  const given: Record<string, string | boolean> = {
    graph: rec.graph,
    thread,
    resume: true,
    ...(rec.bridgeUrl ? { "bridge-url": rec.bridgeUrl } : {}),
    ...(rec.manifest ? { manifest: rec.manifest } : {}),
    ...rec.settings,
    ...(args.auto_approve === true ? { "auto-approve": true } : {}),
    ...(ctx.needApproval.size && methodOfGraph(rec.graph)?.approvals
      ? { approve: [...ctx.needApproval].join(",") }
      : {}),
  };
  if (methodOfGraph(rec.graph)?.campaign) return campaignRun(ctx, rec, given, progress, signal);
  return taskRun(server, ctx, rec, given, progress, signal);
}

/** The answer of this server's client to a skill that waits for approval (asked by elicitation, if it can be asked). */
async function askClient(server: Server, description: string): Promise<boolean> {
  if (!server.getClientCapabilities()?.elicitation) return false;
  const answer = await server
    .elicitInput({
      message: description,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", description } },
        required: ["approve"],
      },
    })
    .catch(() => undefined);
  return answer?.action === "accept" && answer.content?.approve === true;
}

/** What a tool call returns of a finished run: its summary's brief and its record, an error where the caller must act. */
function runResult(rec: RunRecord, summary: Record<string, unknown>, code: number | null): CallToolResult {
  const brief = methodOfGraph(rec.graph)?.campaign
    ? {
        thread: rec.thread,
        exitCode: code,
        ...pick(summary, ["counters", "status", "statusReason"]),
        learned: ((summary.library as { source: string; caption: string }[] | undefined) ?? [])
          .filter((entry) => entry.source === "learned")
          .map((entry) => entry.caption),
      }
    : pick(summary, [
        "thread",
        "status",
        "statusReason",
        "success",
        "checked",
        "unchecked",
        "steps",
        "replans",
        "modelCalls",
        "wallSeconds",
        "resume",
      ]);
  const result = { ...brief, record: `robograph://runs/${rec.thread}/report.md` };
  const interrupted = summary.status === "interrupted";
  // A task not done (exit 2) is the run's result, said by its status; an interrupted run needs the caller to act.
  return {
    content: [
      {
        type: "text",
        text: `${JSON.stringify(result)}${interrupted ? `\nInterrupted: continue it with resume_run {"thread": "${rec.thread}"}` : ""}`,
      },
    ],
    structuredContent: result,
    ...(code === 0 || (code === 2 && !interrupted) ? {} : { isError: true }),
  };
}

/**
 * A method's run in this process, as `robograph run` runs it (cli/run.ts): its lines become progress, a skill that
 * needs approval is asked of the client, emergency_stop ends it interrupted, and its summary is the result.
 */
async function taskRun(
  server: Server,
  ctx: McpContext,
  rec: RunRecord,
  given: Record<string, string | boolean>,
  progress: (n: number, m: string) => void,
  signal: AbortSignal,
): Promise<CallToolResult> {
  let steps = 0;
  return stoppable(ctx, rec, signal, async (stop) => {
    const flags = {
      ...defaultRunFlags(),
      ...given,
      "runs-dir": ctx.runsDir,
      "data-dir": ctx.dataDir,
    } as RunFlags;
    const result = await runTask(flags, {
      say: (line) => line.trim() && progress(++steps, line.trim()),
      approve: async (request) => {
        const ok = await askClient(server, request.description);
        progress(
          ++steps,
          `approval of ${request.action_request.action}: ${ok ? "accepted" : server.getClientCapabilities()?.elicitation ? "declined" : "declined (this client cannot be asked)"}`,
        );
        return ok;
      },
      signal: stop,
    });
    return runResult(rec, result.summary, result.code);
  });
}

/**
 * A run of this server's, stoppable: emergency_stop or the client canceling the call aborts its own stop (the run ends
 * interrupted, resumable); an error is the tool's error, naming the run.
 */
async function stoppable(
  ctx: McpContext,
  rec: RunRecord,
  signal: AbortSignal,
  body: (stop: AbortSignal) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(new Error("the MCP client canceled the call"));
  signal.addEventListener("abort", onAbort, { once: true });
  ctx.runs.add(stop);
  try {
    return await body(stop.signal);
  } catch (err) {
    return fail(`${rec.tool} (thread ${rec.thread}): ${(err as Error).message}`);
  } finally {
    ctx.runs.delete(stop);
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * A campaign's run in this process (the curriculum: many episodes on simulators of its own, nothing to approve), as
 * `robograph run --graph G` runs it (cli/campaign.ts): its lines and its progress become progress, emergency_stop or a
 * canceled call ends it interrupted, and its record's summary is the result.
 */
async function campaignRun(
  ctx: McpContext,
  rec: RunRecord,
  given: Record<string, string | boolean>,
  progress: (n: number, m: string) => void,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const method = methodOfGraph(rec.graph)!;
  // A campaign has nothing to approve: a resume's auto_approve means nothing to it.
  const { "auto-approve": _autoApprove, approve: _approve, ...options } = given;
  let steps = 0,
    shown = "";
  return stoppable(ctx, rec, signal, async (stop) => {
    const result = await runCampaignTask(
      method,
      method.campaign!,
      { ...options, "runs-dir": ctx.runsDir, "data-dir": ctx.dataDir },
      {
        say: (line) => line.trim() && progress(++steps, line.trim()),
        progress: (done, total, unit, words) => {
          const line = `${done}/${total} ${unit} · ${words}`;
          if (line !== shown) progress(++steps, (shown = line));
        },
        signal: stop,
      },
    );
    if (!result.summary)
      return fail(
        `${rec.tool} (thread ${rec.thread}) ended before writing its record${result.error ? `: ${result.error.message}` : ""}`,
      );
    return runResult(rec, result.summary, result.error ? 1 : result.code);
  });
}

const pick = (source: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));

function resources(ctx: McpContext) {
  return [
    {
      uri: "robograph://manifests",
      name: "manifests",
      title: "Robot manifests",
      description: "Every robot's skills, arguments, cameras and facts",
      mimeType: "application/json",
    },
    {
      uri: "robograph://world",
      name: "world",
      title: "World description",
      description: "The world's vocabulary: places, objects, what holds what",
      mimeType: "application/json",
    },
    // The runs this server started (each leaves its record under the runs directory).
    ...(existsSync(ctx.runsDir) ? readdirSync(ctx.runsDir) : [])
      .filter((t) => existsSync(recordFile(ctx, t)) && existsSync(join(ctx.runsDir, t, "report.md")))
      .map((thread) => ({
        uri: `robograph://runs/${thread}/report.md`,
        name: `run ${thread}`,
        title: `Run ${thread}`,
        mimeType: "text/markdown",
      })),
  ];
}

function readResource(ctx: McpContext, uri: string): { uri: string; mimeType: string; text: string } {
  if (uri === "robograph://manifests")
    return { uri, mimeType: "application/json", text: JSON.stringify(ctx.session.robots, null, 1) };
  if (uri === "robograph://world")
    return { uri, mimeType: "application/json", text: JSON.stringify(ctx.session.world, null, 1) };
  const match = /^robograph:\/\/runs\/([A-Za-z0-9_.-]+)\/(report\.md|summary\.json|report\.json)$/.exec(uri);
  const file = match && join(ctx.runsDir, match[1], match[2]);
  if (!file || !existsSync(file))
    throw new Error(
      `no resource ${uri}: resources are robograph://manifests, robograph://world and robograph://runs/<thread>/{report.md,summary.json}`,
    );
  return {
    uri,
    mimeType: match[2].endsWith(".md") ? "text/markdown" : "application/json",
    text: readFileSync(file, "utf8"),
  };
}

/** One MCP server (one per client session over HTTP) on the shared context. */
export function buildServer(ctx: McpContext): Server {
  const server = new Server(
    { name: "robograph", version: "0.1.0" },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: "Robot skills, a camera look, an emergency stop, and one tool per closed-loop method of RoboGraph.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(ctx) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) =>
    callTool(server, ctx, req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, {
      signal: extra.signal,
      sendNotification: extra.sendNotification as Extra["sendNotification"],
      _meta: req.params._meta,
    }),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: resources(ctx) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: "robograph://runs/{thread}/report.md",
        name: "run report",
        description: "A run's record: its steps, frames and result",
        mimeType: "text/markdown",
      },
      {
        uriTemplate: "robograph://runs/{thread}/summary.json",
        name: "run summary",
        description: "A run's status, the simulator's check, counters",
        mimeType: "application/json",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({
    contents: [readResource(ctx, req.params.uri)],
  }));
  return server;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      world: { type: "string", default: "kitchen" },
      scenario: { type: "string" },
      "bridge-url": { type: "string" },
      manifest: { type: "string" },
      http: { type: "string" },
      token: { type: "string" },
      approve: { type: "string", default: "" },
      speed: { type: "string", default: "max" },
      "data-dir": { type: "string" },
      "runs-dir": { type: "string", default: "runs" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  // On stdio, stdout is the protocol's: everything said goes to stderr.
  const log = (line: string) => process.stderr.write(`robograph mcp: ${line}\n`);
  if (!WORLDS.some((w) => w.name === flags.world))
    throw new Error(`--world must be one of ${WORLDS.map((w) => w.name).join(", ")}, not ${flags.world}`);
  const port = flags.http !== undefined ? Number(flags.http) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new Error(`--http must be a port number, not ${flags.http}`);
  const token = flags.token ?? process.env.ROBOGRAPH_MCP_TOKEN;
  let sim: SimProcess | undefined;
  let bridgeUrl = flags["bridge-url"];
  if (!bridgeUrl) {
    sim = await startSimProcess(flags.world!, [
      "--speed",
      flags.speed!,
      ...(flags.scenario ? ["--scenario", flags.scenario] : []),
    ]);
    bridgeUrl = sim.url;
    log(`${flags.world} simulator at ${bridgeUrl}`);
  }
  const dir = flags["data-dir"] ? resolve(flags["data-dir"]) : dataDir();
  // Skills and looks need no world description (a plain robot's manifest file may have none); the methods say so if they do.
  const robots = openRun(ROBOTS_ONLY, {
    bridgeUrl,
    dataDir: dir,
    manifest: flags.manifest ? resolve(flags.manifest) : undefined,
  });
  const session = await robots.session(bridgeUrl, { world: false });
  const world = flags["bridge-url"] ? session.world.name : flags.world!;
  const ctx: McpContext = {
    session,
    bridgeUrl,
    world,
    onRobot: !!flags["bridge-url"],
    ...(flags.manifest ? { manifest: resolve(flags.manifest) } : {}),
    dataDir: dir,
    runsDir: resolve(flags["runs-dir"]!),
    needApproval: new Set(
      flags
        .approve!.split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    ),
    inFlight: new Set(),
    runs: new Set(),
    log,
  };
  const shutdown = async () => {
    for (const methodRun of ctx.runs) methodRun.abort(new Error("the MCP server is shutting down"));
    // Each run ends interrupted, writes its record and stops the simulators it started.
    for (let waited = 0; ctx.runs.size && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    await robots.close();
    await sim?.stop();
  };
  if (port === undefined) {
    const server = buildServer(ctx);
    const closed = new Promise<void>((r) => (server.onclose = () => r()));
    await server.connect(new StdioServerTransport());
    log(`serving ${listTools(ctx).length} tools on stdio`);
    await Promise.race([closed, new Promise<void>((r) => process.stdin.once("end", () => r())), signalled()]);
    await shutdown();
    return 0;
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(
    (req, res) =>
      void handleHttp(req, res).catch((err) => {
        log(`HTTP request failed: ${(err as Error).message}`);
        if (!res.headersSent) res.writeHead(500).end();
      }),
  );
  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.url?.startsWith("/mcp"))
      return void res.writeHead(404, { "content-type": "text/plain" }).end("the MCP endpoint is /mcp\n");
    if (token && req.headers.authorization !== `Bearer ${token}`)
      return void res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong bearer token\n");
    const id = req.headers["mcp-session-id"] as string | undefined;
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return void res.writeHead(400, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32700, message: "parse error: the body is not JSON" },
            id: null,
          }),
        );
      }
    }
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id || req.method !== "POST" || !isInitializeRequest(body))
        return void res.writeHead(400, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32000, message: id ? `unknown session ${id}` : "no session: send initialize first" },
            id: null,
          }),
        );
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
      await buildServer(ctx).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }
  const host = token ? "0.0.0.0" : "127.0.0.1";
  await new Promise<void>((r) => http.listen(port, host, () => r()));
  const addr = http.address() as { port: number };
  // The line a script waits for.
  process.stdout.write(`robograph mcp: Streamable HTTP at http://${host}:${addr.port}/mcp\n`);
  await signalled();
  http.close();
  for (const t of sessions.values()) await t.close();
  await shutdown();
  return 0;
}

const signalled = () => new Promise<void>((r) => ["SIGINT", "SIGTERM"].forEach((sig) => process.once(sig, () => r())));
