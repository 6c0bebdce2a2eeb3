/**
 * The firewall's harness: hidden-state twins. Two simulator processes of one world that differ only in what the
 * agent must not know (where a thing hidden from every camera is, whether a grasp closed on something) are driven with
 * the same scripted skill calls — not by the agent — and everything the agent would receive is recorded, decoded,
 * per step. "Nothing hidden reaches the agent" then reads: the two transcripts are identical until something
 * observable differs (DESIGN.md, "Rules that hold everywhere").
 *
 * Each twin is reached exactly as the agent reaches a robot: `openSession` (runtime/session.ts) connects, reads the
 * manifests and the world description from `/robograph/manifest` and follows each robot's camera as the agent does
 * (its first camera's image and detections topics, latched and republished after every skill), and every skill goes
 * through `runRecordedGoal` (nodes/executor.ts), the executor's own path: the goal, its feedback, its result, the wait
 * for frames taken after it. A method that also reads a service of the robot's (the behaviour critic's rollout, the
 * curriculum's episodes) names it in `services`, and its answer is recorded after every step too.
 *
 * ```ts
 * const t = await runTwins({
 *   world: "kitchen",
 *   args: ["--speed", "max", "--grasp-sensing", "off"],
 *   twins: [["--scenario", withApple], ["--scenario", withoutApple]],
 *   steps: [{ robot: "arm", skill: "pick_from", args: { object: "apple", place: "trash_can" } }, …],
 * });
 * expect(t.firstDifference).toBeNull();              // identical throughout, or
 * expect(t.firstDifference).toBe(3);                 // identical until step 3, where something observable differs
 * ```
 *
 * Step 0 is the connection (manifests, world description, first frames); step i ≥ 1 is what the agent holds after
 * the i-th scripted call. What is stripped because it legitimately differs per process, and nothing else:
 * - the client's wall-clock measure of a goal (`durationMs`): how long the test machine took, not the robot;
 * - goal ids: the harness gives both twins the same ids (`twin/<step>/<robot>/<skill>`), so none differ anyway;
 * - the bridge's URL and port: never recorded.
 * Header stamps are kept: the simulators stamp with their own simulated clock, which moves only while a skill runs,
 * so a stamp that differs is a skill that took another time — a difference the agent can see. A world whose stamps
 * came from the wall clock would pass `ignore: ["stamp"]`.
 * Camera frames are compared as decoded pixels (a SHA-256 of the RGB(A) bytes, with size and channels), so two
 * encoders' byte choices do not count; detections are compared as the robot sent them.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";
import { openSession, type Session } from "../../runtime/session";
import { runRecordedGoal } from "../../nodes/executor";
import { pngOf, type ImageMessage } from "../../robots/msgs/images";

/** One scripted call: a robot's skill (as the executor sends it), or a service of the robot's a method calls. */
export type TwinStep =
  { robot: string; skill: string; args?: Record<string, unknown> } | { service: string; args?: unknown };

export interface TwinOptions {
  /** The world's name in robots/sim/worlds.ts: kitchen, tabletop, course, workbench, blocks. */
  world: string;
  /** Simulator arguments both twins get (`--speed max`, `--grasp-sensing off`, a seed, …). */
  args?: string[];
  /** Each twin's own arguments: where they differ (usually `--scenario FILE`, two scenario files in a scratch dir). */
  twins: [string[], string[]];
  /** The same calls, in order, sent to both. */
  steps: TwinStep[];
  /** Services the agent's method reads from the robot besides the manifest, asked after every step and recorded. */
  services?: { name: string; args?: unknown }[];
  /** Field names dropped wherever they occur, beyond what the harness strips (see the header); use sparingly. */
  ignore?: string[];
  /** How long to wait for the first frames after connecting (default 20 s). */
  firstViewsMs?: number;
  /**
   * Starts one twin instead of a simulator process: for hidden state a process's arguments cannot set (a thing's
   * friction, an obstacle out of view in a course built by the test), a world served in this process on a loopback
   * port. Given the twin's own arguments and its index; `stop` must end all it started. Default: a simulator process
   * of `world` with `args` and the twin's own.
   */
  start?: (own: string[], twin: 0 | 1) => Promise<{ url: string; stop(): Promise<unknown> }>;
}

/** A camera frame as the agent reads it: decoded, its pixels hashed. */
export interface FrameRecord {
  topic: string;
  width: number;
  height: number;
  channels: number;
  /** SHA-256 of the decoded pixels. */
  pixels: string;
  /** The message's header (its frame id and stamp). */
  header: unknown;
}

/** What the agent holds after one step. */
export interface StepRecord {
  index: number;
  /** The scripted call (null for step 0, the connection). */
  call: TwinStep | null;
  /** Step 0: the manifests and the world description, as the agent parsed them. */
  manifest?: { robots: unknown; world: unknown; described: boolean };
  /** A skill's result as the executor gets it (ok, status, message, error, feedback, values), or what was thrown. */
  result?: unknown;
  /** Each robot's latest camera frame and detections, by robot id. */
  views: Record<string, { image: FrameRecord | null; detections: unknown }>;
  /** The answers of `services`, by name. */
  services?: Record<string, unknown>;
}

export interface Transcript {
  steps: StepRecord[];
}

export interface TwinDifference {
  step: number;
  /** Where in the step record the first difference is (`result.message`, `views.arm.image.pixels`, …). */
  path: string;
  a: unknown;
  b: unknown;
}

export interface TwinsOutcome {
  a: Transcript;
  b: Transcript;
  /** The first step whose records differ, or null when the two are identical throughout. */
  firstDifference: number | null;
  /** Where that step differs first, for a failure message. */
  difference: TwinDifference | null;
}

/**
 * Two scenario files in a fresh scratch directory, `<name>_a.json` and `<name>_b.json`, and each twin's arguments
 * (`--scenario FILE`), for a world whose simulator reads a scenario from a file (the kitchen: a path ending in .json).
 */
export function scenarioTwins(name: string, scenarioA: object, scenarioB: object): [string[], string[]] {
  const dir = mkdtempSync(join(tmpdir(), "robograph-twins-"));
  return (
    [
      ["a", scenarioA],
      ["b", scenarioB],
    ] as const
  ).map(([twin, scenario]) => {
    const file = join(dir, `${name}_${twin}.json`);
    writeFileSync(file, JSON.stringify(scenario, null, 1));
    return ["--scenario", file];
  }) as [string[], string[]];
}

/**
 * Starts the two twins, drives both with `steps`, records every step and stops both processes (also when something
 * throws). Resolves with both transcripts and where they first differ.
 */
export async function runTwins(options: TwinOptions): Promise<TwinsOutcome> {
  const sims: { url: string; stop(): Promise<unknown> }[] = [];
  try {
    const start =
      options.start ??
      ((own: string[]): Promise<SimProcess> => startSimProcess(options.world, [...(options.args ?? []), ...own]));
    // Both are stopped below whichever of them failed to start.
    const settled = await Promise.allSettled(options.twins.map((own, i) => start(own, i as 0 | 1)));
    for (const r of settled) if (r.status === "fulfilled") sims.push(r.value);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const [transcriptA, transcriptB] = await Promise.all(sims.map((s) => drive(s.url, options)));
    const difference = firstDifference(transcriptA, transcriptB);
    return { a: transcriptA, b: transcriptB, firstDifference: difference?.step ?? null, difference };
  } finally {
    await Promise.all(sims.map((s) => s.stop()));
  }
}

/** Where two transcripts first differ (null: nowhere). Steps are compared in order; a missing step is a difference. */
export function firstDifference(transcriptA: Transcript, transcriptB: Transcript): TwinDifference | null {
  const count = Math.max(transcriptA.steps.length, transcriptB.steps.length);
  for (let i = 0; i < count; i++) {
    const difference = diffPath(transcriptA.steps[i], transcriptB.steps[i], "");
    if (difference) return { step: i, ...difference };
  }
  return null;
}

/** A one-line account of a difference, for an assertion's message. */
export function describeDifference(difference: TwinDifference | null): string {
  if (!difference) return "identical throughout";
  const show = (value: unknown) => {
    const text = JSON.stringify(value);
    return text === undefined ? "(absent)" : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
  return `step ${difference.step} differs at ${difference.path || "(the step)"}: ${show(difference.a)} vs ${show(difference.b)}`;
}

// ---- one twin ------------------------------------------------------------------------------------------------------

async function drive(url: string, options: TwinOptions): Promise<Transcript> {
  // The agent's session, without models: nothing here asks one.
  const none = {} as Pick<Session, "models" | "modelConfig" | "artifacts">;
  const session = await openSession({ bridgeUrl: url }, none, () =>
    Promise.reject(new Error("the twins' harness does not reconnect")),
  );
  const ignore = new Set(options.ignore ?? []);
  try {
    const firstViews = options.firstViewsMs ?? 20_000;
    const ready = await Promise.race([
      session.firstViews.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), firstViews)),
    ]);
    if (!ready) throw new Error(`${url}: no first frames from every camera within ${firstViews} ms`);
    await settle(session, 500);
    const steps: StepRecord[] = [];
    steps.push(
      await record(session, options, 0, null, undefined, ignore, {
        robots: session.robots,
        world: session.world,
        described: session.described,
      }),
    );
    for (let i = 0; i < options.steps.length; i++) {
      const step = options.steps[i];
      let result: unknown;
      if ("service" in step) {
        result = await session.client
          .callService(step.service, step.args ?? {})
          .catch((err: Error) => ({ thrown: err.message }));
      } else {
        const goalId = `twin/${i + 1}/${step.robot}/${step.skill}`;
        try {
          const goalResult = await runRecordedGoal(session, goalId, step.robot, step.skill, step.args ?? {});
          result = {
            ok: goalResult.ok,
            status: goalResult.status,
            message: goalResult.message,
            error: goalResult.error,
            feedback: goalResult.feedback,
            values: goalResult.values,
            endedAt: goalResult.endedAt,
          };
        } catch (err) {
          result = { thrown: (err as Error).message };
        }
      }
      await settle(session, 150);
      steps.push(await record(session, options, i + 1, step, result, ignore));
    }
    return { steps };
  } finally {
    await session.client.close();
  }
}

/**
 * Waits until no camera message has come for `quietMs` (each message replaces the view's object, so a new one is a new
 * reference). Frames a skill leaves are on the wire before its result; what this waits out is the first look, where
 * each camera renders once per topic subscribed (the agent subscribes to image and detections) and the last render
 * may come after the first frames.
 */
async function settle(session: Session, quietMs: number, maxMs = 5000): Promise<void> {
  const refs = () => [...session.views.values()].flatMap((v) => [v.image, v.detections]);
  const end = Date.now() + maxMs;
  let last = refs();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = refs();
    if (now.length === last.length && now.every((x, i) => x === last[i])) return;
    last = now;
  }
}

async function record(
  session: Session,
  options: TwinOptions,
  index: number,
  call: TwinStep | null,
  result: unknown,
  ignore: Set<string>,
  manifest?: StepRecord["manifest"],
): Promise<StepRecord> {
  const views: StepRecord["views"] = {};
  for (const r of session.robots) {
    const view = session.views.get(r.id);
    if (!view) continue;
    const topic = r.cameras[0]?.image ?? `${r.id}'s camera`;
    views[r.id] = {
      image: view.image ? await frameRecord(view.image, topic) : null,
      detections: view.detections ?? null,
    };
  }
  const services = options.services?.length
    ? Object.fromEntries(
        await Promise.all(
          options.services.map(
            async (service) =>
              [
                service.name,
                await session.client
                  .callService(service.name, service.args ?? {})
                  .catch((err: Error) => ({ thrown: err.message })),
              ] as const,
          ),
        ),
      )
    : undefined;
  const rec: StepRecord = {
    index,
    call,
    ...(manifest ? { manifest } : {}),
    ...(result !== undefined ? { result } : {}),
    views,
    ...(services ? { services } : {}),
  };
  return strip(rec, ignore) as StepRecord;
}

async function frameRecord(image: ImageMessage, topic: string): Promise<FrameRecord> {
  const png = await pngOf(image, topic);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return {
    topic,
    width: info.width,
    height: info.height,
    channels: info.channels,
    pixels: createHash("sha256").update(data).digest("hex"),
    header: image.header,
  };
}

/** A copy without the fields that legitimately differ per process (see the header) and those the caller ignores. */
function strip(value: unknown, ignore: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((x) => strip(x, ignore));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) {
      if (k === "durationMs" || k === "goalId" || k === "goal_id" || ignore.has(k) || x === undefined) continue;
      out[k] = strip(x, ignore);
    }
    return out;
  }
  return value;
}

function diffPath(left: unknown, right: unknown, path: string): { path: string; a: unknown; b: unknown } | null {
  if (left === right) return null;
  const obj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object";
  if (Array.isArray(left) && Array.isArray(right)) {
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const difference = diffPath(left[i], right[i], `${path}[${i}]`);
      if (difference) return difference;
    }
    return null;
  }
  if (obj(left) && obj(right) && !Array.isArray(left) && !Array.isArray(right)) {
    for (const k of [...new Set([...Object.keys(left), ...Object.keys(right)])]) {
      const difference = diffPath(left[k], right[k], path ? `${path}.${k}` : k);
      if (difference) return difference;
    }
    return null;
  }
  return Number.isNaN(left) && Number.isNaN(right) ? null : { path, a: left, b: right };
}
