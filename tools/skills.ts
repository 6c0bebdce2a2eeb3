/**
 * Robot skills as typed calls and as LangChain tools, built from robot manifests and bound to a bridge client.
 * Arguments are validated against the manifest's schema before anything is sent; a goal's feedback is collected;
 * every call ends in a typed SkillResult (robot failures are results, not exceptions).
 */
import { randomUUID } from "node:crypto";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import type { BridgeClient, GoalResult } from "../robots/bridge/client";
import { actionlibGoalKnown, sendActionlibGoal } from "../robots/bridge/ros1";
import {
  BridgeAuthError,
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
  RobotLostError,
  RosAuthError,
  ServiceCallError,
} from "../robots/bridge/errors";
import { GoalStatus } from "../robots/bridge/protocol";
import {
  argumentsValidator,
  goalFromTemplate,
  GoalTemplateError,
  ManifestResponse,
  MANIFEST_SERVICE,
  type RobotManifest,
  type SkillSpec,
} from "../robots/manifests/schema";
import { loadManifestFile } from "../robots/manifests";
import { refuseMismatches } from "../robots/manifests/check";
import { livenessMs } from "./liveness";

export class UnknownSkillError extends Error {
  override name = "UnknownSkillError";
  constructor(
    readonly robot: string,
    readonly skill: string,
    known: string[],
  ) {
    super(`robot ${robot} has no skill ${skill}; it has: ${known.join(", ") || "(no such robot)"}`);
  }
}

export class InvalidSkillArgumentsError extends Error {
  override name = "InvalidSkillArgumentsError";
  constructor(
    readonly robot: string,
    readonly skill: string,
    readonly issues: string[],
  ) {
    super(`invalid arguments for ${robot}.${skill}: ${issues.join("; ")}`);
  }
}

export interface SkillResult {
  ok: boolean;
  robot: string;
  skill: string;
  goalId: string;
  /**
   * `robot_lost`: the robot gave no sign of life for its liveness window while the goal ran (its action's status
   * stopped, the bridge's socket closed and did not come back, its node no longer answers); `error` says which, and the
   * feedback and `lastStatus` what was last known. The goal may have died with it.
   */
  status: "succeeded" | "aborted" | "canceled" | "timeout" | "disconnected" | "rejected" | "robot_lost";
  /** The robot's own words on how it went (success message or failure reason). */
  message: string;
  /** What the robot's status last said of the goal (`ACTIVE`, `SUCCEEDED: arrived …`), where its protocol says it. */
  lastStatus?: string;
  /** Set when the call did not succeed. */
  error?: string;
  feedback: unknown[];
  durationMs: number;
  values?: unknown;
  /** The robot's time the goal ended at (seconds), when its result says: frames stamped later show what it left. */
  endedAt?: number;
}

export interface CallOptions {
  /** Chosen by the caller so it can be recorded before sending (crash-safe resume reconciles by it). */
  goalId?: string;
  onFeedback?: (f: unknown) => void;
  signal?: AbortSignal;
  /** Overrides the manifest's timeout. */
  timeoutMs?: number;
  /**
   * The goal was lost with its robot (a resumed run; the text is what was known then): it is followed only if the
   * robot, back, still knows it — never sent anew, since a restarted robot would run it again.
   */
  lostBefore?: string;
}

/**
 * Fetches and validates the manifests a bridge serves at `/robograph/manifest`. A ROS 1 robot behind the reference
 * rosbridge answers as a robograph_msgs/Json service (its manifests as JSON text): the client then speaks ROS 1.
 */
export async function discoverRobots(client: BridgeClient, timeoutMs = 10_000): Promise<ManifestResponse> {
  let values: unknown;
  try {
    values = await client.callService(MANIFEST_SERVICE, {}, { timeoutMs });
  } catch (err) {
    if (!(err instanceof ServiceCallError)) throw err;
    throw new Error(
      `${client.url} serves no ${MANIFEST_SERVICE} (${err.message}): a plain ROS robot needs a manifest file — draft one with robograph connect ${client.url} and pass it with --manifest FILE (configurable.manifest)`,
      { cause: err },
    );
  }
  const text = (values as { json?: unknown } | undefined)?.json;
  if (typeof text === "string" && Object.keys(values as object).length === 1) {
    client.dialect = "ros1";
    try {
      values = JSON.parse(text);
    } catch {
      throw new Error(`${MANIFEST_SERVICE} answered with JSON text that does not parse`);
    }
  }
  const parsed = ManifestResponse.safeParse(values);
  if (!parsed.success)
    throw new Error(
      `${MANIFEST_SERVICE} answered with an invalid manifest: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

/**
 * The manifests of a robot whose bridge serves none (a plain ROS robot): read from a file ({ robots, world }, as
 * `robograph connect` drafts and a person completes), validated, and held to the robot rosapi describes (each skill's
 * server, type and fields: robots/manifests/check.ts); the client's dialect is learned from rosapi (a ROS 1 rosapi
 * names types without `/msg/`).
 */
export async function manifestsFromFile(
  client: BridgeClient,
  path: string,
  timeoutMs = 10_000,
): Promise<ManifestResponse> {
  const manifests = loadManifestFile(path);
  await learnDialect(client, timeoutMs);
  // Held to the robot before anything runs: a misspelled server or a field of the wrong type is refused here, named.
  await refuseMismatches(`manifest file ${path}`, manifests, (service, args) =>
    client.callService(service, args ?? {}, { timeoutMs }),
  );
  return manifests;
}

/** Sets the client's dialect from rosapi: a ROS 1 rosapi names types without `/msg/`. */
export async function learnDialect(client: BridgeClient, timeoutMs = 10_000): Promise<void> {
  const { types } = await client.callService<{ types: string[] }>("/rosapi/topics", {}, { timeoutMs });
  if (types.length && !types.some((t) => t.includes("/msg/"))) client.dialect = "ros1";
}

export function findSkill(manifests: RobotManifest[], robot: string, skill: string): SkillSpec {
  const manifest = manifests.find((r) => r.id === robot);
  const spec = manifest?.skills.find((k) => k.name === skill);
  if (!spec) throw new UnknownSkillError(robot, skill, manifest ? manifest.skills.map((k) => k.name) : []);
  return spec;
}

/** Checks arguments against the skill's schema; throws InvalidSkillArgumentsError naming each bad field. */
export function validateSkillArguments(robot: string, spec: SkillSpec, args: unknown): Record<string, unknown> {
  const parsed = argumentsValidator(spec.parameters).safeParse(args ?? {});
  if (!parsed.success)
    throw new InvalidSkillArgumentsError(
      robot,
      spec.name,
      parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`),
    );
  return parsed.data as Record<string, unknown>;
}

/**
 * The goal the robot's action takes for these (valid) arguments: themselves, or the skill's goal template filled
 * with them and checked against the robot's message. Throws InvalidSkillArgumentsError naming a field that does not fit.
 */
export function goalOf(robot: string, spec: SkillSpec, args: Record<string, unknown>): Record<string, unknown> {
  if (!spec.goal) return args;
  try {
    return goalFromTemplate(spec.goal, args);
  } catch (err) {
    if (err instanceof GoalTemplateError)
      throw new InvalidSkillArgumentsError(
        robot,
        spec.name,
        err.issues.map((i) => `goal ${i}`),
      );
    throw err;
  }
}

/**
 * Runs one skill on one robot. Throws (before sending anything) for an unknown skill or invalid arguments;
 * otherwise always resolves with a SkillResult, whatever the robot or the connection did.
 */
export async function callSkill(
  client: BridgeClient,
  manifests: RobotManifest[],
  robot: string,
  skill: string,
  args: unknown,
  opts: CallOptions = {},
): Promise<SkillResult> {
  const spec = findSkill(manifests, robot, skill);
  const valid = goalOf(robot, spec, validateSkillArguments(robot, spec, args));
  const goalId = opts.goalId ?? `${robot}/${skill}:${randomUUID()}`;
  const feedback: unknown[] = [];
  const started = performance.now();
  const window = livenessMs(manifests.find((r) => r.id === robot));
  let lastStatus: string | undefined;
  const base = { robot, skill, goalId, feedback };
  // What was last known of the goal goes with every ending, a lost robot's above all.
  const known = () => (lastStatus ? { lastStatus } : {});
  try {
    const calledAt = Date.now();
    if (opts.lostBefore !== undefined && !(await goalKnown(client, spec, goalId, window, calledAt)))
      return {
        ...base,
        ok: false,
        status: "aborted",
        message: "",
        error: `goal ${goalId} was lost with robot ${robot} (${opts.lostBefore}); back, the robot does not know it, so it is not sent again`,
        durationMs: performance.now() - started,
      };
    const deadline = Date.now() + (opts.timeoutMs ?? spec.timeoutSec * 1000);
    const goal = () => ({
      goalId,
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal: opts.signal,
      livenessMs: window,
      onStatus: (said: string) => (lastStatus = said),
      onFeedback: (progress: unknown) => {
        feedback.push(progress);
        opts.onFeedback?.(progress);
      },
    });
    // The transport is the manifest's word; nothing above this function knows which one a skill used.
    const send = () =>
      spec.transport === "actionlib"
        ? sendActionlibGoal(client, spec.action, spec.actionType, valid, goal()).result
        : spec.transport === "service"
          ? serviceAsGoal(client, spec, valid, goal())
          : client.sendGoal(spec.action, spec.actionType, valid, goal()).result;
    let outcome: GoalResult | undefined;
    for (let attempt = 0; !outcome; attempt++) {
      await connectedWithin(client, window, goalId, calledAt);
      try {
        outcome = await send();
      } catch (err) {
        // The socket closed mid-goal: the robot has its liveness window to be back, then the goal is sent again by its
        // id, which re-attaches (a robot never runs an id twice). A service call is not made again: it may have run.
        const resendable =
          err instanceof BridgeConnectionError &&
          !(err instanceof BridgeAuthError || err instanceof RosAuthError) &&
          client.reconnects &&
          spec.transport !== "service" &&
          !opts.signal?.aborted &&
          attempt < MAX_REATTACHES;
        if (!resendable) throw err;
      }
    }
    const values = outcome.values as { message?: unknown; success?: unknown } | string | undefined;
    // The robot's words: its result's `message` (ours, Trigger-like results), else the action's status text.
    const message =
      typeof values === "string"
        ? values
        : typeof values?.message === "string" && values.message
          ? values.message
          : (outcome.statusText ?? "");
    // A result that says `success: false` is a failure whatever the status; one without such a field ends by its status.
    const said = typeof values === "object" && values?.success === false;
    const status =
      outcome.status === GoalStatus.SUCCEEDED && outcome.succeeded && !said
        ? "succeeded"
        : outcome.status === GoalStatus.CANCELED
          ? "canceled"
          : "aborted";
    return {
      ...base,
      ok: status === "succeeded",
      status,
      message,
      ...(status === "succeeded"
        ? {}
        : {
            error:
              message ||
              (said
                ? "the robot's result says success: false"
                : `goal ended ${STATUS_NAMES[outcome.status] ?? `with status ${outcome.status}`}`),
          }),
      durationMs: performance.now() - started,
      values: outcome.values,
      ...known(),
      ...(outcome.endedAt !== undefined ? { endedAt: outcome.endedAt } : {}),
    };
  } catch (err) {
    const error = err as Error;
    const status =
      err instanceof RobotLostError
        ? "robot_lost"
        : err instanceof BridgeTimeoutError
          ? "timeout"
          : err instanceof BridgeConnectionError
            ? "disconnected"
            : err instanceof BridgeProtocolError
              ? "rejected"
              : "aborted";
    return {
      ...base,
      ok: false,
      status,
      message: "",
      error: error.message,
      ...known(),
      durationMs: performance.now() - started,
    };
  }
}

/** How often one call re-attaches to its goal after the socket closed and came back (a flapping link ends it). */
const MAX_REATTACHES = 5;

/**
 * Waits for the bridge's socket if it is closed: back within the robot's liveness window — counted from when it closed,
 * or from the call for a socket already closed before it — or the robot is lost. A client that will not reconnect
 * (closed by its owner, or it gave up) says nothing of the robot: that is a lost connection.
 */
async function connectedWithin(client: BridgeClient, window: number, goalId: string, calledAt: number): Promise<void> {
  if (client.connected) return;
  if (!client.reconnects) throw new BridgeConnectionError(`not connected to ${client.url}: the client is closed`);
  const closedAt = Math.max(client.disconnectedSince ?? calledAt, calledAt);
  if (await client.whenConnected(Math.max(0, window - (Date.now() - closedAt)))) return;
  const silent = Date.now() - closedAt;
  throw new RobotLostError(
    `the bridge at ${client.url}`,
    silent,
    `robot lost — its socket closed ${(silent / 1000).toFixed(1)} s ago and is not back${client.closed ? " (the client gave up reconnecting)" : ""}`,
    { goalId },
  );
}

/**
 * Whether the robot, back after it was lost, still knows goal `goalId`, so that following it again cannot run it twice:
 * our bridge says by `/robograph/goal_status`, an actionlib server by listing it in its status; a service call cannot be
 * followed. Throws RobotLostError while the robot still gives no sign of life.
 */
async function goalKnown(
  client: BridgeClient,
  spec: SkillSpec,
  goalId: string,
  window: number,
  calledAt: number,
): Promise<boolean> {
  await connectedWithin(client, window, goalId, calledAt);
  if (spec.transport === "service") return false;
  if (spec.transport === "actionlib") return actionlibGoalKnown(client, spec.action, spec.actionType, goalId, window);
  try {
    const answer = await client.callService<{ known?: unknown }>(
      GOAL_STATUS_SERVICE,
      { id: goalId },
      { timeoutMs: window },
    );
    return answer?.known === true;
  } catch (err) {
    // A bridge without our goal status (ROS 2's own rosbridge) cannot say: the goal is taken for one it does not know.
    if (err instanceof ServiceCallError) return false;
    if (err instanceof BridgeTimeoutError)
      throw new RobotLostError(
        `the bridge at ${client.url}`,
        window,
        `robot lost — ${GOAL_STATUS_SERVICE} did not answer`,
        {
          goalId,
          cause: err,
        },
      );
    throw err;
  }
}

/** Our bridge's word on a goal id it has run (robots/bridge/server.ts). */
const GOAL_STATUS_SERVICE = "/robograph/goal_status";

const STATUS_NAMES: Record<number, string> = {
  [GoalStatus.CANCELED]: "canceled (preempted)",
  [GoalStatus.ABORTED]: "aborted",
};

/**
 * A skill a robot offers as a service: the arguments are the request; the response is the result, a failure when it
 * says `success: false`. A service cannot be canceled once called: an abort or the time limit stops the waiting.
 */
async function serviceAsGoal(
  client: BridgeClient,
  spec: SkillSpec,
  args: unknown,
  goal: { goalId: string; timeoutMs: number; signal?: AbortSignal },
): Promise<GoalResult> {
  if (goal.signal?.aborted) throw new BridgeConnectionError(`call to ${spec.action} aborted before it was sent`);
  const aborted = new Promise<never>((_, reject) =>
    goal.signal?.addEventListener(
      "abort",
      () => reject(new BridgeConnectionError(`call to ${spec.action} aborted while waiting`)),
      { once: true },
    ),
  );
  const values = await Promise.race([
    client.callService<Record<string, unknown>>(spec.action, args, {
      timeoutMs: goal.timeoutMs,
      type: spec.actionType,
    }),
    aborted,
  ]);
  const ok = (values as { success?: unknown })?.success !== false;
  return {
    goalId: goal.goalId,
    action: spec.action,
    status: ok ? GoalStatus.SUCCEEDED : GoalStatus.ABORTED,
    succeeded: ok,
    values,
  };
}

/** The tool name of a robot's skill: `<robot>__<skill>` (OpenAI tool names allow letters, digits, _ and -). */
export const toolName = (robot: string, skill: string) => `${robot}__${skill}`;

/** A robot's skill as every tool list offers it (LangChain tools here, MCP's tools in cli/mcp.ts): one wording for all. */
export interface SkillEntry {
  robot: string;
  spec: SkillSpec;
  name: string;
  title: string;
  description: string;
}

/** Every skill of these robots, named and described once for whichever tool list offers them. */
export function skillCatalog(manifests: RobotManifest[]): SkillEntry[] {
  return manifests.flatMap((manifest) =>
    manifest.skills.map((spec) => ({
      robot: manifest.id,
      spec,
      name: toolName(manifest.id, spec.name),
      title: `${manifest.id}: ${spec.display ?? spec.name.replace(/_/g, " ")}`,
      description: [
        `[${manifest.id}] ${spec.description}`,
        spec.preconditions.length ? ` Preconditions: ${spec.preconditions.join(", ")}.` : "",
        spec.effects.length ? ` Effects: ${spec.effects.join(", ")}.` : "",
        spec.requiresApproval ? " Needs human approval." : "",
      ].join(""),
    })),
  );
}

/**
 * One LangChain tool per robot skill. Tool arguments are the skill's arguments, validated by the same zod schema the
 * simulator uses; the tool's output is the SkillResult as JSON (also returned as the tool message's artifact).
 */
export function skillTools(
  client: BridgeClient,
  manifests: RobotManifest[],
  opts: Omit<CallOptions, "goalId" | "signal"> = {},
): StructuredToolInterface[] {
  return skillCatalog(manifests).map((entry) =>
    tool(
      async (args: Record<string, unknown>, config) => {
        const result = await callSkill(client, manifests, entry.robot, entry.spec.name, args, {
          ...opts,
          signal: config?.signal,
        });
        return [JSON.stringify(result), result];
      },
      {
        name: entry.name,
        description: entry.description,
        schema: argumentsValidator(entry.spec.parameters) as z.ZodObject<Record<string, z.ZodType>>,
        responseFormat: "content_and_artifact",
      },
    ),
  );
}
