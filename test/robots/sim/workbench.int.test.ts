/**
 * The workbench world (the behaviour critics' benchmark): each behaviour's negative program produces its undesirable
 * event and still reaches the goal while the positive produces none; the palm over the bridge (manifest generated from
 * the primitive schema, refusals that name the field, the last rollout with its key frames, reset); and a small
 * benchmark generation whose annotations are recounted from the event logs it wrote.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { BridgeClient } from "../../../robots/bridge/client";
import { bundledManifests } from "../../../robots/manifests";
import { PrimitiveProgram } from "../../../robots/msgs/primitives";
import {
  CAUSE_KINDS,
  LAST_ROLLOUT_SERVICE,
  RESET_SERVICE,
  UNDESIRABLE_KINDS,
  type Rollout,
  type Undesirable,
} from "../../../robots/msgs/rollout";
import type { SimEvent } from "../../../robots/sim/events";
import { startSimProcess } from "../../../robots/sim/process";
import { WorkbenchWorld, selectKeyFrames, serveWorkbench, WORKBENCH_SCENES } from "../../../robots/sim/workbench";
import { BEHAVIOURS, HAND_MADE_BEHAVIOURS, type HandMadeBehaviour } from "../../../robots/sim/workbench/behaviours";
import {
  commonEvents,
  generateCriticBenchmark,
  generateEditedBenchmark,
} from "../../../evals/datasets/behaviorCriticBenchmark";
import { drawCase } from "../../../robots/sim/workbench/edits";
import { buildWorkbenchScene } from "../../../robots/sim/workbench/scenes";
import { loadCriticBenchmark } from "../../../evals/datasets/behaviorCritic";
import { callSkill, discoverRobots, InvalidSkillArgumentsError } from "../../../tools/skills";

const undesirable = (events: SimEvent[]) => events.filter((e) => (UNDESIRABLE_KINDS as string[]).includes(e.kind));
const tag = (e: { kind: string; object?: string }) => `${e.kind}(${e.object ?? ""})`;

let world: WorkbenchWorld;
beforeAll(async () => {
  world = await WorkbenchWorld.create({ scene: "apple_plate", seed: 0 });
});
afterAll(async () => {
  await world?.close();
});

async function runBehaviour(behaviour: HandMadeBehaviour, which: "positive" | 0 | 1, seed: number) {
  const spec = BEHAVIOURS[behaviour];
  world.reset({ scenario: spec.scenes[0], seed });
  const program = which === "positive" ? spec.positive(world.scene, 0) : spec.negative(world.scene, which, 0);
  const result = await world.runProgram(program);
  return { r: result, goal: world.evaluate(), events: undesirable(world.events.since()) };
}

describe("workbench behaviours (in process)", () => {
  it("every scene stands still when left alone, with its goal not yet met", async () => {
    for (const scene of WORKBENCH_SCENES) {
      world.reset({ scenario: scene, seed: 3 });
      const start = world.objectPositions();
      world.idle(2);
      expect(world.hasNaN()).toBe(false);
      for (const [o, p] of Object.entries(world.objectPositions()))
        expect(Math.hypot(p[0] - start[o][0], p[1] - start[o][1], p[2] - start[o][2]), `${scene} ${o}`).toBeLessThan(
          0.003,
        );
      expect(world.evaluate().success, scene).toBe(false);
      expect(world.events.length, scene).toBe(0);
    }
  });

  it.each(HAND_MADE_BEHAVIOURS)(
    "%s: the negative reaches the goal and logs exactly that behaviour (and what it entails); the positive logs none",
    async (behaviour) => {
      const neg = await runBehaviour(behaviour, 0, 1);
      expect(neg.r.status, String(neg.r.values.message)).toBe("succeeded");
      expect(neg.goal.success, JSON.stringify(neg.goal)).toBe(true);
      expect(
        [...new Set(neg.events.map((e) => e.kind))].filter(
          (k) => !BEHAVIOURS[behaviour].entails?.includes(k as Undesirable),
        ),
      ).toEqual([behaviour]);
      const event = neg.events.find((e) => e.kind === behaviour)!;
      expect(event.object).toBe(BEHAVIOURS[behaviour].object(world.scene));
      // The detail states the measured cause in numbers, and the cause those numbers point to is recorded with it.
      expect(event.detail).toMatch(/\d/);
      expect([...CAUSE_KINDS, "unknown"]).toContain(event.cause);
      const pos = await runBehaviour(behaviour, "positive", 0);
      expect(pos.r.status, String(pos.r.values.message)).toBe("succeeded");
      expect(pos.goal.success, JSON.stringify(pos.goal)).toBe(true);
      expect(pos.events.map(tag)).toEqual([]);
    },
  );

  it("a reset leaves nothing behind: positions, the flattened bread, the open drawer, events, the last rollout", async () => {
    world.reset({ scenario: "bread_tray", seed: 4 });
    const fresh = { positions: world.objectPositions(), state: world.evaluate().state };
    const result = await world.runProgram(BEHAVIOURS.squeezed.negative(world.scene, 0, 0));
    expect(result.status).toBe("succeeded");
    expect(world.evaluate().state.bread).toMatch(/flattened/);
    expect(world.lastRollout()).not.toBeNull();
    world.reset();
    expect(world.events.length).toBe(0);
    expect(world.lastRollout()).toBeNull();
    expect(world.clock.time).toBe(0);
    expect(world.objectPositions()).toEqual(fresh.positions);
    expect(world.evaluate().state).toEqual(fresh.state);
    // The drawer is shut again after a program that left it open.
    world.reset({ scenario: "apple_drawer", seed: 4 });
    await world.runProgram(BEHAVIOURS.left_open.negative(world.scene, 0, 0));
    expect(Number(world.evaluate().state.drawer)).toBeGreaterThan(0.3);
    world.reset();
    expect(world.evaluate().state.drawer).toBe("0.00");
    expect(() => world.reset({ scenario: "no_such_scene" })).toThrow(/scenario: Invalid option/);
  });

  it("keeps the same key frames whether or not the event monitor logged anything: the recorder never sees its log", async () => {
    const keyTimes = async (silence: boolean) => {
      world.reset({ scenario: BEHAVIOURS.dropped.scenes[0], seed: 4 });
      const add = world.events.add;
      if (silence) world.events.add = () => {};
      try {
        await world.runProgram(BEHAVIOURS.dropped.negative(world.scene, 0, 0));
        return {
          times: world.lastRollout()!.rollout.frames.map((f) => f.t),
          logged: undesirable(world.events.since()).length,
        };
      } finally {
        world.events.add = add;
      }
    };
    const heard = await keyTimes(false);
    const silent = await keyTimes(true);
    expect(heard.logged).toBeGreaterThan(0);
    expect(silent.logged).toBe(0);
    expect(silent.times).toEqual(heard.times);
  });

  it("locates what the camera sees by its depth pixels and the palm's own grasp, not by the world's record", async () => {
    world.reset({ scenario: "apple_plate", seed: 2 });
    const seen = async (label: string) =>
      (await world.renderCamera()).detections.detections.find((d) => d.label === label)?.location;
    expect(await seen("apple")).toEqual({ relation: "on", place: "table" });
    // The world's grasp latched on the apple while the apple lies on the table, far from the palm: not held, to the camera.
    const stage = world.stage as unknown as { st: { held: number }; thingIndex(n: string): number | undefined };
    stage.st.held = stage.thingIndex("apple")!;
    expect(world.locate("apple")).toEqual({ relation: "held_by", place: "palm" });
    expect(await seen("apple")).toEqual({ relation: "on", place: "table" });
    stage.st.held = -1;
  });

  it("chooses ≤ 30 key frames: first, last, and the frame nearest each moment given, the rest spread evenly", () => {
    const times = Array.from({ length: 120 }, (_, i) => i / 10);
    const keys = selectKeyFrames(times, [3.04, 7.77], 30);
    expect(keys.length).toBe(30);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(keys).toEqual(expect.arrayContaining([0, 119, 30, 78]));
    const gaps = keys.slice(1).map((k, i) => k - keys[i]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(6);
    expect(selectKeyFrames([0, 0.1], [5], 30)).toEqual([0, 1]);
  });
});

describe("workbench over the bridge", () => {
  let served: Awaited<ReturnType<typeof serveWorkbench>>;
  let client: BridgeClient;
  beforeAll(async () => {
    served = await serveWorkbench({ scenario: "bread_tray", seed: 2, speed: Infinity, port: 0 });
    client = await BridgeClient.connect(served.server.url);
  });
  afterAll(async () => {
    await client?.close();
    await served?.close();
  });
  const goal = (args: unknown) =>
    client.sendGoal<Record<string, unknown>>("/palm/run_primitives", "robograph_msgs/action/RunPrimitives", args, {
      timeoutMs: 60_000,
    }).result;

  it("describes run_primitives with the JSON schema of the zod PrimitiveProgram, and the scene's vocabulary", async () => {
    const [palm] = bundledManifests("workbench");
    const skill = palm.skills.find((s) => s.name === "run_primitives")!;
    const { $schema: _ignored, ...schema } = z.toJSONSchema(PrimitiveProgram, { io: "input" }) as Record<
      string,
      unknown
    >;
    // The manifest is generated from robots/msgs/primitives.ts; a change there must be carried into the JSON file.
    expect(skill.parameters).toEqual(schema);
    expect(Math.max(palm.cameras[0].width, palm.cameras[0].height)).toBeLessThanOrEqual(512);
    const discovered = await discoverRobots(client);
    expect(discovered.robots.map((r) => r.id)).toEqual(["palm"]);
    expect(discovered.world).toMatchObject({ name: "workbench", targets: [{ name: "home", place: "table" }] });
    expect(discovered.world!.labels).toEqual(expect.arrayContaining(["bread", "apple", "tray", "palm"]));
    expect(discovered.world!.places.map((p) => p.name)).toEqual(["tray", "table"]);
  });

  it("refuses a bad program naming the field, and an unknown name listing the valid ones; keeps serving", async () => {
    const bad = await goal({
      steps: [
        { op: "move_to", target: "bread" },
        { op: "grasp", object: "bread", force: 80, width: 0.05 },
      ],
    });
    expect(bad.succeeded).toBe(false);
    expect(bad.values.message).toBe("invalid program: steps.1.force: Too big: expected number to be <=60");
    const unknown = await goal({ steps: [{ op: "move_to", target: "banana" }] });
    expect(unknown.values.message).toMatch(
      /^unknown name\(s\) steps\.0\.target "banana"; things: bread, apple; places: tray, table; points: home/,
    );
    await expect(
      callSkill(client, (await discoverRobots(client)).robots, "palm", "run_primitives", { steps: [] }),
    ).rejects.toBeInstanceOf(InvalidSkillArgumentsError);
    await expect(client.callService(LAST_ROLLOUT_SERVICE, {})).rejects.toThrow(/no program has run/);
    // Still serving: a real program runs.
    const ok = await goal(BEHAVIOURS.squeezed.negative(served.world.scene, 0, 0));
    expect(ok.succeeded, String(ok.values.message)).toBe(true);
    expect(ok.values).toMatchObject({ completed: true, failed_step: null, key_frames: 30 });
    const failing = await goal({ steps: [{ op: "grasp", object: "apple", force: 5, width: 0.06 }] });
    expect(failing.succeeded).toBe(false);
    expect(failing.values).toMatchObject({ completed: false, failed_step: { index: 0, op: "grasp" } });
    expect(String(failing.values.message)).toMatch(/step 0 \(grasp\) failed: .*cm from the apple's grasp point/);
  });

  it("serves the last rollout: ≤ 30 key frames at the primitives' ends and starts, PNGs ≤ 512 px, located detections, narration", async () => {
    await client.callService(RESET_SERVICE, { seed: 2 });
    const result = await goal(BEHAVIOURS.squeezed.negative(served.world.scene, 1, 0));
    expect(result.succeeded).toBe(true);
    const rollout = await client.callService<Rollout>(LAST_ROLLOUT_SERVICE, {});
    const { events } = await client.callService<{ events: SimEvent[] }>("/evaluator/events", {});
    expect(rollout.frames.length).toBeLessThanOrEqual(30);
    expect(rollout.track.length).toBeGreaterThan(rollout.frames.length);
    expect(rollout.narration.map((n) => n.index)).toEqual(
      rollout.program && (rollout.program as PrimitiveProgram).steps.map((_, i) => i),
    );
    expect(rollout.narration.every((n) => n.ok)).toBe(true);
    expect(events.some((e) => e.kind === "squeezed")).toBe(true);
    // The frames the controller's own timeline points at: each primitive's end and start.
    const nearest = (rel: number) =>
      rollout.track.reduce((a, b) => (Math.abs(b.t - rel) < Math.abs(a.t - rel) ? b : a)).t;
    for (const n of rollout.narration)
      expect(rollout.frames.map((f) => f.t)).toEqual(expect.arrayContaining([nearest(n.from), nearest(n.to)]));
    expect(rollout.frames[0].t).toBe(0);
    expect(rollout.frames.at(-1)!.t).toBeCloseTo(rollout.duration, 3);
    for (const f of [rollout.frames[0], rollout.frames.at(-1)!]) {
      const meta = await sharp(Buffer.from(f.image, "base64")).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(512);
    }
    // The detections are located from depth: the bread lies on the tray at the end, where the tray is seen.
    const last = rollout.frames.at(-1)!.detections.detections;
    const bread = last.find((d) => d.label === "bread")!,
      tray = last.find((d) => d.label === "tray")!;
    expect(bread.location).toEqual({ relation: "on", place: "tray" });
    expect(Math.hypot(bread.position[0] - tray.position[0], bread.position[1] - tray.position[1])).toBeLessThan(0.08);
    expect(bread.zRange[1]).toBeLessThan(0.05); // flattened: under 5 cm above the table
    expect(last.find((d) => d.label === "palm")).toBeDefined();
  });

  it("resets over the bridge (refused while a program runs) and comes back as it started", async () => {
    await client.callService(RESET_SERVICE, { scenario: "apple_plate", seed: 5 });
    const before = await client.callService<{ state: Record<string, string>; scene: string }>("/evaluator/check", {});
    expect(before.scene).toBe("apple_plate");
    const running = goal(BEHAVIOURS.pushed.negative(served.world.scene, 0, 0));
    await new Promise((r) => setTimeout(r, 50));
    await expect(client.callService(RESET_SERVICE, {})).rejects.toThrow(/a program is running; reset refused/);
    expect((await running).succeeded).toBe(true);
    const after = await client.callService<{ state: Record<string, string> }>("/evaluator/check", {});
    expect(after.state.apple).toBe("on plate");
    const reset = await client.callService<{ scenario: string; seed: number; instruction: string }>(RESET_SERVICE, {});
    expect(reset).toMatchObject({ scenario: "apple_plate", seed: 5, instruction: "put the apple on the plate" });
    expect((await client.callService<{ state: Record<string, string> }>("/evaluator/check", {})).state).toEqual(
      before.state,
    );
    expect((await client.callService<{ events: SimEvent[] }>("/evaluator/events", {})).events).toEqual([]);
    expect((await discoverRobots(client)).world!.labels).toContain("plate");
  });

  it("starts as its own process (npm run sim -- workbench)", async () => {
    const sim = await startSimProcess("workbench", ["--scenario", "cup_tray", "--speed", "max"], 60_000);
    const connection = await BridgeClient.connect(sim.url);
    try {
      expect((await discoverRobots(connection)).world!.labels).toEqual(
        expect.arrayContaining(["cup", "bead", "laptop", "tray"]),
      );
    } finally {
      await connection.close();
      expect(await sim.stop("SIGTERM")).toBe(0);
    }
  });
});

describe("critic benchmark generation", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("writes hand-made cases whose truth is the behaviour their negatives were written to show (the monitor's events beside it), reproducibly under a seed", async () => {
    const firstDir = mkdtempSync(join(tmpdir(), "critic-bench-"));
    const secondDir = mkdtempSync(join(tmpdir(), "critic-bench-"));
    dirs.push(firstDir, secondDir);
    const lines: string[] = [];
    const report = await generateCriticBenchmark({
      out: firstDir,
      seed: 7,
      casesPerBehaviour: 1,
      behaviours: ["squeezed", "dropped", "passed_over"],
      log: (l) => lines.push(l),
    });
    expect(report.dropped).toEqual([]);
    expect(lines.length).toBeGreaterThanOrEqual(9);
    const bench = loadCriticBenchmark(firstDir);
    expect(bench.cases.map((c) => c.outputs.behaviour)).toEqual(
      ["dropped", "squeezed", "passed_over"].sort(
        (x, y) => UNDESIRABLE_KINDS.indexOf(x as Undesirable) - UNDESIRABLE_KINDS.indexOf(y as Undesirable),
      ),
    );
    for (const c of bench.cases) {
      const [n1, n2] = c.inputs.negatives.map((id) => bench.events(id));
      const recounted = commonEvents(n1, n2, bench.rollouts.get(c.inputs.negatives[0])!.startTime);
      expect(c.outputs.events).toEqual(recounted);
      expect(c.outputs.events.map((e) => e.kind)).toContain(c.outputs.behaviour);
      expect(c.outputs.truth).toEqual([
        c.outputs.behaviour,
        ...(BEHAVIOURS[c.outputs.behaviour as HandMadeBehaviour].alsoDoes ?? []),
      ]);
      expect(undesirable(bench.events(c.inputs.positive))).toEqual([]);
      expect(c.outputs.narration.length).toBe(bench.rollouts.get(c.inputs.negatives[0])!.narration.length);
      // The careful twin, on the first negative's very layout: what refinement is measured against.
      const twin = bench.rollouts.get(c.metadata.twin!)!;
      expect(twin.seed).toBe(bench.rollouts.get(c.inputs.negatives[0])!.seed);
      expect(undesirable(bench.events(c.metadata.twin!))).toEqual([]);
      for (const id of [c.inputs.positive, ...c.inputs.negatives]) {
        const recorded = bench.rollouts.get(id)!;
        expect(recorded.frames.length).toBeLessThanOrEqual(30);
        expect(readFileSync(bench.framePath(id, 0)).subarray(1, 4).toString()).toBe("PNG");
      }
    }
    // The same seed writes the same bytes (here: one behaviour again, alone).
    await generateCriticBenchmark({ out: secondDir, seed: 7, casesPerBehaviour: 1, behaviours: ["squeezed"] });
    const line = (dir: string) =>
      readFileSync(join(dir, "cases.jsonl"), "utf8")
        .split("\n")
        .find((l) => l.includes('"behaviour":"squeezed"'));
    expect(line(secondDir)).toBe(line(firstDir));
    const neg = bench.cases.find((c) => c.outputs.behaviour === "squeezed")!.inputs.negatives[0];
    expect(readFileSync(join(secondDir, "rollouts", `${neg}.json`), "utf8")).toBe(
      readFileSync(join(firstDir, "rollouts", `${neg}.json`), "utf8"),
    );
  });

  it("writes generated cases whose truth is their edits, each edited rollout changing the motion against its twin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "critic-gen-"));
    dirs.push(dir);
    const report = await generateEditedBenchmark({ out: dir, seed: 1000, count: 2 });
    const bench = loadCriticBenchmark(dir);
    expect(bench.cases.length + report.dropped.length).toBe(2);
    for (const c of bench.cases) {
      const seed = Number(c.metadata.case.replace("gen-", ""));
      const drawn = drawCase(seed, (name) => buildWorkbenchScene(name, 0));
      expect(c.outputs.truth).toEqual(drawn.edits);
      expect(c.metadata.edits).toEqual(drawn.edits);
      expect(c.metadata.jitter).toEqual(drawn.jitter);
      for (const changed of c.metadata.changes!) expect(changed.length).toBeGreaterThan(0);
      expect(c.metadata.twin).toBe(c.inputs.positive);
      expect(c.metadata.displaced).toHaveLength(2);
    }
  });
});
