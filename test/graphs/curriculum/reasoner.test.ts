/**
 * The offline curriculum reasoner on hand-built prompt contexts and on rendered plots: it understands every skill
 * caption of the blocks world, proposes one rung past its best success, decomposes over the skills' effects, retrieves
 * by caption, and reads learning curves back from PNG pixels (rising, plateau, degenerating, too short — and the early
 * plateau that fools it, as it fooled the paper's model).
 */
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { contextBlock } from "../../../models/context";
import { SymbolicChatModel } from "../../../models/symbolic";
import { NO_NOISE } from "../../../models/symbolic/noise";
import {
  decomposeTask,
  judgeCurve,
  proposeTask,
  readCurvePng,
  retrieveSkill,
  stepText,
  understand,
} from "../../../graphs/curriculum/reasoner";
import { ConvergenceVerdict, type ProposeContext, type SeenBlock } from "../../../graphs/curriculum/schemas";
import { SKILLS, BASE_SKILLS, skillInfo } from "../../../robots/manifests/blocks/skills";
import { renderCurve } from "../../../graphs/curriculum/nodes/plot";
import { EXEMPLARS } from "../../../graphs/curriculum/nodes/exemplars";
import { allReasoners } from "../../../graphs";

const draw = (xs: number[]) => {
  let i = 0;
  return { next: () => xs[i++ % xs.length] };
};
const never = () => draw([0.99]);
const BASE = BASE_SKILLS.map((id) => skillInfo(id).caption);
const BLOCKS: SeenBlock[] = [
  { label: "red", u: 100, v: 120, on: "basket" },
  { label: "green", u: 160, v: 130, on: "basket" },
  { label: "blue", u: 220, v: 110, on: "basket" },
];
const proposing = (over: Partial<ProposeContext> = {}): ProposeContext => ({
  blocks: BLOCKS,
  library: BASE,
  succeeded: [],
  failed: [],
  proposedBefore: [],
  ...over,
});

describe("the curriculum reasoner's language", () => {
  it("understands every skill caption of the blocks world and writes it back word for word", () => {
    for (const s of SKILLS) {
      const understood = understand(s.caption);
      expect(understood, s.caption).toBeDefined();
      expect(stepText(understood!)).toBe(s.caption);
    }
  });
});

describe("propose", () => {
  it("starts with reaching a block; once reaching works, lifting (its plan lacks one skill) comes before anything lacking two", () => {
    expect(proposeTask(proposing(), NO_NOISE, never()).task).toMatch(/^reach the (red|green|blue) block$/);
    const after = proposeTask(
      proposing({ succeeded: ["reach the red block"], proposedBefore: ["reach the red block"] }),
      NO_NOISE,
      never(),
    );
    expect(understand(after.task)?.kind).toBe("lift");
    expect(after.reasoning).toContain("reach red");
  });

  it("has no table of difficulty: a task whose plan the library already covers comes before one that lacks a skill", () => {
    // Two stacks are skills already; nothing but reaching has been done. A ladder would say "lift next" (it lacks one).
    const proposal = proposeTask(
      proposing({
        library: [...BASE, "stack green on blue", "stack red on green"],
        succeeded: ["reach the red block"],
        proposedBefore: ["reach the red block"],
      }),
      NO_NOISE,
      never(),
    );
    expect(["put the green block on top of the blue block", "put the red block on top of the green block"]).toContain(
      proposal.task,
    );
    expect(proposal.reasoning).toMatch(/every step of its plan is a skill the robot has/);
    // A stack that worked shows its reach, grasp and lift work: none of those is proposed as new.
    const after = proposeTask(
      proposing({
        library: [...BASE, "lift red", "above green"],
        succeeded: ["put the red block on top of the green block"],
        proposedBefore: [],
      }),
      NO_NOISE,
      never(),
    );
    expect(["reach", "lift", "hold_above", "on"]).not.toContain(understand(after.task)?.kind);
  });

  it("does not propose again what was discarded for a skill the library still lacks, and does once it has it", () => {
    const failed = ["pick up the red block (no skill for: lift red)"];
    const blocked = proposeTask(
      proposing({
        succeeded: ["reach the red block"],
        failed,
        proposedBefore: ["reach the red block", "pick up the red block"],
      }),
      NO_NOISE,
      never(),
    );
    expect(understand(blocked.task)?.kind).not.toBe("lift");
    const unblocked = proposeTask(
      proposing({
        library: [...BASE, "lift red"],
        succeeded: ["reach the red block"],
        failed,
        proposedBefore: ["reach the red block", "pick up the red block"],
      }),
      NO_NOISE,
      never(),
    );
    expect(understand(unblocked.task)?.kind).toBe("lift");
  });

  it("never proposes what the image already shows done, and may build on a stack", () => {
    const stacked: SeenBlock[] = [BLOCKS[0], { ...BLOCKS[1], on: "blue" }, BLOCKS[2]];
    const library = [...BASE, "lift red", "lift green", "lift blue", "above red", "above green", "above blue"];
    const seen = new Set<string>();
    for (let k = 0; k < 12; k++) {
      const proposal = proposeTask(
        proposing({ blocks: stacked, library, succeeded: ["hold the red block above the green block"] }),
        NO_NOISE,
        draw([k / 12]),
      );
      const understood = understand(proposal.task)!;
      seen.add(stepText(understood));
      // Green already rests on blue.
      expect(stepText(understood)).not.toBe("stack green on blue");
    }
    // Red on green (on blue) is a task of one stacking: a tower begun.
    const onStack = decomposeTask(
      {
        proposal: "build a tower with the red block on top of the green block on top of the blue block",
        blocks: stacked,
        library: [...library, "stack red on green"],
      },
      NO_NOISE,
      never(),
    );
    expect(onStack.steps).toEqual(["stack red on green"]);
  });

  it("from a stacked start, never moves or builds on a covered block without taking off what rests on it first", () => {
    const starts: SeenBlock[][] = [
      [BLOCKS[0], { ...BLOCKS[1], on: "blue" }, BLOCKS[2]],
      [{ ...BLOCKS[0], on: "green" }, { ...BLOCKS[1], on: "blue" }, BLOCKS[2]],
      [{ ...BLOCKS[0], on: "blue" }, BLOCKS[1], BLOCKS[2]],
    ];
    const libraries = [
      BASE,
      [...BASE, "lift red", "lift green", "lift blue", "above red", "above green", "above blue"],
      [...BASE, ...SKILLS.filter((s) => s.family === "stack").map((s) => s.caption)],
    ];
    let checked = 0;
    for (const blocks of starts) {
      for (const library of libraries) {
        for (let k = 0; k < 10; k++) {
          const proposal = proposeTask(proposing({ blocks, library }), NO_NOISE, draw([k / 10]));
          const plan = decomposeTask({ proposal: proposal.task, blocks, library }, NO_NOISE, never()).steps.map(
            (step) => understand(step)!,
          );
          // Replay the plan on what rests on what: a block is grasped (reach-grasp-lift, hold above, stack, unstack of
          // it) or built on only when nothing rests on it.
          const on = new Map(blocks.map((b) => [b.label, b.on!]));
          const covered = (b: string, except?: string) => [...on].some(([x, under]) => under === b && x !== except);
          for (const g of plan) {
            const moved =
              "x" in g && ["lift", "hold_above", "on", "place", "unstack"].includes(g.kind) ? g.x : undefined;
            if (moved)
              expect(covered(moved), `${proposal.task}: ${stepText(g)} with something on ${moved}`).toBe(false);
            if ((g.kind === "on" || g.kind === "place") && "y" in g)
              expect(covered(g.y, g.x), `${proposal.task}: ${stepText(g)} onto a covered block`).toBe(false);
            if (g.kind === "unstack") on.set(g.x, "basket");
            if (g.kind === "on" || g.kind === "place") on.set(g.x, g.y);
            if (g.kind === "lift" || g.kind === "hold_above") on.set(g.x, "gripper");
            checked++;
          }
          // Nothing proposed that the image already shows done.
          const understood = understand(proposal.task)!;
          if (understood.kind === "on")
            expect(
              on.get(understood.x) === understood.y &&
                blocks.find((b) => b.label === understood.x)?.on === understood.y,
            ).toBe(false);
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
    // Once reaching works, the first thing proposed from a stack: taking the top block off (a new skill to learn).
    const first = proposeTask(proposing({ blocks: starts[0], succeeded: ["reach the red block"] }), NO_NOISE, never());
    expect(understand(first.task)).toEqual({ kind: "unstack", x: "green", y: "blue" });
    const lift = decomposeTask(
      { proposal: "pick up the blue block", blocks: starts[1], library: BASE },
      NO_NOISE,
      never(),
    );
    expect(lift.steps).toEqual([
      "unstack red from green",
      "unstack green from blue",
      "reach blue",
      "grasp anything",
      "lift blue",
    ]);
  });
});

describe("decompose and retrieve", () => {
  it("plans over the skills' effects: missing steps are named plainly, a skill that does it all is used whole", () => {
    const base = decomposeTask(
      { proposal: "put the red block on top of the green block", blocks: BLOCKS, library: BASE },
      NO_NOISE,
      never(),
    );
    expect(base.steps).toEqual(["reach red", "grasp anything", "lift red", "above green", "open gripper"]);
    const grown = decomposeTask(
      {
        proposal: "put the red block on top of the green block",
        blocks: BLOCKS,
        library: [...BASE, "stack red on green"],
      },
      NO_NOISE,
      never(),
    );
    expect(grown.steps).toEqual(["stack red on green"]);
    const tower = decomposeTask(
      {
        proposal: "build a tower with the red block on top of the green block on top of the blue block",
        blocks: BLOCKS,
        library: [...BASE, "stack green on blue", "stack red on green"],
      },
      NO_NOISE,
      never(),
    );
    expect(tower.steps).toEqual(["stack green on blue", "stack red on green"]);
  });

  it("retrieves a step by its caption, and nothing for a step no skill does", () => {
    expect(retrieveSkill({ step: "reach red", library: BASE }, NO_NOISE, never()).skill).toBe("reach red");
    expect(retrieveSkill({ step: "lift red", library: BASE }, NO_NOISE, never()).skill).toBeNull();
    // A whole task in other words, against the rewardable skills (what a missing skill is proposed as).
    expect(
      retrieveSkill(
        { step: "put the red block on top of the green one", library: SKILLS.map((s) => s.caption) },
        NO_NOISE,
        never(),
      ).skill,
    ).toBe("stack red on green");
    // The seeded fault: the same kind of skill on another block.
    expect(
      retrieveSkill({ step: "reach red", library: BASE }, { ...NO_NOISE, wrongRetrieval: 1 }, draw([0])).skill,
    ).toBe("reach green");
  });
});

describe("the analyst reads plots", () => {
  const plot = (returns: number[], horizon = 8) =>
    renderCurve({ title: "lift red", returns: returns.map((r) => r * 80), maxReturn: 80, horizon });

  it("reads the curve back from the PNG's pixels", async () => {
    const read = await readCurvePng(await plot([0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1]));
    expect(read.from).toBeLessThan(0.02);
    expect(read.to).toBeGreaterThan(0.97);
    expect(read.values[0]).toBeLessThan(0.05);
    // A quarter of the way along is iteration 2 of 8, where the curve is at half the maximum.
    expect(read.values[Math.floor(read.values.length / 4)]).toBeGreaterThan(0.44);
    expect(read.values[Math.floor(read.values.length / 4)]).toBeLessThan(0.56);
    expect(read.values.at(-1)).toBeGreaterThan(0.95);
  });

  it("judges the exemplar shapes as their verdicts say: rising no, plateau yes, degenerating yes, rising again no, too short no", async () => {
    for (const e of EXEMPLARS) {
      const verdict = judgeCurve(
        await readCurvePng(await renderCurve({ title: "x", returns: e.returns, maxReturn: 80, horizon: 8 })),
      );
      expect(verdict.converged, e.reasoning).toBe(e.converged);
    }
  });

  it("is fooled by an early plateau, and sees nothing learned in a flat line at zero", async () => {
    const early = judgeCurve(await readCurvePng(await plot([0.05, 0.3, 0.4, 0.41, 0.4, 0.4, 0.41])));
    expect(early.converged).toBe(true);
    const flat = judgeCurve(await readCurvePng(await plot([0, 0, 0, 0.01, 0, 0])));
    expect(flat.converged).toBe(false);
    // Flat from the start, above zero: no progress, not convergence.
    const stuck = judgeCurve(await readCurvePng(await plot([0.07, 0.07, 0.07, 0.07, 0.07, 0.07])));
    expect(stuck.converged).toBe(false);
  });

  it("answers through the chat-model interface from the PNG the prompt carries, and the verdict fits the schema", async () => {
    const model = new SymbolicChatModel(allReasoners(), 0, NO_NOISE);
    const png = await plot([0.02, 0.1, 0.2, 0.35, 0.5]);
    const ctx = {
      skill: "lift red",
      axes: { xMax: 8, yMax: 80, xLabel: "learner iterations", yLabel: "evaluation return" },
      exemplars: [],
      plotPng: png.toString("base64"),
    };
    const out = await model.invoke([new HumanMessage(contextBlock("analyse_curve", ctx))]);
    const verdict = ConvergenceVerdict.parse(JSON.parse(String(out.content)));
    expect(verdict.converged).toBe(false);
    await expect(
      model.invoke([new HumanMessage(contextBlock("analyse_curve", { ...ctx, plotPng: undefined }))]),
    ).rejects.toThrow(/reads the plot's pixels/);
  });
});
