/**
 * The blocks world (Game On's domain): MuJoCo physics of three cubes in a basket and a floating gripper; the
 * `run_skills` skill that runs a plan of skills open-loop (each a fixed duration of the shared parameterised
 * controller), computing every skill's reward at every control step and recording the episode; seeded layouts and
 * reset. Agents never import this: they reach it over the bridge.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { CameraPose, Frame } from "../camera";
import type { DetectorNoise } from "../detector";
import { EventLog, type SimEvent } from "../events";
import { mujoco, type Mujoco, type MjModel, type MjData } from "../mujoco";
import type { SimulatedWorld } from "../serve";
import { indexScene, type Thing } from "../palm/bodies";
import { attach, setControl, stepWorld, type Mechanics, type WorldState } from "../palm/controllers";
import type { ActionContext, ActionOutcome } from "../../bridge/server";
import { bundledManifests, type RobotManifest, type WorldDescription } from "../../manifests";
import {
  ACTION_FIELDS,
  BLOCK_SIZE,
  COLORS,
  CONTROL_TICK,
  FINGER_MAX,
  STATE_FIELDS,
  stateRow,
  type BlockState,
} from "../../msgs/blocks";
import {
  RunSkillsGoal,
  explainGoalError,
  planSuccess,
  type Episode,
  type RunSkillsResult,
  type SegmentReport,
} from "../../msgs/runSkills";
import { SKILL_IDS, allRewards } from "../../manifests/blocks/skills";
import { FINGER_SPEED, GRASP_WINDOW, SkillController, stepTowards } from "./controllers";
import { BlocksCamera, blocksCameraPose, type BlocksDetections, type BlocksView } from "./perception";
import { readState } from "./rewards";
import { WORKSPACE, blockName, blocksXml, layoutFor, type BlocksLayout, type Start } from "./scene";
import { EpisodeStore } from "./store";

export interface BlocksOptions {
  /** First layout, and the start of the instance's layout sequence. */
  seed?: number;
  /** How every layout of the sequence starts (default: every block on the floor). */
  start?: Start;
  noise?: Partial<DetectorNoise>;
  width?: number;
  height?: number;
  /** Simulated seconds per wall second (default Infinity: learning wants throughput). */
  speed?: number;
  /** Where episodes are stored (default: a directory under the system's temp dir). */
  episodesDir?: string;
  /** Name in episode ids (default: i<pid>). */
  instance?: string;
}

const SETTLE = 0.3; // s the blocks settle after being placed
export const ResetArgs = z.strictObject({
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional()
    .describe("layout seed (default: the next of the sequence)"),
});
const labelOf = (i: number) => blockName(COLORS[i]);

export class BlocksWorld implements SimulatedWorld {
  readonly name = "blocks";
  readonly manifests: RobotManifest[] = bundledManifests("blocks");
  readonly events = new EventLog();
  readonly description: WorldDescription;
  readonly store: EpisodeStore;
  /** Wall seconds and control steps spent running skills (the benchmark's figures). */
  readonly stats = { wall: 0, steps: 0, episodes: 0 };
  private readonly mech: Mechanics;
  private readonly st: WorldState = { held: -1, prev: [0, 0, 0], holdQuat: [1, 0, 0, 0], released: [] };
  private readonly blocks: Thing[];
  private readonly blockQpos: number[];
  private readonly palmQpos: number[];
  private readonly fingerGeoms: [number, number];
  private readonly substeps: number;
  private readonly camera: BlocksCamera;
  private readonly view: BlocksView;
  private readonly speed: number;
  /** Finger opening, metres. */
  private opening = FINGER_MAX;
  private cmd = [0, 0, 0.15];
  private layout: BlocksLayout;
  private readonly start: Start;
  private nextSeed: number;
  private running: AbortController | null = null;
  private runDone: Promise<void> = Promise.resolve();
  private time = 0;
  private goalsEnded = 0;

  private constructor(
    private readonly mj: Mujoco,
    private readonly model: MjModel,
    private readonly data: MjData,
    opts: BlocksOptions,
  ) {
    const seed = opts.seed ?? 0;
    this.speed = opts.speed ?? Infinity;
    const scene = {
      name: "blocks",
      objects: COLORS.map(blockName),
      joints: [],
      surfaces: [],
      locks: [],
      containers: [],
      fixtures: [],
      targets: [],
    };
    const parts = indexScene(mj, model, scene);
    this.blocks = COLORS.map((c) => parts.things[parts.thingIndex.get(blockName(c))!]);
    this.palmQpos = parts.palmQpos;
    const jointId = (n: string) => mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT.value, n) as number;
    this.blockQpos = COLORS.map((c) => (model.jnt_qposadr as Int32Array)[jointId(blockName(c))]);
    const geomId = (n: string) => mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM.value, n) as number;
    this.fingerGeoms = [geomId("palm__finger_l"), geomId("palm__finger_r")];
    this.mech = { mj, model, palmBody: parts.palmBody, things: parts.things, locks: [], points: parts.points };
    this.substeps = Math.round(CONTROL_TICK / (model.opt.timestep as number));
    this.description = {
      name: "blocks",
      places: [{ name: "basket", kind: "container", openable: false }],
      navigationPoints: [],
      labels: COLORS.map(blockName),
    };
    this.store = new EpisodeStore(
      opts.episodesDir ?? join(tmpdir(), `robograph-blocks-${process.pid}`),
      opts.instance ?? `i${process.pid}`,
    );
    this.camera = new BlocksCamera(mj, model, data, this.description.labels, { ...opts, seed });
    this.view = {
      hand: () => ({
        name: "gripper",
        at: this.tcp() as [number, number, number],
        closed: this.st.held >= 0,
        reach: 0.02,
      }),
      stamp: () => this.stamp(),
    };
    this.start = opts.start ?? "floor";
    this.layout = layoutFor(seed, this.start);
    this.nextSeed = seed;
    this.applyLayout(this.nextSeed++);
  }

  static async create(opts: BlocksOptions = {}): Promise<BlocksWorld> {
    const mj = await mujoco();
    const model = mj.MjModel.from_xml_string(blocksXml(layoutFor(opts.seed ?? 0, opts.start)));
    const data = new mj.MjData(model);
    return new BlocksWorld(mj, model, data, opts);
  }

  async close(): Promise<void> {
    this.running?.abort();
    await this.runDone;
    this.camera.dispose();
    this.data.delete();
    this.model.delete();
  }

  // ---- layouts -------------------------------------------------------------------------------------------------------

  /** Puts the blocks and the gripper where layout `seed` says and lets the blocks settle. */
  private applyLayout(seed: number): void {
    const layout = layoutFor(seed, this.start);
    this.layout = layout;
    this.mj.mj_resetData(this.model, this.data);
    const qpos = this.data.qpos as Float64Array;
    COLORS.forEach((color, i) => {
      const block = layout.blocks[color];
      qpos.set([block.x, block.y, block.z, ...block.quat], this.blockQpos[i]);
    });
    this.palmQpos.forEach((a, d) => (qpos[a] = layout.tcp[d]));
    this.cmd = [...layout.tcp];
    this.st.held = -1;
    this.opening = layout.opening * FINGER_MAX;
    this.placeFingers();
    this.mj.mj_forward(this.model, this.data);
    if (layout.held) {
      // Held from the start: the grasp engaged as when closing fingers reach it.
      const i = COLORS.indexOf(layout.held);
      attach(this.mech, this.data, this.st, this.mech.things.indexOf(this.blocks[i]));
    }
    // Blocks placed on or against others take longer to come to rest than blocks on the floor.
    const settle = layout.start === "floor" ? SETTLE : 3 * SETTLE;
    for (let i = 0, n = Math.round(settle / CONTROL_TICK); i < n; i++) this.physicsTick();
    this.data.time = 0;
  }

  /** Loads a layout (the next of the sequence by default), ending any running goal and clearing the episode history. */
  async reset(args: unknown = {}): Promise<{ seed: number }> {
    const parsed = ResetArgs.safeParse(args ?? {});
    if (!parsed.success) throw new Error(`invalid reset: ${explainGoalError(parsed.error)}`);
    if (this.running) {
      this.running.abort();
      await this.runDone;
    }
    const seed = parsed.data.seed ?? this.nextSeed++;
    this.applyLayout(seed);
    this.store.clearHistory();
    this.events.clear();
    this.time = 0;
    this.goalsEnded = 0;
    return { seed };
  }

  // ---- mechanics -----------------------------------------------------------------------------------------------------

  private placeFingers(): void {
    const gp = this.model.geom_pos as Float64Array;
    const half = this.opening / 2 + 0.004;
    gp[3 * this.fingerGeoms[0]] = -half;
    gp[3 * this.fingerGeoms[1]] = half;
  }

  private physicsTick(): void {
    setControl(this.data, this.cmd);
    for (let i = 0; i < this.substeps; i++) stepWorld(this.mech, this.data, this.st, [], (e) => this.log(e));
  }

  /** The fingers move towards the commanded opening; closing on a block between them grasps it, opening lets go. */
  private moveFingers(openingCmd: number): void {
    const want = Math.min(1, Math.max(0, openingCmd)) * FINGER_MAX;
    const before = this.opening;
    const step = FINGER_SPEED * CONTROL_TICK;
    let next = before + Math.max(-step, Math.min(step, want - before));
    if (this.st.held >= 0) {
      if (want > BLOCK_SIZE + 0.002) {
        this.log({ kind: "released", robot: "arm", object: labelOf(this.heldIndex()), detail: "the fingers opened" });
        this.st.held = -1;
      } else next = BLOCK_SIZE;
    } else if (before >= BLOCK_SIZE - 0.001 && next < BLOCK_SIZE + 0.002) {
      const tcp = this.tcp();
      const i = this.blocks.findIndex((block) => {
        const position = this.blockPos(block);
        return (
          Math.abs(position[0] - tcp[0]) < GRASP_WINDOW &&
          Math.abs(position[1] - tcp[1]) < GRASP_WINDOW &&
          Math.abs(position[2] - tcp[2]) < GRASP_WINDOW
        );
      });
      if (i >= 0) {
        attach(this.mech, this.data, this.st, this.mech.things.indexOf(this.blocks[i]));
        this.st.held = this.mech.things.indexOf(this.blocks[i]);
        next = BLOCK_SIZE;
        this.log({
          kind: "picked",
          robot: "arm",
          object: labelOf(i),
          detail: `the fingers closed on the ${labelOf(i)}`,
        });
      }
    }
    this.opening = next;
    this.placeFingers();
  }

  private tcp(): number[] {
    return Array.from((this.data.xpos as Float64Array).subarray(3 * this.mech.palmBody, 3 * this.mech.palmBody + 3));
  }
  private blockPos(block: Thing): number[] {
    return Array.from((this.data.xpos as Float64Array).subarray(3 * block.body, 3 * block.body + 3));
  }
  private heldIndex(): number {
    return this.st.held < 0 ? -1 : this.blocks.indexOf(this.mech.things[this.st.held]);
  }

  state(): BlockState {
    return readState({
      data: this.data,
      palmBody: this.mech.palmBody,
      blocks: this.blocks,
      held: this.heldIndex(),
      opening: this.opening,
    });
  }

  // ---- the skill -----------------------------------------------------------------------------------------------------

  /** The world validates goals itself, so a refusal names the field inside a step (e.g. steps.0.params.13). */
  argumentsSchema(): z.ZodType<Record<string, unknown>> {
    return z.record(z.string(), z.unknown());
  }

  async runSkill(
    robot: string,
    skill: string,
    args: Record<string, unknown>,
    ctx: ActionContext,
  ): Promise<ActionOutcome> {
    const refuse = (message: string): ActionOutcome => ({
      status: "aborted",
      values: { success: false, message, error: message },
    });
    if (robot !== "arm" || skill !== "run_skills")
      return refuse(`unknown skill ${robot}.${skill}; the arm has run_skills`);
    const parsed = RunSkillsGoal.safeParse(args);
    if (!parsed.success) return refuse(`invalid run_skills goal: ${explainGoalError(parsed.error)}`);
    if (this.running) return refuse("the arm is busy with another plan");
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    ctx.signal.addEventListener("abort", onAbort);
    this.running = ctl;
    let done!: () => void;
    this.runDone = new Promise((r) => (done = r));
    try {
      const result = await this.runPlan(parsed.data, ctl.signal, ctx.goalId, (f) => ctx.feedback(f));
      if (ctl.signal.aborted)
        return { status: "canceled", values: { ...result, success: false, message: "run_skills was canceled" } };
      return { status: "succeeded", values: result };
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
      this.running = null;
      this.goalsEnded++;
      done();
    }
  }

  /** Runs a validated plan; the in-process entry the served action and the benchmark share. */
  async runPlan(
    goal: z.output<typeof RunSkillsGoal>,
    signal?: AbortSignal,
    goalId?: string,
    feedback?: (f: unknown) => void,
  ): Promise<RunSkillsResult> {
    if (!goal.from_current) this.applyLayout(goal.seed ?? this.nextSeed++);
    const seed = this.layout.seed;
    const wall0 = performance.now();
    const states: number[][] = [];
    const actions: number[][] = [];
    const rewardRows: number[][] = [];
    const plan: Episode["plan"] = [];
    const segments: SegmentReport[] = [];
    let state = this.state();
    states.push(stateRow(state));
    rewardRows.push(allRewards(state));
    this.log({
      kind: "skill_started",
      robot: "arm",
      skill: "run_skills",
      goalId,
      detail: goal.steps.map((x) => x.skill).join(", "),
    });
    let paced = performance.now();
    for (const [k, step] of goal.steps.entries()) {
      const col = SKILL_IDS.indexOf(step.skill);
      const controller = new SkillController(step.params);
      const start = actions.length;
      const ticks = Math.max(1, Math.round(step.seconds / CONTROL_TICK));
      const own: number[] = [rewardRows[rewardRows.length - 1][col]];
      for (let t = 0; t < ticks && !signal?.aborted; t++) {
        const out = controller.act(state);
        stepTowards(this.cmd, out.target, controller.p.speed, WORKSPACE.min, WORKSPACE.max);
        this.moveFingers(out.opening);
        this.physicsTick();
        this.time += CONTROL_TICK;
        state = this.state();
        const rewards = allRewards(state);
        actions.push([...out.target.map((v) => Math.round(v * 1e4) / 1e4), Math.round(out.opening * 1e4) / 1e4]);
        states.push(stateRow(state));
        rewardRows.push(rewards);
        own.push(rewards[col]);
        if (actions.length % 20 === 0) {
          // Let the bridge breathe (cancels, other clients) and keep to the requested pace.
          const due = Number.isFinite(this.speed) ? paced + (20 * CONTROL_TICK * 1000) / this.speed : 0;
          const wait = due - performance.now();
          await new Promise((res) => (wait > 1 ? setTimeout(res, wait) : setImmediate(res)));
          paced = Math.max(due, performance.now() - 50);
        }
      }
      const steps = own.length - 1;
      const tail = own.slice(1);
      segments.push({
        skill: step.skill,
        steps,
        first: own[0],
        final: own[own.length - 1],
        max: tail.length ? Math.max(...tail) : own[0],
        mean: tail.length ? tail.reduce((a, b) => a + b, 0) / tail.length : 0,
      });
      plan.push({ skill: step.skill, params: step.params, seconds: step.seconds, start, end: actions.length });
      feedback?.({ segment: k, skill: step.skill, steps, final: own[own.length - 1] });
      if (signal?.aborted) break;
    }
    const success = planSuccess(segments);
    let id: string | null = null;
    if (goal.record && !signal?.aborted) {
      id = this.store.nextId();
      this.store.save({
        id,
        instance: this.store.instance,
        seed,
        purpose: goal.purpose,
        tick: CONTROL_TICK,
        created: new Date().toISOString(),
        state_fields: STATE_FIELDS,
        action_fields: ACTION_FIELDS,
        skills: SKILL_IDS,
        plan,
        states,
        actions,
        rewards: rewardRows,
        plan_success: success,
      });
    }
    this.stats.wall += (performance.now() - wall0) / 1000;
    this.stats.steps += actions.length;
    this.stats.episodes++;
    const last = rewardRows[rewardRows.length - 1];
    const message = `ran ${segments.map((x) => `${x.skill} (${x.steps} steps, reward ${x.final.toFixed(2)})`).join(", ")} from layout ${seed}${id ? `; episode ${id}` : ""}`;
    this.log({ kind: "skill_succeeded", robot: "arm", skill: "run_skills", goalId, detail: message });
    return {
      success: true,
      episode_id: id,
      seed,
      plan_success: success,
      segments,
      final_rewards: Object.fromEntries(SKILL_IDS.map((k, i) => [k, last[i]])),
      steps: actions.length,
      message,
    };
  }

  private log(event: Omit<SimEvent, "t" | "step">): void {
    this.events.add({ t: Math.round(this.time * 1000) / 1000, step: this.goalsEnded, ...event });
  }

  stamp(): { sec: number; nanosec: number } {
    const sec = Math.floor(this.time);
    return { sec, nanosec: Math.round((this.time - sec) * 1e9) };
  }

  // ---- where things are (detections, evaluator) ----------------------------------------------------------------------

  /** In the gripper, on another block (centre about one block above it and over it), or in the basket. */
  locate(label: string): { relation: "in" | "on" | "held_by"; place: string } {
    const i = COLORS.findIndex((c) => blockName(c) === label);
    if (i < 0) return { relation: "in", place: "basket" };
    if (i === this.heldIndex()) return { relation: "held_by", place: "gripper" };
    const position = this.blockPos(this.blocks[i]);
    for (let j = 0; j < 3; j++) {
      if (j === i) continue;
      const other = this.blockPos(this.blocks[j]);
      const dz = position[2] - other[2];
      if (
        Math.hypot(position[0] - other[0], position[1] - other[1]) < BLOCK_SIZE * 0.75 &&
        dz > BLOCK_SIZE * 0.7 &&
        dz < BLOCK_SIZE * 1.3
      )
        return { relation: "on", place: labelOf(j) };
    }
    return { relation: "in", place: "basket" };
  }

  cameraPose(): CameraPose {
    return blocksCameraPose();
  }

  renderFrame(): Frame {
    return this.camera.renderFrame();
  }

  async renderCamera(
    robot = "arm",
  ): Promise<{ camera: string; frame: Frame; image: Buffer; depth: Buffer; detections: BlocksDetections }> {
    if (robot !== "arm") throw new Error(`no robot ${robot}`);
    return this.camera.render(this.view);
  }

  /** The true state for a scorer: where each block is, what is held, and the skills whose reward exceeds 0.95 now. */
  evaluate(literals?: readonly string[]): {
    seed: number;
    state: Record<string, string>;
    satisfied: string[];
    rewards: Record<string, number>;
  } {
    if (literals)
      throw new Error("the blocks world has no goal of its own to check: it reports each skill's reward (satisfied)");
    const current = this.state();
    const rewards = allRewards(current);
    const state: Record<string, string> = {};
    for (const c of COLORS) {
      const where = this.locate(blockName(c));
      state[blockName(c)] =
        `${where.relation} ${where.place} at ${current.blocks[c].map((v) => v.toFixed(3)).join(", ")}`;
    }
    state.holding = current.held ? blockName(current.held) : "nothing";
    return {
      seed: this.layout.seed,
      state,
      satisfied: SKILL_IDS.filter((_, i) => rewards[i] > 0.95),
      rewards: Object.fromEntries(SKILL_IDS.map((k, i) => [k, rewards[i]])),
    };
  }

  /** Positions of the blocks (tests). */
  blockPositions(): Record<string, number[]> {
    return Object.fromEntries(COLORS.map((c, i) => [c, this.blockPos(this.blocks[i])]));
  }

  hasNaN(): boolean {
    return (this.data.qpos as Float64Array).some((v) => !Number.isFinite(v));
  }
}
