/**
 * The offline reader scored on its own, without a simulator: each row's instruction read into a goal with the world
 * description a simulator publishes (its names and their wordings) and the robots' manifests, compared with the row's
 * goal. Fast enough for a unit test, and the figure docs/instructions.md gives for the tune and held-back sets.
 *
 *     npx tsx evals/instructionReading.ts instructions-tune                          # the figure, and each misread row
 *     npx tsx evals/instructionReading.ts --counts-only instructions-heldout         # counts per world and per set, no rows
 *
 * A held-back set is scored with --counts-only: its rows are not to be seen, nor which of them were misread.
 */
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { readInstruction, lexicon, notUnderstoodMessage } from "../models/reasoning/language";
import { goalLiterals, readTabletopGoal } from "../graphs/replan/reasoner";
import { WorldDescription } from "../robots/manifests/schema";
import { bundledManifests } from "../robots/manifests";
import { describeKitchen } from "../robots/sim/kitchen/layout";
import { describeScene } from "../robots/sim/tabletop/scenario";
import { buildScene, type SceneName } from "../robots/sim/tabletop/scenes";
import { datasetPath, loadDataset, type DatasetRow } from "./datasets";

/** The kitchen as its simulator describes it, without starting the simulator. */
export const kitchenDescription = (): WorldDescription => WorldDescription.parse(describeKitchen());

const sceneDescription = (scene: string) => WorldDescription.parse(describeScene(buildScene(scene as SceneName)));

export interface Reading {
  id: string;
  world: "kitchen" | "tabletop";
  text: string;
  ok: boolean;
  /** The goal read, or why none was. */
  reading: string;
}

/**
 * Reads each row of a dataset (kitchen and tabletop rows). A kitchen row is read right when it reads as exactly its
 * goal literals with nothing not understood; a tabletop row when it reads as its canonical instruction (kept in the
 * row's metadata) reads, and, where that reading fixes literals, as the row's goal.
 */
export function readDataset(name: string): Reading[] {
  const canonical = new Map(
    readFileSync(datasetPath(name), "utf8")
      .trim()
      .split("\n")
      .map((line) => {
        const record = JSON.parse(line) as { metadata: { task: string; condition: string; canonical?: string } };
        return [`${record.metadata.task}__${record.metadata.condition}`, record.metadata.canonical];
      }),
  );
  const kitchen = kitchenDescription();
  const kitchenLex = lexicon(kitchen, bundledManifests("kitchen"));
  return loadDataset(name).map((row: DatasetRow) => {
    const ex = row.example;
    if (ex.inputs.world === "course" || !("goal" in ex.outputs))
      throw new Error(`${row.id}: only kitchen and tabletop rows are read`);
    const expected = ex.outputs.goal;
    if (ex.inputs.world === "kitchen") {
      const readResult = readInstruction(
        ex.inputs.goal,
        kitchen.labels,
        kitchen.places.map((p) => p.name),
        kitchenLex,
      );
      const ok =
        readResult.notUnderstood.length === 0 &&
        JSON.stringify([...readResult.goals].sort()) === JSON.stringify([...expected].sort());
      return {
        id: row.id,
        world: "kitchen" as const,
        text: ex.inputs.goal,
        ok,
        reading: readResult.notUnderstood.length
          ? notUnderstoodMessage(readResult, kitchenLex)
          : readResult.goals.join(", "),
      };
    }
    const scene = sceneDescription(ex.inputs.scenario as string);
    const mine = readTabletopGoal(ex.inputs.goal, scene);
    const want = canonical.get(row.id);
    const theirs = want ? readTabletopGoal(want, scene).goal : undefined;
    const literals = mine.goal ? goalLiterals(mine.goal, scene) : [];
    // Right when it reads as the canonical instruction does, or as a goal checked by exactly the row's literals ("put the
    // red block in the crate" for "the cube of the crate's colour", which is red: the same check, said outright).
    const same = JSON.stringify(mine.goal) === JSON.stringify(theirs);
    const ok =
      !!mine.goal &&
      (literals.length
        ? JSON.stringify(literals) === JSON.stringify(expected) &&
          (same || !theirs || !goalLiterals(theirs, scene).length)
        : !theirs || same);
    return {
      id: row.id,
      world: "tabletop" as const,
      text: ex.inputs.goal,
      ok,
      reading: mine.goal ? JSON.stringify(mine.goal) : mine.message!,
    };
  });
}

/** The held-back set, for the message when it is not there. */
export const HELD_BACK = "instructions-heldout";
export const heldBackPath = () => `evals/datasets/${HELD_BACK}.jsonl`;
/** Whether the held-back set is there (not read: its rows are not to be seen). */
export const hasHeldBack = () => existsSync(new URL(`./datasets/${HELD_BACK}.jsonl`, import.meta.url));

/** "right/total (percent)". */
const count = (rs: Reading[]) => {
  const right = rs.filter((r) => r.ok).length;
  return `${right}/${rs.length} read right (${rs.length ? Math.round((100 * right) / rs.length) : 0}%)`;
};

/**
 * "31/40 read right (78%)", the same per world, and — unless countsOnly, as for a held-back set — a line for each row
 * read wrong.
 */
export function readingReport(name: string, readings: Reading[], countsOnly = false): string {
  const lines = [`${name}: ${count(readings)}`];
  for (const world of ["kitchen", "tabletop"] as const) {
    const rs = readings.filter((r) => r.world === world);
    if (rs.length) lines.push(`  ${world}: ${count(rs)}`);
  }
  // Per set it was written in ("h7", "h8", "h9": the condition's prefix), when there is more than one.
  const setOf = (r: Reading) => /__([a-z]+\d+)_\d+$/.exec(r.id)?.[1];
  const sets = [...new Set(readings.map(setOf).filter((x): x is string => !!x))];
  if (sets.length > 1)
    for (const set of sets) lines.push(`  set ${set}: ${count(readings.filter((r) => setOf(r) === set))}`);
  if (!countsOnly)
    for (const r of readings.filter((x) => !x.ok)) lines.push(`  misread ${r.id}: "${r.text}" → ${r.reading}`);
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const countsOnly = args.includes("--counts-only");
  for (const name of args.filter((a) => a !== "--counts-only")) {
    // The held-back set prints counts only, whatever the flag says.
    const heldBack = name === HELD_BACK || relative(process.cwd(), name) === heldBackPath();
    if (heldBack && !hasHeldBack()) {
      console.error(`no held-back set: ${heldBackPath()}`);
      process.exitCode = 1;
      continue;
    }
    console.log(readingReport(name, readDataset(name), countsOnly || heldBack));
  }
}
